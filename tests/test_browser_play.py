"""The /play page as issue 28 asks it to feel, in Chromium (the fixtures, the people and the
service are tests/test_browser.py's): never stuck whatever the network does, the table
telling what happened (the last move, the piles, a scopa), phones in both orientations
with 2, 4 and 6 players, select-then-confirm on touch, the hint, the language switch,
reactions between two browsers, and axe-core finding nothing on any screen.

The matches are against the random computer player and to 1 point (one hand, unless it
ties): the point here is the page, not the bot.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import requests

from tests import test_browser
from tests.live import LIVE_KEY, LiveService
from tests.test_browser import (
    Person,
    api_view,
    check_axe,
    names,
    wait_rematch_offered,
    wait_until,
)

#: The fixtures of tests/test_browser.py: its Chromium, and the people at the page.
browser = test_browser.browser
people = test_browser.people

PORTRAIT = {"width": 390, "height": 844}
LANDSCAPE = {"width": 844, "height": 390}
PHONE = {"is_mobile": True, "has_touch": True}
#: The emotes the page offers, in its order.
EMOTES_SHOWN = ["applause", "laugh", "wow", "oops", "thinking", "sad", "hurry", "gg"]

#: A first hand where Ann (seat 0, first to play) sweeps the table with her 10B: the
#: table is 1D 2C 3S 4B (10 in all, no single card of 10: docs/rules.md R4.1-R4.2, and
#: taking every card on the table is a scopa, R5.1). The computer holds 5B 6C 7S.
SCOPA_DECK = (
    "10B 9D 8C 5B 6C 7S 1D 2C 3S 4B "
    "5D 10S 10D 6B 2B 1B 6S 7D 9S 8D 5S 5C 2D 8S 2S 4C 3D 1S 3B 8B 9C 7C 10C 1C 4S 9B "
    "6D 4D 7B 3C"
).split()


def on_screen(person: Person) -> dict[str, Any]:
    """Where the hand and the table are, and whether the page scrolls: once the page's
    animations that end have ended (a card on its way, moved by a transform, can make
    the page scroll for as long as it flies; a slow machine catches it in flight)."""
    person.page.evaluate(
        """() => Promise.race([
          Promise.all(document.getAnimations()
            .filter((a) => a.effect && a.effect.getComputedTiming().iterations !== Infinity)
            .map((a) => a.finished.catch(() => null))),
          new Promise((done) => setTimeout(done, 3000)),
        ])"""
    )
    return dict(
        person.page.evaluate(
            """() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => {
              const box = (s) => { const r = document.querySelector(s).getBoundingClientRect();
                return [r.left, r.top, r.right, r.bottom]; };
              const doc = document.documentElement;
              done({hand: box('#hand'), table: box('.table-area'),
                    cards: [...document.querySelectorAll('#hand .card, #table .card')]
                      .map((c) => box(`[data-card="${c.dataset.card}"]`)),
                    width: innerWidth, height: innerHeight,
                    scrolls: doc.scrollHeight > doc.clientHeight + 1
                      || doc.scrollWidth > doc.clientWidth + 1,
                    handWidth: document.querySelector('#hand .card')
                      ?.getBoundingClientRect().width ?? 0});
            })))"""
        )
    )


def check_fits(person: Person, where: str) -> None:
    shown = on_screen(person)
    assert not shown["scrolls"], f"{where}: the page scrolls"
    for name in ("hand", "table"):
        left, top, right, bottom = shown[name]
        assert left >= -1 and top >= -1, f"{where}: the {name} starts off screen: {shown}"
        assert right <= shown["width"] + 1 and bottom <= shown["height"] + 1, (
            f"{where}: the {name} ends off screen: {shown}"
        )
    for left, top, right, bottom in shown["cards"]:
        assert 0 <= left and right <= shown["width"] + 1 and 0 <= top, f"{where}: {shown}"
        assert bottom <= shown["height"] + 1, f"{where}: a card is off screen: {shown}"


def small_controls(person: Person, least: int) -> list[str]:
    """The visible controls smaller than ``least`` x ``least`` px (a checkbox or radio
    button counts by its label, which takes the tap)."""
    return list(
        person.page.evaluate(
            """(least) => [...document.querySelectorAll(
                 'button, select, summary, a[href], input, [role=button]')]
              .filter((el) => el.checkVisibility())
              .map((el) => ['checkbox', 'radio'].includes(el.type) ? el.closest('label') : el)
              .filter((el) => { const r = el.getBoundingClientRect();
                return r.width + 0.5 < least || r.height + 0.5 < least; })
              .map((el) => `${el.tagName}#${el.id}.${el.className} `
                + `${Math.round(el.getBoundingClientRect().width)}x`
                + `${Math.round(el.getBoundingClientRect().height)}`)""",
            least,
        )
    )


def tap_card(person: Person, card: str) -> None:
    """Select-then-confirm: the first tap shows what ``card`` takes, the second plays it
    (and, when it may take in several ways, the choices are tapped: the first)."""
    seq = person.seq()
    person.page.tap(f"#hand [data-card='{card}']")
    person.page.wait_for_selector(f"#hand [data-card='{card}'].armed[aria-pressed=true]")
    assert person.seq() == seq, "a first tap played the card"
    person.page.tap(f"#hand [data-card='{card}']")
    if person.page.is_visible("#choices"):
        person.page.tap("#choice-list .choice >> nth=0")
    person.wait_for_seq_after(seq)


def playable(person: Person) -> list[str]:
    return list(
        person.page.eval_on_selector_all(
            "#hand .card[aria-disabled=false]", "els => els.map(e => e.dataset.card)"
        )
    )


def wait_turn_or_sheet(person: Person) -> str:
    """'turn', 'sheet' (a hand's score, holding the next deal) or 'over'."""

    def state() -> str | None:
        if person.status() == "finished":
            return "over"
        if person.page.query_selector("#scores-dialog[open][data-holds=true]"):
            return "sheet"
        return "turn" if person.ready() else None

    return str(wait_until(state, timeout=30, what=f"{person.name}'s turn"))


# -- 1. never stuck ---------------------------------------------------------------------------


class Faults:
    """Failures injected into the page's requests, by kind: the n-th request of a kind
    is aborted (no answer), refused with a 429 (Retry-After: 1), or sent and its answer
    lost (the network drops it on the way back)."""

    KINDS = {
        "view": re.compile(r"/v1/games/[^/?]+$"),
        "legal": re.compile(r"/v1/games/[^/]+/legal-moves"),
        "move": re.compile(r"/v1/games/[^/]+/moves$"),
        "events": re.compile(r"/v1/games/[^/]+/events"),
        "stream": re.compile(r"/v1/games/[^/]+/stream"),
        "hands": re.compile(r"/v1/games/[^/]+/hands"),
        "variants": re.compile(r"/v1/variants$"),
        "cards": re.compile(r"/v1/cards\?"),
        "create": re.compile(r"/v1/games$"),
    }

    def __init__(self, plan: dict[str, dict[int, str]]) -> None:
        self.plan = plan
        self.seen: Counter[str] = Counter()
        self.done: list[tuple[str, int, str]] = []

    def kind(self, url: str) -> str | None:
        path = url.split("?")[0] if "/v1/cards" not in url else url
        for kind, pattern in self.KINDS.items():
            if pattern.search(path):
                return kind
        return None

    def handle(self, route: Any) -> None:
        kind = self.kind(route.request.url)
        if kind is None:
            route.continue_()
            return
        self.seen[kind] += 1
        fault = self.plan.get(kind, {}).get(self.seen[kind])
        if fault is None:
            route.continue_()
            return
        self.done.append((kind, self.seen[kind], fault))
        if fault == "abort":
            route.abort("connectionreset")
        elif fault == "429":
            problem = {
                "type": "/problems/rate-limited",
                "title": "Too Many Requests",
                "status": 429,
                "detail": "Too many requests: retry in 1 second.",
            }
            route.fulfill(
                status=429,
                content_type="application/problem+json",
                headers={"Retry-After": "1"},
                body=json.dumps(problem),
            )
        elif fault == "lost":
            route.fetch()  # it reaches the service, which acts on it
            route.abort("connectionreset")  # and its answer never comes back


WATCH = """() => {
  window.notReloaded = true;
  window.errorsShown = [];
  window.modes = [];
  new MutationObserver(() => {
    const box = document.querySelector('#error');
    if (!box.hidden) window.errorsShown.push(box.textContent);
  }).observe(document.querySelector('#error'), {attributes: true, childList: true});
  new MutationObserver(() => {
    const mode = document.querySelector('#connection').dataset.mode;
    if (mode && window.modes.at(-1) !== mode) window.modes.push(mode);
  }).observe(document.querySelector('#connection'), {attributes: true});
}"""


def test_the_match_goes_on_through_lost_requests_and_offline_spans(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """Each kind of request the page makes fails in turn (no answer, a 429, a move whose
    answer is lost after it landed), and the network goes away while it is Ann's turn and
    while her card is on its way: the match is played to its end by clicking, with no
    reload and no error shown (issue 28, item 1)."""
    ann = people("Ann")
    faults = Faults(
        {
            "variants": {1: "abort"},
            "cards": {1: "429"},
            "create": {1: "lost"},
            "stream": {1: "429"},  # refused: the page polls the log meanwhile
            "events": {2: "abort", 4: "429"},
            "view": {2: "abort", 4: "429", 7: "abort"},
            "legal": {2: "429", 3: "abort", 6: "abort"},
            "move": {1: "lost", 3: "abort", 5: "429", 7: "lost"},
            "hands": {1: "abort"},
        }
    )
    ann.context.route("**/v1/**", faults.handle)
    ann.allowed = re.compile(
        r"status of 429|ERR_CONNECTION_RESET|ERR_INTERNET_DISCONNECTED|ERR_NETWORK_CHANGED"
        r"|ERR_FAILED"
    )
    ann.open()
    ann.page.wait_for_selector("#setup:not([hidden])")
    ann.page.evaluate(WATCH)
    ann.start(level="random", target=1)
    ann.page.wait_for_selector("#game[data-ready=true]", timeout=20_000)
    game_id, token, _ = ann.seat()
    # The lost answer of the creation: sent again with its key, the same game came back.
    listed = requests.get(f"{live_service.url}/v1/games/{game_id}", timeout=10)
    assert listed.status_code == 200

    played = 0
    offline_turn = 2
    while True:
        state = wait_turn_or_sheet(ann)
        if state == "over":
            break
        if state == "sheet":
            ann.page.click("#close-scores")
            continue
        played += 1
        if played == offline_turn:
            # Offline as the turn starts: the badge says so; back online, it plays on.
            ann.context.set_offline(True)
            wait_until(lambda: ann.page.get_attribute("#connection", "data-mode") == "offline")
            ann.context.set_offline(False)
            wait_until(lambda: ann.page.get_attribute("#connection", "data-mode") != "offline")
            wait_until(ann.ready, what="the turn after the network came back")
        if played == offline_turn + 1:
            # Offline while the card is on its way: it goes when the network is back.
            card = playable(ann)[0]
            seq = ann.seq()
            ann.context.set_offline(True)
            ann.page.click(f"#hand [data-card='{card}']")
            if ann.page.is_visible("#choices"):
                ann.page.click("#choice-list .choice >> nth=0")
            wait_until(lambda: ann.page.get_attribute("#connection", "data-mode") == "offline")
            assert ann.page.inner_text("#turn") != "Your turn: pick a card"
            ann.context.set_offline(False)
            ann.wait_for_seq_after(seq, timeout=15)
            continue
        seq = ann.seq()
        card = playable(ann)[0]
        ann.page.click(f"#hand [data-card='{card}']")
        if ann.page.is_visible("#choices"):
            ann.page.click("#choice-list .choice >> nth=0")
        ann.wait_for_seq_after(seq, timeout=20)

    view = api_view(live_service, game_id, token)
    assert view["status"] == "finished"
    assert ann.page.evaluate("() => window.notReloaded") is True
    assert ann.page.evaluate("() => window.errorsShown") == []
    # Every planned failure happened, and the page said it was reconnecting meanwhile.
    planned = {(kind, n) for kind, faults_of in faults.plan.items() for n in faults_of}
    assert {(kind, n) for kind, n, _ in faults.done} == planned
    modes = ann.page.evaluate("() => window.modes")
    assert "reconnecting" in modes and "offline" in modes, modes
    wait_until(lambda: ann.page.get_attribute("#connection", "data-mode") in ("live", "polling"))
    # Each move landed once: as many moves of Ann's in the log as she played.
    log = requests.get(f"{live_service.url}/v1/games/{game_id}/events", timeout=10).json()
    mine = [e for e in log["events"] if e["type"] == "move" and e["seat"] == 0]
    assert len(mine) == played
    wait_rematch_offered(ann)


# -- 2, 3, 6. phones, the table's story, axe-core -----------------------------------------------


@pytest.mark.parametrize(
    ("players", "first"),
    [(2, PORTRAIT), (4, LANDSCAPE), (6, PORTRAIT)],
    ids=["2-players", "4-players", "6-players"],
)
def test_a_whole_match_on_a_phone_turned_both_ways(
    people: Callable[..., Person], live_service: LiveService, players: int, first: dict[str, int]
) -> None:
    """A match to its end on a phone, by touch (select, then confirm), turned from
    portrait to landscape and back between turns: at each turn the hand, the table and
    their cards are on the screen, nothing scrolls, every control is 44 px or more; the
    last move stays in view; axe-core finds nothing on the game, the hand's sheet, the
    menu and the final screen (issue 28, items 2, 3 and 6)."""
    ann = people("Ann", viewport=first, **PHONE)
    ann.open()
    ann.page.wait_for_selector("#setup:not([hidden])")
    assert ann.page.evaluate("() => matchMedia('(pointer: coarse)').matches")
    if players == 2:
        check_axe(ann, "the setup form on a phone")
        ann.page.click("#menu summary")
        check_axe(ann, "the menu")
        assert small_controls(ann, 44) == []
        ann.page.click("#menu summary")
    ann.start(level="random", target=1, players=str(players))
    ann.page.wait_for_selector("#game[data-ready=true]", timeout=20_000)
    game_id, token, _ = ann.seat()
    assert ann.page.get_attribute("#game", "data-players") == str(players)
    check_axe(ann, f"a game of {players} on a phone")
    if players == 4:
        partner = ann.page.inner_text("#opponents .seat[data-seat='2'] .seat-name")
        assert "partner" in partner  # seat 2 plays on Ann's side
        assert "partner" not in ann.page.inner_text("#opponents .seat[data-seat='1']")

    turns = 0
    sheets = 0
    while True:
        state = wait_turn_or_sheet(ann)
        if state == "over":
            break
        if state == "sheet":
            if not sheets:
                check_axe(ann, f"a hand's score sheet ({players} players)")
            sheets += 1
            ann.page.tap("#close-scores")
            continue
        size = (PORTRAIT, LANDSCAPE)[(turns + (first is LANDSCAPE)) % 2]
        ann.page.set_viewport_size(size)
        where = f"{players} players, {size['width']}x{size['height']}, turn {turns + 1}"
        check_fits(ann, where)
        assert small_controls(ann, 44) == [], where
        if turns == 1:
            # The last move (the one before ours) is in view until the next one.
            last = api_view(live_service, game_id, token)["last_move"]
            assert ann.page.get_attribute("#last-move", "data-card") == last["card"]
            assert ann.page.is_visible("#last-move")
        tap_card(ann, playable(ann)[0])
        turns += 1

    assert turns >= 36 // players  # the whole hand at least: its cards, a player's share
    ann.follow_to_the_end()  # the result's score sheet open
    view = api_view(live_service, game_id, token)
    won = view["seats"][0]["team"] == view["winner"]
    assert ann.page.inner_text("#final-result") == ("You won!" if won else "You lost.")
    check_axe(ann, f"the result sheet ({players} players)")
    ann.page.tap("#close-scores")
    ann.page.wait_for_selector("#final-rematch")  # the box, in view once the sheet is closed
    check_axe(ann, f"the final screen ({players} players)")
    # Every seat's pile shows its count; the table's cards all went to the piles.
    counts = ann.page.eval_on_selector_all(
        ".pile", "els => els.map(e => [Number(e.dataset.seat), Number(e.dataset.count)])"
    )
    assert dict(counts) == {s["seat"]: s["captured_count"] for s in view["seats"]}


def test_the_capture_choices_fit_a_phone_either_way(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """Six players, and Ann's 10B may take either ten on the table: with the choices open
    (the tallest the game's screen gets), the hand, the table and the choices are all on
    a phone's screen, portrait and landscape (issue 28, item 3)."""
    first, table = ["10B", "2D", "3D"], ["10S", "10D", "6B", "2B"]
    rest = [f"{v}{s}" for v in range(1, 11) for s in "DCSB" if f"{v}{s}" not in first + table]
    seats = [{"name": "Ann"}] + [{"name": f"C{i}", "bot": "random"} for i in range(1, 6)]
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={
            "seats": seats,
            "deck": first + rest[:15] + table + rest[15:],  # 3 cards a seat from seat 0
            "first_dealer": 5,
            "target": 1,
        },
        timeout=10,
    ).json()
    game_id, token = created["id"], created["seats"][0]["token"]
    ann = people("Ann", viewport=LANDSCAPE, **PHONE)
    ann.hold(game_id, token)
    ann.page.wait_for_selector("#game[data-ready=true]")
    ann.page.tap("#hand [data-card='10B']")
    ann.page.tap("#hand [data-card='10B']")
    ann.page.wait_for_selector("#choices:not([hidden])")
    for size in (LANDSCAPE, PORTRAIT):
        ann.page.set_viewport_size(size)
        where = f"the choices at {size['width']}x{size['height']}"
        check_fits(ann, where)
        bottom = ann.page.evaluate(
            "() => document.querySelector('#choices').getBoundingClientRect().bottom"
        )
        top = ann.page.evaluate(
            "() => document.querySelector('#choices').getBoundingClientRect().top"
        )
        assert 0 <= top and bottom <= size["height"], where
        assert small_controls(ann, 44) == [], where
    check_axe(ann, "the capture choices on a phone")
    seq = ann.seq()
    ann.page.tap("#choice-list .choice[data-capture='10D']")
    ann.wait_for_seq_after(seq)
    moves = requests.get(f"{live_service.url}/v1/games/{game_id}/events", timeout=10).json()
    first_move = next(e for e in moves["events"] if e["type"] == "move")
    assert (first_move["card"], first_move["capture"]) == ("10B", ["10D"])


def test_a_scopa_select_then_confirm_the_hint_and_the_language(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """Ann, on a phone, sweeps the table on her first move: her first tap shows what her
    10B takes, her second plays it; the scopa gets its banner, its sound (she turned sound
    on) and a vibration, and her pile shows the 10B turned across. Then the hint (and its
    429), one-tap play, and the language switch saying everything again (issue 28, items 2,
    3, 5 and 7)."""
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={
            "seats": [{"name": "Ann"}, {"name": "Computer", "bot": "random"}],
            "deck": SCOPA_DECK,
            "first_dealer": 1,
            "target": 1,
        },
        timeout=10,
    ).json()
    game_id, token = created["id"], created["seats"][0]["token"]
    ann = people("Ann", viewport=PORTRAIT, **PHONE)
    ann.context.add_init_script(
        "window.buzzes = []; navigator.vibrate = (pattern) => { window.buzzes.push(pattern);"
        " return true; };"
    )
    ann.hold(game_id, token)
    ann.page.wait_for_selector("#game[data-ready=true]")
    assert ann.cards("#hand") == ["8C", "9D", "10B"]
    assert ann.cards("#table") == ["1D", "2C", "3S", "4B"]
    # Sound is off until she turns it on (and the page remembers it).
    assert not ann.page.is_checked("#sound")
    ann.page.tap("#menu summary")
    ann.page.tap("#sound")
    ann.page.tap("#menu summary")
    prefs = ann.page.evaluate("() => JSON.parse(localStorage.getItem('scopa.prefs'))")
    assert prefs["sound"] is True

    # A capture being shown (as a move's animation marks it) survives a mouse passing
    # over the hand: the preview has a mark of its own (issue 28: it was wiped).
    kept = ann.page.evaluate(
        """() => { const shown = document.querySelector('#table .card');
          shown.classList.add('showing');
          document.querySelector('#hand .card').dispatchEvent(
            new PointerEvent('pointerover', {bubbles: true, pointerType: 'mouse'}));
          const kept = shown.classList.contains('showing');
          shown.classList.remove('showing');
          return [kept, document.querySelectorAll('#table .card.preview').length]; }"""
    )
    assert kept[0] is True and kept[1] > 0  # 8C previews what it takes, the capture kept
    ann.page.dispatch_event("#hand", "pointerleave")

    # Select: the table's cards it takes light up, nothing is played; confirm: played.
    seq = ann.seq()
    ann.page.tap("#hand [data-card='10B']")
    ann.page.wait_for_selector("#hand [data-card='10B'].armed")
    takeable = ann.page.eval_on_selector_all(
        "#table .card.takeable", "els => els.map(e => e.dataset.card)"
    )
    assert takeable == ["1D", "2C", "3S", "4B"]
    assert ann.seq() == seq and "again" in ann.page.inner_text("#turn")
    sounds = int(ann.page.evaluate("() => Number(document.body.dataset.sounds ?? 0)"))
    ann.page.tap("#hand [data-card='10B']")
    ann.page.wait_for_selector("#banner:not([hidden])")
    assert ann.page.inner_text("#banner") == "Scopa! Ann"
    ann.page.wait_for_selector(".pile[data-seat='0'] .scopa-card[data-card='10B']")
    assert ann.page.get_attribute(".pile[data-seat='0']", "data-scopas") == "1"
    assert ann.page.evaluate("() => window.buzzes.length") == 1
    assert int(ann.page.evaluate("() => Number(document.body.dataset.sounds)")) > sounds
    ann.screenshot("phone-scopa")
    log = requests.get(f"{live_service.url}/v1/games/{game_id}/events", timeout=10).json()
    moves = [e for e in log["events"] if e["type"] == "move"]
    assert (moves[0]["card"], moves[0]["scopa"]) == ("10B", True)

    # The computer replies; its move stays shown as the last one, in words and cards.
    ann.page.wait_for_selector("#game[data-ready=true]")
    reply = api_view(live_service, game_id, token)["last_move"]
    assert reply["seat"] == 1
    assert ann.page.get_attribute("#last-move", "data-card") == reply["card"]
    english = names(live_service, "en")
    assert english[reply["card"]] in ann.page.inner_text("#last-move")

    # The hint: what the expert would play, and why, in her words.
    ann.page.tap("#hint")
    ann.page.wait_for_selector("#hint-text:not([hidden])")
    hinted = ann.page.get_attribute("#hand .card.hinted", "data-card")
    assert hinted in ann.cards("#hand")
    text = ann.page.inner_text("#hint-text")
    assert text.startswith(f"Hint: play {english[hinted]}"), text
    assert "points for your side this hand" in text or "It takes nothing" in text, text
    rules = ann.page.get_attribute("#hint-text a", "href") or ""
    assert re.fullmatch(r"/play/rules\?lang=en#r(4-capturing|51-the-sweep)", rules), rules
    # Over the hints' quota: when to ask again, not an error.
    ann.page.route(
        re.compile(r"/v1/games/[^/]+/hint$"),
        lambda route: route.fulfill(
            status=429,
            content_type="application/problem+json",
            headers={"Retry-After": "7"},
            body=json.dumps({"title": "Too Many Requests", "status": 429, "detail": "Slow down."}),
        ),
    )
    ann.allowed = re.compile(r"status of 429")
    ann.page.tap("#hint")
    wait_until(lambda: "try again in 7 s" in ann.page.inner_text("#hint-text"))
    assert ann.page.is_hidden("#error")
    ann.allowed = None

    # Another language: every line on screen says it again, plural forms right.
    ann.page.select_option("#lang", "it")
    wait_until(lambda: "a 1 punto" in ann.page.inner_text("#info"), what="the target in Italian")
    italian = names(live_service, "it")
    assert italian[reply["card"]] in ann.page.inner_text("#last-move")
    assert "Computer ha giocato" in ann.page.inner_text("#status")
    assert ann.page.inner_text("#turn") == "Tocca a te: scegli una carta"
    assert ann.page.inner_text("#hint-text") == "I suggerimenti riposano: riprova tra 7 s."
    assert "1 scopa" in ann.page.inner_text(".pile[data-seat='0']")
    assert ann.page.get_attribute("#rules-link", "href") == "/play/rules?lang=it"
    ann.page.select_option("#lang", "en")

    # One tap, as she may choose: a single tap plays.
    ann.page.tap("#menu summary")
    ann.page.tap("#one-tap")
    ann.page.tap("#menu summary")
    seq = ann.seq()
    ann.page.tap(f"#hand [data-card='{playable(ann)[0]}']")
    if ann.page.is_visible("#choices"):
        ann.page.tap("#choice-list .choice >> nth=0")
    ann.wait_for_seq_after(seq)
    check_axe(ann, "a game after a scopa, the hint shown")


def test_the_next_deal_waits_while_the_hand_sheet_is_open(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """A hand ends while Ann watches: its score sheet opens, and the next deal (and the
    computer's first move of it) wait until she closes it (issue 28, item 2)."""
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={"seats": [{"name": "Ann"}, {"name": "Computer", "bot": "random"}], "target": 21},
        timeout=10,
    ).json()
    game_id, token = created["id"], created["seats"][0]["token"]
    ann = people("Ann")
    ann.hold(game_id, token)
    ann.page.wait_for_selector("#game[data-ready=true]")
    ann.page.click("#menu summary")
    assert small_controls(ann, 24) == []  # on a desktop too, every control 24 px or more
    ann.page.click("#menu summary")
    auth = {"Authorization": f"Bearer {token}"}
    url = f"{live_service.url}/v1/games/{game_id}"
    while api_view(live_service, game_id)["hand_number"] == 1:
        move = requests.get(f"{url}/legal-moves", headers=auth, timeout=10).json()["moves"][0]
        body = {"card": move["card"], "capture": move["capture"]}
        assert requests.post(f"{url}/moves", json=body, headers=auth, timeout=10).ok
    log = requests.get(f"{url}/events", timeout=10).json()["events"]
    over = next(e["seq"] for e in log if e["type"] == "hand_over")
    assert log[-1]["seq"] > over  # the next hand is dealt (and may have begun)
    ann.page.wait_for_selector("#scores-dialog[open][data-holds=true]")
    check_axe(ann, "a hand's score sheet")
    assert small_controls(ann, 24) == []
    received = "() => Number(document.querySelector('#game').dataset.received)"
    wait_until(lambda: ann.page.evaluate(received) == log[-1]["seq"], what="the events")
    assert ann.seq() == over  # come, and held
    assert ann.page.inner_text("#info").startswith("Hand 1")
    ann.page.click("#close-scores")
    ann.wait_for_seq_after(over)
    wait_until(lambda: ann.seq() == log[-1]["seq"], what="the held events")
    assert ann.page.inner_text("#info").startswith("Hand 2")


# -- 4. reactions -----------------------------------------------------------------------------


def test_reactions_between_two_browsers(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """Ann sends an emote from her reactions (behind one button); Bruno, in a browser of
    his own, sees it by her seat (issue 28, item 4)."""
    probe = requests.post(
        f"{live_service.url}/v1/games/nope/reactions", json={"emote": "gg"}, timeout=10
    )
    allowed = requests.options(f"{live_service.url}/v1/games/nope/reactions", timeout=10)
    if probe.status_code == 405 or (
        probe.status_code == 404 and "POST" not in allowed.headers.get("Allow", "")
    ):
        pytest.skip("POST /v1/games/{id}/reactions is not in this service yet (issue 28)")
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={"seats": [{"name": "Ann"}, {"name": "Bruno"}], "target": 1},
        timeout=10,
    ).json()
    game_id = created["id"]
    ann = people("Ann")
    bruno = people("Bruno", locale="it-IT")
    for person, seat in ((ann, 0), (bruno, 1)):
        token = created["seats"][seat]["token"]
        person.hold(game_id, token, seat)
        person.page.wait_for_selector("#game:not([hidden])")
        wait_until(lambda p=person: p.page.get_attribute("#connection", "data-mode") == "live")
    emotes = ann.page.eval_on_selector_all(
        "#reactions button", "els => els.map(e => [e.dataset.emote, e.getAttribute('aria-label')])"
    )
    assert [e for e, _ in emotes] == EMOTES_SHOWN
    assert dict(emotes)["gg"] == "Good game"
    # Behind one button: opened, then the emote; sent, they close.
    assert ann.page.is_hidden("#reactions")
    ann.page.click("#react")
    assert ann.page.get_attribute("#react", "aria-expanded") == "true"
    ann.page.click("#reactions button[data-emote='applause']")
    ann.page.wait_for_selector("#reactions", state="hidden")
    assert ann.page.get_attribute("#react", "aria-expanded") == "false"
    bubble = bruno.page.wait_for_selector("#bubbles .bubble[data-seat='0'][data-emote='applause']")
    assert bubble.inner_text().strip().endswith("Ann: Applausi")
    ann.page.wait_for_selector("#bubbles .bubble[data-seat='0'][data-emote='applause']")
    bruno.page.wait_for_selector("#bubbles .bubble", state="detached", timeout=10_000)
    check_axe(bruno, "a game with a reaction shown")


# -- the platforms' statuses: an aborted match, a match that starts later (issues 28, 29) ----

KEY = {"Authorization": f"Bearer {LIVE_KEY}"}


def seat_page(person: Person, game_id: str, token: str) -> None:
    """``person``'s page, holding the seat ``token`` of ``game_id`` (a platform hands its
    players their tokens), opened at the game and watched (WATCH)."""
    person.hold(game_id, token)
    person.page.wait_for_selector("#game:not([hidden])")
    person.page.evaluate(WATCH)


def test_a_match_aborted_by_its_organiser(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """A service key creates a match and hands Ann her seat; mid-game it aborts it: her
    page shows why, in its words (the reason as text, never markup), with no playable card,
    no hint, no reactions, no error and no more requests for the game; opened again, the
    page shows the same final state from the game's view (docs/platforms.md, "Ending a
    match")."""
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={
            "seats": [{"name": "Ann"}, {"name": "Computer", "bot": "random"}],
            "first_dealer": 1,
            "target": 11,
        },
        headers=KEY,
        timeout=10,
    ).json()
    game_id, token = created["id"], created["seats"][0]["token"]
    ann = people("Ann")
    seat_page(ann, game_id, token)
    ann.page.wait_for_selector("#game[data-ready=true]")
    assert ann.page.is_visible("#hint") and ann.page.is_visible("#react")
    hand = ann.cards("#hand")
    assert len(hand) == 3

    reason = "<b>Round 3</b> cancelled & replayed tomorrow"
    aborted = requests.post(
        f"{live_service.url}/v1/games/{game_id}/abort",
        json={"reason": reason},
        headers=KEY,
        timeout=10,
    )
    assert aborted.status_code == 200, aborted.text
    ann.page.wait_for_selector("#final[data-aborted=true]:not([hidden])")
    requests_after: list[str] = []
    ann.page.on("request", lambda request: requests_after.append(request.url))
    said = f"The match was stopped by the organiser: {reason}"
    assert ann.page.inner_text("#final-result") == said
    assert ann.page.query_selector("#final-result b") is None  # text, not markup
    assert ann.status() == "aborted"
    assert ann.cards("#hand") == hand and playable(ann) == []
    assert not ann.ready()
    for hidden in ("#hint", "#react", "#reactions", "#final-rematch", "#error"):
        assert ann.page.is_hidden(hidden), hidden
    assert ann.page.inner_text("#turn") == ""
    check_axe(ann, "an aborted match")
    # In each of the page's languages.
    for lang, words in (
        ("it", "La partita è stata interrotta dall’organizzatore"),
        ("pt", "A partida foi interrompida pelo organizador"),
        ("es", "El organizador detuvo la partida"),
        ("en", "The match was stopped by the organiser"),
    ):
        ann.page.select_option("#lang", lang)
        wait_until(
            lambda w=words: ann.page.inner_text("#final-result") == f"{w}: {reason}", what=lang
        )
    assert ann.page.evaluate("() => window.errorsShown") == []
    # The stream ended for good (the test service ends streams each second: a page that
    # reconnected or polled would have asked again during axe-core's run).
    game_requests = [url for url in requests_after if f"/v1/games/{game_id}" in url]
    assert game_requests == [], game_requests

    # Opened afresh: the final state comes from the view (the stream sends it, then ends).
    ann.open(f"/play?game={game_id}")
    ann.page.wait_for_selector("#final[data-aborted=true]:not([hidden])")
    assert ann.page.inner_text("#final-result") == said
    assert playable(ann) == [] and ann.page.is_hidden("#error")


def test_a_match_that_starts_later(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """A round created to start in a few seconds (`start_at`): Ann's page, in Italian and
    in Rome's time zone, says when it starts (her local time), shows her hand but lets
    her play nothing; at the start her cards become playable by themselves, no reload.
    A move refused as too early (409 not-started-yet: her clock ahead of the service's)
    is waited out, its Retry-After, and never shown as an error (docs/platforms.md, "A
    round in one call")."""
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=5)
    created = requests.post(
        f"{live_service.url}/v1/games/bulk",
        json={
            "games": [
                {
                    "seats": [{"name": "Ann"}, {"name": "Computer", "bot": "random"}],
                    "first_dealer": 1,
                    "target": 1,
                    "start_at": start.isoformat(),
                }
            ]
        },
        headers=KEY,
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game = created.json()["games"][0]
    game_id, token = game["id"], game["seats"][0]["token"]
    ann = people("Ann", locale="it-IT", timezone_id="Europe/Rome")
    seat_page(ann, game_id, token)
    local = start.astimezone(ZoneInfo("Europe/Rome"))
    at = f"{local:%H:%M:%S}" if local.second else f"{local:%H:%M}"
    ann.page.wait_for_selector("#hand .card")
    assert ann.page.inner_text("#turn") == f"La partita comincia alle {at}."
    assert len(ann.cards("#hand")) == 3
    assert playable(ann) == [] and not ann.ready()
    assert ann.page.is_hidden("#hint")
    assert datetime.now(UTC) < start, "the page took the whole wait to open: start later"

    # The service says "not yet" to her first move: her page waits, says nothing.
    refused: list[float] = []

    def too_early(route: Any) -> None:
        if refused:
            route.continue_()
            return
        refused.append(time.monotonic())
        route.fulfill(
            status=409,
            content_type="application/problem+json",
            headers={"Retry-After": "1"},
            body=json.dumps(
                {
                    "type": "/problems/not-started-yet",
                    "title": "Not started yet",
                    "status": 409,
                    "detail": "The match starts soon: no move before then.",
                }
            ),
        )

    ann.page.route(re.compile(r"/v1/games/[^/]+/moves$"), too_early)
    ann.allowed = re.compile(r"status of 409")
    wait_until(ann.ready, timeout=20, what="her cards playable at the start")
    assert datetime.now(UTC) >= start - timedelta(seconds=0.5)  # not before (one clock)
    assert ann.page.inner_text("#turn") == "Tocca a te: scegli una carta"
    assert ann.page.is_visible("#hint")
    seq = ann.seq()
    card = playable(ann)[0]
    ann.page.click(f"#hand [data-card='{card}']")
    if ann.page.is_visible("#choices"):
        ann.page.click("#choice-list .choice >> nth=0")
    wait_until(lambda: refused, what="the refused move")
    wait_until(ann.ready, what="her cards playable again after Retry-After")
    assert time.monotonic() - refused[0] >= 0.9  # its Retry-After (1 s) waited out
    assert ann.seq() == seq
    card = playable(ann)[0]
    ann.page.click(f"#hand [data-card='{card}']")
    if ann.page.is_visible("#choices"):
        ann.page.click("#choice-list .choice >> nth=0")
    ann.wait_for_seq_after(seq)
    assert ann.page.evaluate("() => window.errorsShown") == []
    assert ann.page.evaluate("() => window.notReloaded") is True
    log = requests.get(f"{live_service.url}/v1/games/{game_id}/events", timeout=10).json()
    assert [e["card"] for e in log["events"] if e["type"] == "move"][0] == card
