"""Property-based tests of the whole API against its contract: schemathesis generates
requests from the checked-in openapi/openapi.json (valid ones, and invalid ones: wrong
types, missing and unknown fields, out-of-range values, bad headers) and sends them to
the service as deployed (gunicorn, on the session's Redis).

Every answer must be: no 5xx; a status the operation documents; the content type it
documents for that status; a body and headers that match its schema; and no invalid
request accepted. `make test` runs a bounded number of examples per operation;
`make fuzz` (FUZZ_EXAMPLES) many more.

Generated game ids and tokens alone would only ever reach the 404s and 401s, so each
request may be aimed at a real game (a match in play, a finished one, one whose turn is
a computer player's) with a seat's token, a legal move, the current or a stale If-Match:
Hypothesis draws which, so the requests reach the deep code too.

Checks left out, and why: `positive_data_acceptance`, because a request can match the
schema and still be refused with a documented 422 for what JSON Schema cannot say (a card
in both hand and table, an illegal move); `ignored_auth` and the checks on resources
that other requests create or delete, because only the service key that created a game
deletes it (the generated requests have no key: 401) and readable games need no token (a
spectator's view). The service key's own operations are aimed at its games on purpose,
in test_every_documented_status.
"""

from __future__ import annotations

import json
import os
import random
import socket
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
import schemathesis
from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service.api import examples
from service.play import join_code
from service.play.keys import RATE
from service.play.webhooks.store import Message, WebhookStore
from tests.live import DEFAULT_ENV, LIVE_KEY, LiveService, Player, assert_conforms

SPEC = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"

#: Examples per operation and phase: small in `make test`, large in `make fuzz`.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "12"))

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
    negative_data_rejection,
]


#: The statuses that refuse a request that breaks the spec: schemathesis's own, and 413.
REFUSALS = [
    *schemathesis.Config.from_dict(
        {}
    ).projects.default.checks.negative_data_rejection.expected_statuses,
    "413",
]

#: Loaded when the tests are collected, one test per operation; the service's URL is
#: given to each call. (Not `schemathesis.pytest.from_fixture`: its lazy loading does not
#: work on pytest 9.2.)
schema = schemathesis.openapi.from_path(
    SPEC,
    config=schemathesis.Config.from_dict(
        {
            "request-timeout": 30,
            "generation": {"mode": "all", "max-examples": EXAMPLES},
            # 413 too: a generated body past MAX_BODY_BYTES is refused from its head,
            # before any schema is read (docs/api.md).
            "checks": {"negative_data_rejection": {"expected-statuses": REFUSALS}},
            "phases": {
                # The spec's examples cannot go with this test's @schema.given() (schemathesis
                # refuses both); tests/test_openapi.py sends every one and checks the answers.
                "examples": {"enabled": False},
                "coverage": {"enabled": True},
                "fuzzing": {"enabled": True},
                "stateful": {"enabled": False},
            },
        }
    ),
)


class Games:
    """Real games for the generated requests to aim at, made on demand."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.http = requests.Session()
        self._playing: Player | None = None
        self._finished: Player | None = None
        self._keyed_finished: Player | None = None
        self._bots: Player | None = None

    def new(self, **body: Any) -> Player:
        player = Player(self.base_url, self.http)
        player.create(**body)
        return player

    def playing(self) -> Player:
        """A two-player match in play (a new one once the last one has finished)."""
        if self._playing is None or self._playing.view()["status"] != "playing":
            self._playing = self.new(target=1)
        return self._playing

    def finished(self) -> Player:
        if self._finished is None:
            self._finished = self.new(
                target=1, seats=[{"name": "A", "bot": "random"}, {"name": "B", "bot": "random"}]
            )
            while self._finished.view()["status"] == "playing":
                self.http.post(self._finished.url("/bots"), timeout=30)
        return self._finished

    def keyed(self, **body: Any) -> Player:
        """A new two-player match in play, created with the service key."""
        return self.new(headers=KEY, target=1, **body)

    def keyed_finished(self) -> Player:
        """A key's match of two computer players, finished (the same one each time)."""
        if self._keyed_finished is None:
            seats = [{"name": "A", "bot": "random"}, {"name": "B", "bot": "random"}]
            self._keyed_finished = self.keyed(seats=seats)
            while self._keyed_finished.view()["status"] == "playing":
                self.http.post(self._keyed_finished.url("/bots"), headers=KEY, timeout=30)
        return self._keyed_finished

    def keyed_aborted(self) -> Player:
        game = self.keyed()
        aborted = self.http.post(game.url("/abort"), json={"reason": "x"}, headers=KEY)
        assert aborted.status_code == 200, aborted.text
        return game

    def waiting(self) -> Player:
        """A new game with open seats, waiting for people (each use may take a seat)."""
        return self.new(seats=[{"name": "A"}, {"open": True}, {"open": True}])

    def finished_by_people(self) -> Player:
        """A new finished match with a person's seat (its rematch not asked for yet)."""
        player = self.new(target=1, seats=[{"name": "A"}, {"name": "B", "bot": "random"}])
        player.play_random(random.Random(1), 1000)
        return player

    def declaring(self) -> Player:
        """A new Cirulla match of two people whose seat 0, to play, may declare a buona
        (the spec's example deck: 2S 3C 4B)."""
        return self.new(
            **{**examples.CIRULLA_CREATE, "seats": [{"name": "Ana"}, {"name": "Bruno"}]}
        )

    def bots(self) -> Player:
        """A match whose turn is a computer player's: two experts to the longest target
        a match of computer players only may have (the variant's own, 11: some hundred
        moves, which do not finish within one request's time limit)."""
        if self._bots is None or self._bots.view()["status"] != "playing":
            self._bots = self.new(
                seats=[{"name": "A", "bot": "expert"}, {"name": "B", "bot": "expert"}],
            )
        return self._bots


@pytest.fixture(scope="module")
def games(live_service: LiveService) -> Games:
    return Games(live_service.url)


def aim(case: Any, data: st.DataObject, games: Games) -> None:
    """Maybe point the generated request at a real game, as one of its seats.

    Every choice is drawn up front, the same draws whatever the games' state, so that
    Hypothesis can replay and shrink a failing example."""
    path = case.operation.path
    if "{game_id}" not in path:
        return
    pick = data.draw(
        st.fixed_dictionaries(
            {
                "game": st.sampled_from(["playing", "playing", "finished", "bots", "generated"]),
                "hand": st.one_of(st.none(), st.integers(1, 3)),
                "auth": st.sampled_from(
                    ["turn", "turn", "other", "none", "malformed", "foreign", "generated"]
                ),
                "seat": st.integers(0, 5),
                "malformed": st.sampled_from(
                    ["Bearer", "Bearer ", "Basic abc", "bearer\tx", "Token x", "x"]
                ),
                "body": st.sampled_from(["legal", "legal-no-capture", "own-card", "generated"]),
                "move": st.integers(0, 99),
                "card": st.integers(0, 9),
                "capture": st.lists(st.integers(0, 35), max_size=3),
                "if_match": st.sampled_from(["generated", "current", "stale", "weak"]),
            }
        )
    )
    if pick["game"] == "generated":
        return
    game = {"playing": games.playing, "finished": games.finished, "bots": games.bots}[
        pick["game"]
    ]()
    case.path_parameters["game_id"] = game.game_id
    if path.endswith("/hands/{number}") and pick["hand"] is not None:
        case.path_parameters["number"] = pick["hand"]
    seats = [i for i, token in enumerate(game.tokens) if token]
    if not seats:
        return
    view = game.view()
    turn = view["turn"]
    headers = dict(case.headers or {})
    who = pick["auth"]
    if who == "turn" and turn in seats:
        headers["Authorization"] = f"Bearer {game.tokens[turn]}"
    elif who == "other":
        headers["Authorization"] = f"Bearer {game.tokens[seats[pick['seat'] % len(seats)]]}"
    elif who == "none":
        headers.pop("Authorization", None)
    elif who == "malformed":
        headers["Authorization"] = pick["malformed"]
    elif who == "foreign":
        headers["Authorization"] = f"Bearer {games.finished().tokens[0] or 'x'}"
    if path.endswith("/moves") and case.method.upper() == "POST":
        _aim_move(case, pick, game, view, headers)
    case.headers = headers


def _aim_move(
    case: Any, pick: dict[str, Any], game: Player, view: dict[str, Any], headers: dict[str, str]
) -> None:
    turn = view["turn"]
    if pick["body"] != "generated" and turn is not None and game.tokens[turn]:
        moves = game.legal_moves(turn)
        move = moves[pick["move"] % len(moves)]
        if pick["body"] == "legal":
            case.body = {"card": move["card"], "capture": move["capture"]}
        elif pick["body"] == "legal-no-capture":
            case.body = {"card": move["card"]}
        else:  # a card of the hand, with table cards: often an illegal move
            hand = game.view(turn)["hand"]
            table = view["table"] or ["1D"]
            case.body = {
                "card": hand[pick["card"] % len(hand)],
                "capture": [table[i % len(table)] for i in pick["capture"]],
            }
    version = view["version"]
    if pick["if_match"] == "current":
        headers["If-Match"] = f'"{version}"'
    elif pick["if_match"] == "stale":
        headers["If-Match"] = f'"{max(0, version - 1)}"'
    elif pick["if_match"] == "weak":
        headers["If-Match"] = f'W/"{version}"'


#: Headers that frame the HTTP message itself (RFC 9112): a generated value makes a
#: message that is not valid HTTP, which the HTTP server refuses before any operation
#: sees it (501 for an unknown transfer coding, 400 else, as problems:
#: test_what_is_not_http_is_refused_with_a_problem below).
FRAMING = {"transfer-encoding", "content-length", "connection", "host", "te", "trailer"}


@settings(
    deadline=None,
    max_examples=EXAMPLES,
    suppress_health_check=list(HealthCheck),
    database=None,
)
@schema.parametrize()
@schema.given(data=st.data())
def test_the_api_keeps_its_contract(
    case: Any, data: st.DataObject, games: Games, live_service: LiveService
) -> None:
    if case.headers:
        case.headers = {k: v for k, v in case.headers.items() if k.lower() not in FRAMING}
    aim(case, data, games)
    # A request line past the HTTP server's limit (gunicorn's 4094 bytes) is refused
    # before any operation sees it (414, as a problem): that is the server's framing,
    # which test_what_is_not_http_is_refused_with_a_problem covers, not the contract.
    assume(len(request_line(case, live_service.url)) <= REQUEST_LINE_LIMIT)
    case.call_and_validate(base_url=live_service.url, checks=CHECKS)


#: gunicorn's ``limit_request_line`` (its default), less room for the method and version.
REQUEST_LINE_LIMIT = 4094 - len("DELETE  HTTP/1.1")


def request_line(case: Any, base_url: str) -> str:
    """The request target ``case`` would send (its path and query, encoded)."""
    prepared = requests.Request(
        case.method, base_url + case.formatted_path, params=case.query
    ).prepare()
    return str(prepared.path_url)


# -- every documented status, on purpose ----------------------------------------------------

GAME = "/v1/games/{game_id}"
#: The service key's bearer (tests/live.py's DEFAULT_ENV).
KEY = {"Authorization": f"Bearer {LIVE_KEY}"}
#: The operations a service key acts on for a seat it names (as_seat, X-Seat): their 422
#: for a seat named wrong.
SEAT_NAMING = {
    ("GET", GAME),
    ("GET", GAME + "/legal-moves"),
    ("GET", GAME + "/hands"),
    ("GET", GAME + "/hands/{number}"),
    ("GET", GAME + "/hint"),
    ("POST", GAME + "/bots"),
    ("POST", GAME + "/join-code"),
    ("POST", GAME + "/leave"),
    ("POST", GAME + "/rematch"),
}
#: The operations only a service key may call.
KEY_OPS = {
    ("GET", "/v1/games"),
    ("POST", "/v1/games/bulk"),
    ("POST", GAME + "/abort"),
    ("DELETE", GAME),
}
BIG = b'{"seats": [' + b'{"name": "x"}, ' * 6000 + b'{"name": "x"}]}'  # > 64 KiB
BODY_OPS = {
    ("POST", "/v1/games"),
    ("POST", GAME + "/moves"),
    ("POST", GAME + "/declarations"),
    ("POST", "/v1/legal-moves"),
    ("POST", "/v1/score"),
    ("POST", "/v1/hint"),
    ("POST", "/v1/analysis"),
    ("POST", GAME + "/join"),
    ("POST", GAME + "/abort"),
    ("POST", "/v1/games/bulk"),
}
#: Statuses that need the service in another state, proved elsewhere: 503 (Redis down)
#: in test_faults.py, 429 (over a rate limit) by test_over_the_rate_limit below.
ELSEWHERE = {429, 503}


def documented() -> list[tuple[str, str, int]]:
    spec = json.loads(SPEC.read_text())
    return sorted(
        (method.upper(), path, int(status))
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if method != "parameters"
        for status in operation["responses"]
        if int(status) not in ELSEWHERE
    )


def request_for(method: str, path: str, status: int, games: Games) -> dict[str, Any]:
    """A request that must get ``status`` from this operation: kwargs for requests."""
    kwargs: dict[str, Any] = {"headers": {}}
    params: dict[str, Any] = {}
    query = ""
    game: Player | None = None
    if "{game_id}" in path:
        game = games.finished() if path.endswith("/hands/{number}") else games.playing()
        if path.endswith(("/join", "/leave")) and status in (200, 204, 403, 422):
            game = games.waiting()
        if path.endswith("/rematch") and status in (200, 201):
            game = games.finished_by_people()
            if status == 200:  # the second seat to ask, or the first asking again
                assert games.http.post(game.url("/rematch"), headers=game.auth(0)).ok
        if path.endswith("/bots"):
            game = games.bots() if status == 200 else game
        if path.endswith("/join-code") and status in (200, 403):
            game = games.new(seats=[{"name": "A"}, {"name": "B"}, {"open": True}])
        if path.endswith("/declarations"):
            game = games.declaring()
        if path.endswith("/hands") and status == 200:
            game = games.finished()
        if path.endswith("/reactions") and status == 409:
            game = games.finished_by_people()  # over: no more reactions
        params["game_id"] = game.game_id if status != 404 else "no-such-game"
    if path.endswith("/hands/{number}"):
        assert game is not None
        params["number"] = 1 if status == 200 else 999
        if status == 409:
            game = games.playing()
            params["game_id"] = game.game_id
            params["number"] = game.view()["hand_number"]
    if (method, path) in BODY_OPS:
        kwargs["json"] = {
            "/v1/games": {"players": 2},
            "/v1/legal-moves": {"hand": ["7D"], "table": ["3C", "4B"]},
            "/v1/score": {"piles": [["7D"], ["1C"]]},
            "/v1/hint": {"hand": ["7D"], "table": ["3C", "4B"], "hand_counts": [1, 1]},
            "/v1/analysis": {"hand": ["7D"], "table": ["3C", "4B"], "hand_counts": [1, 1]},
            "/v1/games/bulk": {"games": [{"players": 2}]},
            GAME + "/abort": {"reason": "Round cancelled"},
        }.get(path, {})
        if path.endswith("/join") and game is not None:
            code = join_code(DEFAULT_ENV["SERVER_SECRET"].encode(), game.game_id)
            kwargs["json"] = {"name": "Zoe", "code": code if status != 403 else "0" * 10}
    if path == "/v1/invitations/{code}":  # a game's room code, or one of no game
        code = join_code(DEFAULT_ENV["SERVER_SECRET"].encode(), games.waiting().game_id)
        params["code"] = code.lower() if status == 200 else "0" * 10
    if method == "GET" and path.endswith("/join") and game is not None:
        code = join_code(DEFAULT_ENV["SERVER_SECRET"].encode(), game.game_id)
        query = "" if status == 422 else "?code=" + (code if status != 403 else "0" * 10)
    if game is not None and path == GAME + "/declarations":
        kwargs["json"] = {"declare": "buona" if status != 422 else "decino"}
        kwargs["headers"]["Authorization"] = f"Bearer {game.tokens[0 if status != 409 else 1]}"
        if status == 412:
            kwargs["headers"]["If-Match"] = '"0"'
    if game is not None and path in (
        GAME,
        GAME + "/legal-moves",
        GAME + "/moves",
        GAME + "/hint",
        GAME + "/analysis",
    ):
        turn = game.view()["turn"]
        kwargs["headers"]["Authorization"] = f"Bearer {game.tokens[turn]}"
        if path.endswith(("/hint", "/analysis")) and status == 409:
            kwargs["headers"]["Authorization"] = f"Bearer {game.tokens[1 - turn]}"
        if path.endswith("/analysis") and status == 422:
            query = "?limit=0"  # out of its range
        if path.endswith("/moves"):
            move = game.legal_moves(turn)[0]
            kwargs["json"] = {"card": move["card"], "capture": move["capture"]}
            if status == 409:
                kwargs["headers"]["Authorization"] = f"Bearer {game.tokens[1 - turn]}"
            elif status == 412:
                kwargs["headers"]["If-Match"] = '"0"'
            elif status == 422:
                kwargs["json"] = {"card": move["card"], "capture": ["1D", "1D"]}
    if game is not None and path == GAME + "/reactions":
        kwargs["json"] = {"emote": "applause" if status != 422 else "heart"}
        kwargs["headers"]["Authorization"] = f"Bearer {game.tokens[0]}"
    if game is not None and path in (GAME + "/leave", GAME + "/rematch", GAME + "/join-code"):
        kwargs["headers"]["Authorization"] = f"Bearer {game.tokens[0]}"
        if path.endswith("/join-code") and status == 403:  # not the creator's seat
            kwargs["headers"]["Authorization"] = f"Bearer {game.tokens[1]}"
    if (method, path) in KEY_OPS:
        kwargs["headers"].update(KEY)
        if game is not None:
            game = {204: games.keyed_aborted, 409: games.keyed_aborted}.get(status, games.keyed)()
            if method == "DELETE" and status == 409:
                game = games.keyed()
            params["game_id"] = game.game_id if status != 404 else "no-such-game"
        if status == 422 and method == "GET":
            query = "?status=won"
        elif status == 422:
            kwargs["json"] = {"reason": ""} if path.endswith("/abort") else {"games": []}
    if status == 422 and (method, path) in SEAT_NAMING:
        game = games.keyed()
        params["game_id"] = game.game_id
        kwargs["headers"] = {**KEY, "X-Seat": "9"} if method == "POST" else KEY
        query = "?as_seat=9" if method == "GET" else ""
    if status == 401:
        kwargs["headers"]["Authorization"] = "Bearer not-a-seat-token"
    elif status == 400:
        kwargs.pop("json")
        kwargs["data"] = b'{"card": '
        kwargs["headers"]["Content-Type"] = "application/json"
    elif status == 413:
        kwargs.pop("json")
        kwargs["data"] = BIG
        kwargs["headers"]["Content-Type"] = "application/json"
    elif status == 415:
        kwargs.pop("json")
        kwargs["data"] = b"card=7D"
        kwargs["headers"]["Content-Type"] = "application/x-www-form-urlencoded"
    elif (
        status == 422
        and method == "POST"
        and path
        in (
            "/v1/games",
            "/v1/legal-moves",
            "/v1/score",
            "/v1/hint",
            "/v1/analysis",
            GAME + "/join",
        )
    ):
        kwargs["json"] = {"unknown": True}
    elif status == 422 and path == "/v1/cards":
        query = "?lang=xx"
    elif status == 422 and path in (GAME + "/events", GAME + "/stream"):
        query = "?after=not-a-number"
    elif status == 304:
        assert game is not None
        kwargs["headers"]["If-None-Match"] = f'"{game.view()["version"]}"'
    url = path.format(**params) + query
    return {"method": method, "url": url, "params": params, **kwargs}


#: The webhooks' and the records' operations (a service key's): platform_request.
HOOKS = "/v1/webhooks"
RECORDS = ("/v1/games/export", "/v1/games/import", GAME + "/record")
#: A key's stream of events (it ends after STREAM_MAX_SECONDS, a second on the live service).
KEY_EVENTS = "/v1/events"
#: A key's players' ratings, and its tournaments.
PLAYERS = "/v1/players"
TOURNAMENTS = "/v1/tournaments"
#: A public address an endpoint may be registered at (never sent to: no worker runs).
PUBLIC_URL = "https://93.184.215.14/scopa/webhooks"


def platform_request(
    method: str, path: str, status: int, games: Games, redis_url: str
) -> dict[str, Any]:
    """A request to a webhooks or records operation that must get ``status``."""
    headers = dict(KEY)
    params: dict[str, Any] = {}
    kwargs: dict[str, Any] = {}
    query = ""
    if path.startswith(HOOKS + "/"):
        made = games.http.post(
            games.base_url + HOOKS, json={"url": PUBLIC_URL, "events": ["game.over"]}, headers=KEY
        )
        endpoint = made.json()["id"] if made.status_code == 201 else "ep_none"
        if made.status_code != 201:  # full: the 409 case ran; reuse the first one
            endpoint = games.http.get(games.base_url + HOOKS, headers=KEY).json()["endpoints"][0]
            endpoint = endpoint["id"]
        params["endpoint_id"] = endpoint if status != 404 else "ep_none"
        if "{message_id}" in path:
            game = games.keyed()
            hooks = WebhookStore(redis.Redis.from_url(redis_url, decode_responses=True), 3600)
            message = Message(f"msg_{game.game_id}.0", "game.over", game.game_id, "{}")
            hooks.dispatch(
                "live",
                game.game_id,
                hooks.cursor("live", game.game_id),
                "1",
                {endpoint: [message]},
                100,
            )
            hooks.client.close()
            params["message_id"] = message.id if status != 404 else "msg_none"
    if path == HOOKS and method == "POST":
        kwargs["json"] = {"url": PUBLIC_URL, "events": ["game.over"]}
        if status == 201:  # room for one (the other operations' cases register theirs)
            listed = games.http.get(games.base_url + HOOKS, headers=KEY).json()["endpoints"]
            for endpoint in listed:
                games.http.delete(f"{games.base_url}{HOOKS}/{endpoint['id']}", headers=KEY)
        if status == 409:  # as many endpoints as the service allows
            while games.http.post(games.base_url + HOOKS, headers=KEY, **kwargs).ok:
                pass
        elif status == 422:
            kwargs["json"] = {"url": "https://169.254.169.254/", "events": ["game.over"]}
    if path == HOOKS + "/{endpoint_id}/recover":
        kwargs["json"] = {"since": "2026-12-03T14:00:00Z" if status != 422 else "yesterday"}
    if path == HOOKS + "/{endpoint_id}/secret":
        kwargs["json"] = {"overlap_seconds": 60 if status != 422 else -1}
    if path == HOOKS + "/{endpoint_id}" and method == "PATCH":
        kwargs["json"] = {"events": ["game.over", "hand.over"]}
        if status == 422:
            kwargs["json"] = {"url": "https://169.254.169.254/"}
    if path.endswith("/deliveries") and status == 422:
        query = "?limit=0"
    if path == GAME + "/record":
        game = games.keyed_finished() if status != 409 else games.keyed()
        params["game_id"] = game.game_id if status != 404 else "no-such-game"
    if path == "/v1/games/export" and status == 422:
        query = "?since=yesterday"
    if path == KEY_EVENTS and status == 422:
        query = "?after=yesterday"
    if path.startswith(PLAYERS):
        params["player_id"] = "user-8812" if status != 422 else "two%20words"
        query = "" if "{player_id}" in path else "?variant=scopa&limit=5"
        if status == 422 and "{player_id}" not in path:
            query = "?variant=briscola"
    if path.startswith(TOURNAMENTS):
        body = {
            "name": "Fuzz cup",
            "format": "round_robin",
            "entrants": [
                {"players": [{"player_id": f"fz-{n}", "name": f"F{n}", "bot": "random"}]}
                for n in range(4)
            ],
        }
        if method == "POST" and path == TOURNAMENTS:
            kwargs["json"] = body if status != 422 else {**body, "rounds": 3}
        elif path == TOURNAMENTS:
            query = "?limit=5" if status != 422 else "?limit=0"
        else:
            made = games.http.post(games.base_url + TOURNAMENTS, json=body, headers=KEY).json()
            tournament = made["tournament"]
            params["tournament_id"] = tournament["id"] if status != 404 else "trn_none"
            if method == "POST" and path.endswith("/withdrawals"):
                kwargs["json"] = {"entrant": 1 if status != 422 else 9}
            if status == 304:
                now = games.http.get(f"{games.base_url}{TOURNAMENTS}/{tournament['id']}")
                headers["If-None-Match"] = now.headers["ETag"]
    if path == "/v1/games/import":
        record = games.http.get(
            games.base_url + f"/v1/games/{games.keyed_finished().game_id}/record", headers=KEY
        ).json()
        kwargs["json"] = record if status != 422 else {**record, "events": record["events"][:3]}
    if status == 401:
        headers["Authorization"] = "Bearer not-a-key"
    elif status in (400, 413, 415):
        kwargs.pop("json")
        headers["Content-Type"] = {415: "application/x-www-form-urlencoded"}.get(
            status, "application/json"
        )
        kwargs["data"] = {400: b'{"url": ', 413: BIG, 415: b"url=x"}[status]
    url = path.format(**params) + query
    return {"method": method, "url": url, "params": params, "headers": headers, **kwargs}


@pytest.mark.parametrize(("method", "path", "status"), documented())
def test_every_documented_status(
    method: str, path: str, status: int, games: Games, live_service: LiveService
) -> None:
    """Each status the spec documents for each operation (but 429 and 503) is answered
    to the request that calls for it, and the answer keeps the contract."""
    if path.startswith((HOOKS, PLAYERS, TOURNAMENTS)) or path in (*RECORDS, KEY_EVENTS):
        request = platform_request(method, path, status, games, live_service.redis_url)
    else:
        request = request_for(method, path, status, games)
    params = request.pop("params")
    request["url"] = live_service.url + request["url"]
    response = games.http.request(timeout=30, **request)
    assert response.status_code == status, response.text
    assert_conforms(method, path, response, **params)


def test_integral_numbers_are_integers(live_service: LiveService) -> None:
    """JSON Schema's integer, the spec's, is any number with no fractional part: 11.0
    is the target 11 (11.5 is refused)."""
    body = {"players": 2.0, "target": 11.0, "seed": 7.0, "first_dealer": 0.0}
    created = requests.post(f"{live_service.url}/v1/games", json=body, timeout=30)
    assert created.status_code == 201, created.text
    state = created.json()["state"]
    assert (len(state["seats"]), state["target"], state["dealer"]) == (2, 11, 0)
    refused = requests.post(f"{live_service.url}/v1/games", json={"target": 11.5}, timeout=30)
    assert refused.status_code == 422


def test_over_the_rate_limit(redis_server: Any) -> None:
    """429, with Retry-After, once an address is over its limit; it keeps the contract."""
    # This minute's counts of 127.0.0.1 so far are the other tests' (the limits off).
    with redis.Redis.from_url(redis_server.url) as connection:
        for counter in connection.scan_iter(match=RATE + "*"):
            connection.delete(counter)
    with LiveService(redis_server.url, RATE_LIMIT_PER_ADDRESS="3") as limited:
        answers = [
            requests.get(f"{limited.url}/v1/games/no-such-game", timeout=10) for _ in range(5)
        ]
    assert [a.status_code for a in answers] == [404, 404, 404, 429, 429]
    assert int(answers[-1].headers["Retry-After"]) >= 1
    for answer in answers:
        assert_conforms("GET", GAME, answer, game_id="no-such-game")


def read_answer(stream: Any) -> tuple[int, bytes]:
    """One HTTP/1.1 answer from a socket's file: its status and body (Content-Length)."""
    status = int(stream.readline().split()[1])
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return status, stream.read(length)


def test_a_body_refused_unread_leaves_the_connection_usable(live_service: LiveService) -> None:
    """A body within the limit refused unread (415, not JSON) does not break the
    keep-alive connection it came on: the client's next request there is answered."""
    body = b"x" * (60 * 1024)
    with socket.create_connection(("127.0.0.1", live_service.port), timeout=10) as sock:
        stream = sock.makefile("rb")
        sock.sendall(
            b"POST /v1/score HTTP/1.1\r\nHost: test\r\nContent-Type: text/plain"
            + b"\r\nContent-Length: %d\r\n\r\n" % len(body)
            + body
        )
        status, _ = read_answer(stream)
        assert status == 415
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        status, answer = read_answer(stream)
        assert (status, json.loads(answer)) == (200, {"status": "ok"})


def test_a_body_over_the_limit_is_answered_413_and_the_connection_closed(
    live_service: LiveService,
) -> None:
    """A body over the limit, sent whole behind its head: 413 from the head (the
    worker's event loop, service/serving.py), read by the client, and the connection
    closed once the client has sent it (the body read and dropped meanwhile)."""
    body = b"x" * (100 * 1024)
    with socket.create_connection(("127.0.0.1", live_service.port), timeout=10) as sock:
        stream = sock.makefile("rb")
        sock.sendall(
            b"POST /v1/score HTTP/1.1\r\nHost: test\r\nContent-Type: application/json"
            + b"\r\nContent-Length: %d\r\n\r\n" % len(body)
            + body
        )
        status, answer = read_answer(stream)
        assert status == 413 and json.loads(answer)["status"] == 413
        assert stream.read() == b""  # closed by the service


# -- stateful: sequences of requests that follow links --------------------------------------


def ref(path: str, method: str) -> str:
    """An OpenAPI operationRef to an operation of the spec."""
    return "#/paths/" + path.replace("~", "~0").replace("/", "~1") + "/" + method


def linked_spec() -> dict[str, Any]:
    """The checked-in spec, plus OpenAPI links (kept here, not in the contract) from a
    created game to what can be done with it, as each of its first two seats; and from a
    seat's legal moves to playing the first of them, and from a move to the legal moves
    after it. Schemathesis follows them, so sequences of requests play real matches."""
    spec = json.loads(SPEC.read_text())
    paths = spec["paths"]
    created: dict[str, Any] = {}
    for seat in (0, 1):
        auth = {"header.Authorization": f"Bearer {{$response.body#/seats/{seat}/token}}"}
        for name, path, method in (
            ("View", GAME, "get"),
            ("LegalMoves", GAME + "/legal-moves", "get"),
            ("Move", GAME + "/moves", "post"),
            ("Events", GAME + "/events", "get"),
        ):
            created[f"{name}AsSeat{seat}"] = {
                "operationRef": ref(path, method),
                "parameters": {"path.game_id": "$response.body#/id", **auth},
            }
    for name, path, method, extra in (
        ("Hands", GAME + "/hands", "get", {}),
        ("FirstHand", GAME + "/hands/{number}", "get", {"path.number": 1}),
        ("Bots", GAME + "/bots", "post", {}),
    ):
        created[name] = {
            "operationRef": ref(path, method),
            "parameters": {"path.game_id": "$response.body#/id", **extra},
        }
    paths["/v1/games"]["post"]["responses"]["201"]["links"] = created
    same_seat = {
        "path.game_id": "$request.path.game_id",
        "header.Authorization": "$request.header.Authorization",
    }
    paths[GAME + "/legal-moves"]["get"]["responses"]["200"]["links"] = {
        "PlayTheFirst": {
            "operationRef": ref(GAME + "/moves", "post"),
            "parameters": {**same_seat, "header.If-Match": "$response.header.ETag"},
            "requestBody": {
                "card": "$response.body#/moves/0/card",
                "capture": "$response.body#/moves/0/capture",
            },
        }
    }
    paths[GAME + "/moves"]["post"]["responses"]["200"]["links"] = {
        "LegalMovesAfter": {
            "operationRef": ref(GAME + "/legal-moves", "get"),
            "parameters": same_seat,
        }
    }
    return spec


def test_linked_sequences_keep_the_contract(live_service: LiveService) -> None:
    linked = schemathesis.openapi.from_dict(
        linked_spec(),
        config=schemathesis.Config.from_dict(
            {
                "base-url": live_service.url,
                "request-timeout": 30,
                "generation": {"mode": "positive"},
            }
        ),
    )

    class Workflow(linked.as_state_machine()):  # type: ignore[misc]
        def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
            case.validate_response(response, checks=CHECKS)

    Workflow.run(
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=8,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
    )


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: FR\r\n\r\n", 501),
        (b"GET /heal thz HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        (b"GET /healthz?" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n", 400),
    ],
)
def test_what_is_not_http_is_refused_with_a_problem(
    live_service: LiveService, request_bytes: bytes, status: int
) -> None:
    """A request that is not valid HTTP never reaches the app: gunicorn refuses it, and
    its answer is a problem too (service/serving.py), with the status gunicorn chose."""
    with socket.create_connection(("127.0.0.1", live_service.port), timeout=10) as sock:
        sock.sendall(request_bytes)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].startswith(f"HTTP/1.1 {status} ")
    assert "Content-Type: application/problem+json" in lines
    problem = json.loads(body)
    assert problem["status"] == status and problem["type"] == "about:blank"
    assert "not valid HTTP" in problem["detail"]
