"""Idempotency-Key: retries are safe. The same key and body get the first answer again;
the same key with another body is refused; without the header nothing changes."""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections.abc import Callable

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app
from tests.helpers import Table, everything_stored


def key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


class TestMoves:
    def test_a_retried_move_is_played_once_and_answered_the_same(self, table: Table) -> None:
        table.create(seed=3)
        turn = table.view()["turn"]
        move = table.legal_moves(turn)[0]
        headers = key()
        first = table.move(turn, move["card"], move["capture"], headers=headers)
        assert first.status_code == 200
        again = table.move(turn, move["card"], move["capture"], headers=headers)
        assert again.status_code == 200
        assert again.get_json() == first.get_json()
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.headers["ETag"] == first.headers["ETag"] == '"2"'
        assert "Idempotent-Replayed" not in first.headers
        assert table.view()["version"] == 2
        log = table.client.get(table.url("/events")).get_json()["events"]
        assert [e["type"] for e in log].count("move") == 1

    def test_a_retry_whose_if_match_went_stale_gets_the_stored_answer(self, table: Table) -> None:
        """The first attempt moved the game on, so the retry's If-Match names an old
        version: the retry is still the same request, answered with the stored 200, not
        412 (the spec says so on If-Match); a new key with that If-Match is refused."""
        table.create(seed=3)
        turn = table.view()["turn"]
        move = table.legal_moves(turn)[0]
        headers = {**key(), "If-Match": '"1"'}
        first = table.move(turn, move["card"], move["capture"], headers=headers)
        assert first.status_code == 200 and first.headers["ETag"] == '"2"'
        again = table.move(turn, move["card"], move["capture"], headers=headers)
        assert again.status_code == 200
        assert again.get_json() == first.get_json()
        assert again.headers["Idempotent-Replayed"] == "true"
        stale = {**key(), "If-Match": '"1"'}
        assert table.move(turn, move["card"], move["capture"], headers=stale).status_code == 412

    def test_the_same_key_with_another_body_is_refused(self, table: Table) -> None:
        table.create(seed=3)
        turn = table.view()["turn"]
        first, second = table.legal_moves(turn)[:2]
        headers = key()
        assert table.move(turn, first["card"], first["capture"], headers=headers).status_code == 200
        reused = table.move(turn, second["card"], second["capture"], headers=headers)
        assert reused.status_code == 422
        assert reused.get_json()["type"] == "/problems/idempotency-key-reused"

    def test_keys_belong_to_their_seat(self, table: Table) -> None:
        """Another seat's request with the same key is its own request."""
        table.create(seed=3, first_dealer=1)
        headers = {"Idempotency-Key": "shared-key"}
        move = table.legal_moves(0)[0]
        assert table.move(0, move["card"], move["capture"], headers=headers).status_code == 200
        move = table.legal_moves(1)[0]
        second = table.move(1, move["card"], move["capture"], headers=headers)
        assert second.status_code == 200
        assert "Idempotent-Replayed" not in second.headers

    def test_a_retry_racing_its_first_attempt_gets_the_same_answer(
        self, app: Flask, table: Table
    ) -> None:
        table.create(seed=12)
        turn = table.view()["turn"]
        move = table.legal_moves(turn)[0]
        headers = {**table.auth(turn), **key()}
        barrier = threading.Barrier(4)
        answers: list[tuple[int, dict[str, object]]] = []

        def send() -> None:
            client = app.test_client()
            barrier.wait()
            response = client.post(
                table.url("/moves"),
                json={"card": move["card"], "capture": move["capture"]},
                headers=headers,
            )
            answers.append((response.status_code, response.get_json()))

        threads = [threading.Thread(target=send) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [status for status, _ in answers] == [200] * 4
        assert all(body == answers[0][1] for _, body in answers)
        assert table.view()["version"] == 2

    def test_a_malformed_key_is_refused(self, table: Table) -> None:
        table.create(seed=3)
        turn = table.view()["turn"]
        move = table.legal_moves(turn)[0]
        for bad in ("", "x" * 256, "spaces are not allowed"):
            response = table.move(
                turn, move["card"], move["capture"], headers={"Idempotency-Key": bad}
            )
            assert response.status_code == 422, bad
        assert table.view()["version"] == 1


class TestCreation:
    def test_a_retried_creation_makes_one_game_with_the_same_tokens(
        self, client: FlaskClient, redis_url: str
    ) -> None:
        headers = key()
        body = {"seats": [{"name": "Ana"}, {"name": "Bruno"}], "seed": 4}
        first = client.post("/v1/games", json=body, headers=headers)
        assert first.status_code == 201
        again = client.post("/v1/games", json=body, headers=headers)
        assert again.status_code == 201
        assert again.get_json() == first.get_json()
        assert again.headers["Location"] == first.headers["Location"]
        assert again.headers["Idempotent-Replayed"] == "true"
        # The tokens work, and Redis holds only their hashes.
        token = first.get_json()["seats"][0]["token"]
        game_id = first.get_json()["id"]
        seen = client.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
        assert seen.status_code == 200 and seen.get_json()["you"] == 0
        stored = everything_stored(redis_url)
        assert '"seats"' in stored  # the kept answer, inflated
        for seat in first.get_json()["seats"]:
            assert seat["token"] not in stored

    def test_a_replay_answers_as_at_creation_even_after_moves(self, client: FlaskClient) -> None:
        headers = key()
        first = client.post("/v1/games", json={"seed": 9}, headers=headers).get_json()
        seat = first["state"]["turn"]
        auth = {"Authorization": f"Bearer {first['seats'][seat]['token']}"}
        legal = client.get(f"/v1/games/{first['id']}/legal-moves", headers=auth).get_json()
        move = legal["moves"][0]
        played = client.post(
            f"/v1/games/{first['id']}/moves",
            json={"card": move["card"], "capture": move["capture"]},
            headers=auth,
        )
        assert played.status_code == 200
        again = client.post("/v1/games", json={"seed": 9}, headers=headers)
        assert again.get_json() == first and again.headers["ETag"] == '"1"'

    def test_the_same_key_with_another_body_is_refused(self, client: FlaskClient) -> None:
        headers = key()
        assert client.post("/v1/games", json={"seed": 1}, headers=headers).status_code == 201
        reused = client.post("/v1/games", json={"seed": 2}, headers=headers)
        assert reused.status_code == 422
        assert reused.get_json()["type"] == "/problems/idempotency-key-reused"

    def test_different_keys_make_different_games(self, client: FlaskClient) -> None:
        one = client.post("/v1/games", json={}, headers=key()).get_json()
        two = client.post("/v1/games", json={}, headers=key()).get_json()
        assert one["id"] != two["id"]
        assert one["seats"][0]["token"] != two["seats"][0]["token"]


def test_answers_are_kept_in_the_game_and_live_as_long_as_it(table: Table, redis_url: str) -> None:
    """The answer to a keyed creation or move is a field of the game's hash, written by
    the commit that stores the move (service/play/store.py): it expires with the game,
    whose lifetime every later move renews. A creation's key also names a pointer to the
    game it created; nothing else is written."""
    body, creation = {"seed": 3}, key()
    created = table.client.post("/v1/games", json=body, headers=creation)
    assert created.status_code == 201
    table.created = created.get_json()
    table.game_id = table.created["id"]
    table.tokens = [seat["token"] for seat in table.created["seats"]]
    turn = table.view()["turn"]
    move = table.legal_moves(turn)[0]
    move_key = key()
    first = table.move(turn, move["card"], move["capture"], headers=move_key)
    assert first.status_code == 200
    with redis.Redis.from_url(redis_url, decode_responses=True) as client:
        game_key = f"scopa:game:{{{table.game_id}}}"
        (pointer,) = client.keys("scopa:creation:*")
        assert sorted(client.keys("*")) == sorted([pointer, game_key, game_key + ":events"])
        assert client.get(pointer) == table.game_id
        fields = client.hkeys(game_key)
        assert len([f for f in fields if f.startswith("idem:")]) == 2  # creation and move
        stored = everything_stored(redis_url)
        assert '"seats"' in stored  # the kept answers, inflated
        for token in table.tokens:  # only sealed with the client's key, never as it is
            assert token not in stored
    again = table.client.post("/v1/games", json=body, headers=creation)
    assert again.status_code == 201 and again.get_json() == created.get_json()
    replayed = table.move(turn, move["card"], move["capture"], headers=move_key)
    assert replayed.get_json() == first.get_json()


class TestNoSecretFromPublicData:
    """A game id, a token or where an answer is kept never derives from what a client
    sends or can see: ids and tokens are random, and keys are hashed under the server's
    secret (SERVER_SECRET)."""

    def test_the_same_key_on_a_fresh_store_makes_another_id_and_other_tokens(
        self, client: FlaskClient, redis_url: str
    ) -> None:
        headers = key()
        first = client.post("/v1/games", json={"seed": 3}, headers=headers).get_json()
        with redis.Redis.from_url(redis_url) as raw:
            raw.flushdb()
        second = client.post("/v1/games", json={"seed": 3}, headers=headers).get_json()
        assert first["id"] != second["id"]
        assert first["seats"][0]["token"] != second["seats"][0]["token"]

    def test_where_a_key_is_kept_depends_on_the_server_secret(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        headers, names = key(), []
        secrets = ("one-server-secret-0123456789abcdefghij", "another-secret-0123456789abcdefghijk")
        for secret in secrets:
            with redis.Redis.from_url(redis_url, decode_responses=True) as raw:
                raw.flushdb()
                app = make_app(REDIS_URL=redis_url, SERVER_SECRET=secret)
                created = app.test_client().post("/v1/games", json={}, headers=headers)
                assert created.status_code == 201
                names.append(raw.keys("scopa:creation:*")[0])
                game_key = f"scopa:game:{{{created.get_json()['id']}}}"
                kept = [f for f in raw.hkeys(game_key) if f.startswith("idem:")]
                names.append(kept[0])
        assert len(set(names)) == 4
        hashed = hashlib.sha256(f"create\n{headers['Idempotency-Key']}".encode()).hexdigest()
        assert not any(hashed[:32] in name for name in names)

    @pytest.mark.parametrize("short", ["a", "match-31337", "x" * 15])
    def test_a_creation_key_shorter_than_16_is_refused(
        self, client: FlaskClient, short: str
    ) -> None:
        answer = client.post("/v1/games", json={}, headers={"Idempotency-Key": short})
        assert answer.status_code == 422
        assert answer.get_json()["errors"] == {"Idempotency-Key": ["Not a valid key."]}
        assert "UUID" in answer.get_json()["detail"]

    def test_the_service_refuses_to_start_without_a_secret(self, redis_url: str) -> None:
        with pytest.raises(RuntimeError, match="SERVER_SECRET"):
            create_app({"REDIS_URL": redis_url, "SERVER_SECRET": ""})


class TestBoundedAnswers:
    """A game keeps one answer per seat, not one per keyed move: what a game holds in
    Redis stays bounded however many keyed moves its seats send (issue 26, item 4)."""

    @pytest.mark.parametrize("players", [2, 6])  # 6: the most answers a game keeps
    def test_a_whole_match_with_a_key_on_every_move_keeps_the_hash_small(
        self, table: Table, redis_url: str, players: int
    ) -> None:
        table.create(seed=5, target=11, players=players)
        turn = table.view()["turn"]
        moves = 0
        last: tuple[int, dict[str, object], dict[str, str], object] | None = None
        while turn is not None:
            move = table.legal_moves(turn)[0]
            headers = key()
            answer = table.move(turn, move["card"], move["capture"], headers=headers)
            assert answer.status_code == 200, answer.get_json()
            last = (turn, move, headers, answer.get_json())
            moves += 1
            turn = answer.get_json()["state"]["turn"]
        assert moves > 36  # more than one hand: many keyed moves per seat
        game_key = f"scopa:game:{{{table.game_id}}}"
        with redis.Redis.from_url(redis_url, decode_responses=True) as raw:
            kept = sorted(f for f in raw.hkeys(game_key) if f.startswith("idem:"))
            assert kept == sorted(f"idem:seat{seat}" for seat in range(players))
            size = sum(raw.hstrlen(game_key, f) for f in raw.hkeys(game_key))
            assert size < 16 * 1024, size
            # Every field counted (SAMPLES 0): Redis's default estimate samples 5 fields
            # of a hash, and so varied from 9 to 17 KiB for the same 10.5 KiB hash.
            assert raw.memory_usage(game_key, samples=0) < 16 * 1024
        # The latest keyed move of the match still gets its first answer again.
        assert last is not None
        seat, move, headers, first = last
        again = table.move(seat, move["card"], move["capture"], headers=headers)  # type: ignore[arg-type]
        assert again.status_code == 200
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.get_json() == first

    def test_a_retry_of_an_older_move_plays_nothing_twice(self, table: Table) -> None:
        table.create(seed=3, first_dealer=1)
        move = table.legal_moves(0)[0]
        older = key()
        assert table.move(0, move["card"], move["capture"], headers=older).status_code == 200
        reply = table.legal_moves(1)[0]
        assert table.move(1, reply["card"], reply["capture"]).status_code == 200
        newer = table.legal_moves(0)[0]
        assert table.move(0, newer["card"], newer["capture"], headers=key()).status_code == 200
        version = table.view()["version"]
        retried = table.move(0, move["card"], move["capture"], headers=older)
        assert retried.status_code in (409, 422)  # not its turn, or the card is played
        assert table.view()["version"] == version
