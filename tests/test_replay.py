"""service.engine.replay: a match rebuilt from its event log is the match
(docs/rules.md R2-R10).

Thousands of random matches of every variant, player count and rule option, finished or
stopped anywhere, deals from a seed, a given deck or the system's randomness: the replay
of each one's log equals its state, in everything the log determines. A log that was
tampered with is refused.
"""

from __future__ import annotations

import copy
import os
import random
from typing import Any

import pytest

from service.engine import DECK, VARIANTS, Card, Match, Rules, Status
from service.engine.match import Event, moves_of
from service.engine.replay import ReplayError, comparable, replay
from service.engine.rules import OPTIONS

#: Random matches per variant (`REPLAY_MATCHES=2000 make test` for a longer run).
MATCHES = int(os.environ.get("REPLAY_MATCHES", "400"))


def random_rules(variant: str, rng: random.Random) -> Rules:
    options: dict[str, Any] = {}
    for name in VARIANTS[variant].options:
        option = OPTIONS[name]
        if rng.random() < 0.3:
            if option.choices:
                options[name] = rng.choice(option.choices)
            else:
                options[name] = rng.randint(*option.bounds) if option.bounds else True
    return Rules.from_dict(options)


def random_match(
    variant: str, rng: random.Random, *, target: int | None = None, stop_after: int | None = None
) -> tuple[Match, list[Event]]:
    """A match played at random (to its end, or for ``stop_after`` moves) and its log."""
    kind = rng.randrange(3)
    match, log = Match.new(
        variant=variant,
        players=rng.choice(VARIANTS[variant].player_counts),
        target=target,
        rules=random_rules(variant, rng),
        seed=rng.randrange(2**63) if kind == 0 else None,
        deck=rng.sample(DECK, len(DECK)) if kind == 1 else None,
    )
    played = 0
    while match.status == Status.PLAYING and (stop_after is None or played < stop_after):
        code = rng.choice(match.hand.legal_codes())
        log += match.push(moves_of([code])[0])
        played += 1
    return match, log


def assert_replays(match: Match, log: list[Event]) -> None:
    replayed = replay(copy.deepcopy(log))
    assert comparable(replayed.to_dict()) == comparable(match.to_dict())
    assert replayed.seed is None


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_random_matches_replay_exactly(variant: str) -> None:
    rng = random.Random(f"replay:{variant}")
    for number in range(MATCHES):
        # Mostly short matches (a hand or two), some to the variant's own target, and
        # some stopped anywhere: mid-hand, right after a deal, on a hand's last card.
        target = None if number % 20 == 0 else rng.choice([1, 1, 2, 3])
        stop_after = rng.randrange(80) if number % 4 == 0 else None
        match, log = random_match(variant, rng, target=target, stop_after=stop_after)
        assert_replays(match, log)


def test_a_replay_can_go_on_like_the_match() -> None:
    """The replay is a live match: the same moves give the same events, up to the next
    deal from the stock (whose order the log does not hold)."""
    rng = random.Random("go-on")
    match, log = random_match("scopa", rng, target=11, stop_after=1)
    assert sum(h.bit_count() for h in match.hand.hands) > 2
    replayed = replay(log)
    while sum(h.bit_count() for h in match.hand.hands) > 1:
        move = moves_of([rng.choice(match.hand.legal_codes())])[0]
        assert replayed.push(move) == match.push(move)
        assert comparable(replayed.to_dict()) == comparable(match.to_dict())


def kings_deck(players: int) -> list[Card]:
    """A deck whose first deal (2 players, dealer 1) puts three kings on the table."""
    kings = [c for c in DECK if c.value == 10][:3]
    rest = [c for c in DECK if c not in kings]
    return rest[: 3 * players] + kings + rest[3 * players :]


def test_redeals_are_replayed() -> None:
    match, log = Match.new(players=2, deck=kings_deck(2), first_dealer=1, seed=7, target=1)
    assert [e["type"] for e in log[:3]] == ["match_started", "redeal", "deal"]
    rng = random.Random(3)
    while match.status == Status.PLAYING:
        log += match.push(moves_of([rng.choice(match.hand.legal_codes())])[0])
    assert_replays(match, log)


def test_the_dealer_bonus_is_replayed() -> None:
    # Escoba: a table adding up to 15 is the dealer's, with an escoba (R10).
    table = [Card.parse(c) for c in ("1D", "2D", "3D", "9C")]
    rest = [c for c in DECK if c not in table]
    deck = rest[:6] + table + rest[6:]
    match, log = Match.new(variant="escoba", players=2, deck=deck, first_dealer=1, target=1)
    assert "dealer_bonus" in [e["type"] for e in log]
    assert_replays(match, log)


# -- a log that is not a match's ---------------------------------------------------------


@pytest.fixture
def played() -> tuple[Match, list[Event]]:
    match, log = random_match("scopa", random.Random(11), target=11, stop_after=60)
    return match, log


def moves_in(log: list[Event]) -> list[int]:
    return [i for i, e in enumerate(log) if e["type"] == "move"]


def test_a_changed_move_is_refused(played: tuple[Match, list[Event]]) -> None:
    _, log = played
    index = moves_in(log)[10]
    log[index]["card"] = next(c.code for c in DECK if c.code != log[index]["card"])
    with pytest.raises(ReplayError, match=f"event {index}"):
        replay(log)


def test_a_move_played_twice_is_refused(played: tuple[Match, list[Event]]) -> None:
    _, log = played
    index = moves_in(log)[10]
    log.insert(index + 1, copy.deepcopy(log[index]))
    with pytest.raises(ReplayError):
        replay(log)


def test_a_lost_move_is_refused(played: tuple[Match, list[Event]]) -> None:
    _, log = played
    del log[moves_in(log)[10]]
    with pytest.raises(ReplayError):
        replay(log)


def test_a_changed_score_is_refused(played: tuple[Match, list[Event]]) -> None:
    _, log = played
    index = next(i for i, e in enumerate(log) if e["type"] == "hand_over")
    log[index]["score"]["scores"][0] += 1
    with pytest.raises(ReplayError, match=f"event {index}"):
        replay(log)


def test_swapped_hands_are_refused(played: tuple[Match, list[Event]]) -> None:
    _, log = played
    hands = log[1]["hands"]
    hands["0"], hands["1"] = hands["1"], hands["0"]
    with pytest.raises(ReplayError):
        replay(log)


def test_a_log_must_start_with_the_match() -> None:
    with pytest.raises(ReplayError):
        replay([])
    _, log = Match.new(seed=1)
    with pytest.raises(ReplayError):
        replay(log[1:])


def test_a_mangled_log_is_refused_with_a_replay_error() -> None:
    """Whatever is wrong with a log (a field gone, of another type, out of range), the
    replay says so with a ReplayError, never with another exception."""
    rng = random.Random("mangled")
    for _ in range(1000):
        _, log = random_match(rng.choice(sorted(VARIANTS)), rng, target=1, stop_after=30)
        event = rng.choice(log)
        key = rng.choice(sorted(event))
        if rng.random() < 0.3:
            del event[key]
        else:
            event[key] = rng.choice([None, -1, 99, "x", [], {}, ["ZZ"], True, 2.5])
        try:
            replay(log)
        except ReplayError:
            pass
