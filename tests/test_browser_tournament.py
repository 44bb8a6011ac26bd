"""The tournament page (/play?tournament=<id>, service/web/tournament.js) in Chromium (the
fixtures, the people and the service are tests/test_browser.py's): a public round robin of
computer players made with the live service's key, read by four people in the page's four
languages, on desktops and phones, while a worker plays it out. What each page shows is
what GET /v1/tournaments/{id} says, in its language; it polls with If-None-Match (304s
while nothing changes), follows the rounds as they finish until the end, never shows a
player's id, links each game being played to the spectator's view at /play, and axe-core
finds nothing on it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

from tests import test_browser
from tests.live import DEFAULT_ENV, LIVE_KEY, ROOT, LiveService
from tests.test_browser import PHONE, Person, check_axe, wait_until

#: The fixtures of tests/test_browser.py: its Chromium, and the people at the page.
browser = test_browser.browser
people = test_browser.people

PORTRAIT = {"width": 390, "height": 844}
LOCALES = ROOT / "service" / "web" / "locales"
NAMES = ["Ana", "Bruno", "Carla", "Dario"]
#: Each reader: the browser's language (the page speaks it, nothing chosen) and screen.
READERS = {
    "en": {"locale": "en-US", "viewport": test_browser.DESKTOP},
    "it": {"locale": "it-IT", "viewport": PORTRAIT},
    "es": {"locale": "es-ES", "viewport": test_browser.DESKTOP},
    "pt": {"locale": "pt-BR", "viewport": PHONE},
}

#: What a page shows of its tournament: facts, standings' rows, and each round's tables.
SHOWN = """() => ({
  lang: document.documentElement.lang,
  status: document.querySelector('#tournament').dataset.status,
  name: document.querySelector('#tournament-name').textContent,
  facts: [...document.querySelectorAll('#tournament-facts li')].map((li) => li.textContent),
  caption: document.querySelector('#standings caption').textContent,
  standings: [...document.querySelectorAll('#standings tbody tr')].map((tr) =>
    [...tr.cells].map((cell) => cell.textContent.trim())),
  rounds: [...document.querySelectorAll('#rounds details')].map((details) => ({
    round: Number(details.dataset.round),
    open: details.open,
    tables: [...details.querySelectorAll('tbody tr')].map((tr) => ({
      table: Number(tr.cells[0].textContent),
      first: tr.cells[1].querySelector('.name')?.textContent ?? null,
      second: tr.cells[2].querySelector('.name')?.textContent ?? tr.cells[2].textContent,
      winner: tr.querySelector('td.winner .name')?.textContent ?? null,
      result: tr.cells[3].textContent,
      watch: tr.querySelector('a.watch')?.getAttribute('href') ?? null,
    })),
  })),
  news: document.querySelector('#tournament-news').textContent,
})"""


def words(lang: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((LOCALES / f"{lang}.json").read_text(encoding="utf-8"))
    return found


def say(lang: str, key: str, **values: Any) -> str:
    text = words(lang)[key]
    for name, value in values.items():
        text = text.replace(f"{{{name}}}", str(value))
    return str(text)


def number(value: float, lang: str) -> str:
    """``value`` as Intl.NumberFormat(lang) writes it (at most two decimals)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if lang == "en" else text.replace(".", ",")


def expected(view: dict[str, Any], lang: str) -> dict[str, Any]:
    """What the page in ``lang`` shows of ``view`` (GET /v1/tournaments/{id})."""
    names = {e["number"]: e["name"] for e in view["entrants"]}

    def result(table: dict[str, Any]) -> str:
        if table["result"] is None:
            return say(lang, "roundPlaying") if table["game_id"] else "—"
        if table["second"] is None:
            return say(lang, "bye")
        if table["result"]["forfeit"]:
            return say(lang, "forfeit")
        return "–".join(number(p, lang) for p in table["result"]["points"])

    return {
        "lang": lang,
        "status": view["status"],
        "name": view["name"],
        "caption": say(lang, "standings"),
        "standings": [
            [
                str(line["rank"]),
                line["name"],
                *(
                    number(line[k], lang)
                    for k in ("points", "buchholz", "sonneborn_berger", "game_points", "scopas")
                ),
                f"{line['wins']}–{line['losses']}",
            ]
            for line in view["standings"]
        ],
        "rounds": [
            {
                "round": r["round"],
                "open": r["round"] == view["round"],
                "tables": [
                    {
                        "table": t["table"],
                        "first": names[t["first"]],
                        "second": say(lang, "bye") if t["second"] is None else names[t["second"]],
                        "winner": t["result"] and names[t["result"]["winner"]],
                        "result": result(t),
                        "watch": f"/play?game={t['game_id']}&watch=1"
                        if t["game_id"] and t["result"] is None
                        else None,
                    }
                    for t in r["tables"]
                ],
            }
            for r in reversed(view["pairings"])
        ],
    }


def check_page(person: Person, view: dict[str, Any], lang: str) -> dict[str, Any]:
    shown: dict[str, Any] = person.page.evaluate(SHOWN)
    want = expected(view, lang)
    assert {k: shown[k] for k in want} == want, lang
    facts = [
        say(lang, "format_round_robin"),
        say(lang, "roundOf", n=view["round"], of=view["rounds"]),
        say(lang, f"tournament_{view['status']}"),
    ]
    assert [f for f in shown["facts"] if f in facts] == facts, shown["facts"]
    return shown


@pytest.fixture
def worker(live_service: LiveService) -> Iterator[Callable[[], None]]:
    """Starts a background worker (``python -m service.worker``) on the live service's Redis,
    with its secret: it plays the computer players and moves the tournament on."""
    started: list[subprocess.Popen[bytes]] = []

    def start() -> None:
        env = {
            **os.environ,
            **DEFAULT_ENV,
            "REDIS_URL": live_service.redis_url,
            "COST_BUDGET_SECONDS_PER_ADDRESS": "0",
        }
        started.append(
            subprocess.Popen(
                [sys.executable, "-m", "service.worker"],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        )

    yield start
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def test_a_round_robin_read_live_in_four_languages(
    people: Callable[..., Person],
    live_service: LiveService,
    worker: Callable[[], None],
) -> None:
    run = uuid.uuid4().hex[:8]
    ids = [f"tp-{name.lower()}-{run}" for name in NAMES]
    made = requests.post(
        f"{live_service.url}/v1/tournaments",
        headers={"Authorization": f"Bearer {LIVE_KEY}"},
        json={
            "name": f"Coppa {run}",
            "format": "round_robin",
            "target": 1,
            "public": True,
            "entrants": [
                {"players": [{"player_id": pid, "name": name, "bot": "random"}]}
                for pid, name in zip(ids, NAMES, strict=True)
            ],
        },
        timeout=10,
    )
    assert made.status_code == 201, made.text
    tournament_id = made.json()["tournament"]["id"]
    url = f"{live_service.url}/v1/tournaments/{tournament_id}"

    def public() -> dict[str, Any]:
        answer = requests.get(url, timeout=10)
        assert answer.status_code == 200, answer.text
        found: dict[str, Any] = answer.json()
        return found

    # Four readers, before any game moves (no worker yet): round 1 of 3, its two games
    # being played, each linked to its spectator's view.
    readers: dict[str, Person] = {}
    polls: dict[str, list[tuple[int, str | None]]] = {}
    for lang, context in READERS.items():
        person = people(f"reader-{lang}", **context)
        polls[lang] = []

        def seen(response: Any, lang: str = lang) -> None:
            if "/v1/tournaments/" in response.url:
                sent = response.request.headers.get("if-none-match")
                polls[lang].append((response.status, sent))

        person.page.on("response", seen)
        person.open(f"/play?tournament={tournament_id}")
        person.page.wait_for_selector("#tournament:not([hidden]) #standings tbody tr")
        readers[lang] = person
    view = public()
    assert view["status"] == "playing" and view["round"] == 1 and view["rounds"] == 3
    for lang, person in readers.items():
        shown = check_page(person, view, lang)
        assert len([t for t in shown["rounds"][0]["tables"] if t["watch"]]) == 2
        content = person.page.content()
        assert not any(pid in content for pid in ids), f"a player's id on the {lang} page"
        if READERS[lang]["viewport"]["width"] < 520:
            assert person.overflow() == 0, f"the {lang} page scrolls sideways on a phone"
    check_axe(readers["en"], "a tournament being played (desktop)")
    check_axe(readers["it"], "a tournament being played (phone)")

    # Nothing changed: the next poll asks with the ETag it has, and is answered 304.
    def answered_304() -> bool:
        readers["en"].page.wait_for_timeout(100)  # (Playwright hands over its events as it waits)
        return any(status == 304 and sent for status, sent in polls["en"])

    wait_until(answered_304, timeout=10, what=f"a 304 to the page's If-None-Match: {polls['en']}")

    # A table's link opens its game at /play as a spectator's view (no hand).
    watch = readers["es"].page.get_attribute("#rounds a.watch", "href")
    assert watch is not None
    spectator = people("spectator")
    spectator.open(watch)
    game_id = watch.split("game=")[1].split("&")[0]
    spectator.page.wait_for_selector(f"#game:not([hidden])[data-game='{game_id}']")
    assert spectator.cards("#hand") == []

    # The worker plays it out: each page follows it to its end on its own.
    worker()
    final = wait_until(
        lambda: (found := public())["status"] == "finished" and found,
        timeout=60,
        what="the tournament's end",
    )
    for lang, person in readers.items():
        person.page.wait_for_selector("#tournament[data-status='finished']", timeout=15000)
        shown = check_page(person, final, lang)
        winner = final["standings"][0]["name"]
        assert say(lang, "tournamentWon", name=winner) in shown["news"], shown["news"]
        assert not any(t["watch"] for r in shown["rounds"] for t in r["tables"])
        assert person.page.text_content("#tournament-mode") == ""
        assert not any(pid in person.page.content() for pid in ids)
        person.screenshot(f"tournament-{lang}")
    check_axe(readers["pt"], "a tournament over (phone)")
