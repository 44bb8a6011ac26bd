"""The examples the spec shows, by operationId: one exchange with the service, the match
of docs/api.md. Ana creates a match against Bruno, a `greedy` computer player, from a
given deck; she reads her view and her legal moves, plays the settebello without saying
what it takes (422: it can take two ways), then says which; Bruno answers at once.
And the same two at Cirulla, where Ana declares her cards before she plays.

Every value is what the service answers (but the game id and Ana's token, which are
random): tests/test_openapi.py replays the exchange and compares, and checks every example
against its schema in the spec. :class:`~.blueprint.Blueprint` puts them in the spec.
"""

from __future__ import annotations

import json
from typing import Any

from ..engine import Match, Status
from ..play.game import Game
from ..play.records import record_of

GAME_ID = "IQXvjVesTzUolFf46urnQg"
#: Ana's seat token.
TOKEN = "2mOwNUT20lIcN-wKACu-CV8APgi-_gBo"

#: With ``first_dealer`` 1, seat 0 is dealt the first three cards, seat 1 the next three
#: and the table the four after those; the stock is the rest.
DECK = [
    "7D", "3C", "10S", "5B", "2S", "9C", "4D", "3B", "6C", "1S",
    "1D", "2D", "3D", "4C", "5D", "6D", "8D", "9D", "10D", "1C",
    "2C", "5C", "7C", "8C", "9S", "10C", "1B", "2B", "4B", "6B",
    "7B", "8B", "9B", "10B", "3S", "4S", "5S", "6S", "7S", "8S",
]  # fmt: skip
CREATE = {
    "seats": [{"name": "Ana"}, {"name": "Bruno", "bot": "greedy"}],
    "first_dealer": 1,
    "deck": DECK,
}
RULES = {
    "re_bello": False,
    "napola": False,
    "napoleone": False,
    "forced_capture": "card",
    "dealer_last_sweep": False,
}
TEAMS = [{"team": 0, "seats": [0], "score": 0}, {"team": 1, "seats": [1], "score": 0}]


def _seats(
    ana: tuple[int, int], bruno: tuple[int, int], **cirulla: list[Any]
) -> list[dict[str, Any]]:
    """The seats of a view, from each seat's (cards in hand, cards captured); in
    Cirulla, each seat's ``exposed`` cards and ``declared_points`` (a list by seat)."""
    seats: list[dict[str, Any]] = [
        {
            "seat": seat,
            "name": name,
            "open": False,
            "bot": bot,
            "team": seat,
            "hand_count": counts[0],
            "captured_count": counts[1],
            "scopas": 0,
        }
        for seat, (name, bot, counts) in enumerate([("Ana", None, ana), ("Bruno", "greedy", bruno)])
    ]
    for key, by_seat in cirulla.items():
        for seat, value in zip(seats, by_seat, strict=True):
            seat[key] = value
    return seats


def _view(version: int, you: int | None, **changes: Any) -> dict[str, Any]:
    """The game as ``you`` sees it (None: a spectator) at ``version``, as first dealt
    but for ``changes``."""
    view: dict[str, Any] = {
        "id": GAME_ID,
        "version": version,
        "seq": 1,  # the match's start and its first deal
        "variant": "scopa",
        "status": "playing",
        "target": 11,
        "rules": RULES,
        "seeded": True,
        "hand_number": 1,
        "dealer": 1,
        "turn": 0,
        "table": ["1S", "3B", "4D", "6C"],
        "stock_count": 30,
        "you": you,
        "hand": ["3C", "7D", "10S"],
        "seats": _seats((3, 0), (3, 0)),
        "teams": TEAMS,
        "last_move": None,
        "winner": None,
        "spectators": True,
        "rated": False,
        "clock": None,
        "join": None,
        "previous": None,
        "next": None,
        "series": {"matches": 0, "wins": [0, 0]},
        "abort_reason": None,
        "start_at": None,
        "metadata": {},
        **changes,
    }
    if you is None:
        del view["hand"]
    return view


CREATED = {
    "id": GAME_ID,
    "version": 1,
    "seats": [
        {"seat": 0, "name": "Ana", "team": 0, "open": False, "bot": None, "token": TOKEN},
        {"seat": 1, "name": "Bruno", "team": 1, "open": False, "bot": "greedy", "token": None},
    ],
    "join": None,
    "events": [],
    "state": _view(1, None),
}
LEGAL_MOVES = [
    {"card": "3C", "capture": ["3B"], "sweep": False},
    {"card": "7D", "capture": ["1S", "6C"], "sweep": False},
    {"card": "7D", "capture": ["3B", "4D"], "sweep": False},
    {"card": "10S", "capture": ["1S", "3B", "6C"], "sweep": False},
    {"card": "10S", "capture": ["4D", "6C"], "sweep": False},
]
AMBIGUOUS = {
    "type": "/problems/ambiguous-move",
    "title": "Ambiguous move",
    "status": 422,
    "detail": "7D can capture in 2 ways: say which in 'capture'",
    "legal_captures": [["1S", "6C"], ["3B", "4D"]],
}
MOVE = {"card": "7D", "capture": ["4D", "3B"]}
ANA_MOVED = {"seat": 0, "card": "7D", "capture": ["3B", "4D"], "scopa": False}
BRUNO_MOVED = {"seat": 1, "card": "9C", "capture": [], "scopa": False}
MOVED = {
    "move": ANA_MOVED,
    "events": [{"type": "move", "seq": 3, **BRUNO_MOVED}],
    "state": _view(
        2,
        0,
        seq=3,
        table=["1S", "6C", "9C"],
        hand=["3C", "10S"],
        seats=_seats((2, 3), (2, 0)),
        last_move=BRUNO_MOVED,
    ),
}
EVENT_LOG = {
    "id": GAME_ID,
    "version": 2,
    "events": [
        {
            "type": "match_started",
            "seq": 0,
            "variant": "scopa",
            "seats": [
                {"seat": 0, "name": "Ana", "team": 0},
                {"seat": 1, "name": "Bruno", "team": 1},
            ],
            "target": 11,
            "rules": RULES,
            "seeded": True,
            "dealer": 1,
        },
        {
            "type": "deal",
            "seq": 1,
            "hand": 1,
            "dealer": 1,
            "cards_each": 3,
            "table": ["1S", "3B", "4D", "6C"],
            "stock_count": 30,
            "cards": ["3C", "7D", "10S"],
        },
        {"type": "move", "seq": 2, **ANA_MOVED},
        {"type": "move", "seq": 3, **BRUNO_MOVED},
    ],
}
GAME_NOT_FOUND = {
    "type": "/problems/game-not-found",
    "title": "Game not found",
    "status": 404,
    "detail": "No game has this id: it never existed, or it expired after a long pause.",
}

#: Cirulla (docs/rules.md C3): Ana, dealt 2S 3C 4B, worth 9, declares a buona before
#: she plays; her cards go face up and it is still her turn.
CIRULLA_FIRST = ["3C", "2S", "4B", "10S", "5B", "9C", "4D", "3B", "6C", "1S"]
CIRULLA_CREATE = {
    **CREATE,
    "variant": "cirulla",
    "deck": CIRULLA_FIRST + [card for card in DECK if card not in CIRULLA_FIRST],
}
CIRULLA_RULES = {
    **RULES,
    "table_low": False,
    "auto_declare": False,
    "fewest_cards": False,
    "matta_keeps_value": False,
    "piccola_max": 6,
    "cappotto": True,
}
DECLARE = {"declare": "buona"}
ANA_HAND = ["2S", "3C", "4B"]
DECLARED = {
    "declaration": {
        "type": "declaration",
        "seq": 2,
        "hand": 1,
        "seat": 0,
        "kind": "buona",
        "matta_as": None,
        "cards": ANA_HAND,
        "points": 3,
    },
    "state": _view(
        2,
        0,
        seq=2,
        variant="cirulla",
        target=51,
        rules=CIRULLA_RULES,
        hand=ANA_HAND,
        seats=_seats((3, 0), (3, 0), exposed=[ANA_HAND, []], declared_points=[3, 0]),
    ),
}

#: Ana's first position, for the endpoints that take a position in the body.
POSITION = {"hand": ["3C", "7D", "10S"], "table": ["1S", "3B", "4D", "6C"]}
PILES = {
    "piles": [["7D", "6D", "1C", "5S", "7B", "3D"], ["2C", "4C", "6C", "10D", "9S"]],
    "scopas": [1, 0],
}
SCORE = {
    "teams": [
        {
            "team": 0,
            "captured": ["1C", "3D", "5S", "6D", "7D", "7B"],
            "cards": 6,
            "coins": 3,
            "settebello": True,
            "primiera": 73,
            "scopas": 1,
            "points": {"cards": 1, "coins": 1, "settebello": 1, "primiera": 1, "scopas": 1},
            "total": 5,
        },
        {
            "team": 1,
            "captured": ["2C", "4C", "6C", "9S", "10D"],
            "cards": 5,
            "coins": 1,
            "settebello": False,
            "primiera": None,
            "scopas": 0,
            "points": {"cards": 0, "coins": 0, "settebello": 0, "primiera": 0, "scopas": 0},
            "total": 0,
        },
    ]
}

# -- a platform's (service key's) operations: illustrations, checked against their
# schemas (tests/test_openapi.py), not replayed --------------------------------------------
PLATFORM_METADATA = {"tournament": "spring-cup", "round": "3", "table": "1"}
ABORTED = _view(
    2,
    None,
    status="aborted",
    turn=None,
    seq=2,
    abort_reason="The tournament round was cancelled.",
    metadata=PLATFORM_METADATA,
    seats=[
        {**seat, "player_id": player}
        for seat, player in zip(_seats((3, 0), (3, 0)), ("user-8812", None), strict=True)
    ],
)
LISTED = {
    "games": [
        {
            "id": GAME_ID,
            "version": 2,
            "status": "aborted",
            "variant": "scopa",
            "created_at": "2026-12-05T17:41:07.218Z",
            "seats": [
                {"seat": 0, "name": "Ana", "bot": None, "player_id": "user-8812"},
                {"seat": 1, "name": "Bruno", "bot": "greedy", "player_id": None},
            ],
            "scores": [0, 0],
            "winner": None,
            "abort_reason": "The tournament round was cancelled.",
            "metadata": PLATFORM_METADATA,
        }
    ],
    "next": "/v1/games?metadata.tournament=spring-cup&limit=1&cursor=MTc5NjMxOTY2NzIxODpJUVh2",
}
BULK_CREATED = {
    "games": [
        {
            "id": GAME_ID,
            "version": 1,
            "seats": [
                {
                    "seat": 0,
                    "name": "Ana",
                    "team": 0,
                    "open": False,
                    "bot": None,
                    "token": TOKEN,
                    "player_id": "user-8812",
                },
                {
                    "seat": 1,
                    "name": "Bruno",
                    "team": 1,
                    "open": False,
                    "bot": None,
                    "token": "Xk2Qe0b1T9d7s-vLw3mNa8pZc4Rj6Hfy",
                    "player_id": "user-1907",
                },
            ],
            "start_at": "2026-12-05T18:00:00.000Z",
        }
    ]
}

#: The request body of each operation that takes one.
REQUESTS: dict[str, Any] = {
    "createGame": CREATE,
    "playMove": MOVE,
    "declare": DECLARE,
    "joinGame": {"name": "Carla", "code": "K7M2QXPA4R"},
    "positionLegalMoves": POSITION,
    "getPositionHint": {**POSITION, "dealer": 1},
    "getPositionAnalysis": {**POSITION, "dealer": 1},
    "scoreHand": PILES,
    "sendReaction": {"emote": "applause"},
    "abortGame": {"reason": "The tournament round was cancelled."},
    "createGames": {
        "games": [
            {
                "seats": [
                    {"name": "Ana", "player_id": "user-8812"},
                    {"name": "Bruno", "player_id": "user-1907"},
                ],
                "metadata": {"tournament": "spring-cup", "round": "3", "table": str(table)},
                "clock": 60,
                "start_at": "2026-12-05T18:00:00Z",
            }
            for table in (1, 2)
        ]
    },
    "createTournament": {
        "name": "Spring cup",
        "format": "swiss",
        "rounds": 3,
        "variant": "scopa",
        "entrants": [
            {"players": [{"player_id": player, "name": name}]}
            for player, name in (
                ("user-8812", "Ana"),
                ("user-1907", "Bruno"),
                ("user-3301", "Carla"),
                ("user-4410", "Dario"),
                ("user-5127", "Elena"),
                ("user-6002", "Fabio"),
            )
        ],
        "clock": 60,
        "start_at": "2026-12-12T18:00:00Z",
        "round_starts": ["2026-12-12T19:00:00Z", "2026-12-12T20:00:00Z"],
        "rated": True,
        "metadata": {"club": "circolo-arci"},
    },
    # Carla cannot come: her game of the round is Dario's, and she is paired no more.
    "withdrawTournamentEntrant": {"entrant": 3},
    "createWebhook": {
        "url": "https://platform.example/scopa/webhooks",
        "events": ["game.over", "turn.started"],
    },
    # The receiver fixed: its endpoint enabled again, for one more event type.
    "updateWebhook": {"enabled": True, "events": ["game.over", "turn.started", "hand.over"]},
    # The old secret signs too for an hour, while the receivers move to the new one.
    "rotateWebhookSecret": {"overlap_seconds": 3600},
    # The receiver was down from 14:00: what failed since, sent again.
    "recoverWebhookDeliveries": {"since": "2026-12-03T14:00:00Z"},
}


def _record() -> dict[str, Any]:
    """The record of a short match (to 1 point, each seat playing its first legal move),
    as its key would export it."""
    match, events = Match.new(names=["Ana", "Bruno"], target=1, seed=29)
    while match.status == Status.PLAYING:
        first = match.legal_moves()[0]
        events += match.push(first)
    game = Game(
        id=GAME_ID,
        version=80,
        match=match,
        bots=(None, "greedy"),
        token_hashes=(None, None),
        owner="acme",
        player_ids=("user-8812", "user-1907"),
        metadata={"tournament": "spring-cup", "round": "3"},
        created_at=1796306400.0,
    )
    return json.loads(json.dumps(record_of(game, events)))


#: A finished match's record, as exported (and imported again).
RECORD = _record()
REQUESTS["importGame"] = RECORD
#: A webhook endpoint as registered (its secret is shown only then).
WEBHOOK = {
    "id": "ep_Zp3kR8vQ2mXy7tWa",
    "url": "https://platform.example/scopa/webhooks",
    "events": ["game.over", "turn.started"],
    "created_at": "2026-12-03T14:00:00.000Z",
    "disabled": False,
    "disabled_reason": None,
    "disabled_at": None,
    "previous_secret_expires_at": None,
}
#: Answers, by operation and status.
ANSWERS: dict[str, dict[int, Any]] = {
    "createGame": {201: CREATED},
    "getGame": {200: _view(1, 0), 404: GAME_NOT_FOUND},
    "listLegalMoves": {200: {"seat": 0, "moves": LEGAL_MOVES, "declarations": []}},
    "playMove": {200: MOVED, 422: AMBIGUOUS},
    "declare": {200: DECLARED},
    "getEventLog": {200: EVENT_LOG},
    "positionLegalMoves": {
        200: {"moves": LEGAL_MOVES, "truncated": False, "total": 5, "declarations": []}
    },
    "scoreHand": {200: SCORE},
    "sendReaction": {202: {"seat": 1, "emote": "applause", "at": "2026-11-30T20:15:42.250Z"}},
    "abortGame": {200: ABORTED},
    "listGames": {200: LISTED},
    "createGames": {201: BULK_CREATED},
    "createWebhook": {201: {**WEBHOOK, "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}},
    "listWebhooks": {200: {"endpoints": [WEBHOOK]}},
    "updateWebhook": {200: {**WEBHOOK, "events": ["game.over", "turn.started", "hand.over"]}},
    "recoverWebhookDeliveries": {
        202: {"deliveries": ["msg_IQXvjVesTzUolFf46urnQg.41", "msg_IQXvjVesTzUolFf46urnQg.44"]}
    },
    "rotateWebhookSecret": {
        200: {
            **WEBHOOK,
            "previous_secret_expires_at": "2026-12-03T15:00:00.000Z",
            "secret": "whsec_Q2hhbmdlZCBvbmNlIGEgbW9udGgsIGF0IGxlYXN0Lg==",
        }
    },
}
