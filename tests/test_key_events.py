"""A service key's events in one stream: ``GET /v1/events`` (docs/api.md, "A key's
events in one stream").

Every event of every game the key owns, each game's in the order of its log and as its
spectators see it (no card dealt to a hand); resumed with Last-Event-ID on another
instance with nothing lost, or told what was missed; only a service key may open it, it
shows no other key's games, and its streams are limited per key.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.api.context import store as current_store
from service.play import key_feed, keys
from service.play.key_feed import KeyFeed
from service.play.steps import Step
from tests.live import LIVE_KEY, ROOT, LiveService, Player, burst_worker
from tests.test_api_stream import AppStream, Sse, Streams, close_hub, pair
from tests.test_api_stream import streams as sockets
from tests.test_openapi import validator
from tests.test_webhooks import ACME, BETA, KEYS, key

FEED = "/v1/events"
__all__ = ["pair", "sockets"]  # the deployed pair of instances, and their streams' reader


@pytest.fixture
def make_instance(redis_url: str, make_app: Callable[..., Flask]) -> Iterator[Callable[..., Flask]]:
    """Instances of the service on the test's Redis (each its own app, store and hub),
    holding streams with a keep-alive every 0.3 s."""
    made: list[Flask] = []

    def make(**settings: Any) -> Flask:
        app = make_app(
            REDIS_URL=redis_url, SERVICE_KEYS=KEYS, STREAM_KEEPALIVE_SECONDS=0.3, **settings
        )
        made.append(app)
        return app

    yield make
    for app in made:
        close_hub(app)


@pytest.fixture
def client(make_instance: Callable[..., Flask]) -> FlaskClient:
    return make_instance().test_client()


@pytest.fixture
def streams() -> Iterator[Callable[..., AppStream]]:
    opened: list[AppStream] = []

    def open_(client: FlaskClient, headers: dict[str, str] | None = None) -> AppStream:
        response = client.get(FEED, headers={**key(), **(headers or {})}, buffered=False)
        assert response.status_code == 200, response.get_data(as_text=True)
        assert response.mimetype == "text/event-stream"
        stream = AppStream(response)
        opened.append(stream)
        return stream

    yield open_
    for stream in opened:
        stream.close()


def create(client: FlaskClient, secret: str = ACME, **body: Any) -> str:
    """A two-seat match of people, created by the key of ``secret``; its id."""
    answer = client.post("/v1/games", json=body, headers=key(secret))
    assert answer.status_code == 201, answer.get_json()
    return str(answer.get_json()["id"])


def move(client: FlaskClient, game_id: str, secret: str = ACME) -> dict[str, Any]:
    """The seat to play plays a random legal move, relayed by the key; the new state."""
    url = f"/v1/games/{game_id}"
    state = client.get(url, headers=key(secret)).get_json()
    seat = state["turn"]
    legal = client.get(f"{url}/legal-moves?as_seat={seat}", headers=key(secret)).get_json()
    chosen = random.Random(f"{game_id}:{state['version']}").choice(legal["moves"])
    body = {"card": chosen["card"], "capture": chosen["capture"]}
    played = client.post(f"{url}/moves", json=body, headers={**key(secret), "X-Seat": str(seat)})
    assert played.status_code == 200, played.get_json()
    return played.get_json()["state"]  # type: ignore[no-any-return]


def spectators_log(client: FlaskClient, game_id: str) -> list[dict[str, Any]]:
    """The game's event log as a caller with no seat reads it."""
    answer = client.get(f"/v1/games/{game_id}/events")
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()["events"]  # type: ignore[no-any-return]


def game_events(seen: list[Sse]) -> list[Sse]:
    return [s for s in seen if s.event is None and s.comment is None]


def until_logged(count: int) -> Callable[[Sse], bool]:
    """Read until the ``count``-th game event (counting from the stream's start)."""
    got = [0]

    def done(sse: Sse) -> bool:
        if sse.event is None and sse.comment is None:
            got[0] += 1
        return got[0] >= count

    return done


def by_game(seen: list[Sse]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for sse in game_events(seen):
        found[sse.data["game_id"]].append(sse.data["event"])
    return found


def order(feed_id: str) -> tuple[int, int]:
    ms, n = feed_id.split("-")
    return int(ms), int(n)


def test_every_event_of_every_game_in_each_games_order(
    client: FlaskClient, streams: Callable[..., AppStream]
) -> None:
    stream = streams(client)
    opened = stream.next()
    assert opened is not None and opened.event == "open" and opened.retry == 1000
    assert opened.data == {"after": opened.id}
    games = [create(client, metadata={"table": str(n)}) for n in range(3)]
    for turn in range(12):  # the three games' moves interleaved
        move(client, games[turn % 3])
    total = sum(len(spectators_log(client, g)) for g in games)
    seen = stream.events(until_logged(total))
    logged = game_events(seen)
    assert len(logged) == total
    # Each game's events are its whole log as spectators read it, in its order...
    assert by_game(seen) == {g: spectators_log(client, g) for g in games}
    # ... and the stream's ids increase, one per event.
    ids = [order(str(s.id)) for s in logged]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    # Every event is described by the spec's Event.
    spec = client.get("/openapi.json").get_json()
    check = validator(spec, {"$ref": "#/components/schemas/Event"})
    assert [e for s in logged for e in check.iter_errors(s.data["event"])] == []


def test_no_card_dealt_to_a_hand_is_carried_or_kept(
    client: FlaskClient, streams: Callable[..., AppStream], redis_url: str
) -> None:
    """docs/api.md: the stream carries each game as its spectators see it. The deals
    name no hand's cards, in the stream or in what Redis keeps of it."""
    stream = streams(client)
    stream.next()
    game = create(client)
    seats = [client.get(f"/v1/games/{game}?as_seat={s}", headers=key()).get_json() for s in (0, 1)]
    hands = {card for view in seats for card in view["hand"]}
    assert len(hands) == 6
    log = spectators_log(client, game)
    seen = stream.events(until_logged(len(log)))
    deals = [e for e in by_game(seen)[game] if e["type"] == "deal"]
    assert deals and all("cards" not in e and "hands" not in e for e in deals)
    sent = "".join(str(s.data) for s in game_events(seen))
    with redis.Redis.from_url(redis_url, decode_responses=True) as raw:
        kept = str(raw.xrange(keys.key_feed("acme")))
    for card in hands:
        assert f"'{card}'" not in sent and f'"{card}"' not in kept, card


def test_resumed_on_another_instance_with_nothing_lost(
    make_instance: Callable[..., Flask], streams: Callable[..., AppStream]
) -> None:
    first, second = make_instance().test_client(), make_instance().test_client()
    stream = streams(first)
    stream.next()
    game = create(first)
    for _ in range(3):
        move(first, game)
    seen = stream.events(until_logged(len(spectators_log(first, game))))
    last = game_events(seen)[-1].id
    stream.close()
    for _ in range(4):  # while nobody follows: moves served by either instance
        move(second, game)
    other = create(first)
    resumed = streams(second, {"Last-Event-ID": str(last)})
    opened = resumed.next()
    assert opened is not None and opened.event == "open" and opened.id == last
    log = spectators_log(first, game)
    newer = len(log) - len(by_game(seen)[game]) + len(spectators_log(first, other))
    after = resumed.events(until_logged(newer))
    assert [e.event for e in after if e.event] == [], "nothing missed, nothing else"
    assert by_game(seen)[game] + by_game(after)[game] == log
    assert by_game(after)[other] == spectators_log(first, other)
    # `after` in the query resumes alike (an EventSource's first connection).
    again = first.get(f"{FEED}?after={last}", headers=key(), buffered=False)
    assert again.status_code == 200
    replay = AppStream(again)
    try:
        replay.next()
        assert by_game(replay.events(until_logged(newer))) == by_game(after)
    finally:
        replay.close()


def test_resuming_from_before_what_is_kept_says_so(
    client: FlaskClient, streams: Callable[..., AppStream], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(key_feed, "KEPT_ENTRIES", 5)
    stream = streams(client)
    start = stream.next()
    assert start is not None
    game = create(client)
    for _ in range(6):
        move(client, game)
    log = spectators_log(client, game)
    assert len(log) > 5
    stream.events(until_logged(len(log)))
    # The oldest were trimmed off: resuming from the start misses them, and says so.
    resumed = streams(client, {"Last-Event-ID": str(start.id)})
    opened, missed = resumed.next(), resumed.next()
    assert opened is not None and missed is not None
    assert missed.event == "missed" and "no longer kept" in missed.data["detail"]
    kept = resumed.events(until_logged(5))
    assert [s.data["event"] for s in game_events(kept)] == log[-5:]
    # An id from before the key's events were kept at all: missed too.
    before = streams(client, {"Last-Event-ID": "1-0"})
    before.next()
    following = before.next()
    assert following is not None and following.event == "missed"


def test_only_a_service_key_opens_it_and_sees_only_its_games(
    client: FlaskClient, streams: Callable[..., AppStream]
) -> None:
    game = create(client)
    token = client.post("/v1/games", json={}).get_json()["seats"][0]["token"]
    for headers in ({}, {"Authorization": f"Bearer {token}"}):
        answer = client.get(FEED, headers=headers)
        assert answer.status_code == 401
        assert answer.mimetype == "application/problem+json"
        assert "service key" in answer.get_json()["detail"]
    theirs = streams(client, key(BETA))
    theirs.next()
    ours = streams(client)
    ours.next()
    move(client, game)
    beta_game = create(client, BETA)
    seen = ours.events(lambda s: s.event is None)
    assert {s.data["game_id"] for s in game_events(seen)} == {game}
    own = theirs.events(lambda s: s.event is None)
    assert {s.data["game_id"] for s in game_events(own)} == {beta_game}


@pytest.mark.parametrize(
    ("query", "headers"),
    [
        ("?after=12", {}),
        ("?after=1-x", {}),
        ("", {"Last-Event-ID": "5"}),
        ("?since=1-0", {}),
        ("?access_token=a-seat-token", {}),  # no seat's token, however it comes
    ],
)
def test_a_place_it_never_sent_is_a_422(
    client: FlaskClient, query: str, headers: dict[str, str]
) -> None:
    answer = client.get(FEED + query, headers={**key(), **headers})
    assert answer.status_code == 422, answer.get_data(as_text=True)
    assert answer.mimetype == "application/problem+json"


def test_streams_are_limited_per_key(
    make_instance: Callable[..., Flask], streams: Callable[..., AppStream]
) -> None:
    client = make_instance(STREAM_LIMIT_PER_KEY=2).test_client()
    held = [streams(client), streams(client)]
    refused = client.get(FEED, headers=key())
    assert refused.status_code == 429
    assert "Too many streams of this service key's events" in refused.get_json()["detail"]
    assert refused.headers["Retry-After"]
    streams(client, key(BETA))  # another key's count is its own
    held[0].close()
    streams(client)  # a stream closed frees its place


def test_commits_appended_out_of_order_keep_the_games_order(
    client: FlaskClient, redis_url: str
) -> None:
    """Two instances commit one game back to back, and the second's after-commit runs
    first: it appends the first's events before its own, and the first's then adds
    nothing."""
    game_id = create(client)
    before = len(spectators_log(client, game_id))
    move(client, game_id)  # the feed is not kept yet: nothing is appended
    middle = len(spectators_log(client, game_id))
    move(client, game_id)
    with client.application.app_context():
        store = current_store()
        feed = KeyFeed(store)
        feed.keep("acme")
        store.redis.set(keys.key_feed_cursor("acme", game_id), before)
        game = store.load(game_id)
        _, log = store.events(game_id)
        earlier = dataclasses.replace(game, logged=middle)
        feed.append(Step(game, log[middle:]))
        feed.append(Step(earlier, log[before:middle]))
        entries = feed.read("acme", key_feed.START, 100).entries
    assert [e.event["seq"] for e in entries] == list(range(before, len(log)))
    assert [e.event for e in entries] == spectators_log(client, game_id)[before:]


def test_deployed_a_workers_commits_reach_a_stream_and_resume_on_the_other_instance(
    pair: tuple[LiveService, LiveService], sockets: Streams, redis_server: Any
) -> None:
    """Two instances (gunicorn) on one Redis and a background worker: a key's stream on
    one sees every event of a match its computer players play out in the worker, in
    order; resumed on the other instance from the middle, it gets exactly the rest."""
    first, second = pair
    auth = {"Authorization": f"Bearer {LIVE_KEY}"}
    conn = sockets.open(first, FEED, auth)
    sockets.wait(lambda: bool(conn.events), 10, "the stream's start")
    assert conn.status == 200 and conn.events[0].event == "open"
    player = Player(second.url)
    bots = [{"name": "A", "bot": "expert"}, {"name": "B", "bot": "expert"}]
    player.create(auth, seed=33, target=1, seats=bots)
    burst_worker(redis_server.url)
    assert player.view()["status"] == "finished"
    log = player.events()["events"]
    assert sum(e["type"] == "move" for e in log) > 10

    def logged(events: list[Sse]) -> list[Sse]:
        return [e for e in game_events(events) if e.data["game_id"] == player.game_id]

    sockets.wait(lambda: len(logged(conn.events)) == len(log), 10, "the worker's moves")
    assert [e.data["event"] for e in logged(conn.events)] == log
    middle = logged(conn.events)[len(log) // 2].id
    again = sockets.open(second, FEED, {**auth, "Last-Event-ID": middle})
    rest = len(log) - len(log) // 2 - 1
    sockets.wait(lambda: len(logged(again.events)) == rest, 10, "the rest")
    assert [e.data["event"] for e in logged(again.events)] == log[-rest:]
    assert [e.event for e in again.events if e.event not in (None, "open", "end")] == []


def docs_follower(base_url: str) -> Callable[..., None]:
    """The follower of docs/platforms.md ("One stream for all your games"), as it is
    written, on the service at ``base_url`` with the live services' key."""
    doc = (ROOT / "docs" / "platforms.md").read_text()
    section = doc[doc.index("## One stream for all your games") :]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {"__name__": "docs_follower"}
    os.environ.update(SCOPA_URL=base_url, SCOPA_KEY=LIVE_KEY)
    try:
        exec(compile(code, "docs/platforms.md", "exec"), namespace)
    finally:
        del os.environ["SCOPA_URL"], os.environ["SCOPA_KEY"]
    return namespace["follow"]  # type: ignore[no-any-return]


class Enough(Exception):
    """Raised by a handler to stop the docs' follower."""


def test_the_docs_follower_misses_nothing_across_a_restart_on_another_instance(
    pair: tuple[LiveService, LiveService], redis_server: Any
) -> None:
    first, second = pair
    handled: list[tuple[str, str, dict[str, Any]]] = []

    def handle(upto: int) -> Callable[[str, str, dict[str, Any]], None]:
        def handler(id_: str, game_id: str, event: dict[str, Any]) -> None:
            handled.append((id_, game_id, event))
            if len(handled) >= upto:
                raise Enough

        return handler

    def run(follow: Callable[..., None], upto: int, last_id: str | None = None) -> threading.Thread:
        def target() -> None:
            with contextlib.suppress(Enough):
                follow(handle(upto), last_id)

        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        return thread

    with redis.Redis.from_url(redis_server.url) as raw:
        raw.delete(keys.key_feed_state("live"))  # (kept from the deployed test above)
        follower = run(docs_follower(first.url), 4)
        deadline = time.monotonic() + 10
        while not raw.exists(keys.key_feed_state("live")):  # its stream is open
            assert time.monotonic() < deadline, "the follower's stream did not open"
            time.sleep(0.01)
    player = Player(second.url)
    player.create({"Authorization": f"Bearer {LIVE_KEY}"}, seed=34)
    player.play_random(random.Random(34), 3)
    follower.join(10)
    assert not follower.is_alive() and len(handled) == 4
    player.play_random(random.Random(35), 5)  # while it is down: then it restarts
    log = player.events()["events"]
    restarted = run(docs_follower(second.url), len(log), handled[-1][0])
    restarted.join(10)
    assert not restarted.is_alive()
    assert [event for _, _, event in handled] == log
    assert {game for _, game, _ in handled} == {player.game_id}
