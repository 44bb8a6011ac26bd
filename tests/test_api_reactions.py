"""Reactions: ``POST /v1/games/{id}/reactions`` (a fixed set of emotes from a seat), sent
to every stream open on the game as ``event: reaction`` and to nothing else: not the
event log, not a stream opened later. Its errors, and its own quota per token."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.api.resources.reactions.schemas import EMOTES
from tests.helpers import Table
from tests.test_api_errors import problem
from tests.test_api_stream import AppStream, Sse, close_hub

RFC3339_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


@pytest.fixture
def app(redis_url: str, make_app: Callable[..., Flask]) -> Iterator[Flask]:
    app = make_app(REDIS_URL=redis_url, STREAM_KEEPALIVE_SECONDS=0.3)
    yield app
    close_hub(app)


@pytest.fixture
def open_stream(client: FlaskClient) -> Iterator[Callable[..., AppStream]]:
    streams: list[AppStream] = []

    def open_(url: str, headers: dict[str, str] | None = None) -> AppStream:
        response = client.get(url, headers=headers or {}, buffered=False)
        assert response.status_code == 200, response.get_data(as_text=True)
        stream = AppStream(response)
        streams.append(stream)
        state = stream.next()
        assert state is not None and state.event == "state"
        return stream

    yield open_
    for stream in streams:
        stream.close()


def react(table: Table, seat: int | None, emote: Any = "applause", **extra: Any) -> Any:
    headers = table.auth(seat) if seat is not None else {}
    return table.client.post(
        table.url("/reactions"), json={"emote": emote, **extra}, headers=headers
    )


def reaction(stream: AppStream) -> Sse:
    """The stream's next reaction (keep-alive comments skipped)."""
    return stream.events(lambda sse: sse.event == "reaction")[-1]


def test_a_reaction_reaches_every_stream_and_not_the_log(
    table: Table, open_stream: Callable[..., AppStream]
) -> None:
    table.create(seed=5)
    seat_stream = open_stream(table.url("/stream"), table.auth(0))
    spectator = open_stream(table.url("/stream"))
    logged = table.client.get(table.url("/events")).get_json()["events"]

    answer = react(table, 1, "gg")
    assert answer.status_code == 202, answer.get_json()
    sent = answer.get_json()
    assert sent["seat"] == 1 and sent["emote"] == "gg" and RFC3339_UTC.match(sent["at"])
    for stream in (seat_stream, spectator):
        shown = reaction(stream)
        assert shown.data == sent
        assert shown.id is None  # not an event of the log: Last-Event-ID stays put
    assert table.client.get(table.url("/events")).get_json()["events"] == logged
    assert table.view()["seq"] == len(logged) - 1  # nor a change of the game

    # A stream opened afterwards (a reconnection) gets none of the earlier ones: its
    # first reaction is the next one sent.
    later = open_stream(table.url("/stream"), table.auth(1))
    answer = react(table, 0, "wow")
    assert answer.status_code == 202
    assert reaction(later).data == answer.get_json()
    assert reaction(seat_stream).data["emote"] == "wow"


def test_every_emote_of_the_set_and_nothing_else(table: Table) -> None:
    table.create(seed=6)
    for seat, emote in enumerate(EMOTES[:2]):
        assert react(table, seat, emote).status_code == 202
    for bad in ("heart", "", None, 3, "GG"):
        body = problem(react(table, 0, bad), 422, "/problems/validation")
        assert "emote" in body["errors"], body
    body = problem(react(table, 0, "laugh", text="hi"), 422, "/problems/validation")
    assert "text" in body["errors"], body
    missing = table.client.post(table.url("/reactions"), json={}, headers=table.auth(0))
    problem(missing, 422, "/problems/validation")


def test_the_errors(table: Table) -> None:
    table.create(seed=7, target=1)
    problem(react(table, None), 401, "/problems/unauthorized")
    wrong = table.client.post(
        table.url("/reactions"), json={"emote": "sad"}, headers={"Authorization": "Bearer nope"}
    )
    problem(wrong, 401, "/problems/unauthorized")
    gone = table.client.post(
        "/v1/games/AAAAAAAAAAAAAAAAAAAAAA/reactions", json={"emote": "sad"}, headers=table.auth(0)
    )
    problem(gone, 404, "/problems/game-not-found")
    table.play_to_end(random.Random(7))
    problem(react(table, 0, "gg"), 409, "/problems/match-over")


def test_a_token_has_its_own_quota(redis_url: str, make_app: Callable[..., Flask]) -> None:
    table = Table(make_app(REDIS_URL=redis_url, REACTION_LIMIT_PER_TOKEN=3).test_client())
    table.create(seed=8)
    for _ in range(3):  # REACTION_LIMIT_PER_TOKEN
        assert react(table, 0).status_code == 202
    over = problem(react(table, 0), 429, "/problems/rate-limited")
    assert "reactions" in over["detail"]
    assert int(react(table, 0).headers["Retry-After"]) >= 1
    assert react(table, 1).status_code == 202  # another seat's token: its own count
    # Other requests of the same token are not counted against it.
    assert table.client.get(table.url(), headers=table.auth(0)).status_code == 200


def test_a_seat_that_left_gets_no_more_reactions(
    table: Table, open_stream: Callable[..., AppStream]
) -> None:
    """A stream whose token no longer holds its seat ends (revoked) before any reaction
    sent after it left: the reactions come with the read of the log that shows it."""
    created = table.create(seats=[{"name": "Ana"}, {"open": True}, {"open": True}])
    code = created["join"]["code"]
    joined = table.client.post(table.url("/join"), json={"name": "Bruno", "code": code})
    assert joined.status_code == 200, joined.get_json()
    token = joined.get_json()["token"]
    stream = open_stream(table.url("/stream"), {"Authorization": f"Bearer {token}"})
    host = open_stream(table.url("/stream"), table.auth(0))
    left = table.client.post(table.url("/leave"), headers={"Authorization": f"Bearer {token}"})
    assert left.status_code == 204
    assert react(table, 0, "sad").status_code == 202
    assert reaction(host).data["emote"] == "sad"  # it was sent, and heard
    rest = stream.events(lambda sse: sse.event == "end")
    assert rest[-1].data == {"reason": "revoked"}
    assert not [sse for sse in rest if sse.event == "reaction"]
