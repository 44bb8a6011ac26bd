"""The /play page as issue 36 asks it (the table, round two), in Chromium (the fixtures,
the people and the service are tests/test_browser.py's): Scopone's nine and ten cards
on a phone held either way, a table that a failed read never freezes, a sweep that
never covers your turn, the moves since your last turn at a size one can read, the end
of a match said once, and a series of rematches tallied.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
import requests

from tests import test_browser
from tests.live import LiveService
from tests.test_browser import (
    Person,
    api_view,
    check_axe,
    names,
    run_axe,
    wait_rematch_offered,
    wait_until,
)
from tests.test_browser_play import (
    EMOTES_SHOWN,
    LANDSCAPE,
    PHONE,
    PORTRAIT,
    WATCH,
    check_fits,
    playable,
    small_controls,
    tap_card,
    wait_turn_or_sheet,
)

#: The fixtures of tests/test_browser.py: its Chromium, and the people at the page.
browser = test_browser.browser
people = test_browser.people


def untappable(person: Person, cards: str = "#hand .card") -> list[str]:
    """The cards (of the hand, or ``cards``) a finger cannot reach nor an eye see: off the
    screen, or covered where they show (the point tapped is the middle of the card's part
    inside the viewport; the element found there must be the card or inside it)."""
    return list(
        person.page.evaluate(
            """(cards) => new Promise((done) =>
              requestAnimationFrame(() => requestAnimationFrame(() => {
              const bad = [];
              for (const card of document.querySelectorAll(cards)) {
                const r = card.getBoundingClientRect();
                const left = Math.max(r.left, 0), right = Math.min(r.right, innerWidth);
                const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
                const inside = r.left >= -0.5 && r.top >= -0.5
                  && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
                const hit = right > left && bottom > top
                  && document.elementFromPoint((left + right) / 2, (top + bottom) / 2);
                if (!inside || !hit || !card.contains(hit)) {
                  bad.push(`${card.dataset.card} at ${Math.round(r.left)},${Math.round(r.top)}`
                    + `..${Math.round(r.right)},${Math.round(r.bottom)}`);
                }
              }
              done(bad);
            })))""",
            cards,
        )
    )


# -- 1. Scopone on a phone ----------------------------------------------------------------------


#: Every variant the page offers: its players, and the cards a hand holds.
VARIANTS = [
    ("scopa", 2, 3),
    ("scopone", 4, 9),
    ("scopone_scientifico", 4, 10),
    ("escoba", 2, 3),
    ("scopa_di_quindici", 2, 3),
    ("asso_piglia_tutto", 2, 3),
    ("cirulla", 2, 3),
]
#: What fails as the turns come, each kind of request a turn makes and each failure: a
#: 429 and a 503 (Retry-After: 1), an answer lost on the way; and the network dropping
#: as Ann's turn starts. Each variant's match takes four in turn, from its own place in
#: the list, so that across the variants each comes twice or more.
TURN_FAULTS = [
    (kind, fault) for fault in ("429", "503", "lost") for kind in ("legal", "move", "view")
] + [("network", "dropped")]
#: Faults a match: every other turn of Ann's has one.
FAULTS_A_MATCH = 4


@pytest.mark.parametrize(("variant", "players", "held"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_every_variant_is_played_on_a_phone_through_failures(
    people: Callable[..., Person],
    live_service: LiveService,
    variant: str,
    players: int,
    held: int,
) -> None:
    """A whole match of each variant on a phone by touch, held the other way, portrait
    (390x844) or landscape (844x390), from one turn to the next: every card of the hand
    lies inside the screen where a finger reaches it (nothing over it), the page never
    scrolls, every control is 44 px or more, and every card dealt to Ann is tapped and
    played, from every place in her hand (issue 36, item 1). Meanwhile requests fail as
    her turns come (:data:`TURN_FAULTS`), and the network drops: each time the table is
    playable again (or her card on the table) within Retry-After plus 2 s, with no error
    shown and no reload (issue 36, item 2)."""
    index = [v[0] for v in VARIANTS].index(variant)
    plan = [TURN_FAULTS[(index * 3 + n) % len(TURN_FAULTS)] for n in range(FAULTS_A_MATCH)]
    faults = TurnFaults()
    ann = people("Ann", viewport=PORTRAIT, **PHONE)
    ann.context.route(re.compile(r"/v1/games/"), faults.handle)
    ann.allowed = re.compile(
        r"status of (429|503)|ERR_CONNECTION_RESET|ERR_FAILED|ERR_INTERNET_DISCONNECTED"
        r"|ERR_NETWORK_CHANGED"
    )
    ann.open()
    ann.page.wait_for_selector("#setup:not([hidden])")
    ann.page.evaluate(WATCH)
    ann.start(level="random", target=1, variant=variant, players=str(players))
    ann.page.wait_for_selector("#game[data-ready=true]", timeout=20_000)
    assert ann.page.get_attribute("#game", "data-players") == str(players)
    assert len(ann.cards("#hand")) == held
    check_axe(ann, f"{variant} on a phone")

    dealt: set[str] = set(ann.cards("#hand"))
    played: set[str] = set()
    recovered: list[tuple[str, str, float]] = []  # each fault, and how long the table took
    counted = 0  # the failed requests (faults.served) in ``recovered``
    dropped: float | None = None  # when the network came back, its turn not come yet
    turns = 0
    while True:
        state = wait_turn_or_sheet(ann)
        if state == "over":
            break
        if state == "sheet":
            ann.page.tap("#close-scores")
            continue
        # Her turn is playable: a read that failed since, or the network, recovered.
        now = time.monotonic()
        for kind, fault, at in faults.served[counted:]:
            recovered.append((kind, fault, now - at))
        counted = len(faults.served)
        if dropped is not None:
            recovered.append(("network", "dropped", now - dropped))
            dropped = None
        dealt |= set(ann.cards("#hand"))
        # Held the other way each turn (and both ways at the first).
        for size in (LANDSCAPE, PORTRAIT) if turns == 0 else ((PORTRAIT, LANDSCAPE)[turns % 2],):
            ann.page.set_viewport_size(size)
            where = f"{variant}, {size['width']}x{size['height']}, turn {turns + 1}"
            check_fits(ann, where)
            assert untappable(ann) == [], where
            assert small_controls(ann, 44) == [], where
            if turns == 0:
                ann.screenshot(f"{variant}-{size['width']}x{size['height']}")
        cards = playable(ann)
        card = cards[turns % len(cards)]  # from every place in the hand in turn
        due = turns % 2 == 1 and faults.armed is None and len(recovered) < len(plan)
        step = plan[len(recovered)] if due else None
        if step is not None and step[0] != "network":
            faults.armed = step  # the next such request of hers fails
        tap_card(ann, card)
        played.add(card)
        turns += 1
        if len(faults.served) > counted and faults.served[-1][0] == "move":
            _, fault, at = faults.served[-1]
            recovered.append(("move", fault, time.monotonic() - at))  # her card is down
            counted = len(faults.served)
        if step is not None and step[0] == "network":
            # Her card is down; the network drops as the others play and her turn comes.
            ann.context.set_offline(True)
            wait_until(lambda: ann.page.get_attribute("#connection", "data-mode") == "offline")
            ann.context.set_offline(False)
            dropped = time.monotonic()

    assert turns >= held  # the whole first hand at least
    assert played == dealt  # every card Ann held was tapped, and played
    assert len(recovered) >= min(len(plan), (turns - 1) // 2), (recovered, faults.served)
    late = [
        (kind, fault, round(took, 2))
        for kind, fault, took in recovered
        if took > (1 if fault in ("429", "503") else 0) + 2
    ]
    assert not late, f"playable again only after: {late} (all: {recovered})"
    assert ann.page.evaluate("() => window.errorsShown") == []
    assert ann.page.evaluate("() => window.notReloaded") is True
    wait_rematch_offered(ann)


# -- 2. one failed read never freezes the table --------------------------------------------------


class TurnFaults:
    """A failure on the first read of a kind (``legal``: GET legal-moves; ``view``: GET
    the game) once armed, as Ann's turn comes back: a 429 or a 503 with Retry-After: 1,
    the read sent and its answer lost (the connection reset), or sent and never answered
    at all (a connection gone silent). When each was served is kept."""

    PATHS = {
        "legal": re.compile(r"/v1/games/[^/]+/legal-moves$"),
        "view": re.compile(r"/v1/games/[^/]+$"),
        "move": re.compile(r"/v1/games/[^/]+/moves$"),
    }
    METHODS = {"legal": "GET", "view": "GET", "move": "POST"}

    def __init__(self) -> None:
        self.armed: tuple[str, str] | None = None
        self.served: list[tuple[str, str, float]] = []
        self.hung: list[Any] = []

    def handle(self, route: Any) -> None:
        path = route.request.url.split("?")[0]
        armed = self.armed
        if (
            armed is None
            or route.request.method != self.METHODS[armed[0]]
            or not self.PATHS[armed[0]].search(path)
        ):
            route.continue_()
            return
        self.armed = None
        kind, fault = armed
        self.served.append((kind, fault, time.monotonic()))
        if fault == "lost":
            route.fetch()
            route.abort("connectionreset")
            return
        if fault == "hung":
            self.hung.append(route)  # sent, and no answer ever comes (nor an error)
            return
        status = int(fault)
        problem = {"title": "Too Many Requests" if status == 429 else "Service Unavailable"}
        route.fulfill(
            status=status,
            content_type="application/problem+json",
            headers={"Retry-After": "1"},
            body=json.dumps({**problem, "status": status, "detail": "Try again in 1 second."}),
        )


def test_a_failed_read_as_the_turn_comes_back_never_freezes_the_table(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """Four players: each time Ann's turn comes back, its first read of her legal moves
    (or of the game) fails: a 429 or a 503 (Retry-After: 1), an answer lost on the way,
    or no answer ever. Each time, her cards are playable again within Retry-After plus 2 s, the page
    asking again by itself, and no error is shown (issue 36, item 2)."""
    faults = TurnFaults()
    faults_in_turn = ("429", "503", "lost", "hung")
    plan = [(kind, fault) for fault in faults_in_turn for kind in ("legal", "view", "legal")]
    ann = people("Ann", viewport=PORTRAIT, **PHONE)
    ann.context.route(re.compile(r"/v1/games/"), faults.handle)
    ann.allowed = re.compile(r"status of (429|503)|ERR_CONNECTION_RESET|ERR_FAILED")
    ann.open()
    ann.page.wait_for_selector("#setup:not([hidden])")
    ann.page.evaluate(WATCH)
    ann.start(level="random", target=11, players="4")
    ann.page.wait_for_selector("#game[data-ready=true]", timeout=20_000)
    waits: list[tuple[str, str, float]] = []
    while len(waits) < len(plan):
        state = wait_turn_or_sheet(ann)
        if state == "over":
            break
        if state == "sheet":
            ann.page.tap("#close-scores")
            continue
        if faults.served and len(waits) < len(faults.served):
            kind, fault, at = faults.served[-1]
            waits.append((kind, fault, time.monotonic() - at))
        # The next turn's first read fails.
        faults.armed = plan[len(waits)] if len(waits) < len(plan) else None
        tap_card(ann, playable(ann)[0])
        # Ann's move landed: the computers play, and her turn comes back.
    slow = [(kind, fault, round(took, 2)) for kind, fault, took in waits if took > 1 + 2]
    assert len(waits) == len(plan), f"the match ended first: {waits}"
    assert not slow, f"playable again only after: {slow} (all: {waits})"
    assert ann.page.evaluate("() => window.errorsShown") == []
    assert ann.page.evaluate("() => window.notReloaded") is True


# -- 3. a sweep never covers your turn ----------------------------------------------------------

#: Ann (seat 0, first to play) holds three sixes, the computer three tens, and four aces
#: lie on the table: Ann's six takes nothing (no aces add up to six), and the computer's
#: ten then takes the whole table (four aces and the six: a scopa, docs/rules.md R5.1),
#: whichever it plays. Then it is Ann's turn.
SWEPT_DECK = "6D 6C 6S 10B 10C 10S 1D 1C 1S 1B".split()
SWEPT_DECK += [f"{v}{s}" for v in range(1, 11) for s in "DCSB" if f"{v}{s}" not in SWEPT_DECK]


def test_a_sweep_is_shown_then_out_of_the_way_of_your_turn(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """The computer sweeps the table, and it is Ann's turn: the sweep is shown (its
    banner, a pause before the game goes on), and when her cards are playable the banner
    is gone: nothing lies over the table or her hand during her turn (issue 36, item 3)."""
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={
            "seats": [{"name": "Ann"}, {"name": "Computer", "bot": "random"}],
            "deck": SWEPT_DECK,
            "first_dealer": 1,
            "target": 11,
        },
        timeout=10,
    ).json()
    game_id, token = created["id"], created["seats"][0]["token"]
    ann = people("Ann", viewport=PORTRAIT, **PHONE)
    ann.hold(game_id, token)
    ann.page.wait_for_selector("#game[data-ready=true]")
    assert ann.cards("#table") == ["1D", "1C", "1S", "1B"]
    # When the banner shows and hides, and when her cards become playable.
    ann.page.evaluate(
        """() => { window.seen = [];
          const note = (what) => window.seen.push([what, performance.now()]);
          new MutationObserver(() => note(document.querySelector('#banner').hidden
              ? 'banner hidden' : 'banner shown'))
            .observe(document.querySelector('#banner'), {attributes: true});
          new MutationObserver(() => document.querySelector('#game').dataset.ready === 'true'
              && note('ready'))
            .observe(document.querySelector('#game'), {attributes: true}); }"""
    )
    tap_card(ann, "6D")
    wait_until(lambda: ann.ready() and not ann.cards("#table"), what="Ann's turn after the sweep")
    log = requests.get(f"{live_service.url}/v1/games/{game_id}/events", timeout=10).json()
    sweep = [e for e in log["events"] if e["type"] == "move"][1]
    assert sweep["seat"] == 1 and sweep["scopa"] is True
    seen = ann.page.evaluate("() => window.seen")
    marks = [what for what, _ in seen]
    assert "banner shown" in marks, seen
    shown = next(at for what, at in seen if what == "banner shown")
    ready = next(at for what, at in seen if what == "ready" and at > shown)
    # The sweep had its moment: the game went on no sooner than a pause after it.
    assert ready - shown >= 600, seen
    # And her turn has nothing over it: the banner went before her cards were playable.
    hidden = [at for what, at in seen if what == "banner hidden" and at > shown]
    assert hidden and hidden[0] <= ready, seen
    assert ann.page.is_hidden("#banner")
    assert untappable(ann) == []
    check_axe(ann, "Ann's turn after the computer's sweep")


# -- 4. the moves since your last turn ----------------------------------------------------------


def shown_moves(person: Person) -> list[dict[str, Any]]:
    """The moves the page lists since Ann's, oldest first, and the width of their cards."""
    return list(
        person.page.eval_on_selector_all(
            "#last-move .recent:not([hidden])",
            """els => els.map((e) => ({seat: Number(e.dataset.seat), card: e.dataset.card,
                capture: e.dataset.capture ? e.dataset.capture.split(' ') : [],
                widths: [...e.querySelectorAll('.face')].map(
                  (f) => f.getBoundingClientRect().width)}))""",
        )
    )


@pytest.mark.parametrize("players", [4, 6])
def test_the_moves_since_your_last_turn_at_a_size_one_reads(
    people: Callable[..., Person], live_service: LiveService, players: int
) -> None:
    """Four and six players on a phone: at each of Ann's turns the page lists every move
    played since hers (three or five), oldest first, each with its card and what it took,
    in cards 40 px wide or more, portrait and landscape (there, the three latest at
    least), the page never scrolling; reloaded mid-hand too (issue 36, item 4)."""
    ann = people("Ann", viewport=PORTRAIT, **PHONE)
    ann.open()
    ann.start(level="random", target=11, players=str(players))
    ann.page.wait_for_selector("#game[data-ready=true]", timeout=20_000)
    game_id = ann.seat()[0]
    checked = 0
    while checked < 4:
        state = wait_turn_or_sheet(ann)
        if state == "over":
            break
        if state == "sheet":
            ann.page.tap("#close-scores")
            continue
        log = requests.get(f"{live_service.url}/v1/games/{game_id}/events", timeout=10).json()
        deals = [e for e in log["events"] if e["type"] == "deal"]
        since = min(e["seq"] for e in deals if e["hand"] == deals[-1]["hand"])  # this hand's
        moves = [e for e in log["events"] if e["type"] == "move" and e["seq"] > since]
        mine = [i for i, e in enumerate(moves) if e["seat"] == 0]
        if mine:  # not the first turn of a hand: the moves since hers, hers first
            expected = [
                {"seat": e["seat"], "card": e["card"], "capture": e["capture"]}
                for e in moves[mine[-1] :]
            ]
            if checked == 1:  # read afresh, the page finds them in the log
                ann.page.reload()
                wait_turn_or_sheet(ann)
            for size in (PORTRAIT, LANDSCAPE):
                ann.page.set_viewport_size(size)
                where = f"{players} players, {size['width']}x{size['height']}"
                if checked == 1:
                    where += ", reloaded"
                # The turn can come before the last of the moves is laid out (they come on
                # the stream as they were played): wait for as many as the screen holds.
                # All of them; held sideways, the latest ones at least (the oldest give
                # way when six players' moves are more than the screen holds).
                least = len(expected) if size is PORTRAIT else min(len(expected), 3)
                ann.page.wait_for_function(
                    "(n) => document.querySelectorAll('#last-move .recent').length >= n",
                    arg=least,
                )
                shown = shown_moves(ann)
                assert len(expected) == players and len(shown) >= least, where
                assert [{k: m[k] for k in ("seat", "card", "capture")} for m in shown] == (
                    expected[len(expected) - len(shown) :]
                ), where
                widths = [w for m in shown for w in m["widths"]]
                assert min(widths) >= 40, f"{where}: cards {widths} px wide"
                check_fits(ann, where)
                covered = untappable(ann, "#last-move .recent:not([hidden]) .face")
                assert covered == [], f"{where}: moves covered"
                assert untappable(ann) == [], where
                ann.screenshot(f"recent-{players}-{size['width']}x{size['height']}")
            ann.page.set_viewport_size(PORTRAIT)
            checked += 1
        tap_card(ann, playable(ann)[0])
    assert checked == 4


# -- 9. accessibility -------------------------------------------------------------------------


def contrast(person: Person, selector: str) -> float:
    """WCAG's contrast ratio of ``selector``'s text on the colour behind it (the first
    opaque background among it and its ancestors)."""
    return float(
        person.page.evaluate(
            """(selector) => {
              const rgb = (c) => c.match(/[\\d.]+/g).map(Number);
              const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255;
                return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
                .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
              let el = document.querySelector(selector);
              const fg = lum(rgb(getComputedStyle(el).color));
              let bg = null;
              for (; el && !bg; el = el.parentElement) {
                const c = rgb(getComputedStyle(el).backgroundColor);
                if (c.length === 3 || c[3] === 1) bg = lum(c);
              }
              bg ??= 1;
              return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
            }""",
            selector,
        )
    )


def test_the_hint_link_reads_and_the_hand_is_named_as_it_shows(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """The hint's link to the rules stands out from the felt (4.5:1 or more), and the
    cards of the hand are named as they show (no `aria-label` saying something else than
    their visible index: axe-core's label-content-name-mismatch, which it runs only when
    asked, finds nothing), the hint open (issue 36, item 9)."""
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={
            "seats": [{"name": "Ann"}, {"name": "Computer", "bot": "random"}],
            "first_dealer": 1,
            "target": 11,
        },
        timeout=10,
    ).json()
    ann = people("Ann")
    ann.hold(created["id"], created["seats"][0]["token"])
    ann.page.wait_for_selector("#game[data-ready=true]")
    ann.page.click("#hint")
    ann.page.wait_for_selector("#hint-text:not([hidden]) a")
    ratio = contrast(ann, "#hint-text a")
    assert ratio >= 4.5, f"the hint's link: {ratio:.1f}:1"
    options = {"rules": {"label-content-name-mismatch": {"enabled": True}}}
    violations = run_axe(ann.page, options)
    assert [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations] == []
    # The cards still say their names to a screen reader (their text, not a label).
    english = names(live_service, "en")
    for card in ann.cards("#hand"):
        named = ann.page.get_by_role("button", name=english[card], exact=True)
        assert named.get_attribute("data-card") == card
    check_axe(ann, "the hint open on a desktop")


FOCUS_IN_HAND = "() => document.activeElement?.closest('#hand') !== null"


def test_the_keyboard_focus_stays_with_the_hand_through_a_match(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """A match (a hand and more) played with the keyboard alone (Tab into the hand once;
    arrows, Enter, the capture choices by Enter, the score sheet closed by Enter): at
    every turn after the first, the focus is on a card of the hand, never back on the
    page: after a capture chosen, after the computer's moves, after the sheet is closed
    (issue 36, item 9)."""
    ann = people("Ann")
    ann.open()
    ann.start(level="random", target=11)
    ann.page.wait_for_selector("#game[data-ready=true]", timeout=20_000)
    ann.page.focus("#lang")
    for _ in range(12):
        ann.page.keyboard.press("Tab")
        if ann.page.evaluate(FOCUS_IN_HAND):
            break
    lost: list[str] = []
    turns = 0
    sheets = 0
    while True:
        state = wait_turn_or_sheet(ann)
        if state == "over" or turns >= 22:  # a whole hand, its sheet, and the next hand's
            break
        if state == "sheet":
            ann.page.wait_for_function("() => document.activeElement?.closest('dialog')")
            ann.page.focus("#close-scores")
            ann.page.keyboard.press("Enter")
            sheets += 1
            continue
        if not ann.page.evaluate(FOCUS_IN_HAND):
            lost.append(
                f"turn {turns + 1}: {ann.page.evaluate('() => document.activeElement?.tagName')}"
            )
            ann.page.focus("#hand .card[tabindex='0']")
        hand = ann.cards("#hand")
        at = hand.index(ann.page.evaluate("() => document.activeElement.dataset.card"))
        to = hand.index(playable(ann)[-1])
        for _ in range(abs(to - at)):
            ann.page.keyboard.press("ArrowRight" if to > at else "ArrowLeft")
        seq = ann.seq()
        ann.page.keyboard.press("Enter")
        if ann.page.is_visible("#choices"):
            ann.page.keyboard.press("Enter")  # the first choice has the focus
        ann.wait_for_seq_after(seq)
        turns += 1
    assert turns >= 18 and sheets >= 1, (turns, sheets)
    assert lost == [], f"the focus fell back to the page at {len(lost)} of {turns} turns: {lost}"


# -- 5. joining ---------------------------------------------------------------------------------


def test_the_join_form_says_which_game_you_join(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """Bruno opens a join link: before he takes the seat, the form says which game it is,
    for how many, to how many points and with what clock (issue 36, item 5)."""
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={
            "variant": "scopone",
            "seats": [{"name": "Ann"}, {"open": True}, {"open": True}, {"open": True}],
            "target": 16,
            "clock": 30,
        },
        timeout=10,
    ).json()
    code = created["join"]["code"]
    bruno = people("Bruno")
    bruno.open(f"/play?game={created['id']}&code={code}")
    bruno.page.wait_for_selector("#join:not([hidden]) #join-seats li")
    said = bruno.page.inner_text("#join-game")
    assert said == (
        "Scopone · Players: 4 · 3 seats open · playing to 16 points · Time per move: 30 s"
    ), said
    check_axe(bruno, "the join form")


#: The phone's share sheet, stubbed: what the page hands it is kept in ``window.shared``.
SHARE_SHEET = """
window.shared = [];
Object.defineProperty(Navigator.prototype, 'share', {
  configurable: true,
  value(data) { window.shared.push(JSON.parse(JSON.stringify(data))); return Promise.resolve(); },
});
"""


def test_a_friend_joins_by_the_room_code_typed_on_a_phone(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """Ann creates a game with a seat open for a friend: the waiting room shows its room
    code large, in groups one reads out ("K7QX 2MPA 9R"), and Share hands the phone's share
    sheet the room's short link (/play?room=CODE). Bruno, on his phone, types the code on
    the home screen, in lower case with a space (a wrong one first, typed and by link:
    said in words by the field); the join form says the
    game, its target and clock and the seat open; he joins, and both are at the table
    (issue 36, item 5)."""
    ann = people("Ann", viewport=PORTRAIT, **PHONE)
    ann.page.add_init_script(script=SHARE_SHEET)
    ann.open()
    ann.start(against="friends", target=11, players="2", clock="60")
    ann.page.wait_for_selector("#lobby:not([hidden]) #room-code:not(:empty)")
    shown = ann.page.inner_text("#room-code")
    assert re.fullmatch(r"[0-9A-Z]{4} [0-9A-Z]{4} [0-9A-Z]{2}", shown), shown
    game_id, token, _ = ann.seat()
    code = api_view(live_service, game_id, token)["join"]["code"]
    assert shown.replace(" ", "") == code
    sizes = ann.page.evaluate(
        """() => [document.querySelector('#room-code'), document.querySelector('#lobby-seats')]
            .map((e) => parseFloat(getComputedStyle(e).fontSize))"""
    )
    assert sizes[0] >= 1.5 * sizes[1], sizes  # large beside the page's text
    link = ann.page.input_value("#share-link")
    assert link == f"{live_service.url}/play?room={code}"  # short: the code alone
    check_axe(ann, "the waiting room with its room code")
    ann.screenshot("room-code-waiting-room")
    ann.page.tap("#share-button")
    shared = wait_until(lambda: ann.page.evaluate("window.shared"), what="the share sheet")
    assert shared == [
        {"title": "Scopa", "text": f"Play Scopa with me: room code {shown}", "url": link}
    ]

    bruno = people("Bruno", viewport=PORTRAIT, **PHONE)
    bruno.open()
    bruno.page.wait_for_selector("#setup:not([hidden])")
    field = "#code-form [name=code]"
    assert bruno.page.evaluate(
        f"""() => {{ const input = document.querySelector('{field}');
            return [input.inputMode, input.getAttribute('autocapitalize'),
                    input.labels[0].textContent.trim()]; }}"""
    ) == ["text", "characters", "Room code"]
    wrong = "zzzz zzzz zz" if code != "Z" * 10 else "yyyy yyyy yy"
    bruno.page.fill(field, wrong)
    bruno.allowed = re.compile(r"status of 404")  # (the browser logs the answer it got)
    bruno.page.tap("#code-form [type=submit]")
    bruno.page.wait_for_selector("#code-error:not(:empty)")
    bruno.allowed = None
    assert bruno.page.inner_text("#code-error") == (
        "No game is waiting for players with this code: check it, or ask for it again."
    )
    assert bruno.page.get_attribute(field, "aria-invalid") == "true"
    assert bruno.page.is_visible("#setup")
    check_axe(bruno, "the home screen, a room code not found")
    bruno.screenshot("room-code-not-found")
    # A short link with a code no game waits with: the home screen, the code in its
    # field, said not found.
    bruno.allowed = re.compile(r"status of 404")
    bruno.open(f"/play?room={wrong.replace(' ', '').upper()}")
    bruno.page.wait_for_selector("#code-error:not(:empty)")
    bruno.allowed = None
    assert bruno.page.input_value(field) == wrong.upper()
    assert bruno.page.is_visible("#setup")
    bruno.page.fill(field, f"{code[:4].lower()} {code[4:].lower()}")
    bruno.page.tap("#code-form [type=submit]")
    bruno.page.wait_for_selector("#join:not([hidden]) #join-seats li")
    assert bruno.page.inner_text("#join-game") == (
        "Scopa · Players: 2 · 1 seat open · playing to 11 points · Time per move: 60 s"
    )
    assert "Ann" in bruno.page.inner_text("#join-seats")
    check_axe(bruno, "the join form, opened by a room code")
    bruno.page.fill("#join-form [name=name]", "Bruno")
    bruno.page.tap("#join-form [type=submit]")
    for person in (ann, bruno):
        person.page.wait_for_selector("#game:not([hidden])")
        assert "Ann" in person.page.inner_text("#opponents") or person is ann
    assert bruno.seat()[0] == game_id and bruno.seat()[2] == 1
    assert "Bruno" in ann.page.inner_text("#opponents")


# -- 6. a club's options ------------------------------------------------------------------------


def test_a_clubs_rule_options_in_the_setup(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """On a phone, the setup form offers the chosen game's rule options (GET
    /v1/variants' `options`): Scopone scientifico's re bello, napola, napoleone, forced
    capture and the dealer's last sweep; the ones ticked are the match's rules (issue 36,
    item 6)."""
    variants = requests.get(f"{live_service.url}/v1/variants", timeout=10).json()["variants"]
    offered = next(v for v in variants if v["name"] == "scopone_scientifico")["options"]
    ann = people("Ann", viewport=PORTRAIT, **PHONE)
    ann.open()
    ann.page.wait_for_selector("#setup:not([hidden])")
    ann.page.select_option("#setup-form [name=variant]", "scopone_scientifico")
    ann.page.tap("#club-rules summary")
    shown = ann.page.eval_on_selector_all(
        "#rule-options [data-rule]", "els => els.map((e) => e.dataset.rule)"
    )
    assert shown == [o["name"] for o in offered]
    for rule in ("re_bello", "napola", "dealer_last_sweep"):
        ann.page.check(f"#rule-options [data-rule={rule}]")
    ann.page.select_option("#rule-options [data-rule=forced_capture]", "any")
    assert "Re bello" in ann.page.inner_text("#rule-options")
    assert small_controls(ann, 44) == []
    check_axe(ann, "the setup form with the rule options open")
    ann.screenshot("setup-rules")
    ann.start(level="random", target=11, variant="scopone_scientifico")
    ann.page.wait_for_selector("#game[data-ready=true]", timeout=20_000)
    game_id, token, _ = ann.seat()
    rules = api_view(live_service, game_id, token)["rules"]
    assert rules["re_bello"] and rules["napola"] and rules["dealer_last_sweep"], rules
    assert rules["forced_capture"] == "any" and not rules["napoleone"], rules


def test_friends_and_computer_players_at_one_table(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """Four players with friends, two of them computer players: Ann's partner's seat
    (across) is left open for a friend, the computer players sit on the other side; the
    lobby waits for the one friend (issue 36, item 6)."""
    ann = people("Ann", viewport=PORTRAIT, **PHONE)
    ann.open()
    ann.page.wait_for_selector("#setup:not([hidden])")
    assert ann.page.is_hidden("#bots-field")
    ann.page.fill("#setup-form [name=name]", "Ann")
    ann.page.check("#setup-form [name=against][value=friends]")
    ann.page.select_option("#setup-form [name=players]", "4")
    assert ann.page.is_visible("#bots-field") and ann.page.is_hidden("#level-field")
    ann.page.select_option("#setup-form [name=bots]", "2")
    assert ann.page.is_visible("#level-field")
    ann.page.select_option("#setup-form [name=level]", "random")
    assert small_controls(ann, 44) == []
    check_axe(ann, "the setup form, friends and computer players")
    ann.page.click("#setup-form [type=submit]")
    ann.page.wait_for_selector("#lobby:not([hidden])")
    game_id, token, _ = ann.seat()
    seats = api_view(live_service, game_id, token)["seats"]
    assert [bool(s["open"]) for s in seats] == [False, False, True, False]
    assert [s["bot"] for s in seats] == [None, "random", None, "random"]
    assert ann.page.inner_text("#lobby-waiting") == "Waiting for 1 more"


# -- 7. teams ------------------------------------------------------------------------------------


def test_teams_read_as_us_and_them(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """Six players on a phone: the score line says "Us" and "Them" whole (the names cut
    short before), each side's names for screen readers; the hand's score sheet's
    columns are headed in one line each and its button is on the screen (issue 36,
    item 7)."""
    ann = people("Ann", viewport=LANDSCAPE, **PHONE)
    ann.open()
    ann.start(level="random", target=11, players="6")
    ann.page.wait_for_selector("#game[data-ready=true]", timeout=20_000)
    sides = ann.page.eval_on_selector_all(
        ".scoreline li",
        """els => els.map((e) => [e.firstChild.nextSibling.textContent.trim() + e.childNodes[2]
            .textContent, e.scrollWidth <= e.clientWidth + 1])""",
    )
    assert sides == [["Us", True], ["Them", True]], sides
    assert "Ann" in ann.page.inner_text(".scoreline li[data-team='0']")
    while wait_turn_or_sheet(ann) == "turn":
        tap_card(ann, playable(ann)[0])
    ann.page.wait_for_selector("#scores-dialog[open]")
    heads = ann.page.eval_on_selector_all(
        "#scores-body table.score thead th[scope=col]",
        """els => els.map((e) => [e.getBoundingClientRect().height,
            parseFloat(getComputedStyle(e).lineHeight) || 20])""",
    )
    assert all(height < 2 * line + 10 for height, line in heads), heads
    ann.page.set_viewport_size(PORTRAIT)
    bottom = ann.page.evaluate(
        "() => document.querySelector('#close-scores').getBoundingClientRect().bottom"
    )
    assert bottom <= PORTRAIT["height"], bottom
    check_axe(ann, "a hand's score sheet of 6 players, us and them")


@pytest.mark.parametrize("players", [4, 6])
def test_the_other_seats_sit_around_you_the_partners_across(
    people: Callable[..., Person], live_service: LiveService, players: int
) -> None:
    """On a phone held either way, the others sit around you as docs/rules.md R2.4 asks
    of a table: the seat after yours on your right, the one before on your left, the rest
    across; with four players the partner across between them, with six the far row the
    three across (partners at its ends) over the near two. They were drawn left to right
    in playing order before; a screen reader still reads them in playing order (issue 36,
    item 7)."""
    ann = people("Ann", viewport=PORTRAIT, **PHONE)
    ann.open()
    ann.start(level="random", target=11, players=str(players))
    ann.page.wait_for_selector("#game[data-ready=true]", timeout=20_000)
    you = ann.seat()[2]
    for viewport in (PORTRAIT, LANDSCAPE):
        ann.page.set_viewport_size(viewport)
        # (laid out: the seats can be in the page a moment before they have a place)
        ann.page.wait_for_function(
            """(n) => { const seats = [...document.querySelectorAll('#opponents .seat')];
                return seats.length === n
                    && seats.every((e) => e.getBoundingClientRect().width > 0); }""",
            arg=players - 1,
        )
        seats = ann.page.eval_on_selector_all(
            "#opponents .seat",
            """els => els.map((e) => { const box = e.getBoundingClientRect();
                return {seat: Number(e.dataset.seat), x: box.left + box.width / 2, y: box.top,
                    partner: !!e.querySelector('.badge.partner')}; })""",
        )
        assert [s["seat"] for s in seats] == [(you + i) % players for i in range(1, players)]
        assert [s["partner"] for s in seats] == [i % 2 == 0 for i in range(1, players)], seats
        after, before = seats[0], seats[-1]
        across = seats[1:-1]
        # (six: the near two under the ends of the far row)
        assert before["x"] <= min(s["x"] for s in across) < after["x"], (viewport, seats)
        assert before["x"] < max(s["x"] for s in across) <= after["x"], (viewport, seats)
        assert [s["x"] for s in across] == sorted((s["x"] for s in across), reverse=True)
        if players == 6:  # the far row above the near one
            assert max(s["y"] for s in across) < min(after["y"], before["y"]), seats
    check_axe(ann, f"{players} seats around the table")


# -- 8. the hand's score explained ----------------------------------------------------------------

PRIMIERA = {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10}


def test_the_hand_sheet_shows_the_cards_behind_the_primiera(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """A hand played out (through the API) while Ann watches: its sheet shows, beside each
    side's primiera, the four cards that make it, one a suit, from that side's pile, their
    values adding up to the primiera the service scored (issue 36, item 8)."""
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={"seats": [{"name": "Ann"}, {"name": "Computer", "bot": "random"}], "target": 21},
        timeout=10,
    ).json()
    game_id, token = created["id"], created["seats"][0]["token"]
    ann = people("Ann")
    ann.hold(game_id, token)
    ann.page.wait_for_selector("#game[data-ready=true]")
    auth = {"Authorization": f"Bearer {token}"}
    url = f"{live_service.url}/v1/games/{game_id}"
    while api_view(live_service, game_id)["hand_number"] == 1:
        move = requests.get(f"{url}/legal-moves", headers=auth, timeout=10).json()["moves"][0]
        body = {"card": move["card"], "capture": move["capture"]}
        assert requests.post(f"{url}/moves", json=body, headers=auth, timeout=10).ok
    ann.page.wait_for_selector("#scores-dialog[open][data-holds=true]")
    sides = requests.get(f"{url}/hands", timeout=10).json()["hands"][0]["teams"]
    shown = ann.page.eval_on_selector_all(
        "#scores-body tr[data-category=primiera] td",
        "tds => tds.map((td) => [...td.querySelectorAll('.face')].map((f) => f.dataset.card))",
    )
    assert len(shown) == len(sides)
    for side, cards in zip(sides, shown, strict=True):
        if side["primiera"] is None:
            assert cards == []
            continue
        assert sorted(c[-1] for c in cards) == ["B", "C", "D", "S"], cards
        assert set(cards) <= set(side["captured"])
        assert sum(PRIMIERA[int(c[:-1])] for c in cards) == side["primiera"], (cards, side)
    check_axe(ann, "a hand's sheet with the primiera's cards")


# -- 13. slow networks ----------------------------------------------------------------------------

#: A slow mobile network: 400 kbit/s each way, 400 ms of latency (Chromium's emulation).
SLOW = {
    "offline": False,
    "latency": 400,
    "downloadThroughput": 400_000 / 8,
    "uploadThroughput": 400_000 / 8,
}
#: The page's startup reads: the variants, the cards' names, its words.
STARTUP = re.compile(r"/v1/variants$|/v1/cards\?|/locales/\w+\.json$")


def slow_network(person: Person) -> None:
    cdp = person.context.new_cdp_session(person.page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", SLOW)


def requests_timed(person: Person) -> dict[str, list[float]]:
    """When each request of the page started and ended (seconds, monotonic), by URL."""
    timed: dict[str, list[float]] = {}
    person.page.on("request", lambda r: timed.setdefault(r.url, [time.monotonic(), 0.0]))
    person.page.on(
        "requestfinished",
        lambda r: timed.setdefault(r.url, [time.monotonic(), 0.0]).__setitem__(1, time.monotonic()),
    )
    return timed


def test_a_cold_load_and_a_reload_on_a_slow_network(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """At 400 kbit/s and 400 ms: the page is three files (its script and stylesheet, one
    each, `make web`; its icon), asked for together; the startup reads (variants, the
    cards' names, the page's words) go together, not one after another, and on a reload
    with them the game's view and legal moves (not after the stream's first state); the
    setup form becomes usable (in words, its games listed) and a reload in the middle of a
    hand playable again, each time printed (issue 36, item 13). The times are figures, not
    assertions: they swing with the machine's load (speed is measured by benchmarks, never
    asserted by a test)."""
    ann = people("Ann", locale="it-IT", viewport=PORTRAIT, **PHONE)
    slow_network(ann)
    timed = requests_timed(ann)
    ann.open()
    # (Each time is the page's own clock when the condition was first seen: a read of
    # it afterwards, through the browser's debugging protocol, came up to 0.4 s later.)
    usable = ann.page.wait_for_function(
        """() => !document.querySelector('#setup').hidden
            && document.querySelectorAll('#setup-form [name=variant] option').length > 1
            && document.querySelector('#setup h2').textContent === 'Nuova partita'
            && performance.now()""",
        polling="raf",
        timeout=20_000,
    ).json_value()
    files = sorted(url.rsplit("/", 1)[-1] for url in timed if "/play/v/" in url)
    assert files == ["icon.svg", "it.json", "play.css", "play.js"], files
    startup = {url: at for url, at in timed.items() if STARTUP.search(url)}
    assert len(startup) == 3, sorted(timed)
    # The startup reads: each asked for before any of them was answered.
    assert max(s for s, _ in startup.values()) < min(e for _, e in startup.values()), startup
    assert not any("en.json" in url for url in timed), "English read for an Italian page"
    print(f"cold load at 400 kbit/s, 400 ms: a usable setup form in {usable:.0f} ms")
    # (2.16 s; 4.4 s before the modulepreloads, 3.75-4.1 s before the bundle: over
    # HTTP/1.1, six connections at a time, 29 files took five round trips. The reload
    # below: 1.06 s, 1.5-2.5 s before its reads went early.)

    ann.start(level="random", target=11)
    ann.page.wait_for_selector("#game[data-ready=true]", timeout=30_000)
    tap_card(ann, playable(ann)[0])
    wait_until(ann.ready, timeout=30, what="Ann's second turn")
    hand = ann.cards("#hand")
    timed.clear()
    ann.page.reload()
    playable_after = ann.page.wait_for_function(
        "() => document.querySelector('#game')?.dataset.ready === 'true' && performance.now()",
        polling="raf",
        timeout=20_000,
    ).json_value()
    assert ann.cards("#hand") == hand
    # The game's reads (its view, your legal moves) go with the startup reads, beside the
    # stream rather than after its first state: each asked for before any was answered.
    reads = {
        url: at
        for url, at in timed.items()
        if STARTUP.search(url) or re.search(r"/v1/games/[\w-]+(/legal-moves)?$", url)
    }
    game_reads = [url for url in reads if "/v1/games/" in url]
    assert len(game_reads) == 2 and len(reads) >= 3, sorted(timed)  # (words may be cached)
    # (A read still unanswered when the page was playable has no end yet: 0.)
    answered = [e for _, e in reads.values() if e]
    assert max(s for s, _ in reads.values()) < min(answered, default=math.inf), reads
    print(f"a mid-hand reload at 400 kbit/s, 400 ms: playable in {playable_after:.0f} ms")


# -- 10. offline -----------------------------------------------------------------------------------


def tap_without_waiting(person: Person, card: str) -> None:
    """Tap ``card`` twice (select, then play), its first capture if it asks: no wait for
    the move to land."""
    person.page.tap(f"#hand [data-card='{card}']")
    person.page.wait_for_selector(f"#hand [data-card='{card}'].armed")
    person.page.tap(f"#hand [data-card='{card}']")
    if person.page.is_visible("#choices"):
        person.page.tap("#choice-list .choice >> nth=0")


def check_pending_then_sent(
    person: Person, service: LiveService, card: str, back: Callable[[], None]
) -> None:
    """``card`` was tapped while its request cannot go: it shows as pending (marked in the
    hand, the turn line saying it will be sent), stays so, and is sent once ``back()``
    gives the network back: in the game's log, out of the hand."""
    game_id, token, _ = person.seat()
    english = names(service, "en")
    person.page.wait_for_selector(f"#hand [data-card='{card}'].pending")
    turn = person.page.inner_text("#turn")
    assert turn == f"Will be sent: {english[card]}", turn
    assert person.page.get_attribute("#game", "data-pending") == card
    time.sleep(1.5)  # (its retries fail meanwhile: still pending, nothing played)
    assert person.page.is_visible(f"#hand [data-card='{card}'].pending")
    assert card in api_view(service, game_id, token)["hand"]
    back()
    person.page.wait_for_function(
        "(card) => !document.querySelector(`#hand [data-card='${card}']`)", arg=card, timeout=15_000
    )
    assert card not in api_view(service, game_id, token)["hand"]
    log = requests.get(f"{service.url}/v1/games/{game_id}/events", timeout=10).json()["events"]
    assert [e for e in log if e["type"] == "move" and e["seat"] == 0][-1]["card"] == card
    assert person.page.get_attribute("#game", "data-pending") == ""


def test_a_card_played_offline_is_pending_then_sent(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """Ann's move cannot go (its request fails, then the phone is offline): the card she
    tapped shows as pending ("Will be sent: ...", marked in her hand) rather than left
    there with a blank turn line, and is sent when the network is back; offline, a banner
    across the page says so, not only the badge (issue 36, item 10)."""
    ann = people("Ann", viewport=PORTRAIT, **PHONE)
    ann.allowed = re.compile(r"ERR_INTERNET_DISCONNECTED|ERR_FAILED|ERR_NETWORK_CHANGED")
    failing = {"moves": False}

    def moves(route: Any) -> None:
        if failing["moves"] and route.request.method == "POST":
            route.abort("internetdisconnected")
        else:
            route.continue_()

    ann.context.route(re.compile(r"/v1/games/[^/]+/moves$"), moves)
    ann.open()
    ann.start(level="random", target=11)
    ann.page.wait_for_selector("#game[data-ready=true]", timeout=20_000)

    # The moves' request fails (the network lost on the way): pending, then sent.
    failing["moves"] = True
    card = playable(ann)[0]
    tap_without_waiting(ann, card)
    check_pending_then_sent(ann, live_service, card, lambda: failing.update(moves=False))

    # Offline: a banner says so across the page; a card tapped waits, and goes when
    # the phone is online again.
    while wait_turn_or_sheet(ann) == "sheet":
        ann.page.tap("#close-scores")
    ann.context.set_offline(True)
    ann.page.wait_for_selector("#offline-banner:not([hidden])")
    banner = ann.page.eval_on_selector(
        "#offline-banner",
        """(el) => { const r = el.getBoundingClientRect();
            return {width: r.width, height: r.height, top: r.top,
                    size: parseFloat(getComputedStyle(el).fontSize), text: el.textContent}; }""",
    )
    assert banner["size"] >= 16 and banner["width"] >= 300 and banner["height"] >= 30, banner
    assert 0 <= banner["top"] < PORTRAIT["height"] / 2, banner
    assert "offline" in banner["text"], banner
    card = playable(ann)[0]
    tap_without_waiting(ann, card)
    ann.screenshot("offline-pending")
    check_axe(ann, "offline, a card pending")
    check_pending_then_sent(ann, live_service, card, lambda: ann.context.set_offline(False))
    ann.page.wait_for_selector("#offline-banner", state="hidden")


# -- 11. emotes ----------------------------------------------------------------------------------

BUBBLE_CLEAR = """(seat) => {
  const bubble = document.querySelector(`.bubble[data-seat="${seat}"]`);
  const name = document.querySelector(`.seat[data-seat="${seat}"] .seat-name .name`);
  const b = bubble.getBoundingClientRect(), n = name.getBoundingClientRect();
  const across = Math.max(0, Math.min(b.right, n.right) - Math.max(b.left, n.left));
  const down = Math.max(0, Math.min(b.bottom, n.bottom) - Math.max(b.top, n.top));
  const drawn = bubble.querySelector('svg').getBoundingClientRect();
  return {overlap: across * down, inside: b.left >= 0 && b.top >= 0
    && b.right <= innerWidth && b.bottom <= innerHeight, drawn: drawn.width};
}"""


def test_emotes_drawn_behind_one_button_their_bubble_off_the_names(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """On a phone: one button opens the emotes (no row of them kept on the screen); each
    is drawn as SVG (no emoji font needed: no text in the buttons); a reaction, Ann's or
    Bruno's, shows by the seat that sent it without covering its name (issue 36, item
    11)."""
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={"seats": [{"name": "Ann"}, {"name": "Bruno"}], "first_dealer": 1, "target": 11},
        timeout=10,
    ).json()
    game_id = created["id"]
    ann = people("Ann", viewport=PORTRAIT, **PHONE)
    ann.hold(game_id, created["seats"][0]["token"])
    ann.page.wait_for_selector("#game[data-ready=true]")
    assert ann.page.is_visible("#react") and ann.page.is_hidden("#reactions")
    assert (
        ann.page.eval_on_selector_all(
            ".emote", "els => els.filter((e) => e.checkVisibility()).length"
        )
        == 0
    )
    ann.page.tap("#react")
    emotes = ann.page.eval_on_selector_all(
        "#reactions .emote",
        """els => els.map((e) => ({emote: e.dataset.emote, text: e.textContent.trim(),
            name: e.getAttribute('aria-label'), shapes: e.querySelectorAll('svg *').length,
            width: e.querySelector('svg').getBoundingClientRect().width,
            box: [e.getBoundingClientRect().width, e.getBoundingClientRect().height]}))""",
    )
    assert [e["emote"] for e in emotes] == EMOTES_SHOWN
    for emote in emotes:
        assert emote["text"] == "" and emote["shapes"] >= 1 and emote["width"] >= 20, emote
        assert emote["name"] and min(emote["box"]) >= 44, emote
    check_axe(ann, "the emotes open on a phone")
    ann.page.tap("#reactions [data-emote=gg]")
    assert ann.page.is_hidden("#reactions")
    ann.page.wait_for_selector(".bubble[data-seat='0'][data-emote=gg]")
    mine = ann.page.evaluate(BUBBLE_CLEAR, 0)
    assert mine == {"overlap": 0, "inside": True, "drawn": mine["drawn"]} and mine["drawn"] >= 20
    # One's own reaction shows from the answer to sending it; another seat's, from the
    # stream (live once its state came).
    wait_until(lambda: ann.page.get_attribute("#connection", "data-mode") == "live")
    bruno = {"Authorization": f"Bearer {created['seats'][1]['token']}"}
    sent = requests.post(
        f"{live_service.url}/v1/games/{game_id}/reactions",
        json={"emote": "laugh"},
        headers=bruno,
        timeout=10,
    )
    assert sent.ok, sent.text
    ann.page.wait_for_selector(".bubble[data-seat='1'][data-emote=laugh]")
    his = ann.page.evaluate(BUBBLE_CLEAR, 1)
    assert his["overlap"] == 0 and his["inside"], his
    assert "Bruno" in ann.page.inner_text(".bubble[data-seat='1']")
    # Ann's own, heard again from the stream (before Bruno's), is not shown twice.
    assert ann.page.locator(".bubble[data-seat='0']").count() <= 1
    ann.screenshot("emote-bubbles")


# -- 8 and 12. the end of a match, and a series of rematches --------------------------------------


def play_out(service: LiveService, game_id: str, tokens: list[str]) -> dict[str, Any]:
    """The match played to its end through the API, each seat by its token playing its
    first legal move; its final view (Ann's)."""
    url = f"{service.url}/v1/games/{game_id}"
    while True:
        view = api_view(service, game_id, tokens[0])
        if view["status"] == "finished":
            return view
        auth = {"Authorization": f"Bearer {tokens[view['turn']]}"}
        moves = requests.get(f"{url}/legal-moves", headers=auth, timeout=10).json()["moves"]
        body = {"card": moves[0]["card"], "capture": moves[0]["capture"]}
        requests.post(f"{url}/moves", json=body, headers=auth, timeout=10)


def visible_text(person: Person) -> str:
    """The words on the screen: the page's rendered text (a modal sheet's and the table's
    behind it; nothing hidden)."""
    return str(person.page.evaluate("() => document.body.innerText"))


def scores_controls(person: Person) -> list[str]:
    """The buttons on the screen that open the scores."""
    return list(
        person.page.eval_on_selector_all(
            "button",
            "els => els.filter((e) => e.checkVisibility() && e.textContent.trim() === 'Scores')"
            ".map((e) => e.id)",
        )
    )


def test_the_end_of_a_match_says_each_thing_once(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """A match of several hands played to its end (through the API) while Ann watches: with
    the final score sheet open, its last hand ("Hand N") and why it ended ("reached the
    target") are said once each on the screen (the every-hand table numbers its rows under
    its "Hand" column; the info line drops the hand at the end, the table's result box gives
    way to the sheet); the sheet closed, the reason is said once and one control opens the
    scores (issue 36, item 8)."""
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={"seats": [{"name": "Ann"}, {"name": "Bruno"}], "first_dealer": 1, "target": 11},
        timeout=10,
    ).json()
    game_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    ann = people("Ann")
    ann.hold(game_id, tokens[0])
    ann.page.wait_for_selector("#game[data-ready=true]")
    play_out(live_service, game_id, tokens)
    hands = requests.get(f"{live_service.url}/v1/games/{game_id}/hands", timeout=10).json()
    last = len(hands["hands"])
    assert last >= 2, "a match of one hand: nothing to list hand by hand"
    ann.follow_to_the_end()
    shown = visible_text(ann)
    assert len(re.findall(rf"\bHand {last}\b", shown)) == 1, shown
    assert shown.count("reached the target") == 1, shown
    rows = ann.page.eval_on_selector_all(
        "#scores-body table.hands tbody th", "ths => ths.map((th) => th.textContent)"
    )
    assert rows == [str(n) for n in range(1, last + 1)]
    assert ann.page.inner_text("#scores-body table.hands thead th") == "Hand"
    check_axe(ann, "the final score sheet")
    ann.page.click("#close-scores")
    ann.page.wait_for_selector("#scores-dialog:not([open])", state="attached")
    ann.page.wait_for_selector("#final-result", state="visible")
    shown = visible_text(ann)
    assert shown.count("reached the target") == 1, shown
    assert scores_controls(ann) == ["final-scores"]
    check_axe(ann, "the final screen, its sheet closed")
    ann.page.click("#final-scores")
    ann.page.wait_for_selector("#scores-dialog[open] #reason:not([hidden])")
    assert visible_text(ann).count("reached the target") == 1


def series_shown(person: Person) -> tuple[str, str]:
    """The series' tally on the table's line and on the score sheet ('' where none)."""
    return (
        person.page.evaluate("() => document.querySelector('#info .series')?.innerText ?? ''"),
        person.page.evaluate(
            "() => { const s = document.querySelector('#series');"
            " return s.hidden ? '' : s.innerText; }"
        ),
    )


def test_a_series_of_rematches_is_tallied(
    people: Callable[..., Person], live_service: LiveService
) -> None:
    """Two matches of one point, each played to its end through the API while Ann watches,
    the second her rematch asked for on the page: the first shows no series; during the
    second the table's line tallies the matches each side won ("Series: Ann 1 – Bruno 0",
    each side named as the sheet names it), and at its end the table and the final sheet
    count it too; a reload still shows it, and so does another device that never saw
    the first match (issue 36, item 12)."""
    created = requests.post(
        f"{live_service.url}/v1/games",
        json={"seats": [{"name": "Ann"}, {"name": "Bruno"}], "first_dealer": 1, "target": 1},
        timeout=10,
    ).json()
    game_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    ann = people("Ann")
    ann.hold(game_id, tokens[0])
    ann.page.wait_for_selector("#game[data-ready=true]")
    wins = [0, 0]
    wins[play_out(live_service, game_id, tokens)["winner"]] += 1
    ann.follow_to_the_end()
    assert series_shown(ann) == ("", "")  # one match: no series yet

    def tally() -> str:
        return f"Series: Ann {wins[0]} – Bruno {wins[1]}"

    ann.page.click("#rematch")
    ann.page.wait_for_function(
        "(old) => { const g = document.querySelector('#game');"
        " return g.dataset.game && g.dataset.game !== old && g.dataset.status === 'playing'; }",
        arg=game_id,
    )
    second, token, _ = ann.seat()
    bruno = requests.post(
        f"{live_service.url}/v1/games/{game_id}/rematch",
        headers={"Authorization": f"Bearer {tokens[1]}"},
        timeout=10,
    ).json()
    assert bruno["id"] == second
    wait_until(lambda: series_shown(ann) == (tally(), ""), what="the series on the table")
    # Bruno, on a device of his own that saw none of the first match, reads the same
    # tally: the service keeps it (the view's `series`), not the browser.
    elsewhere = people("Bruno")
    elsewhere.hold(second, bruno["token"])
    # The table drawn: whose turn it is depends on how many hands the first match took
    # (the rematch's first dealer follows the last), so not on Bruno being to play.
    elsewhere.page.wait_for_selector(f"#game[data-game='{second}'][data-status=playing]")
    assert series_shown(elsewhere)[0] == tally()
    check_axe(ann, "a rematch's table with its series")
    ann.screenshot("series-table")
    wins[play_out(live_service, second, [token, bruno["token"]])["winner"]] += 1
    ann.follow_to_the_end()
    assert sum(wins) == 2
    assert series_shown(ann) == (tally(), tally())
    check_axe(ann, "the final sheet of a series")
    ann.page.reload()
    ann.follow_to_the_end()
    assert series_shown(ann) == (tally(), tally())
    ann.screenshot("series-final-sheet")
