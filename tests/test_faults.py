"""Faults are survived: the service as deployed (gunicorn, 2 workers) on a Redis of its
own that keeps its data on disk (append-only file), while Redis goes away and comes back,
while a worker is killed in the middle of requests, across a restart of the whole
service, and while Redis hangs (SIGSTOP): answered fast, recovered from by itself.

After each, every match is checked whole: its version is one more than its moves, its
stored state is exactly the replay of its event log (service.engine.replay), and play
goes on from there.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import requests

from service import config as settings
from service.engine.replay import comparable, replay
from service.play import keys
from tests.devredis import RedisServer
from tests.live import LiveService, Player, assert_conforms

GAME = "/v1/games/{game_id}"


@pytest.fixture(scope="module")
def store_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A private Redis that persists to disk, so that it can be stopped and started."""
    with RedisServer(persist=True, data_dir=str(tmp_path_factory.mktemp("redis"))) as server:
        yield server


#: The circuit breaker's cool-down in the tests' services (service/api/breaker.py).
COOLDOWN = 0.5


@pytest.fixture
def service(store_server: RedisServer, tmp_path: Path) -> Iterator[LiveService]:
    with LiveService(
        store_server.url,
        workdir=str(tmp_path),
        REDIS_TIMEOUT_SECONDS="0.5",
        REDIS_BREAKER_COOLDOWN_SECONDS=str(COOLDOWN),
    ) as live:
        yield live


def wait_until_ready(service: LiveService, cooldown: float, timeout: float = 20.0) -> float:
    """Once Redis is back: until /readyz answers 200, then until every worker's breaker
    cool-down is over (its next request that needs Redis goes through and closes it).
    Returns the seconds until /readyz answered 200."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        with contextlib.suppress(requests.RequestException):
            if requests.get(service.url + "/readyz", timeout=5).status_code == 200:
                ready = time.monotonic() - started
                time.sleep(cooldown)
                return ready
        time.sleep(0.05)
    raise AssertionError(f"not ready within {timeout:.0f}s\n{service.log_tail()}")


def assert_consistent(redis_url: str, game_id: str, people: bool = True) -> dict[str, Any]:
    """The stored match is the replay of its stored log; with ``people`` only, its
    version also counts its moves (creation, then one write per move). Returns it."""
    with redis.Redis.from_url(redis_url, decode_responses=True) as client:
        version, state = client.hmget(keys.game(game_id), ["v", "s"])
        log = [json.loads(e) for e in client.lrange(keys.game_events(game_id), 0, -1)]
    assert version is not None, f"game {game_id} was lost"
    match = json.loads(state)["match"]
    moves = [e for e in log if e["type"] == "move"]
    if people:
        assert int(version) == 1 + len(moves)
    assert comparable(replay(log).to_dict()) == comparable(match)
    return {"version": int(version), "moves": moves, "match": match}


def play_on(player: Player, rng: random.Random, moves: int) -> None:
    """Play ``moves`` more legal moves, checking each answer against the view before."""
    for _ in range(moves):
        before = player.view()
        if before["turn"] is None:
            return
        move = rng.choice(player.legal_moves(before["turn"]))
        answer = player.move(before["turn"], move["card"], move["capture"])
        assert answer.status_code == 200, answer.text
        assert answer.json()["state"]["version"] == before["version"] + 1


# -- (a) Redis goes away ---------------------------------------------------------------------


def test_redis_down_gets_503_then_play_goes_on(
    store_server: RedisServer, service: LiveService
) -> None:
    rng = random.Random(1)
    player = Player(service.url)
    player.create(players=2, target=11)
    play_on(player, rng, 7)
    before = player.view(0)
    turn = before["turn"]
    move = rng.choice(player.legal_moves(turn))

    store_server.stop()
    try:
        down = {
            ("GET", GAME): player.get("", seat=0),
            ("GET", GAME + "/legal-moves"): player.get("/legal-moves", seat=turn),
            ("GET", GAME + "/events"): player.get("/events"),
            ("GET", GAME + "/hands"): player.get("/hands"),
            ("GET", GAME + "/hands/{number}"): player.get("/hands/1"),
            ("POST", GAME + "/bots"): player.http.post(player.url("/bots")),
            ("POST", GAME + "/moves"): player.move(turn, move["card"], move["capture"]),
            ("POST", GAME + "/moves", "If-Match"): player.move(
                turn, move["card"], move["capture"], If_Match=f'"{before["version"]}"'
            ),
            ("POST", "/v1/games"): player.http.post(service.url + "/v1/games", json={}),
            ("GET", "/readyz"): player.http.get(service.url + "/readyz"),
        }
        for (method, path, *_), answer in down.items():
            assert answer.status_code == 503, (method, path, answer.text)
            assert answer.headers["Content-Type"] == "application/problem+json"
            assert answer.json()["type"] == "/problems/storage-unavailable"
            assert int(answer.headers["Retry-After"]) >= 1
            assert_conforms(method, path, answer, game_id=player.game_id, number=1)
        # What needs no store still answers.
        assert player.http.get(service.url + "/healthz").status_code == 200
        score = player.http.post(service.url + "/v1/score", json={"piles": [["7D"], []]})
        assert score.status_code == 200
    finally:
        store_server.start()  # the same port and data directory

    # Nothing was lost, nothing changed while it was down, and play goes on: the very
    # move refused with 503 is played now.
    wait_until_ready(service, COOLDOWN)
    assert player.http.get(service.url + "/readyz").json() == {"status": "ready"}
    assert player.view(0) == before
    answer = player.move(turn, move["card"], move["capture"], If_Match=f'"{before["version"]}"')
    assert answer.status_code == 200, answer.text
    assert answer.json()["state"]["version"] == before["version"] + 1
    play_on(player, rng, 10)
    assert_consistent(store_server.url, player.game_id)
    player.http.close()


# -- (b) a worker is killed ------------------------------------------------------------------


def test_a_worker_killed_mid_request_leaves_every_match_consistent(
    store_server: RedisServer, service: LiveService
) -> None:
    games = []
    for _ in range(4):
        player = Player(service.url)
        player.create(players=2, target=100)
        games.append(player)
    answered: list[tuple[str, dict[str, Any]]] = []  # (game id, 200 answer's body)
    stop = threading.Event()
    errors: list[BaseException] = []
    interrupted: list[int] = []  # clients whose request died with its worker

    def client(number: int) -> None:
        rng = random.Random(number)
        game = games[number % len(games)]
        http = requests.Session()
        player = Player(service.url, http)
        player.game_id, player.tokens = game.game_id, game.tokens
        try:
            while not stop.is_set():
                try:
                    view = player.view()
                    turn = view["turn"]
                    if turn is None:
                        return
                    moves = player.legal_moves(turn)
                    if not moves:
                        continue  # another client moved in between
                    move = rng.choice(moves)
                    answer = player.move(turn, move["card"], move["capture"])
                except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
                    interrupted.append(number)
                    http.close()  # its worker was killed under it: start afresh
                    continue
                # 409 or 422: another client moved first (the card or its capture is gone).
                assert answer.status_code in (200, 409, 422), answer.text
                if answer.status_code == 200:
                    answered.append((player.game_id, answer.json()))
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            http.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    killed = []

    def wait_for_moves(more: int = 4) -> None:
        """Until the clients have had ``more`` moves answered (or one of them failed)."""
        played = len(answered)
        give_up = time.monotonic() + 30
        while len(answered) < played + more and not errors:
            assert time.monotonic() < give_up, f"the clients stopped playing\n{service.log_tail()}"
            time.sleep(0.02)

    try:
        for _ in range(3):
            wait_for_moves()
            workers = service.worker_pids()
            assert workers, service.log_tail()
            victim = max(workers, key=sockets_of)  # the busiest: the one with requests
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)
            wait_for_workers(service, exclude=killed)
        wait_for_moves()  # on the new workers
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
    assert not errors, errors
    assert len(answered) > 20, "the clients hardly played"
    assert interrupted, "no request was cut off by a killed worker"

    # The service answers again, with a full set of fresh workers.
    assert not set(killed) & set(service.worker_pids())
    assert requests.get(service.url + "/readyz", timeout=10).status_code == 200
    unanswered = 0
    for player in games:
        stored = assert_consistent(store_server.url, player.game_id)
        # Every 200 answer's move is in the log, once, at the version it answered with.
        mine = [body for game_id, body in answered if game_id == player.game_id]
        versions = [body["state"]["version"] for body in mine]
        assert len(versions) == len(set(versions)), "two answers for one version"
        for body in mine:
            logged = stored["moves"][body["state"]["version"] - 2]
            assert {k: v for k, v in logged.items() if k != "type"} == body["move"]
        unanswered += len(stored["moves"]) - len(mine)
        play_on(player, random.Random(player.game_id), 3)
        assert_consistent(store_server.url, player.game_id)
    # A stored move that nobody was answered 200 for is one whose request was cut off
    # after its write: never more of those than requests cut off.
    assert unanswered <= len(interrupted)
    for player in games:
        player.http.close()  # no idle connection to hold the service's shutdown up


def sockets_of(pid: int) -> int:
    """How many sockets a process has open: its client connections, and Redis'."""
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            count += os.readlink(fd).startswith("socket:")
    return count


def wait_for_workers(service: LiveService, exclude: list[int], timeout: float = 20.0) -> None:
    """Until the master has replaced the killed workers and the service answers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        workers = [pid for pid in service.worker_pids() if pid not in exclude]
        if len(workers) >= service.workers:
            with contextlib.suppress(requests.RequestException):
                if requests.get(service.url + "/healthz", timeout=2).status_code == 200:
                    return
        time.sleep(0.05)
    raise AssertionError(f"no new worker within {timeout:.0f}s\n{service.log_tail()}")


# -- (c) the whole service restarts ------------------------------------------------------------


def test_a_restart_finishes_requests_in_flight_and_loses_no_match(
    store_server: RedisServer, tmp_path: Path
) -> None:
    rng = random.Random(3)
    service = LiveService(
        store_server.url,
        workdir=str(tmp_path),
        BOT_TIME_LIMIT_SECONDS="0.6",
        EXPERT_BUDGET_MS="20",
        BOT_ONLY_MAX_TARGET="100",  # a match of computer players only, to 100
    ).start()
    people: list[Player] = []
    bots = Player(service.url)
    try:
        for players in (2, 3, 4):
            player = Player(service.url)
            player.create(players=players, target=100)
            play_on(player, rng, rng.randrange(3, 8))
            people.append(player)
        # A request that is still running when the service is told to stop: two expert
        # computer players move inside it for its whole time limit (0.6 s).
        bots.create(
            target=100, seats=[{"name": "A", "bot": "expert"}, {"name": "B", "bot": "expert"}]
        )
        before = bots.view()
        in_flight: dict[str, Any] = {}

        def let_bots_move() -> None:
            answer = requests.post(bots.url("/bots"), timeout=60)
            in_flight["status"] = answer.status_code
            in_flight["body"] = answer.json()

        thread = threading.Thread(target=let_bots_move)
        # In flight once its worker has read the match (Redis' MONITOR shows each command).
        with (
            redis.Redis.from_url(store_server.url, socket_timeout=10) as store,
            store.monitor() as monitor,
        ):
            thread.start()
            while keys.game(bots.game_id) not in monitor.next_command()["command"]:
                pass
        views = {p.game_id: p.view(0) for p in people}
        assert service.stop() == 0, service.log_tail()  # SIGTERM: graceful
        thread.join(timeout=60)
        assert in_flight["status"] == 200, in_flight
        assert in_flight["body"]["state"]["version"] == before["version"] + 1

        service = LiveService(store_server.url, workdir=str(tmp_path))
        service.start()
        for player in [*people, bots]:
            player.base_url = service.url
        assert bots.view() == in_flight["body"]["state"]
        assert_consistent(store_server.url, bots.game_id, people=False)
        for player in people:
            assert player.view(0) == views[player.game_id], "a match changed or was lost"
            play_on(player, rng, 5)
            assert_consistent(store_server.url, player.game_id)
    finally:
        for player in [*people, bots]:
            player.http.close()
        service.close()


# -- (d) Redis hangs ------------------------------------------------------------------------

#: Bounds on failing fast while Redis hangs, generous for a loaded 2-core machine: the
#: service's own defaults answer /readyz in about 0.5 s and the burst in about as long.
#: (Before the circuit breaker and the shorter timeouts, /readyz took 6 s, and a burst of
#: 16 game reads 36 s.)
READY_WITHIN = 1.0
BURST_WITHIN = 5.0
BURST = 16
RECOVERED_WITHIN = 15.0


def burst(requests_: list[tuple[str, str, dict[str, Any]]]) -> tuple[float, list[Any]]:
    """Send the requests all at once, each on a connection of its own; return the
    seconds until the last was answered, and the answers (or errors) in order."""
    start = threading.Barrier(len(requests_) + 1)
    answers: list[Any] = [None] * len(requests_)

    def send(number: int, method: str, url: str, kwargs: dict[str, Any]) -> None:
        with requests.Session() as http:
            start.wait()
            try:
                answers[number] = http.request(method, url, timeout=30, **kwargs)
            except requests.RequestException as exc:
                answers[number] = exc

    threads = [
        threading.Thread(target=send, args=(n, *request)) for n, request in enumerate(requests_)
    ]
    for thread in threads:
        thread.start()
    start.wait()
    started = time.monotonic()
    for thread in threads:
        thread.join()
    return time.monotonic() - started, answers


def test_a_hung_redis_is_answered_at_once_and_recovered_from_by_itself(
    store_server: RedisServer, tmp_path: Path
) -> None:
    # The service's own timeouts (tests/live.py sets a longer one for the other tests).
    defaults = settings.load({})
    service = LiveService(
        store_server.url,
        workdir=str(tmp_path),
        REDIS_TIMEOUT_SECONDS=str(defaults.redis_timeout_seconds),
        REDIS_READY_TIMEOUT_SECONDS=str(defaults.redis_ready_timeout_seconds),
        REDIS_BREAKER_COOLDOWN_SECONDS=str(defaults.redis_breaker_cooldown_seconds),
    ).start()
    rng = random.Random(4)
    players = []
    try:
        for _ in range(4):
            player = Player(service.url)
            player.create(players=2, target=100)
            play_on(player, rng, 3)
            players.append(player)
        requests_: list[tuple[str, str, dict[str, Any]]] = []
        for n in range(BURST):
            player = players[n % len(players)]
            turn = player.view()["turn"]
            move = player.legal_moves(turn)[0]
            requests_.append(
                [
                    ("GET", player.url(), {"headers": player.auth(turn)}),
                    ("GET", player.url("/legal-moves"), {"headers": player.auth(turn)}),
                    ("GET", player.url("/events"), {}),
                    (
                        "POST",
                        player.url("/moves"),
                        {"headers": player.auth(turn), "json": {"card": move["card"]}},
                    ),
                ][n % 4]
            )
        measured: dict[str, float] = {}

        with store_server.frozen():
            started = time.monotonic()
            ready = requests.get(service.url + "/readyz", timeout=30)
            measured["readyz"] = time.monotonic() - started
            assert ready.status_code == 503, ready.text
            assert ready.json()["type"] == "/problems/storage-unavailable"
            assert measured["readyz"] < READY_WITHIN, measured

            measured["burst"], answers = burst(requests_)
            for (method, url, _), answer in zip(requests_, answers, strict=True):
                assert isinstance(answer, requests.Response), (method, url, answer)
                assert answer.status_code == 503, (method, url, answer.text)
                assert answer.headers["Content-Type"] == "application/problem+json"
                assert answer.json()["type"] == "/problems/storage-unavailable"
                assert int(answer.headers["Retry-After"]) >= 1
            assert measured["burst"] < BURST_WITHIN, measured

            # What needs no store goes on answering, and not after a timeout.
            started = time.monotonic()
            assert requests.get(service.url + "/healthz", timeout=30).status_code == 200
            score = requests.post(
                service.url + "/v1/score", json={"piles": [["7D"], []]}, timeout=30
            )
            assert score.status_code == 200, score.text
            assert requests.get(service.url + "/v1/variants", timeout=30).status_code == 200
            metrics = requests.get(service.url + "/metrics", timeout=30)
            measured["no store"] = time.monotonic() - started
            assert measured["no store"] < READY_WITHIN, measured

            # Again, now that the workers' breakers are open: refused unsent.
            measured["second burst"], again = burst(requests_)
            assert all(a.status_code == 503 for a in again), [a.text for a in again]
            assert measured["second burst"] < BURST_WITHIN, measured

        # Redis is back: the service recovers by itself. Every request needing Redis,
        # each on a new connection (any worker), succeeds within a few seconds. A worker
        # that no request reached may hold its breaker open for the rest of a cool-down
        # that began just before Redis woke (plus a timeout in flight): the streak of
        # successes runs past that, so every worker is seen to recover.
        resumed = time.monotonic()
        every_worker = defaults.redis_breaker_cooldown_seconds + defaults.redis_timeout_seconds
        streak = 0
        while streak < 8 or time.monotonic() - resumed < every_worker:
            assert time.monotonic() - resumed < RECOVERED_WITHIN, service.log_tail()
            answer = requests.get(players[0].url(), headers={"Connection": "close"}, timeout=30)
            if answer.status_code == 200:
                measured.setdefault("first success", time.monotonic() - resumed)
                streak += 1
            else:
                assert answer.status_code == 503, answer.text
                streak = 0
                time.sleep(0.05)
        measured["recovered"] = time.monotonic() - resumed
        print(" ".join(f"{k}: {v:.3f}s" for k, v in measured.items()))
        assert requests.get(service.url + "/readyz", timeout=30).json() == {"status": "ready"}
        opened = [
            line
            for line in metrics.text.splitlines()
            if line.startswith("scopa_redis_breaker_opens_total ")
        ]
        assert opened and float(opened[0].split()[1]) >= 1, metrics.text[-2000:]
        for (method, url, _), answer in zip(requests_, answers, strict=True):
            game_id = url.removeprefix(service.url + "/v1/games/").split("/")[0]
            path = url.removeprefix(service.url).replace(game_id, "{game_id}")
            assert_conforms(method, path, answer, game_id=game_id)

        # Every match is whole (a move whose command Redis took before it froze is
        # carried out when it wakes up; never half of one), and play goes on.
        for player in players:
            assert_consistent(store_server.url, player.game_id)
            play_on(player, rng, 3)
            assert_consistent(store_server.url, player.game_id)
    finally:
        for player in players:
            player.http.close()
        service.close()
