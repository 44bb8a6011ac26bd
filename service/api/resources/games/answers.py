"""The answers of /v1/games, built from a game or a step: every card in them goes
through ``service.engine.views``, which decides what each viewer may see."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from flask import url_for

from ....engine import Event, Status, event_view, get_variant, match_view, move_view
from ....engine.match import team_of_seats
from ....engine.rules import OPTIONS
from ....play import Creation, Game, Joining, Lobby, Step, join_code
from ...context import server_secret
from ...problems import etag
from ...schemas import declarations_view
from ...service_keys import requesting_key


def view_of(game: Game, seat: int | None) -> dict[str, Any]:
    """The game as ``seat`` sees it (a spectator: None). Each seat's ``player_id`` is
    shown to the service key that created the game (whatever seat it reads as) and to
    that seat's own token, to nobody else."""
    match = game.match
    shown = lobby_view(game.lobby, seat) if match is None else match_view(match, seat)
    view = {"id": game.id, "version": game.version, "seq": game.logged - 1, **shown}
    view["rules"] = rules_view(view["variant"], view["rules"])
    keyed = game.owner is not None  # (a game created without a key has no player ids)
    owner = keyed and requesting_key() == game.owner
    for entry, level in zip(view["seats"], game.bots, strict=True):
        entry["bot"] = level
        entry["open"] = entry["name"] is None
        if keyed and (owner or entry["seat"] == seat):
            entry["player_id"] = game.player_id(entry["seat"])
    if game.aborted is not None:
        view["status"] = Status.ABORTED
        view["turn"] = None
    view["join"] = None  # the seated may pass the code on; nobody else sees it
    if game.lobby is not None and seat is not None:
        code = join_code(server_secret(), game.id, game.join_generation)
        view["join"] = join_answer(game.id, code)
    view["spectators"] = game.spectators
    clock = game.clock
    view["clock"] = None if clock is None else {"seconds": clock, "deadline": utc(game.deadline)}
    view["previous"] = game.previous
    view["next"] = game.next
    view["abort_reason"] = game.aborted
    view["start_at"] = utc(game.start_at)
    view["metadata"] = game.metadata
    return view


def summary_of(game: Game) -> dict[str, Any]:
    """A game as its key's listing shows it: from the view of the key that created it
    (every seat's player id)."""
    view = view_of(game, None)
    return {
        "id": game.id,
        "version": game.version,
        "status": view["status"],
        "variant": view["variant"],
        "created_at": utc(game.created_at),
        "seats": [
            {
                "seat": seat["seat"],
                "name": seat["name"],
                "bot": seat["bot"],
                "player_id": seat.get("player_id"),
            }
            for seat in view["seats"]
        ],
        "scores": [team["score"] for team in view["teams"]],
        "winner": view["winner"],
        "abort_reason": view["abort_reason"],
        "metadata": view["metadata"],
    }


def variant_of(game: Game) -> str:
    """The game's variant's name (its lobby's, while it waits for people)."""
    if game.match is None:
        assert game.lobby is not None, "a game has a match or a lobby"
        return str(game.lobby.setup["variant"])
    return game.match.variant.name


def rules_view(variant: str, rules: dict[str, Any]) -> dict[str, Any]:
    """A match's rules as its views show them: every option of its variant, those left
    at their defaults included (the stored rules leave Cirulla's out)."""
    shown = dict(rules)
    for name in get_variant(variant).extra_options:
        shown.setdefault(name, OPTIONS[name].default)
    return shown


def utc(moment: float | None) -> str | None:
    """A UNIX time as RFC 3339 text in UTC, to the millisecond."""
    if moment is None:
        return None
    text = datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def lobby_view(lobby: Lobby | None, seat: int | None) -> dict[str, Any]:
    """A game waiting for people, as a match view with nothing dealt: open seats have no
    name, nobody has a card, the turn is nobody's."""
    assert lobby is not None, "a game has a match or a lobby"
    setup = lobby.setup
    teams = team_of_seats(len(lobby.names))
    view: dict[str, Any] = {
        "variant": setup["variant"],
        "status": Status.WAITING,
        "target": setup["target"],
        "rules": setup["rules"],
        "seeded": setup["seed"] is not None or setup["deck"] is not None,
        "hand_number": 0,
        "dealer": setup["first_dealer"],
        "turn": None,
        "table": [],
        "stock_count": 0,
        "you": seat,
        "seats": [
            {
                "seat": index,
                "name": name,
                "team": teams[index],
                "hand_count": 0,
                "captured_count": 0,
                "scopas": 0,
            }
            for index, name in enumerate(lobby.names)
        ],
        "teams": [
            {"team": team, "seats": [s for s, t in enumerate(teams) if t == team], "score": 0}
            for team in range(max(teams) + 1)
        ],
        "last_move": None,
        "winner": None,
    }
    if seat is not None:
        view["hand"] = []
    return view


def events_for(events: list[Event], seat: int | None, first: int) -> list[Event]:
    """``events`` as ``seat`` may see them, numbered with their ``seq`` from ``first``
    (their position in the game's log)."""
    return [{"seq": first + i, **event_view(e, seat)} for i, e in enumerate(events)]


def created(creation: Creation, tokens: list[str | None]) -> dict[str, Any]:
    """The answer to a creation: each seat (with ``tokens``), the computer players'
    opening moves and the spectator's view."""
    game = creation.game
    state = view_of(game, None)
    return {
        "id": game.id,
        "version": game.version,
        "seats": [
            {
                "seat": seat["seat"],
                "name": seat["name"],
                "team": seat["team"],
                "bot": seat["bot"],
                "open": seat["open"],
                "token": tokens[seat["seat"]],
                **({"player_id": seat["player_id"]} if "player_id" in seat else {}),
            }
            for seat in state["seats"]
        ],
        "join": None if creation.join_code is None else join_answer(game.id, creation.join_code),
        "events": events_for(creation.bot_events, None, creation.opening),
        "state": state,
    }


def join_answer(game_id: str, code: str) -> dict[str, Any]:
    """How people take a game's open seats: its code, where a client sends it, and a
    link a person can open (the service's own page, /play)."""
    return {
        "code": code,
        "url": url_for("games.JoinGame", game_id=game_id),
        "link": "/play?" + urlencode({"game": game_id, "code": code}),
    }


def joined(joining: Joining) -> dict[str, Any]:
    """The answer to a person who took a seat: the seat, its token, the seat's view."""
    state = view_of(joining.game, joining.seat)
    seat = state["seats"][joining.seat]
    return {
        "id": joining.game.id,
        "seat": joining.seat,
        "name": seat["name"],
        "team": seat["team"],
        "token": joining.token,
        "state": state,
    }


def created_headers(game_id: str, version: int) -> dict[str, str]:
    return {"Location": url_for("games.GameItem", game_id=game_id), **etag(version)}


def moved(step: Step, seat: int) -> dict[str, Any]:
    """The answer to ``seat``'s move: the move, what followed it, the seat's view."""
    move, *after = step.events
    return {
        "move": {k: v for k, v in move.items() if k != "type"},
        "events": events_for(after, seat, step.first_seq + 1),
        "state": view_of(step.game, seat),
    }


def declared(step: Step, seat: int) -> dict[str, Any]:
    """The answer to ``seat``'s declaration: the declaration's event and the seat's view."""
    (declaration,) = events_for(step.events, seat, step.first_seq)
    return {"declaration": declaration, "state": view_of(step.game, seat)}


def legal_declarations(game: Game, seat: int) -> list[dict[str, Any]]:
    """What ``seat`` may declare now (Cirulla, C3), as entries to send back as they are."""
    match = game.match
    return [] if match is None else declarations_view(match.legal_declarations(seat))


def legal_moves(game: Game, seat: int) -> list[dict[str, Any]]:
    """``seat``'s legal moves now, as clients see them; empty when it is not its turn."""
    match = game.match
    if match is None:  # waiting for people: nothing is dealt
        return []
    return [move_view(m, match.table) for m in match.legal_moves(seat)]
