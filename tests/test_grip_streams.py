"""A game's stream held by a GRIP proxy (Pushpin) in front of the service
(service/api/resources/events/grip.py, service/play/relay.py): the same contract as a
stream the service holds itself (tests/test_api_stream.py), through a real Pushpin and
gunicorn on one Redis; the commits published to the proxy by the request that made them
or by a background worker; what the proxy missed recovered through the stream's ``next``
link. Needs Debian's ``pushpin`` (``make test`` installs it where apt-get can)."""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import jwt
import pytest
import redis
import requests

from service.play import keys
from tests.devpushpin import PushpinServer, find_pushpin
from tests.live import LIVE_KEY, LiveService, Player, burst_worker
from tests.test_api_stream import Conn, Sse, Streams, log_of

pytestmark = pytest.mark.skipif(
    find_pushpin() is None, reason="needs Debian's pushpin (apt-get install pushpin)"
)

KEY = {"Authorization": f"Bearer {LIVE_KEY}"}


class Proxied(SimpleNamespace):
    """The service behind its proxy: ``port`` is the proxy's (where clients connect)."""

    service: LiveService
    proxy: PushpinServer
    direct: LiveService  # another instance on the same Redis, publishing to no proxy
    port: int
    url: str


@pytest.fixture(scope="module")
def proxied(redis_server: Any) -> Iterator[Proxied]:
    key = secrets.token_urlsafe(24)
    env = {"STREAM_MAX_SECONDS": "60", "STREAM_KEEPALIVE_SECONDS": "1"}
    service = LiveService(redis_server.url, **env, GRIP_KEY=key)
    proxy = PushpinServer(service.port, key)
    service.env.update(proxy.service_env())
    with proxy, service, LiveService(redis_server.url, **env) as direct:
        yield Proxied(service=service, proxy=proxy, direct=direct, port=proxy.port, url=proxy.url)
        for each in (service, direct):
            assert not each.server_errors(), "\n".join(each.server_errors()[:20])
            assert not each.card_mentions(), "\n".join(each.card_mentions()[:20])


@pytest.fixture
def streams() -> Iterator[Streams]:
    reader = Streams()
    yield reader
    reader.close()


def seen_log(player: Player, seat: int | None) -> list[dict[str, Any]]:
    response = player.get("/events", seat)
    assert response.status_code == 200, response.text
    return response.json()["events"]  # type: ignore[no-any-return]


def wait_for_state(streams: Streams, conn: Conn) -> Sse:
    streams.wait(lambda: bool(conn.events), 10, "the state")
    assert conn.status == 200, conn.head
    assert conn.events[0].event == "state"
    return conn.events[0]


def test_each_seat_and_spectators_get_every_event_as_they_may_see_it(
    proxied: Proxied, streams: Streams
) -> None:
    player = Player(proxied.url)
    player.create(seed=7)
    conns = {
        seat: streams.open(
            proxied, player.url("/stream").removeprefix(proxied.url), player.auth(seat)
        )
        for seat in (0, 1)
    }
    conns[None] = streams.open(proxied, player.url("/stream").removeprefix(proxied.url))
    starts = {seat: wait_for_state(streams, conn).id for seat, conn in conns.items()}
    player.play_random(random.Random(3), 12)
    last = len(player.events()["events"]) - 1
    for seat, conn in conns.items():
        streams.wait(lambda conn=conn: last in conn.seqs(), 10, f"seat {seat}'s moves")
        # Exactly the log as that viewer reads it: its own cards, nobody else's.
        assert log_of(conn.events[1:]) == seen_log(player, seat)[starts[seat] + 1 :], seat
    # No seat's stream names the other's hand.
    view = player.view(1)
    streamed = [e for e in log_of(conns[0].events) if e["type"] == "deal"]
    for deal in streamed:
        assert not set(deal.get("cards") or []) & set(view["hand"]) or deal["seat"] == 0


def test_resuming_with_last_event_id_sends_exactly_what_was_missed(
    proxied: Proxied, streams: Streams
) -> None:
    player = Player(proxied.url)
    player.create(seed=11)
    player.play_random(random.Random(4), 6)
    path = player.url("/stream").removeprefix(proxied.url)
    conn = streams.open(proxied, path, {**player.auth(0), "Last-Event-ID": "3"})
    state = wait_for_state(streams, conn)
    assert state.id == 3
    last = len(player.events()["events"]) - 1
    streams.wait(lambda: last in conn.seqs(), 10, "the events after 3")
    assert conn.seqs() == list(range(4, last + 1))
    assert log_of(conn.events[1:]) == seen_log(player, 0)[4:]


def test_computer_players_moved_by_a_worker_reach_the_stream(
    proxied: Proxied, streams: Streams, redis_server: Any
) -> None:
    player = Player(proxied.url)
    player.create(seats=[{"name": "Ann"}, {"bot": "greedy"}], seed=5)
    conn = streams.open(proxied, player.url("/stream").removeprefix(proxied.url), player.auth(0))
    start = wait_for_state(streams, conn).id
    for _ in range(3):  # Ann moves, the worker answers for the computer player
        turn = player.view(0)["turn"]
        if turn == 0:
            move = player.legal_moves(0)[0]
            assert player.move(0, move["card"], move["capture"]).status_code == 200
        burst_worker(redis_server.url, **proxied.proxy.service_env())
    last = len(player.events()["events"]) - 1
    streams.wait(lambda: last in conn.seqs(), 10, "the computer player's moves")
    assert conn.seqs() == list(range(start + 1, last + 1))
    assert any(e["seat"] == 1 for e in log_of(conn.events) if e["type"] == "move")


def test_what_the_proxy_never_heard_of_still_arrives_within_a_few_keep_alives(
    proxied: Proxied, streams: Streams
) -> None:
    # Moves made on an instance that publishes to no proxy (as if its publish was lost):
    # the proxy asks the service for what is missing every 4-6 keep-alives (4-6 s here).
    player = Player(proxied.url)
    player.create(seed=13)
    conn = streams.open(proxied, player.url("/stream").removeprefix(proxied.url), player.auth(1))
    start = wait_for_state(streams, conn).id
    elsewhere = Player(proxied.direct.url)
    elsewhere.game_id, elsewhere.tokens = player.game_id, player.tokens
    elsewhere.play_random(random.Random(8), 4)
    last = len(player.events()["events"]) - 1
    streams.wait(lambda: last in conn.seqs(), 10, "the moves the proxy was not sent")
    assert conn.seqs() == list(range(start + 1, last + 1))
    # And the next move published to the proxy follows on, once.
    player.play_random(random.Random(9), 1)
    streams.wait(lambda: last + 1 in conn.seqs(), 5, "the next move")
    assert conn.seqs() == list(range(start + 1, last + 2))
    # The service's metrics tell of it: events recovered by a check, and publishes.
    metrics = requests.get(proxied.service.url + "/metrics", timeout=10).text
    assert metric(metrics, "scopa_stream_recovered_events_total") >= last - start
    assert metric(metrics, 'scopa_stream_checks_total{outcome="held"}') >= 1
    assert metric(metrics, "scopa_stream_publish_seconds_count") >= 1
    assert metric(metrics, "scopa_stream_publish_failures_total") == 0


def metric(text: str, name: str) -> float:
    """The value of the sample ``name`` (with its labels) in a Prometheus text page."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise AssertionError(f"no {name} in the metrics")


def test_a_seat_that_changes_hands_ends_its_old_holders_stream(
    proxied: Proxied, streams: Streams
) -> None:
    player = Player(proxied.url)
    created = player.create(seats=[{"name": "Ann"}, {"open": True}, {"open": True}])
    code = created["join"]["code"]
    joined = requests.post(player.url("/join"), json={"name": "Bea", "code": code}, timeout=10)
    bea = joined.json()["token"]
    path = player.url("/stream").removeprefix(proxied.url)
    stale = streams.open(proxied, path + f"?access_token={bea}")
    wait_for_state(streams, stale)
    left = requests.post(
        player.url("/leave"), headers={"Authorization": f"Bearer {bea}"}, timeout=10
    )
    assert left.status_code == 204
    streams.wait(lambda: stale.closed, 5, "the old holder's stream closed")
    ends = [e for e in stale.events if e.event == "end"]
    assert [e.data for e in ends] == [{"reason": "revoked"}]
    assert log_of(stale.events) == []  # not even its own leaving
    # The next holders start the match: nothing of it reached the closed stream, and
    # the old token is refused.
    for name in ("Cid", "Dan"):
        took = requests.post(player.url("/join"), json={"name": name, "code": code}, timeout=10)
        assert took.status_code == 200
    again = requests.get(proxied.url + path, params={"access_token": bea}, timeout=10)
    assert again.status_code == 401


def test_an_aborted_game_ends_its_streams_and_an_expired_one_within_a_few_keep_alives(
    proxied: Proxied, streams: Streams, redis_server: Any
) -> None:
    aborted, deleted = Player(proxied.url), Player(proxied.url)
    for player in (aborted, deleted):
        player.create(headers=KEY, seats=[{"name": "Ann"}, {"name": "Bea"}])
    conns = {
        "aborted": streams.open(proxied, aborted.url("/stream").removeprefix(proxied.url)),
        "key": streams.open(
            proxied, aborted.url("/stream?as_seat=1").removeprefix(proxied.url), KEY
        ),
        "deleted": streams.open(proxied, deleted.url("/stream").removeprefix(proxied.url)),
    }
    for conn in conns.values():
        wait_for_state(streams, conn)
    stopped = requests.post(aborted.url("/abort"), json={"reason": "test"}, headers=KEY, timeout=10)
    assert stopped.status_code == 200, stopped.text
    # A game that expires publishes nothing: its streams learn it from their next link.
    redis.Redis.from_url(redis_server.url).delete(keys.game(deleted.game_id))
    for name, reason in (("aborted", "aborted"), ("key", "aborted"), ("deleted", "gone")):
        conn = conns[name]
        streams.wait(lambda conn=conn: conn.closed, 10, f"the {name} stream closed")
        assert [e.data for e in conn.events if e.event == "end"] == [{"reason": reason}], name
    assert log_of(conns["aborted"].events)[-1]["type"] == "aborted"


def test_reactions_reach_every_view(proxied: Proxied, streams: Streams) -> None:
    player = Player(proxied.url)
    player.create(seed=3)
    path = player.url("/stream").removeprefix(proxied.url)
    conns = [streams.open(proxied, path, player.auth(1)), streams.open(proxied, path)]
    for conn in conns:
        wait_for_state(streams, conn)
    sent = requests.post(
        player.url("/reactions"), json={"emote": "applause"}, headers=player.auth(0), timeout=10
    )
    assert sent.status_code == 202, sent.text
    for conn in conns:
        streams.wait(lambda conn=conn: any(e.event == "reaction" for e in conn.events), 5, "it")
        reaction = next(e for e in conn.events if e.event == "reaction")
        assert reaction.id is None and reaction.data["seat"] == 0
        assert reaction.data["emote"] == "applause"


def test_spectators_off_and_bad_tokens_are_refused_through_the_proxy(proxied: Proxied) -> None:
    player = Player(proxied.url)
    player.create(spectators=False)
    refused = requests.get(player.url("/stream"), timeout=10)
    assert refused.status_code == 401
    assert refused.headers["Content-Type"].startswith("application/problem+json")
    wrong = requests.get(player.url("/stream"), params={"access_token": "x" * 32}, timeout=10)
    assert wrong.status_code == 401


def test_a_next_request_is_the_proxys_and_names_no_view_it_could_not_see(
    proxied: Proxied,
) -> None:
    player = Player(proxied.url)
    player.create(seed=1, spectators=False)
    signed = jwt.encode({"iss": "pushpin", "exp": time.time() + 60}, proxied.proxy.key)
    for view in ("0:made-up", "1:made-up", "s:made-up"):
        last = {"Grip-Last": f"g:{player.game_id}:{view}; last-id=-1"}
        # A client's own Grip-Last never reaches the service through the proxy; sent to
        # the service directly without the proxy's signature, it is not found.
        for url, headers in ((proxied.url, last), (proxied.service.url, last)):
            answer = requests.get(url + "/grip/next", headers=headers, timeout=10)
            assert answer.status_code == 404
            assert answer.headers["Content-Type"].startswith("application/problem+json")
        # Signed as the proxy signs, a made-up channel's name ends the stream at once
        # with nothing of the game (its tag is keyed with the server secret).
        answer = requests.get(
            proxied.service.url + "/grip/next", headers={**last, "Grip-Sig": signed}, timeout=10
        )
        assert answer.status_code == 200
        assert answer.text == 'event: end\ndata: {"reason":"revoked"}\n\n'
        assert "Grip-Hold" not in answer.headers


def test_without_the_proxy_the_service_streams_as_before(
    proxied: Proxied, streams: Streams
) -> None:
    player = Player(proxied.url)
    player.create(seed=2)
    path = player.url("/stream").removeprefix(proxied.url)
    conn = streams.open(proxied.service, path, player.auth(0))  # straight to gunicorn
    start = wait_for_state(streams, conn).id
    player.play_random(random.Random(1), 2)
    last = len(player.events()["events"]) - 1
    streams.wait(lambda: last in conn.seqs(), 5, "the moves")
    assert conn.seqs() == list(range(start + 1, last + 1))


def test_a_game_nobody_follows_costs_its_moves_no_publishing(
    proxied: Proxied, streams: Streams
) -> None:
    def published() -> float:
        text = requests.get(proxied.service.url + "/metrics", timeout=10).text
        return metric(text, "scopa_stream_publish_seconds_count")

    player = Player(proxied.url)
    player.create(seed=21)
    before = published()
    player.play_random(random.Random(2), 4)
    assert published() == before
    conn = streams.open(proxied, player.url("/stream").removeprefix(proxied.url), player.auth(0))
    start = wait_for_state(streams, conn).id
    player.play_random(random.Random(3), 2)
    streams.wait(lambda: start + 2 in conn.seqs(), 5, "the moves once followed")
    assert published() == before + 2
