"""The browser client at /play (service/web/), played in a real browser: Debian's Chromium
driven by Playwright, against the service as deployed (gunicorn and its workers, on the
tests' private Redis), as people would play: clicking, typing, on a desktop and a phone.

Every page is watched: a console error or an uncaught error fails its test. Screenshots
are kept in tests/artifacts/browser/ (git-ignored; ``BROWSER_ARTIFACTS`` to change it).
``UPDATE_SCREENSHOT=1`` also writes the README's screenshot, docs/play.png.

Chromium is Debian's (``make test`` installs the ``chromium`` package where apt-get can);
without it these tests skip. ``CHROMIUM=/path/to/chromium`` takes another.
"""

from __future__ import annotations

import json
import os
import re
import struct
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from service.api.play_page import ASSETS, POLICY, PREFIX
from tests.live import LiveService

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed: pip install -e '.[test]'"
)

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(os.environ.get("BROWSER_ARTIFACTS", ROOT / "tests" / "artifacts" / "browser"))
README_SCREENSHOT = ROOT / "docs" / "play.png"
README_SIZE = (1000, 720)
DESKTOP = {"width": 1100, "height": 800}
PHONE = {"width": 360, "height": 640}

#: The deck of the README's screenshot: Ann lays 5D, the computer takes it with 5B, and
#: Ann's 10B may take either king on the table.
README_DECK = (
    "7S 5D 10B 8S 5B 6C 10S 10D 6B 2B 1B 6S 7D 9S 8D 3S 1D 2D 9D 5S 5C 8C 2C 4B 7B 3C 1S "
    "3B 8B 2S 9C 3D 4C 7C 10C 1C 4S 9B 6D 4D"
).split()

Page = Any  # playwright.sync_api.Page


# -- the browser ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).is_file():
        pytest.skip(
            f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium package where "
            "apt-get works (or set CHROMIUM=/path/to/chromium); the browser tests skip"
        )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        yield launched
        launched.close()


class Person:
    """Someone at the page: a browser context of their own (their localStorage, their
    language, their screen), its console and errors watched."""

    def __init__(self, browser: Any, base_url: str, name: str, **context: Any) -> None:
        self.base_url = base_url
        self.name = name
        self.context = browser.new_context(
            viewport=context.pop("viewport", DESKTOP),
            locale=context.pop("locale", "en-US"),
            reduced_motion=context.pop("reduced_motion", "reduce"),
            **context,
        )
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        #: Console errors expected for a while (the network cut off on purpose).
        self.allowed: re.Pattern[str] | None = None
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))

    def _console(self, message: Any) -> None:
        if message.type != "error":
            return
        if self.allowed is not None and self.allowed.search(message.text):
            return
        self.errors.append(f"console error: {message.text} at {message.location}")

    def open(self, path: str = "/play") -> None:
        self.page.goto(self.base_url + path)

    def hold(self, game_id: str, token: str, seat: int = 0) -> None:
        """Open the page at ``game_id`` holding ``seat`` by its ``token`` (kept in
        localStorage first, as a platform handing its players their tokens would)."""
        self.open()
        self.page.wait_for_selector("#setup:not([hidden])")
        self.page.evaluate(
            "(seats) => localStorage.setItem('scopa.seats', seats)",
            json.dumps({game_id: {"token": token, "seat": seat}}),
        )
        self.open(f"/play?game={game_id}")

    def start(
        self, *, against: str = "computer", level: str = "greedy", target: int = 1, **more: str
    ) -> None:
        page = self.page
        page.wait_for_selector("#setup:not([hidden])")
        page.fill("#setup-form [name=name]", self.name)
        page.check(f"#setup-form [name=against][value={against}]")
        if against == "computer":
            page.select_option("#setup-form [name=level]", level)
        for field, value in more.items():  # first: a variant sets its own target
            page.select_option(f"#setup-form [name={field}]", value)
        page.fill("#setup-form [name=target]", str(target))
        page.click("#setup-form [type=submit]")

    # -- what the page shows --------------------------------------------------------------

    def seat(self) -> tuple[str, str, int]:
        """The game, token and seat the page keeps in localStorage."""
        game_id = self.page.get_attribute("#game", "data-game") or self.current_game()
        seats = self.page.evaluate("() => JSON.parse(localStorage.getItem('scopa.seats'))")
        return game_id, seats[game_id]["token"], seats[game_id]["seat"]

    def current_game(self) -> str:
        return str(self.page.evaluate("() => JSON.parse(localStorage.getItem('scopa.current'))"))

    def cards(self, where: str) -> list[str]:
        return list(
            self.page.eval_on_selector_all(
                f"{where} .card", "els => els.map(e => e.dataset.card).filter(Boolean)"
            )
        )

    def labels(self, where: str) -> list[str]:
        return list(
            self.page.eval_on_selector_all(
                f"{where} .card",
                "els => els.map(e => e.getAttribute('aria-label')"
                " ?? e.querySelector('[role=img]')?.getAttribute('aria-label')"
                " ?? e.querySelector('.visually-hidden')?.textContent)",
            )
        )

    def seq(self) -> int:
        return int(self.page.get_attribute("#game", "data-seq") or -1)

    def ready(self) -> bool:
        return self.page.get_attribute("#game", "data-ready") == "true"

    def status(self) -> str:
        return self.page.get_attribute("#game", "data-status") or ""

    def dialog_open(self) -> bool:
        return bool(self.page.eval_on_selector("#scores-dialog", "d => d.open"))

    def wait_for_seq_after(self, seq: int, timeout: float = 10.0) -> None:
        self.page.wait_for_function(
            "(seq) => Number(document.querySelector('#game').dataset.seq) > seq",
            arg=seq,
            timeout=timeout * 1000,
        )

    def overflow(self) -> int:
        """How far the page is wider than its screen (0: no horizontal scrolling)."""
        return int(
            self.page.evaluate(
                "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
        )

    def screenshot(self, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path

    # -- playing ----------------------------------------------------------------------------

    def play(self, service: LiveService, choose: bool = True) -> dict[str, Any]:
        """Play a move by clicking, on our turn: a card that can capture in several ways if
        there is one (and ``choose``), picking its capture from the choices shown. Checks
        that what the page offers is what the API says. Returns the move."""
        assert self.ready(), f"{self.name}: not our turn"
        game_id, token, _ = self.seat()
        auth = {"Authorization": f"Bearer {token}"}
        view = requests.get(f"{service.url}/v1/games/{game_id}", headers=auth, timeout=10).json()
        assert self.cards("#hand") == view["hand"]
        assert self.cards("#table") == view["table"]
        moves = requests.get(
            f"{service.url}/v1/games/{game_id}/legal-moves", headers=auth, timeout=10
        ).json()["moves"]
        playable = self.page.eval_on_selector_all(
            "#hand .card[aria-disabled=false]", "els => els.map(e => e.dataset.card)"
        )
        assert sorted(playable) == sorted({m["card"] for m in moves})
        by_card: dict[str, list[list[str]]] = {}
        for move in moves:
            by_card.setdefault(move["card"], []).append(move["capture"])
        several = [card for card, options in by_card.items() if len(options) > 1]
        card = several[0] if several and choose else moves[0]["card"]
        seq = self.seq()
        self.page.click(f"#hand [data-card='{card}']")
        capture = by_card[card][0]
        if len(by_card[card]) > 1:
            self.page.wait_for_selector("#choices:not([hidden])")
            offered = self.page.eval_on_selector_all(
                "#choice-list .choice", "els => els.map(e => e.dataset.capture.split(' '))"
            )
            assert offered == by_card[card]
            capture = offered[-1]
            self.page.click(f"#choice-list .choice[data-capture='{' '.join(capture)}']")
        self.wait_for_seq_after(seq)
        return {"card": card, "capture": capture}

    def follow_to_the_end(self, timeout: float = 30.0) -> None:
        """Wait for the match to be over on the page, closing each hand's score sheet on
        the way (the next deal waits while it is open, as a player reads it)."""

        def over() -> bool:
            if self.status() == "finished":
                return True
            if self.page.query_selector("#scores-dialog[open][data-holds=true]"):
                self.page.click("#close-scores")
            return False

        wait_until(over, timeout=timeout, what=f"the end of {self.name}'s match")
        # The result: on the table's screen (out of view while the sheet says it), and in
        # the sheet (opened again if the last click above closed it as it came).
        self.page.wait_for_selector("#final:not([hidden])", state="attached")

        def result_open() -> bool:
            if self.page.query_selector("#scores-dialog[open][data-holds=false]"):
                return True
            # Opened by the page at the end, or by the button: clicked only while no
            # sheet is open (one opening meanwhile holds the click: tried again).
            if not self.page.query_selector("#scores-dialog[open]"):
                try:
                    self.page.click("#final-scores", timeout=2000)
                except sync_api.TimeoutError:
                    pass
            return False

        wait_until(result_open, timeout=timeout, what=f"{self.name}'s final score sheet")

    def assert_clean(self) -> None:
        assert not self.errors, f"{self.name}'s page:\n" + "\n".join(self.errors)

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def people(browser: Any, live_service: LiveService) -> Iterator[Callable[..., Person]]:
    """Makes people at the page of the live service; each page must end without errors."""
    made: list[Person] = []

    def make(name: str, **context: Any) -> Person:
        person = Person(browser, live_service.url, name, **context)
        made.append(person)
        return person

    yield make
    for person in made:
        person.close()
    for person in made:
        person.assert_clean()


def wait_rematch_offered(person: Person) -> None:
    """The match over on the page, a rematch offered: on the result's score sheet, or on
    the table's final box once the sheet is closed (the box gives way to the open sheet)."""
    page = person.page
    wait_until(
        lambda: (
            page.is_visible("#scores-dialog[open] #rematch") or page.is_visible("#final-rematch")
        ),
        timeout=30,
        what=f"{person.name}'s rematch offered",
    )


#: axe-core as openapi/package.json locks it, installed by ``make node-tools`` (which
#: ``make test`` runs first where npm is): the current release, not a copy bundled in a
#: Python package that lags behind it.
AXE = ROOT / ".tools" / "node" / "node_modules" / "axe-core" / "axe.min.js"
AXE_VERSION = "4.14."


def run_axe(page: Any, options: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """axe-core's violations on ``page`` as it is now (``options``: axe.run's). Skips
    without axe-core (``make node-tools`` installs it; it needs npm). Evaluated through
    the browser's debugging protocol, so the page's Content-Security-Policy, which
    allows no injected script, is left as served."""
    if not AXE.is_file():
        pytest.skip(f"no axe-core at {AXE}: `make node-tools` installs it (it needs npm)")
    if page.evaluate("() => typeof window.axe") == "undefined":
        page.evaluate(AXE.read_text(encoding="utf-8"))
    version = page.evaluate("() => axe.version")
    assert version.startswith(AXE_VERSION), f"axe-core {version}, not {AXE_VERSION}x"
    found: list[dict[str, Any]] = page.evaluate(
        "async (options) => (await axe.run(document, options)).violations",
        {"resultTypes": ["violations"], **(options or {})},
    )
    return found


def check_axe(person: Person, screen: str) -> None:
    """axe-core 4.14 on the page as it is now: no violation of any of its rules (issue 28,
    item 6; issue 36)."""
    violations = run_axe(person.page)
    found = [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:4]}" for v in violations
    ]
    assert not found, f"axe-core on {screen}:\n" + "\n".join(found)


def wait_until(check: Callable[[], Any], timeout: float = 15.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what or check}")


def api_view(service: LiveService, game_id: str, token: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = requests.get(f"{service.url}/v1/games/{game_id}", headers=headers, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def names(service: LiveService, lang: str, faces: str = "italian") -> dict[str, str]:
    response = requests.get(
        f"{service.url}/v1/cards", params={"lang": lang, "faces": faces}, timeout=10
    )
    return {c["card"]: c["name"] for c in response.json()["cards"]}


def check_score_table(person: Person, service: LiveService, game_id: str) -> None:
    """The last hand's table in the dialog says what GET /v1/games/{id}/hands says."""
    hands = requests.get(f"{service.url}/v1/games/{game_id}/hands", timeout=10).json()["hands"]
    last = hands[-1]
    table = f"#scores-body table.score[data-hand='{last['hand']}']"
    person.page.wait_for_selector(table)
    rows = person.page.eval_on_selector_all(
        f"{table} tbody tr",
        "rows => rows.map(r => [r.dataset.category, [...r.querySelectorAll('td strong')]"
        ".map(s => Number(s.textContent))])",
    )
    shown = dict(rows)
    for category in last["teams"][0]["points"]:
        assert shown[category] == [side["points"][category] for side in last["teams"]]
    assert shown["total"] == [side["total"] for side in last["teams"]]
    heads = person.page.eval_on_selector_all(f"{table} tbody th", "ths => ths.length")
    assert heads == len(last["teams"][0]["points"]) + 2  # its categories, total, match


def play_to_the_end(service: LiveService, person: Person, shots: dict[str, int]) -> int:
    """Play ``person``'s moves until the match is over, closing the hand's score dialog
    between hands; screenshot ``name`` after ``shots[name]`` moves. Returns the moves."""
    played = 0
    while True:
        wait_until(
            lambda: person.ready() or person.dialog_open(), timeout=20, what="a turn or a score"
        )
        if person.dialog_open():
            if person.status() == "finished":
                person.page.wait_for_selector("#rematch:not([hidden])")
                return played
            person.screenshot(f"{person.name}-hand-score")
            person.page.click("#close-scores")
            continue
        person.play(service)
        played += 1
        for name, after in shots.items():
            if played == after:
                person.screenshot(name)


# -- the page as served ----------------------------------------------------------------------


def test_the_page_is_served_with_its_files_under_a_strict_policy(
    live_service: LiveService,
) -> None:
    http = live_service.session
    page = http.get(f"{live_service.url}/play", timeout=10)
    assert page.status_code == 200
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    assert page.headers["Content-Security-Policy"] == POLICY
    assert "'unsafe-inline'" not in POLICY and "'unsafe-eval'" not in POLICY
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert page.headers["Cache-Control"] == "no-cache"
    html = page.text
    # No inline script or style: every script and sheet is a file of the page.
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts and len(re.findall(r"<script [^>]*src=[^>]*></script>", html)) == len(scripts)
    assert "<style" not in html and " style=" not in html and " on" + "click=" not in html
    # (the page's files under their versioned prefix: service/api/play_page.py; its other
    # links, the rules page's, are not files of the page)
    for src in re.findall(r'<(?:script|link)[^>]* (?:src|href)="([^"]+)"', html):
        assert src.startswith(PREFIX) and src.split("/")[-1] in ASSETS, src

    types = {
        ".js": "text/javascript",
        ".css": "text/css",
        ".svg": "image/svg+xml",
        ".json": "application/json",
    }
    assert {name for name in ASSETS if name.endswith(".js")} >= {"play.js", "app.js", "cards.js"}
    for name in ASSETS:
        answer = http.get(f"{live_service.url}/play/{name}", timeout=10)
        assert answer.status_code == 200, name
        assert answer.headers["Content-Type"].split(";")[0] == types[Path(name).suffix], name
        assert answer.headers["Content-Security-Policy"] == POLICY
        etag = {"If-None-Match": answer.headers["ETag"]}
        again = http.get(f"{live_service.url}/play/{name}", headers=etag, timeout=10)
        assert again.status_code == 304, name

    for missing in ("/play/nope.js", "/play/..%2Fapi%2Fplay_page.py", "/play/index.html"):
        answer = http.get(live_service.url + missing, timeout=10)
        assert answer.status_code == 404, missing
        assert answer.headers["Content-Type"] == "application/problem+json"
    spec = http.get(f"{live_service.url}/openapi.json", timeout=10).json()
    assert not [path for path in spec["paths"] if path.startswith("/play")]


# -- in the browser ----------------------------------------------------------------------------


def test_a_whole_match_against_the_computer(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    ann = people("Ann")
    ann.open()
    # It offers every level the service has, weakest first.
    ann.page.wait_for_function(
        "() => document.querySelectorAll('#setup-form [name=level] option').length > 1"
    )
    offered = ann.page.eval_on_selector_all(
        "#setup-form [name=level] option", "options => options.map((o) => o.value)"
    )
    levels = live_service.session.get(f"{live_service.url}/v1/bot-levels", timeout=10).json()[
        "levels"
    ]
    assert offered == [level["level"] for level in levels]
    check_axe(ann, "the setup form")
    ann.start(level="greedy", target=1)
    ann.page.wait_for_selector("#game[data-ready=true]")
    ann.screenshot("match-start")
    check_axe(ann, "a game of 2 on a desktop")
    game_id, token, seat = ann.seat()
    assert seat == 0 and ann.page.url.endswith(f"/play?game={game_id}")
    view = api_view(live_service, game_id, token)
    assert view["variant"] == "scopa" and view["target"] == 1
    assert view["seats"][1]["bot"] == "greedy"
    assert not view["seeded"] and ann.page.query_selector("#info .seeded") is None
    # Each card is named as the API names it, in the page's language.
    english = names(live_service, "en")
    assert ann.labels("#hand") == [english[card] for card in view["hand"]]
    assert ann.labels("#table") == [english[card] for card in view["table"]]

    moves = play_to_the_end(live_service, ann, {"match-mid-hand": 4})
    assert moves >= 15  # at least a whole hand: 18 moves, or more if it went on

    view = api_view(live_service, game_id, token)
    assert view["status"] == "finished"
    check_score_table(ann, live_service, game_id)
    result = ann.page.inner_text("#result")
    assert result == ("You won!" if view["winner"] == 0 else "You lost.")
    ann.screenshot("match-score")

    # A rematch: a new game, the finished one pointing at it.
    ann.page.click("#rematch")
    ann.page.wait_for_function(
        "(old) => { const g = document.querySelector('#game');"
        " return g.dataset.game && g.dataset.game !== old && g.dataset.status === 'playing'; }",
        arg=game_id,
    )
    new_id, new_token, _ = ann.seat()
    assert api_view(live_service, game_id)["next"] == new_id
    assert api_view(live_service, new_id, new_token)["previous"] == game_id
    assert not ann.dialog_open()


def test_friends_through_the_join_link(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """Ann and Bruno in browsers of their own, Carla through the API: the lobby follows
    who joins and leaves, each sees the others' moves live, a lost network and a reload
    carry on, and a rematch asked for by one reaches the other."""
    ann = people("Ann", reduced_motion="no-preference")
    bruno = people("Bruno", locale="it-IT")
    ann.open()
    ann.start(against="friends", target=1, players="3")
    ann.page.wait_for_selector("#lobby:not([hidden])")
    link = ann.page.input_value("#share-link")
    game_id, _, _ = ann.seat()
    found = re.fullmatch(rf"{re.escape(live_service.url)}/play\?room=([0-9A-Z]{{10}})", link)
    assert found, link
    code = found.group(1)
    lobby = "#lobby-seats li"
    assert ann.page.inner_text(f"{lobby}[data-seat='0']") == "Ann (you)"
    assert ann.page.inner_text("#lobby-waiting") == "Waiting for 2 more"
    check_axe(ann, "the lobby")

    # Carla takes a seat and leaves it: Ann's lobby shows both as they happen.
    join_url = f"{live_service.url}/v1/games/{game_id}/join"
    carla = requests.post(join_url, json={"name": "Carla", "code": code}, timeout=10).json()
    ann.page.wait_for_selector(f"{lobby}[data-seat='1']:text-is('Carla')")
    assert ann.page.inner_text("#lobby-waiting") == "Waiting for 1 more"
    left = requests.post(
        f"{live_service.url}/v1/games/{game_id}/leave",
        headers={"Authorization": f"Bearer {carla['token']}"},
        timeout=10,
    )
    assert left.status_code == 204
    ann.page.wait_for_selector(f"{lobby}[data-seat='1'].open")

    # Bruno opens the link, in his language, sees who is there, and takes the open seat.
    bruno.open(link.removeprefix(live_service.url))
    bruno.page.wait_for_selector("#join:not([hidden]) #join-seats li")
    assert "Ann" in bruno.page.inner_text("#join-seats")
    assert bruno.page.inner_text("#join h2") == "Entra in una partita"
    check_axe(bruno, "the join form")
    bruno.page.fill("#join-form [name=name]", "Bruno")
    bruno.page.click("#join-form [type=submit]")
    bruno.page.wait_for_selector("#lobby:not([hidden])")
    assert bruno.page.is_hidden("#share")  # the code is the creator's to give
    assert bruno.page.inner_text(f"{lobby}[data-seat='1']") == "Bruno (tu)"
    ann.page.wait_for_selector(f"{lobby}[data-seat='1']:text-is('Bruno')")
    assert bruno.seat()[0] == game_id and bruno.seat()[2] == 1

    # Carla takes the last seat: the match starts on both pages.
    carla = requests.post(join_url, json={"name": "Carla", "code": code}, timeout=10).json()
    assert carla["seat"] == 2
    for person in (ann, bruno):
        person.page.wait_for_selector("#game:not([hidden])")
        assert re.findall(r"Ann|Bruno|Carla", person.page.inner_text("#opponents")) == (
            ["Bruno", "Carla"] if person is ann else ["Carla", "Ann"]
        )
    check_axe(ann, "a game of 3 friends")
    tokens = {0: ann.seat()[1], 1: bruno.seat()[1], 2: carla["token"]}
    at_seat = {0: ann, 1: bruno}

    def play_by_api(seat: int) -> dict[str, Any]:
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        url = f"{live_service.url}/v1/games/{game_id}"
        move = requests.get(f"{url}/legal-moves", headers=auth, timeout=10).json()["moves"][0]
        body = {"card": move["card"], "capture": move["capture"]}
        played = requests.post(f"{url}/moves", json=body, headers=auth, timeout=10)
        assert played.status_code == 200, played.text
        return body

    def turn() -> int:
        return int(api_view(live_service, game_id)["turn"])

    # Each sees the others' moves as they come, animated on Ann's page (its cards fly).
    ann.page.evaluate(
        "() => { window.flights = 0; new MutationObserver((changes) => { for (const c of changes)"
        " for (const n of c.addedNodes) if (n.classList?.contains('flying')) window.flights++; })"
        ".observe(document.body, {childList: true}); }"
    )
    for step in range(5):
        seat = turn()
        watchers = [p for s, p in at_seat.items() if s != seat]
        seqs = [watcher.seq() for watcher in watchers]
        flights = ann.page.evaluate("() => window.flights")
        if seat == 2:
            mover, move = "Carla", play_by_api(2)
        else:
            wait_until(at_seat[seat].ready, what=f"{at_seat[seat].name}'s turn")
            mover, move = at_seat[seat].name, at_seat[seat].play(live_service)
        for watcher, seq in zip(watchers, seqs, strict=True):
            watcher.wait_for_seq_after(seq)
            said = names(live_service, "it" if watcher is bruno else "en")[move["card"]]
            wait_until(lambda w=watcher, said=said: said in w.page.inner_text("#status"))
            assert mover in watcher.page.inner_text("#status")
        wait_until(lambda n=flights: ann.page.evaluate("() => window.flights") > n, timeout=5)
        if step == 2:
            ann.screenshot("friends-mid-hand-ann")
            bruno.screenshot("friends-mid-hand-bruno")

    # One of them loses the network while the others play; back online, nothing is missed.
    ann.page.emulate_media(reduced_motion="reduce")
    while turn() == 2:
        play_by_api(2)
    player = at_seat[turn()]
    watcher = bruno if player is ann else ann
    log = requests.get(f"{live_service.url}/v1/games/{game_id}/events", timeout=10).json()
    wait_until(lambda: watcher.seq() == log["events"][-1]["seq"], what="the watcher up to date")
    seq = watcher.seq()
    watcher.allowed = re.compile(r"ERR_INTERNET_DISCONNECTED|ERR_NETWORK_CHANGED")
    watcher.context.set_offline(True)
    wait_until(lambda: watcher.page.get_attribute("#connection", "data-mode") == "offline")
    wait_until(player.ready, what=f"{player.name}'s turn")
    player.play(live_service)
    if turn() == 2:
        play_by_api(2)
    time.sleep(0.3)
    assert watcher.seq() == seq  # nothing came through
    watcher.context.set_offline(False)
    watcher.wait_for_seq_after(seq)
    wait_until(lambda: watcher.page.get_attribute("#connection", "data-mode") == "live")
    watcher.allowed = None
    wait_until(lambda: watcher.cards("#table") == api_view(live_service, game_id)["table"])

    # A reload carries on: the same seat, the same hand.
    bruno.page.reload()
    bruno.page.wait_for_selector("#game:not([hidden])")
    wait_until(lambda: bruno.cards("#hand") == api_view(live_service, game_id, tokens[1])["hand"])

    # The rest of the match, played through the API (quicker than clicking), the pages
    # following it; then Ann asks for a rematch, and Bruno is told.
    while (view := api_view(live_service, game_id))["status"] != "finished":
        play_by_api(view["turn"])
    won = {ann: ("You won!", "You lost."), bruno: ("Hai vinto!", "Hai perso.")}
    for seat, person in at_seat.items():
        person.follow_to_the_end()
        wait_until(lambda p=person: p.page.inner_text("#result"), what="the result")
        assert person.page.inner_text("#result") == won[person][view["winner"] != seat]
        assert person.cards("#hand") == []
    for person in (ann, bruno):
        person.page.wait_for_selector("#rematch:not([hidden])")
    ann.page.click("#rematch")
    bruno.page.wait_for_selector("#rematch-note:not([hidden])")
    bruno.page.click("#rematch")
    for person in (ann, bruno):
        person.page.wait_for_function(
            "(old) => { const g = document.querySelector('#game');"
            " return g.dataset.game !== old && g.dataset.status === 'playing'; }",
            arg=game_id,
        )
    assert ann.seat()[0] == bruno.seat()[0] != game_id
    assert (ann.seat()[2], bruno.seat()[2]) == (0, 1)


def test_a_phone_screen_and_the_keyboard(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    ana = people("Ana", viewport=PHONE, locale="pt-BR", is_mobile=True, has_touch=True)
    # Its event stream is refused (as a server holding all the streams it may refuses
    # one): the page follows the match by polling the log instead.
    refusal = {
        "type": "about:blank",
        "title": "Service Unavailable",
        "status": 503,
        "detail": "This server holds as many event streams as it may: retry in 5 seconds.",
    }
    ana.context.route(
        re.compile(r"/v1/games/[^/]+/stream"),
        lambda route: route.fulfill(
            status=503,
            content_type="application/problem+json",
            headers={"Retry-After": "5"},
            body=json.dumps(refusal),
        ),
    )
    ana.allowed = re.compile(r"status of 503")
    ana.open()
    ana.page.wait_for_selector("#setup:not([hidden])")
    assert ana.page.inner_text("#setup h2") == "Novo jogo"  # the browser's language
    assert ana.overflow() == 0
    ana.screenshot("phone-setup")
    ana.start(level="random", target=1, clock="30")
    ana.page.wait_for_selector("#game[data-ready=true]")
    assert ana.page.get_attribute("#connection", "data-mode") == "polling"
    game_id, token, _ = ana.seat()
    assert api_view(live_service, game_id)["clock"]["seconds"] == 30
    assert re.fullmatch(r"Ana: (30|29|28) s", ana.page.inner_text("#clock").strip())
    assert ana.overflow() == 0
    ana.screenshot("phone-game")

    # The keyboard: Tab reaches the hand, arrows move along it, Enter plays.
    ana.page.focus("#lang")
    for _ in range(8):
        ana.page.keyboard.press("Tab")
        if ana.page.evaluate("() => document.activeElement.closest('#hand') !== null"):
            break
    hand = ana.cards("#hand")
    focused = ana.page.evaluate("() => document.activeElement.dataset.card")
    assert focused == hand[0]
    ana.page.keyboard.press("ArrowRight")
    focused = ana.page.evaluate("() => document.activeElement.dataset.card")
    assert focused == hand[1]
    # Its accessible name (as a screen reader computes it) is the card's.
    named = ana.page.get_by_role("button", name=names(live_service, "pt")[hand[1]], exact=True)
    assert named.evaluate("e => e === document.activeElement")
    seq = ana.seq()
    ana.page.keyboard.press("Enter")
    if ana.page.is_visible("#choices"):
        ana.page.keyboard.press("ArrowRight")
        ana.page.keyboard.press("Enter")
    ana.wait_for_seq_after(seq)
    played = requests.get(f"{live_service.url}/v1/games/{game_id}/events", timeout=10).json()
    mine = [e for e in played["events"] if e["type"] == "move" and e["seat"] == 0]
    assert mine[0]["card"] == hand[1]

    # Another language and the French pack: other names, other drawings.
    ana.page.select_option("#lang", "es")
    ana.page.click("#menu summary")
    ana.page.select_option("#faces", "french")
    ana.page.click("#menu summary")
    spanish = names(live_service, "es", "french")
    wait_until(lambda: ana.labels("#table") == [spanish[c] for c in ana.cards("#table")])
    assert ana.page.text_content("#new-game") == "Partida nueva"
    assert ana.overflow() == 0

    # The rest of the match through the API (the page follows it, polling), to its end.
    auth = {"Authorization": f"Bearer {token}"}
    url = f"{live_service.url}/v1/games/{game_id}"
    while api_view(live_service, game_id)["status"] != "finished":
        move = requests.get(f"{url}/legal-moves", headers=auth, timeout=10).json()["moves"][0]
        body = {"card": move["card"], "capture": move["capture"]}
        assert requests.post(f"{url}/moves", json=body, headers=auth, timeout=10).ok
    ana.follow_to_the_end()
    ana.page.wait_for_selector("#scores-dialog #rematch:not([hidden])")
    check_score_table(ana, live_service, game_id)
    assert ana.overflow() == 0
    ana.screenshot("phone-score")
    assert ana.page.eval_on_selector("#scores-dialog", "d => d.scrollWidth <= d.clientWidth")


def test_the_readme_screenshot(people: Callable[..., Person], live_service: LiveService) -> None:
    """docs/play.png: a match under way, Ann choosing which king her king takes. Made
    from a game created with a known deck, opened from the seat kept in localStorage (as
    a reload opens it)."""
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={
            "seats": [{"name": "Ann"}, {"name": "Computer", "bot": "greedy"}],
            "deck": README_DECK,
            "first_dealer": 1,
            "target": 11,
        },
        timeout=10,
    ).json()
    game_id, token = created["id"], created["seats"][0]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    laid = requests.post(
        f"{live_service.url}/v1/games/{game_id}/moves",
        json={"card": "5D"},
        headers=auth,
        timeout=10,
    )
    assert laid.status_code == 200, laid.text
    assert laid.json()["state"]["turn"] == 0  # the computer replied within the request

    ann = people("Ann", viewport={"width": README_SIZE[0], "height": README_SIZE[1]})
    ann.open()  # a new game's form; the seat kept in localStorage, it opens the game
    ann.page.wait_for_selector("#setup:not([hidden])")
    seats = json.dumps({game_id: {"token": token, "seat": 0}})
    ann.page.evaluate(
        "(seats) => { localStorage.setItem('scopa.seats', seats);"
        " localStorage.setItem('scopa.prefs', JSON.stringify({faces: 'italian'})); }",
        seats,
    )
    ann.open(f"/play?game={game_id}")
    ann.page.wait_for_selector("#game[data-ready=true]")
    assert ann.cards("#hand") == ["7S", "10B"]
    ann.page.click("#hand [data-card='10B']")
    ann.page.wait_for_selector("#choices:not([hidden])")
    ann.page.hover("#choice-list .choice >> nth=0")
    ann.page.wait_for_selector("#table .card.preview")
    ann.page.mouse.move(0, README_SIZE[1] - 1)  # no pointer over the picture
    ann.page.focus("#choice-list .choice >> nth=0")
    check_axe(ann, "the capture choices")
    shot = ann.screenshot("readme")
    if os.environ.get("UPDATE_SCREENSHOT"):
        README_SCREENSHOT.write_bytes(shot.read_bytes())
    assert png_size(README_SCREENSHOT) == README_SIZE, "run with UPDATE_SCREENSHOT=1"


def test_cirulla_declaring_through_the_page(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """Cirulla (docs/rules.md C3): Ana, first to play, holds the 7C with 2S and 3B, a buona
    whatever the 7C counts as from 1 to 4; Bruno, a greedy computer player, holds a buona
    too. She declares through the page, choosing what the 7C counts as (after a refusal,
    shown as errors are), sees her cards marked and her points, plays a card, and sees
    Bruno's declared cards face up by his seat."""
    first = ["7C", "2S", "3B", "2B", "2C", "5S", "4D", "3C", "6C", "1S"]
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={
            "variant": "cirulla",
            "seats": [{"name": "Ana"}, {"name": "Bruno", "bot": "greedy"}],
            "deck": first + [card for card in README_DECK if card not in first],
            "first_dealer": 1,
        },
        timeout=10,
    ).json()
    game_id, token = created["id"], created["seats"][0]["token"]

    ana = people("Ana")
    ana.open()
    ana.page.wait_for_selector("#setup:not([hidden])")
    # The form offers Cirulla, for 2 to 4 players, to 51.
    ana.page.select_option("#setup-form [name=variant]", "cirulla")
    players = ana.page.eval_on_selector_all(
        "#setup-form [name=players] option", "els => els.map(e => e.value)"
    )
    assert players == ["2", "3", "4"]
    assert ana.page.input_value("#setup-form [name=target]") == "51"
    seats = json.dumps({game_id: {"token": token, "seat": 0}})
    ana.page.evaluate("(seats) => localStorage.setItem('scopa.seats', seats)", seats)
    ana.open(f"/play?game={game_id}")
    ana.page.wait_for_selector("#game[data-ready=true]")
    assert ana.cards("#hand") == ["2S", "3B", "7C"]
    # Dealt from a set deck: the page says so (issue 26, item 8), with why it matters.
    mark = ana.page.wait_for_selector("#info .seeded")
    assert mark.inner_text() == "dealt in advance"
    assert "whoever created it can know every deal" in (mark.get_attribute("title") or "")

    # One declaration, the 7C's value to choose: 1 to 4, the highest first.
    ana.page.wait_for_selector("#declare:not([hidden])")
    check_axe(ana, "the declarations (Cirulla)")
    button = "#declare-list button[data-declare=buona]"
    assert ana.page.inner_text(button) == "Declare buona (3 points)"
    menu = "#declare-list select[name=matta_as]"
    values = ana.page.eval_on_selector_all(f"{menu} option", "els => els.map(e => e.value)")
    assert values == ["1", "2", "3", "4"]
    assert ana.page.input_value(menu) == "4"
    assert "Seven of cups counts as" in ana.page.inner_text("#declare-list")

    # A refusal (problem+json) is shown as any error is, and the choice stays offered.
    refusal = {"type": "/problems/illegal-move", "title": "Illegal move", "status": 422}
    refusal["detail"] = "you declared already in this deal: play a card"
    ana.allowed = re.compile(r"status of 422")
    ana.page.route(
        re.compile(r"/v1/games/[^/]+/declarations$"),
        lambda route: route.fulfill(
            status=422, content_type="application/problem+json", body=json.dumps(refusal)
        ),
    )
    ana.page.click(button)
    ana.page.wait_for_selector("#error:not([hidden])")
    assert ana.page.inner_text("#error") == f"Something went wrong: {refusal['detail']}"
    ana.page.wait_for_selector("#game[data-ready=true] #declare:not([hidden])")
    ana.page.unroute(re.compile(r"/v1/games/[^/]+/declarations$"))
    ana.allowed = None

    # Declared, the 7C as 2: still her turn, her cards marked, her points shown.
    seq = ana.seq()
    ana.page.select_option(menu, "2")
    ana.page.click(button)
    ana.wait_for_seq_after(seq)
    ana.page.wait_for_selector("#game[data-ready=true]")
    assert ana.page.is_hidden("#declare")
    assert ana.page.is_hidden("#error")
    marked = ana.page.eval_on_selector_all(
        "#hand .card.declared", "els => els.map(e => e.dataset.card)"
    )
    assert marked == ["2S", "3B", "7C"]
    assert ana.page.inner_text("#me .declared-points").strip() == "· declared: 3"
    status = ana.page.inner_text("#status")
    assert "Ana declared a buona" in status and "Seven of cups counts as 2." in status
    view = api_view(live_service, game_id, token)
    assert (view["turn"], view["seats"][0]["exposed"]) == (0, ["2S", "3B", "7C"])
    assert view["seats"][0]["declared_points"] == 3
    log = requests.get(f"{live_service.url}/v1/games/{game_id}/events", timeout=10).json()
    declared = [e for e in log["events"] if e["type"] == "declaration"]
    assert [(e["seat"], e["kind"], e["matta_as"]) for e in declared] == [(0, "buona", 2)]
    ana.screenshot("cirulla-declared")

    # She plays a card; Bruno declares his buona and plays: what he has left is face up.
    played = ana.play(live_service)
    his = "#opponents .exposed[data-seat='1']"
    wait_until(lambda: len(ana.cards(his)) == 2, what="Bruno's declared cards")
    ana.page.wait_for_selector("#game[data-ready=true]")
    view = api_view(live_service, game_id, token)
    assert ana.cards(his) == view["seats"][1]["exposed"]
    assert len(view["seats"][1]["exposed"]) == 2
    assert ana.labels(his) == [names(live_service, "en")[c] for c in view["seats"][1]["exposed"]]
    bruno = "#opponents .seat[data-seat='1']"
    assert ana.page.inner_text(f"{bruno} .declared-points").strip() == "· declared: 3"
    assert ana.page.eval_on_selector_all(f"{bruno} .backs .back", "els => els.length") == 0
    marked = ana.page.eval_on_selector_all(
        "#hand .card.declared", "els => els.map(e => e.dataset.card)"
    )
    assert (
        marked
        == view["seats"][0]["exposed"]
        == [c for c in ["2S", "3B", "7C"] if c != played["card"]]
    )
    assert ana.page.is_hidden("#declare")  # one declaration a deal
    ana.screenshot("cirulla-bruno-declared")
    ana.assert_clean()


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_documentation_pages_work_under_their_policy(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """/docs and /redoc render the spec under their Content-Security-Policy (issue 26,
    item 9): a script, style, image or worker it refused would be a console error, which
    the fixture fails on."""
    reader = people("Reader")
    # The browser asks for /favicon.ico, which the service does not have: not the point.
    reader.page.route("**/favicon.ico", lambda route: route.fulfill(status=204))
    # ReDoc shows its maker's logo from cdn.redoc.ly: refused, as anything from elsewhere
    # is (the reader's visit is nobody else's business); it then hides the image.
    reader.allowed = re.compile(r"'https://cdn\.redoc\.ly/redoc/logo-mini\.svg' violates")
    reader.open("/docs")
    title = reader.page.wait_for_selector(".swagger-ui .info .title")
    assert "Scopa" in title.inner_text()
    reader.page.wait_for_selector(".swagger-ui .opblock")  # the operations, listed
    reader.open("/redoc")
    heading = reader.page.wait_for_selector("redoc h1, .api-info h1")
    assert "Scopa" in heading.inner_text()
    search = reader.page.wait_for_selector("input[placeholder='Search...']")
    search.fill("join")  # ReDoc's search runs in its worker (a blob: URL)
    reader.page.wait_for_selector("[data-role='search:results']", timeout=15_000)
