"""For browser frontends: CORS for the configured origins, cheap polling with
If-None-Match (304), and the event log read from a cursor."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable

import pytest
from flask import Flask

from tests.helpers import Table

APP_ORIGIN = "https://scopa.example"


@pytest.fixture
def cors_table(make_app: Callable[..., Flask], redis_url: str) -> Table:
    app = make_app(REDIS_URL=redis_url, CORS_ORIGINS=f"{APP_ORIGIN}, https://other.example")
    return Table(app.test_client())


class TestCors:
    def test_a_preflight_allows_what_the_api_takes(self, cors_table: Table) -> None:
        response = cors_table.client.options(
            "/v1/games/some-id/moves",
            headers={
                "Origin": APP_ORIGIN,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, content-type, if-match, "
                "idempotency-key",
            },
        )
        assert response.status_code == 200
        assert response.headers["Access-Control-Allow-Origin"] == APP_ORIGIN
        allowed = response.headers["Access-Control-Allow-Headers"].lower()
        for header in ("authorization", "content-type", "if-match", "idempotency-key"):
            assert header in allowed
        assert "POST" in response.headers["Access-Control-Allow-Methods"]

    def test_answers_expose_the_headers_a_client_reads(self, cors_table: Table) -> None:
        response = cors_table.client.post("/v1/games", json={}, headers={"Origin": APP_ORIGIN})
        assert response.status_code == 201
        assert response.headers["Access-Control-Allow-Origin"] == APP_ORIGIN
        exposed = {h.strip() for h in response.headers["Access-Control-Expose-Headers"].split(",")}
        assert {"ETag", "Location", "Retry-After", "Idempotent-Replayed", "X-Request-ID"} <= exposed
        # Errors too: a browser must read the problem to show it.
        missing = cors_table.client.get("/v1/games/nope", headers={"Origin": APP_ORIGIN})
        assert missing.status_code == 404
        assert missing.headers["Access-Control-Allow-Origin"] == APP_ORIGIN

    def test_an_origin_not_listed_gets_no_cors_header(self, cors_table: Table) -> None:
        response = cors_table.client.get("/v1/variants", headers={"Origin": "https://evil.example"})
        assert response.status_code == 200
        assert "Access-Control-Allow-Origin" not in response.headers

    @pytest.mark.parametrize("origin", [APP_ORIGIN, "https://evil.example", None])
    @pytest.mark.parametrize("path", ["/v1/cards", "/v1/variants", "/v1/games/nope", "/play"])
    def test_every_answer_varies_on_the_origin(
        self, cors_table: Table, origin: str | None, path: str
    ) -> None:
        """Its CORS headers depend on the Origin, also when it got none: a shared cache
        (`/v1/cards` is `public, max-age=86400`) must not give one origin's answer to
        another (issue 26, item 9)."""
        headers = {"Origin": origin} if origin else {}
        response = cors_table.client.get(path, headers=headers)
        response.close()  # (a file's answer, /play)
        varies = [v.strip().lower() for v in response.headers.get("Vary", "").split(",")]
        assert varies.count("origin") == 1, response.headers.get("Vary")
        if path == "/v1/cards":
            assert "public" in response.headers["Cache-Control"]
            assert "accept-language" in varies

    def test_off_unless_configured(self, table: Table) -> None:
        response = table.client.get("/v1/variants", headers={"Origin": APP_ORIGIN})
        assert "Access-Control-Allow-Origin" not in response.headers


class TestConditionalReads:
    def test_a_game_unchanged_since_its_etag_is_a_304(self, table: Table) -> None:
        table.create(seed=3)
        first = table.client.get(table.url(), headers=table.auth(0))
        etag = first.headers["ETag"]
        assert first.headers["Vary"] == "Authorization, Accept-Encoding"  # (compression)
        again = table.client.get(table.url(), headers={**table.auth(0), "If-None-Match": etag})
        assert again.status_code == 304 and again.get_data() == b""
        assert again.headers["ETag"] == etag
        weak = table.client.get(table.url(), headers={"If-None-Match": f"W/{etag}"})
        assert weak.status_code == 304  # If-None-Match compares weakly (RFC 9110 13.1.2)
        turn = table.view()["turn"]
        move = table.legal_moves(turn)[0]
        assert table.move(turn, move["card"], move["capture"]).status_code == 200
        moved = table.client.get(table.url(), headers={**table.auth(0), "If-None-Match": etag})
        assert moved.status_code == 200 and moved.headers["ETag"] == '"2"'

    def test_a_304_is_no_way_around_the_token(self, table: Table) -> None:
        table.create(seed=3)
        stranger = {"Authorization": "Bearer not-a-token", "If-None-Match": '"1"'}
        assert table.client.get(table.url(), headers=stranger).status_code == 401

    def test_the_event_log_too(self, table: Table) -> None:
        table.create(seed=3)
        log = table.client.get(table.url("/events"))
        unchanged = {"If-None-Match": log.headers["ETag"]}
        again = table.client.get(table.url("/events"), headers=unchanged)
        assert again.status_code == 304


class TestEventCursor:
    def test_after_returns_only_newer_events(self, table: Table) -> None:
        table.create(seed=3)
        whole = table.client.get(table.url("/events")).get_json()["events"]
        last = whole[-1]["seq"]
        assert table.client.get(table.url(f"/events?after={last}")).get_json()["events"] == []
        turn = table.view()["turn"]
        move = table.legal_moves(turn)[0]
        assert table.move(turn, move["card"], move["capture"]).status_code == 200
        newer = table.client.get(table.url(f"/events?after={last}")).get_json()["events"]
        assert [e["seq"] for e in newer] == list(range(last + 1, last + 1 + len(newer)))
        assert newer[0]["type"] == "move"
        everything = table.client.get(table.url("/events?after=-1")).get_json()["events"]
        assert everything == whole + newer

    def test_a_seat_sees_only_its_own_cards_from_the_cursor_on(self, table: Table) -> None:
        table.create(seed=3)
        mine = table.client.get(table.url("/events?after=0"), headers=table.auth(0)).get_json()
        deal = next(e for e in mine["events"] if e["type"] == "deal")
        assert set(deal["cards"]) == set(table.view(0)["hand"])
        spectator = table.client.get(table.url("/events?after=0")).get_json()["events"]
        assert all("cards" not in e and "hands" not in e for e in spectator)

    @pytest.mark.parametrize("after", ["x", "-2", "1.5", ""])
    def test_a_bad_cursor_is_a_422(self, table: Table, after: str) -> None:
        table.create(seed=3)
        response = table.client.get(table.url(f"/events?after={after}"))
        assert response.status_code == 422
        assert "after" in response.get_json()["errors"]


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_documentation_pages_load_nothing_from_elsewhere(table: Table, page: str) -> None:
    """Swagger UI and ReDoc come with the service (service/api/docs_ui.py): every script
    and style a page names is served here, so the pages work offline."""
    html = table.client.get(page).get_data(as_text=True)
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets, html
    for asset in assets:
        assert asset.startswith("/"), f"{page} loads {asset} from elsewhere"
        answer = table.client.get(asset)
        assert answer.status_code == 200, asset
        assert answer.mimetype in ("text/javascript", "application/javascript", "text/css")
        answer.close()


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_documentation_pages_are_served_under_a_content_security_policy(
    table: Table, page: str
) -> None:
    """Scripts from the service itself and the page's own inline script, by its hash;
    nothing else inline, no eval, nothing from elsewhere, no frames (issue 26, item 9)."""
    response = table.client.get(page)
    assert response.status_code == 200
    policy = {
        directive.split()[0]: directive.split()[1:]
        for directive in response.headers["Content-Security-Policy"].split("; ")
    }
    assert policy["default-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"] and policy["base-uri"] == ["'none'"]
    assert policy["connect-src"] == ["'self'"]
    scripts = policy["script-src"]
    assert "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts
    html = response.get_data(as_text=True)
    inline = re.findall(r"<script>(.*?)</script>", html, re.DOTALL)
    hashes = [
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"
        for text in inline
    ]
    assert scripts == ["'self'", *hashes]
    assert len(inline) == (1 if page == "/docs" else 0)  # Swagger UI's settings
    # Every script either has a src on this origin or is one of the hashed ones.
    tags = re.findall(r"<script([^>]*)>", html)
    assert all(re.fullmatch(r' src="/[^"]+"', attrs) or attrs == "" for attrs in tags), tags
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_every_answer_numbers_its_events_as_the_log_does(table: Table) -> None:
    """A client that applies the events of its answers and of the log never applies one
    twice: each carries its `seq`, and the view says up to where it goes."""
    created = table.create(seats=[{"name": "Ann"}, {"name": "CPU", "bot": "greedy"}], seed=9)
    log = table.client.get(table.url("/events")).get_json()["events"]
    assert created["state"]["seq"] == len(log) - 1
    assert created["events"] == log[len(log) - len(created["events"]) :]
    for _ in range(6):
        turn = table.view()["turn"]
        if turn is None:
            break
        move = table.legal_moves(turn)[0]
        answer = table.move(turn, move["card"], move["capture"]).get_json()
        after = answer["state"]["seq"] - len(answer["events"])
        log = table.client.get(table.url("/events"), headers=table.auth(0)).get_json()["events"]
        assert answer["state"]["seq"] == len(log) - 1
        assert answer["events"] == log[after + 1 :]
        assert log[after]["type"] == "move" and log[after]["card"] == answer["move"]["card"]
