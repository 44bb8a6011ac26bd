"""Plays a whole match on a running service with a client generated from
openapi/openapi.json by openapi-python-client (config: ``literal_enums: true``): Ana
against Bruno, a greedy computer player; Ana plays her first legal move until the match
is over, then reads the log on from the last ``seq`` she saw. tests/test_py_client.py
type-checks it with ``mypy --strict`` and checks that it needs no ``cast``, no
``type: ignore`` and no ``Any``: the contract's types are enough. It prints one JSON line.

Usage: python driver.py <base URL>
"""

from __future__ import annotations

import json
import sys
from collections import Counter

from scopa_client import AuthenticatedClient, Client
from scopa_client.api.games import (
    create_game,
    get_event_log,
    get_game,
    list_legal_moves,
    play_bot_turns,
    play_move,
)
from scopa_client.models import (
    BotMoves,
    CreateGame,
    EventLog,
    GameCreated,
    GameView,
    MoveRequest,
    MoveResult,
    Problem,
    SeatMoves,
    SeatSpec,
)
from scopa_client.types import Unset

seen: Counter[str] = Counter()


def tell(answer: GameCreated | MoveResult | BotMoves | EventLog) -> list[str]:
    """What each event of ``answer`` tells, narrowed by its ``type``."""
    told = []
    for event in answer.events:
        seen[event.type_] += 1
        if event.type_ == "move":
            told.append(f"seat {event.seat} plays {event.card}{': scopa' if event.scopa else ''}")
        elif event.type_ == "hand_over":
            told.append(f"hand {event.hand} over: {'-'.join(map(str, event.score.scores))}")
        elif event.type_ == "match_over":
            told.append(f"team {event.winner} wins {'-'.join(map(str, event.scores))}")
        else:
            told.append(event.type_)
    return told


def main(base_url: str) -> None:
    anyone = Client(base_url=base_url)
    created = create_game.sync(
        client=anyone,
        body=CreateGame(seats=[SeatSpec(name="Ana"), SeatSpec(name="Bruno", bot="greedy")]),
    )
    if not isinstance(created, GameCreated):
        raise SystemExit(f"createGame: {created}")
    token = created.seats[0].token
    if token is None:
        raise SystemExit("Ana has no token")
    ana = AuthenticatedClient(base_url=base_url, token=token)
    game = created.id

    # A card on the table is not in Ana's hand: the move is refused, with a typed problem.
    if created.state.table:
        refused = play_move.sync(game, client=ana, body=MoveRequest(card=created.state.table[0]))
        if not isinstance(refused, Problem) or refused.type_ != "/problems/illegal-move":
            raise SystemExit(f"not refused: {refused}")

    told = tell(created)
    # The `seq` of the first event an answer to Ana's moves carried: the log is read on
    # from there at the end.
    mark: int | None = None
    state: GameView = created.state
    moves = 0
    while state.status != "finished":
        legal = list_legal_moves.sync(game, client=ana)
        if not isinstance(legal, SeatMoves):
            raise SystemExit(f"listLegalMoves: {legal}")
        if not legal.moves:
            # Bruno's turn, past his allowance in the request that gave it: let him play
            # (with a seat's token, which a game without spectators would need).
            bots = play_bot_turns.sync(game, client=ana)
            if isinstance(bots, BotMoves):
                told += tell(bots)
                state = bots.state
            continue
        first = legal.moves[0]
        played = play_move.sync(
            game,
            client=ana,
            body=MoveRequest(card=first.card, capture=first.capture),
            if_match=f'"{state.version}"',
        )
        if not isinstance(played, MoveResult):
            raise SystemExit(f"playMove: {played}")
        moves += 1
        told += tell(played)
        if mark is None and played.events:
            mark = played.events[0].seq
        state = played.state

    # The view as Ana sees it now, and the log: all of it, then what follows `mark`.
    view = get_game.sync(game, client=ana)
    if not isinstance(view, GameView):
        raise SystemExit(f"getGame: {view}")
    log = get_event_log.sync(game, client=ana)
    if not isinstance(log, EventLog):
        raise SystemExit(f"getEventLog: {log}")
    if mark is None:
        raise SystemExit("no answer to Ana's moves carried an event")
    after = get_event_log.sync(game, client=ana, after=mark)
    if not isinstance(after, EventLog):
        raise SystemExit(f"getEventLog after {mark}: {after}")
    print(
        json.dumps(
            {
                "game": game,
                "status": view.status,
                "winner": view.winner,
                "scores": [team.score for team in view.teams],
                "hand": None if isinstance(view.hand, Unset) else view.hand,
                "moves": moves,
                "events": dict(seen),
                "logged": len(log.events),
                "mark": mark,
                "after": [event.seq for event in after.events],
                "last": told[-1],
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1])
