"""Races: many clients play the same few matches at once on the service as deployed
(gunicorn, 2 workers of 4 threads, on the session's Redis), each as whichever seat is to
play, reloading and retrying when another move won. Some make their moves conditional
with If-Match; some send each move twice at once with one Idempotency-Key, as a client
does that retries a request whose answer it did not get.

At the end, for every match: no update was lost (its version is one more than its moves,
and every move in its log was answered 200 to exactly one request), no move was made
twice, each client saw versions only increase, and the stored match is exactly the
replay of its event log.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from collections import defaultdict
from typing import Any

import redis
import requests

from service.engine.replay import comparable, replay
from service.play import keys
from tests.live import LiveService, Player

CLIENTS = 12
SECONDS = 4.0


def test_racing_clients_lose_no_update_and_make_no_move_twice(
    live_service: LiveService, redis_server: Any
) -> None:
    games = []
    for players, target in ((2, 1), (2, 11), (4, 11)):
        player = Player(live_service.url)
        player.create(players=players, target=target)
        games.append(player)
    answers: dict[str, list[dict[str, Any]]] = defaultdict(list)  # game id: 200 bodies
    replays: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (first answer, replayed)
    statuses: dict[int, int] = defaultdict(int)
    errors: list[BaseException] = []
    lock = threading.Lock()
    deadline = time.monotonic() + SECONDS

    def client(number: int) -> None:
        rng = random.Random(number)
        game = games[number % len(games)]
        player = Player(live_service.url, requests.Session())
        player.game_id, player.tokens = game.game_id, game.tokens
        style = ("plain", "if-match", "idempotent")[number % 3]
        seen = 0  # the highest version this client has seen
        try:
            while time.monotonic() < deadline:
                view = player.view()
                assert view["version"] >= seen, "a version went back"
                seen = view["version"]
                if view["turn"] is None:
                    return  # the match is over
                moves = player.legal_moves(view["turn"])
                if not moves:
                    continue  # another move came in between: reload
                move = rng.choice(moves)
                headers = {}
                if style == "if-match":
                    headers["If_Match"] = f'"{view["version"]}"'
                if style == "idempotent":
                    headers["Idempotency_Key"] = str(uuid.uuid4())
                    first, again = twice(player, view["turn"], move, headers)
                else:
                    first = player.move(view["turn"], move["card"], move["capture"], **headers)
                    again = None
                with lock:
                    statuses[first.status_code] += 1
                # Lost the race: 409 (not your turn any more, or another write won), 412
                # (If-Match is stale), 422 (the card no longer takes that, or is gone).
                assert first.status_code in (200, 409, 412, 422), first.text
                if first.status_code != 200:
                    continue
                body = first.json()
                assert body["state"]["version"] > seen, "a move did not raise the version"
                seen = body["state"]["version"]
                with lock:
                    answers[player.game_id].append(body)
                    if again is not None:
                        replays.append((body, again.json()))
                if again is not None:
                    # The retry got the first answer again, without a second move.
                    assert again.status_code == 200, again.text
                    assert again.json() == body
                    replayed = [r.headers.get("Idempotent-Replayed") for r in (first, again)]
                    assert sorted(replayed, key=str) == [None, "true"], replayed
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    assert statuses[200] >= 30, f"the clients hardly played: {dict(statuses)}"
    assert replays, "no idempotent retry was made"

    with redis.Redis.from_url(redis_server.url, decode_responses=True) as store:
        for game in games:
            version, state = store.hmget(keys.game(game.game_id), ["v", "s"])
            log = [json.loads(e) for e in store.lrange(keys.game_events(game.game_id), 0, -1)]
            moves = [e for e in log if e["type"] == "move"]
            # No lost update, no double move: one version per stored move, and every
            # stored move answered 200 to exactly one request (a retry's replay aside).
            assert int(version) == 1 + len(moves)
            mine = sorted(answers[game.game_id], key=lambda body: body["state"]["version"])
            assert [body["state"]["version"] for body in mine] == list(range(2, int(version) + 1))
            for body, logged in zip(mine, moves, strict=True):
                assert body["move"] == {k: v for k, v in logged.items() if k != "type"}
            # The stored match is the replay of its log; and the API serves that log.
            assert comparable(replay(log).to_dict()) == comparable(json.loads(state)["match"])
            served = game.events()
            assert served["version"] == int(version)
            assert len(served["events"]) == len(log)


def twice(
    player: Player, seat: int, move: dict[str, Any], headers: dict[str, str]
) -> tuple[requests.Response, requests.Response]:
    """The same move sent twice at once with one Idempotency-Key: the first to answer,
    and the other."""
    results: list[requests.Response] = []

    def send() -> None:
        http = requests.Session()
        other = Player(player.base_url, http)
        other.game_id, other.tokens = player.game_id, player.tokens
        results.append(other.move(seat, move["card"], move["capture"], **headers))
        http.close()

    senders = [threading.Thread(target=send) for _ in range(2)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join(timeout=60)
    first, second = results
    if first.status_code != 200 and second.status_code == 200:
        first, second = second, first
    return first, second
