"""Responses are dumped by a plan compiled from their schemas (service/api/responses.py):
it must give exactly what marshmallow's own dump gives, for every response the API sends,
and must drop what a schema does not declare."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import marshmallow as ma
import orjson
import pytest
import redis
from flask import Flask, jsonify
from flask.json.provider import DefaultJSONProvider
from flask.testing import FlaskClient
from marshmallow import fields

from service.api import examples
from service.api.game_views.schemas import GameViewSchema
from service.api.responses import ResponseSchema
from service.engine import VARIANTS, Match
from service.play import records
from service.play.game import Game
from service.play.webhooks.store import Message, WebhookStore

from .helpers import Table


@pytest.fixture
def dumped(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """Every ResponseSchema dump is compared with marshmallow's; counts dumps by schema."""
    seen: dict[str, int] = {}
    planned = ResponseSchema.dump

    def both(self: ResponseSchema, obj: Any, *, many: bool | None = None) -> Any:
        fast = planned(self, obj, many=many)
        assert fast == ma.Schema.dump(self, obj, many=many), type(self).__name__
        seen[type(self).__name__] = seen.get(type(self).__name__, 0) + 1
        return fast

    monkeypatch.setattr(ResponseSchema, "dump", both)
    yield seen


def success_schemas(app: Flask) -> set[str]:
    """The schema of every documented success response of the API's operations."""
    names = set()
    for view in app.view_functions.values():
        view_class = getattr(view, "view_class", None)
        for method in ("get", "post") if view_class else ():
            doc = getattr(getattr(view_class, method, None), "_apidoc", {})
            responses = doc.get("response", {}).get("responses", {})
            for status in doc.get("success_status_codes", []):
                for response in responses.get(status, []):
                    if "schema" in response:  # 204 has none
                        names.add(type(response["schema"]).__name__)
    return names


def play_every_endpoint(client: FlaskClient, variant: str, rng: random.Random) -> None:
    table = Table(client)
    players = 4 if variant.startswith("scopone") else 2
    seats = [{"name": f"P{i}"} for i in range(players)]
    seats[-1]["bot"] = "greedy"  # its moves come back as events
    created = table.create(variant=variant, seats=seats, seed=rng.randrange(1000))
    turn = created["state"]["turn"]
    assert client.get(table.url("/hint"), headers=table.auth(turn)).status_code == 200
    assert client.get(table.url("/analysis"), headers=table.auth(turn)).status_code == 200
    table.play_to_end(rng)
    table.view()
    table.view(0)
    for seat in (None, 0):
        headers = table.auth(seat) if seat is not None else {}
        assert client.get(table.url("/events"), headers=headers).status_code == 200
    assert client.get(table.url("/legal-moves"), headers=table.auth(0)).status_code == 200
    assert client.get(table.url("/hands")).status_code == 200
    assert client.get(table.url("/hands/1")).status_code == 200
    assert client.post(table.url("/rematch"), headers=table.auth(0)).status_code == 201
    lobby = Table(client)
    code = lobby.create(
        variant=variant, players=players, seats=[{"name": "A"}] + [{"open": True}] * (players - 1)
    )["join"]["code"]
    for _ in range(players - 1):
        joined = client.post(lobby.url("/join"), json={"name": "B", "code": code})
        assert joined.status_code == 200, joined.get_json()


def test_the_plan_dumps_what_marshmallow_dumps_for_every_response(
    app: Flask,
    client: FlaskClient,
    make_app: Callable[..., Flask],
    redis_url: str,
    dumped: dict[str, int],
) -> None:
    rng = random.Random(5)
    for variant in VARIANTS:
        play_every_endpoint(client, variant, rng)
    # Computer players that stop at once, so that they are left to be asked to go on.
    hasty = make_app(REDIS_URL=redis_url, BOT_TIME_LIMIT_SECONDS=0.0).test_client()
    bots = [{"name": "A", "bot": "random"}, {"name": "B", "bot": "greedy"}]
    created = hasty.post("/v1/games", json={"seed": 3, "seats": bots})
    assert created.status_code == 201
    assert hasty.post(f"/v1/games/{created.get_json()['id']}/bots").status_code == 200
    position = {"hand": ["7D", "3C", "10B"], "table": ["4S", "7C"]}
    cirulla = Table(client)
    cirulla.create(**examples.CIRULLA_CREATE)  # Ana holds a buona
    declared = client.post(
        cirulla.url("/declarations"), json={"declare": "buona"}, headers=cirulla.auth(0)
    )
    requests = [
        declared,
        client.get("/v1/variants"),
        client.get("/v1/bot-levels"),
        client.get("/v1/cards?lang=it"),
        client.get("/healthz"),
        client.get("/readyz"),
        client.post("/v1/legal-moves", json=position),
        client.post("/v1/hint", json={**position, "piles": [["1C", "1B"], []]}),
        client.post("/v1/analysis", json={**position, "piles": [["1C", "1B"], []]}),
        client.post("/v1/score", json={"piles": [["7D", "1D"], ["2C"]]}),
    ]
    # A platform's: a round with player ids and metadata, a game aborted, the listing.
    secret = "acme-secret-0123456789abcdefghijklmnopqrstuvwxyz"
    keyed = make_app(REDIS_URL=redis_url, SERVICE_KEYS=f"acme={secret}").test_client()
    key = {"Authorization": f"Bearer {secret}"}
    pairing = {"seats": [{"name": "A", "player_id": "a1"}, {"name": "B"}], "metadata": {"r": "1"}}
    bulk = keyed.post("/v1/games/bulk", json={"games": [pairing, pairing]}, headers=key)
    assert bulk.status_code == 201, bulk.get_json()
    game_id = bulk.get_json()["games"][0]["id"]
    requests += [
        keyed.post(f"/v1/games/{game_id}/abort", json={"reason": "x"}, headers=key),
        keyed.get("/v1/games?limit=1", headers=key),
        keyed.get(f"/v1/games/{game_id}?as_seat=0", headers=key),
    ]
    # Its webhook endpoint (one delivery written as a worker would), its records.
    hooked = make_app(
        REDIS_URL=redis_url, SERVICE_KEYS=f"acme={secret}", WEBHOOK_ALLOW_HOSTS="127.0.0.1:9"
    ).test_client()
    hook = {"url": "http://127.0.0.1:9/hook", "events": ["game.aborted"]}
    registered = hooked.post("/v1/webhooks", json=hook, headers=key)
    assert registered.status_code == 201, registered.get_json()
    endpoint = registered.get_json()["id"]
    hooks = WebhookStore(redis.Redis.from_url(redis_url, decode_responses=True), 60)
    message = Message(f"msg_{game_id}.5", "game.aborted", game_id, '{"type": "game.aborted"}')
    hooks.dispatch("acme", game_id, "", "6", {endpoint: [message]}, 10)
    hooks.client.close()
    deliveries = f"/v1/webhooks/{endpoint}/deliveries"
    record = keyed.get(f"/v1/games/{game_id}/record", headers=key)
    imported = keyed.post("/v1/games/import", json=play_a_record(rng), headers=key)
    assert imported.status_code == 201, imported.get_json()
    retried = hooked.post(f"{deliveries}/{message.id}/retry", headers=key)
    assert retried.status_code == 202, retried.get_json()
    since = {"since": "2026-01-01T00:00:00Z"}
    recovered = hooked.post(f"/v1/webhooks/{endpoint}/recover", json=since, headers=key)
    assert recovered.status_code == 202, recovered.get_json()
    requests += [
        record,
        hooked.get("/v1/webhooks", headers=key),
        hooked.get(f"/v1/webhooks/{endpoint}", headers=key),
        hooked.get(deliveries, headers=key),
        hooked.get(f"{deliveries}/{message.id}", headers=key),
    ]
    # Its players' ratings, and a tournament (made, read by its key and by anyone, an
    # entrant withdrawn).
    entrants = [{"players": [{"player_id": f"t{n}", "name": f"T{n}"}]} for n in range(4)]
    cup = {"name": "Cup", "format": "round_robin", "entrants": entrants}
    made = keyed.post("/v1/tournaments", json=cup, headers=key)
    assert made.status_code == 201, made.get_json()
    tournament = f"/v1/tournaments/{made.get_json()['tournament']['id']}"
    requests += [
        keyed.get(tournament, headers=key),
        keyed.get(tournament),
        keyed.post(f"{tournament}/withdrawals", json={"entrant": 1}, headers=key),
        keyed.get("/v1/players/a1", headers=key),
        keyed.get("/v1/players?variant=scopa", headers=key),
        keyed.get("/v1/tournaments", headers=key),
        keyed.post(f"{tournament}/cancel", headers=key),
    ]
    for response in requests:
        assert response.status_code == 200, response.get_json()
    reacted = client.post(cirulla.url("/reactions"), json={"emote": "gg"}, headers=cirulla.auth(0))
    assert reacted.status_code == 202, reacted.get_json()
    assert set(dumped) >= success_schemas(app)


def play_a_record(rng: random.Random) -> dict[str, Any]:
    """The record of a finished random match (as a key would export it)."""
    match, events = Match.new(target=1, seed=rng.randrange(1000))
    while match.status == "playing":
        events += match.push(rng.choice(match.legal_moves()))
    game = Game(id="g", version=2, match=match, bots=(None, None), token_hashes=(None, None))
    return orjson.loads(orjson.dumps(records.record_of(game, events)))


def test_a_field_the_schema_does_not_declare_is_not_sent() -> None:
    view = {"id": "g", "turn": 0, "hand": ["7D"], "stock": ["1C"], "hands": {"1": ["2S"]}}
    assert GameViewSchema().dump(view) == {"id": "g", "turn": 0, "hand": ["7D"]}


def test_a_field_type_without_a_plan_is_refused_not_guessed() -> None:
    class Odd(ResponseSchema):
        computed = fields.Method("compute")

        def compute(self, obj: Any) -> int:
            return 1

    with pytest.raises(TypeError, match="no dump plan"):
        Odd().dump({})


def test_what_orjson_refuses_flask_still_writes(app: Flask) -> None:
    """service/api/json_provider.py: orjson takes no integer over 64 bits; Flask's own
    encoder writes it instead of the answer failing."""
    with app.app_context():
        assert json.loads(jsonify({"n": 2**70, "name": "Añá"}).get_data()) == {
            "n": 2**70,
            "name": "Añá",
        }
        assert jsonify({"card": "7D"}).get_data() == b'{"card":"7D"}'  # orjson's, compact
        assert json.loads(app.json.dumps({"n": 2**70})) == {"n": 2**70}


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((), {}),
        (({"a": 1},), {}),
        ((1, 2, "x"), {}),
        ((), {"a": [1, 2], "b": None}),
        ((None,), {}),
    ],
    ids=["nothing", "one", "several", "keywords", "null"],
)
def test_jsonify_takes_its_arguments_as_flask_does(
    app: Flask, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """service/api/json_provider.py reads jsonify's arguments itself (Flask's helper for
    that is private): the same value as Flask's own provider, for every form."""
    with app.app_context():
        ours = app.json.response(*args, **kwargs)
        flasks = DefaultJSONProvider(app).response(*args, **kwargs)
        assert json.loads(ours.get_data()) == json.loads(flasks.get_data())
        assert ours.mimetype == flasks.mimetype == "application/json"
        with pytest.raises(TypeError):
            app.json.response(1, a=2)
