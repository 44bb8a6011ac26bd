"""Service keys (docs/platforms.md): how a platform's backend is known, what it may do
with the games it created, and how its requests are counted."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service import config
from service.play import GameStore
from tests.helpers import everything_stored

ACME = "acme-secret-0123456789abcdefghijklmnopqrstuvwxyz"
BETA = "beta-secret-0123456789abcdefghijklmnopqrstuvwxyz"
KEYS = f"acme={ACME},beta={BETA}"


def key(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


@pytest.fixture
def keyed(make_app: Callable[..., Flask], redis_url: str) -> Callable[..., FlaskClient]:
    """A client of an app with the keys acme and beta (and any other settings)."""

    def make(**settings: Any) -> FlaskClient:
        return make_app(REDIS_URL=redis_url, SERVICE_KEYS=KEYS, **settings).test_client()

    return make


class TestTheSetting:
    def test_names_and_secrets_are_read(self) -> None:
        assert config.service_keys(f" acme = {ACME} ,, beta={BETA}") == {"acme": ACME, "beta": BETA}
        assert config.service_keys("") == {}

    @pytest.mark.parametrize(
        ("value", "says"),
        [
            ("acme", "name=secret"),
            (f"Acme={ACME}", "name=secret"),
            (f"{'a' * 33}={ACME}", "name=secret"),
            ("acme=short", "32 or more characters"),
            (f"acme={ACME},acme={BETA}", "given twice"),
            (f"acme={ACME},beta={ACME}", "another key's secret"),
        ],
    )
    def test_a_bad_key_stops_the_service_without_repeating_a_secret(
        self, value: str, says: str
    ) -> None:
        with pytest.raises(config.ConfigError) as refused:
            config.from_env({"SERVICE_KEYS": value})
        message = str(refused.value)
        assert message.startswith("bad setting: SERVICE_KEYS is refused")
        assert says in message
        assert ACME not in message and "short" not in message


class TestIdentity:
    def test_a_game_a_key_creates_is_the_keys(
        self, keyed: Callable[..., FlaskClient], redis_url: str
    ) -> None:
        client = keyed()
        created = client.post("/v1/games", json={}, headers=key(ACME))
        assert created.status_code == 201, created.get_json()
        anonymous = client.post("/v1/games", json={})
        store = GameStore(redis.Redis.from_url(redis_url), 60)
        try:
            owned = store.load(created.get_json()["id"])
            assert owned.owner == "acme"
            assert owned.payer == "key:acme"
            assert store.load(anonymous.get_json()["id"]).owner is None
        finally:
            store.close()
        assert ACME not in everything_stored(redis_url)

    def test_a_bearer_that_is_no_key_is_read_as_a_seat_token(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        client = keyed()
        game = client.post("/v1/games", json={}).get_json()
        wrong = client.get(f"/v1/games/{game['id']}", headers=key(ACME[:-1] + "!"))
        assert wrong.status_code == 401
        assert "not a seat token" in wrong.get_json()["detail"]
        seat = client.get(f"/v1/games/{game['id']}", headers=key(game["seats"][0]["token"]))
        assert seat.status_code == 200 and seat.get_json()["hand"]


class TestQuotas:
    def test_a_key_counts_against_its_own_limit_not_its_address(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        """Two keys from one address, and that address's anonymous requests, are counted
        apart: each key by SERVICE_KEY_RATE_LIMIT wherever it comes from."""
        client = keyed(RATE_LIMIT_PER_ADDRESS=2, SERVICE_KEY_RATE_LIMIT=3)

        def status(headers: dict[str, str], address: str = "192.0.2.1") -> int:
            return client.get(
                "/v1/variants", headers=headers, environ_base={"REMOTE_ADDR": address}
            ).status_code

        assert [status(key(ACME)) for _ in range(3)] == [200, 200, 200]
        limited = client.get("/v1/variants", headers=key(ACME))
        assert limited.status_code == 429
        assert "this service key" in limited.get_json()["detail"]
        assert "at most 3 a minute" in limited.get_json()["detail"]
        # Another address does not help the key; the other key and the address are free.
        assert status(key(ACME), "198.51.100.9") == 429
        assert [status(key(BETA)) for _ in range(3)] == [200, 200, 200]
        assert [status({}), status({}), status({})] == [200, 200, 429]

    def test_creations_count_per_key(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed(CREATION_LIMIT_PER_ADDRESS=1, SERVICE_KEY_CREATION_LIMIT=2)
        statuses = [client.post("/v1/games", json={}, headers=key(ACME)).status_code for _ in "123"]
        assert statuses == [201, 201, 429]
        assert client.post("/v1/games", json={}, headers=key(BETA)).status_code == 201
        assert [client.post("/v1/games", json={}).status_code for _ in "12"] == [201, 429]

    def test_no_limit_at_zero(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed(RATE_LIMIT_PER_ADDRESS=1, SERVICE_KEY_RATE_LIMIT=0)
        assert {client.get("/v1/variants", headers=key(ACME)).status_code for _ in "1234"} == {200}
