"""The pairings of service.tournaments: FIDE's Berger tables for round robins, FIDE's
Dutch Swiss on 200 random tournaments checked against the system's absolute rules, and
single-elimination brackets seeded as tennis seeds them. Pure: no Redis."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations

import pytest

from service.tournaments import (
    Entrant,
    Pairing,
    PairingError,
    Played,
    elimination,
    elimination_walkovers,
    round_robin,
    round_robin_forfeits,
    rounds_of_elimination,
    rounds_of_round_robin,
    seeding_order,
    swiss,
)


def field_of(n: int) -> list[Entrant]:
    """``n`` entrants "1".."n", seeded in that order."""
    return [Entrant(str(seed), 2000.0 - 10 * seed, seed) for seed in range(1, n + 1)]


def pairs(pairings: list[Pairing]) -> list[tuple[str, str | None]]:
    return [(p.first, p.second) for p in pairings]


# ------------------------------------------------------------------- round robin

#: FIDE Handbook C.05, Annex 1: the Berger tables for 3 or 4 and for 5 or 6 players.
BERGER_4 = ["1-4 2-3", "4-3 1-2", "2-4 3-1"]
BERGER_6 = ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"]


def table(text: str) -> list[tuple[str, str]]:
    return [(a, b) for a, b in (game.split("-") for game in text.split())]


@pytest.mark.parametrize("n, berger", [(4, BERGER_4), (6, BERGER_6)])
def test_a_round_robin_of_an_even_number_is_fides_berger_table(n: int, berger: list[str]) -> None:
    assert rounds_of_round_robin(n) == len(berger)
    for number, expected in enumerate(berger, start=1):
        pairings = round_robin(field_of(n), number)
        assert pairs(pairings) == table(expected)
        assert [p.table for p in pairings] == list(range(1, n // 2 + 1))


@pytest.mark.parametrize("n, berger", [(3, BERGER_4), (5, BERGER_6)])
def test_an_odd_number_plays_the_next_table_and_the_dummys_opponent_has_a_bye(
    n: int, berger: list[str]
) -> None:
    assert rounds_of_round_robin(n) == n
    dummy = str(n + 1)
    for number, expected in enumerate(berger, start=1):
        games = [(a, b) for a, b in table(expected) if dummy not in (a, b)]
        (bye,) = [b if a == dummy else a for a, b in table(expected) if dummy in (a, b)]
        assert pairs(round_robin(field_of(n), number)) == [*games, (bye, None)]


@pytest.mark.parametrize("n", range(2, 15))
def test_everyone_meets_everyone_once_and_sits_out_at_most_once(n: int) -> None:
    met: Counter[frozenset[str]] = Counter()
    byes: Counter[str] = Counter()
    for number in range(1, rounds_of_round_robin(n) + 1):
        pairings = round_robin(field_of(n), number)
        named = [p.first for p in pairings] + [p.second for p in pairings if p.second]
        assert sorted(named) == sorted(e.id for e in field_of(n))
        met.update(frozenset((p.first, p.second)) for p in pairings if p.second)
        byes.update(p.first for p in pairings if p.second is None)
    assert set(met) == {frozenset(pair) for pair in combinations([e.id for e in field_of(n)], 2)}
    assert set(met.values()) == {1}
    assert byes == (Counter({e.id: 1 for e in field_of(n)}) if n % 2 else Counter())


def test_a_withdrawn_entrants_games_are_forfeit_wins_of_its_opponents() -> None:
    # Round 2 of 6: 6-4 5-3 1-2; entrant 4 and entrant 1 withdrew.
    assert pairs(round_robin(field_of(6), 2, frozenset({"4", "1"}))) == [("5", "3")]
    assert round_robin_forfeits(field_of(6), 2, frozenset({"4", "1"})) == [
        Played(2, "6", "4", "6", forfeit=True),
        Played(2, "1", "2", "2", forfeit=True),
    ]
    # Round 1 of 5 (1-6 2-5 3-4, 6 the dummy): 1's bye is no game, so no forfeit.
    assert pairs(round_robin(field_of(5), 1, frozenset({"1"}))) == [("2", "5"), ("3", "4")]
    assert round_robin_forfeits(field_of(5), 1, frozenset({"1"})) == []
    with pytest.raises(PairingError):
        round_robin(field_of(6), 6)


# ------------------------------------------------------------------------- Swiss


def test_round_1_pairs_the_top_half_against_the_bottom_half_alternating_seats() -> None:
    # FIDE C.04.3: S1 = 1..8 against S2 = 9..16; seats alternate from board 1 (E.5).
    expected = [("1", "9"), ("10", "2"), ("3", "11"), ("12", "4")]
    expected += [("5", "13"), ("14", "6"), ("7", "15"), ("16", "8")]
    assert pairs(swiss(field_of(16), [], 1, 5)) == expected
    # An odd number: the last seed has the bye, the rest are split as above.
    assert pairs(swiss(field_of(5), [], 1, 4)) == [("1", "3"), ("4", "2"), ("5", None)]


@dataclass
class Tournament:
    """A random Swiss played out: the records and what the checks need."""

    rng: random.Random
    entrants: list[Entrant]
    rounds: int
    played: list[Played] = field(default_factory=list)
    withdrawn: set[str] = field(default_factory=set)
    score: Counter[str] = field(default_factory=Counter)
    seats: dict[str, list[int]] = field(default_factory=dict)
    met: set[frozenset[str]] = field(default_factory=set)
    no_bye: set[str] = field(default_factory=set)  # had a bye or a forfeit win

    def result(self, number: int, pairing: Pairing) -> None:
        """A result for this pairing: the better seed more likely to win; now and then
        a side withdraws instead of playing (a forfeit)."""
        a, b = pairing.first, pairing.second
        if b is None:
            self.no_bye.add(a)
            self.score[a] += 1
            self.played.append(Played(number, a, None, a))
            return
        if self.rng.random() < 0.02:
            loser, winner = self.rng.sample([a, b], 2)
            self.withdrawn.add(loser)
            self.no_bye.add(winner)
            self.score[winner] += 1
            self.played.append(Played(number, a, b, winner, forfeit=True))
            return
        self.met.add(frozenset((a, b)))
        self.seats.setdefault(a, []).append(0)
        self.seats.setdefault(b, []).append(1)
        strength = {e.id: e.rating for e in self.entrants}
        expected = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 100))
        winner = a if self.rng.random() < expected else b
        self.score[winner] += 1
        points = (11, self.rng.randint(0, 10))
        self.played.append(Played(number, a, b, winner, points if winner == a else points[::-1]))

    def may_meet(self, a: str, b: str, number: int) -> bool:
        """FIDE's absolute criteria for a pair: not met before over the table, and some
        seating leaves both within the colour limits (topscorers exempt in the last
        round, C.04.3 C.3)."""
        if frozenset((a, b)) in self.met:
            return False
        topscorers = number == self.rounds and max(self.score[a], self.score[b]) > (number - 1) / 2
        return topscorers or any(
            seat_ok(self.seats.get(x, []), 0) and seat_ok(self.seats.get(y, []), 1)
            for x, y in ((a, b), (b, a))
        )

    def pairable(self, players: frozenset[str], number: int) -> bool:
        """Whether these players can all be paired legally (brute force)."""

        @cache
        def search(left: frozenset[str]) -> bool:
            if not left:
                return True
            first = min(left)
            return any(
                self.may_meet(first, other, number) and search(left - {first, other})
                for other in left - {first}
            )

        return search(players)


def seat_ok(history: list[int], seat: int) -> bool:
    after = [*history, seat]
    return abs(after.count(0) - after.count(1)) <= 2 and after[-3:] != [seat] * 3


def check_round(t: Tournament, number: int, pairings: list[Pairing], active: set[str]) -> None:
    named = [p.first for p in pairings] + [p.second for p in pairings if p.second]
    assert sorted(named) == sorted(active), "every active entrant once"
    assert [p.table for p in pairings] == list(range(1, len(pairings) + 1))
    for p in pairings:
        if p.second is not None:
            assert frozenset((p.first, p.second)) not in t.met, "no rematch"
    byes = [p.first for p in pairings if p.second is None]
    assert len(byes) == len(active) % 2
    for bye in byes:
        assert bye not in t.no_bye, "a second bye (or a bye after a forfeit win)"
        # The bye goes to the lowest score group, unless no lower eligible entrant
        # leaves the others pairable (FIDE's completion criterion comes first).
        for other in active - t.no_bye:
            if t.score[other] < t.score[bye]:
                assert not t.pairable(frozenset(active - {other}), number), (bye, other)


def check_seats(t: Tournament, number: int, pairings: list[Pairing]) -> None:
    """Seats within FIDE's limits, except where a topscorer (over half the possible
    points) meets someone in the last round (C.04.3 C.3 lets them meet; E.2 then seats
    them)."""
    topscorers = {e for e in t.score if t.score[e] > (number - 1) / 2}
    for p in pairings:
        if p.second is None or number == t.rounds and {p.first, p.second} & topscorers:
            continue
        for entrant, seat in ((p.first, 0), (p.second, 1)):
            assert seat_ok(t.seats.get(entrant, []), seat), (entrant, t.seats.get(entrant))


def play_swiss(seed: int) -> int:
    """Play one random Swiss; returns the rounds paired."""
    rng = random.Random(seed)
    n = rng.randint(6, 40)
    t = Tournament(rng, field_of(n), rng.randint(5, min(9, n - 1)))
    for number in range(1, t.rounds + 1):
        active = {e.id for e in t.entrants} - t.withdrawn
        try:
            pairings = swiss(t.entrants, t.played, number, t.rounds, frozenset(t.withdrawn))
        except PairingError:
            # Only when no legal pairing exists: try every eligible bye holder.
            holders = sorted(active - t.no_bye) if len(active) % 2 else [None]
            assert not any(t.pairable(frozenset(active - {h}), number) for h in holders)
            return number - 1
        if seed % 20 == 0:  # deterministic (checked on some only: the engine is slow)
            again = swiss(t.entrants, t.played, number, t.rounds, frozenset(t.withdrawn))
            assert pairings == again
        check_round(t, number, pairings, active)
        check_seats(t, number, pairings)
        for pairing in pairings:
            t.result(number, pairing)
        if rng.random() < 0.1 and len(active) > 4:
            t.withdrawn.add(rng.choice(sorted(active)))
    return t.rounds


def check_swiss_chunk(chunk: int) -> None:
    """Twenty random Swisses: sizes 6-40, 5-9 rounds (fewer than the entrants), random
    results with the better seed more likely to win, withdrawals between rounds and
    forfeits."""
    rounds = [play_swiss(seed) for seed in range(chunk * 20, chunk * 20 + 20)]
    assert sum(rounds) > 20 * 5  # most tournaments are paired to the end


@pytest.mark.parametrize("chunk", range(2))
def test_40_random_swiss_tournaments_keep_fides_absolute_rules(chunk: int) -> None:
    """The first 40 of :func:`test_200_random_swiss_tournaments_keep_fides_absolute_rules`'
    tournaments, in ``make test`` (the pairing engine takes about 0.3 s a tournament)."""
    check_swiss_chunk(chunk)


@pytest.mark.parametrize("chunk", range(2, 10))
def test_200_random_swiss_tournaments_keep_fides_absolute_rules(chunk: int) -> None:
    """The other 160 (a long run: ``make test-long``)."""
    check_swiss_chunk(chunk)


def test_a_swiss_refuses_to_pair_when_everyone_has_met() -> None:
    four = field_of(4)
    played: list[Played] = []
    for number in (1, 2, 3):
        for p in swiss(four, played, number, 4):
            assert p.second is not None
            played.append(Played(number, p.first, p.second, p.first))
    with pytest.raises(PairingError, match="round 4"):
        swiss(four, played, 4, 4)
    with pytest.raises(PairingError, match="undecided"):
        swiss(four, [Played(1, "1", "3", None)], 2, 4)


def test_a_forfeit_is_no_meeting_and_bars_the_bye() -> None:
    # Round 1: 1 beat 2 by forfeit, 3 and 4 played; round 2 of 3 with entrant 5 added
    # as absent in round 1 (0 points): 1 may meet 2 again, and 1 gets no bye.
    five = field_of(5)
    played = [Played(1, "1", "2", "1", forfeit=True), Played(1, "3", "4", "3")]
    pairings = swiss(five, played, 2, 3)
    bye = [p.first for p in pairings if p.second is None]
    assert bye and bye != ["1"]


# ------------------------------------------------------------------- elimination


def test_the_seeding_order_is_tennis() -> None:
    order = seeding_order(16)
    matches = [sorted(order[i : i + 2]) for i in range(0, 16, 2)]
    assert matches == [[1, 16], [8, 9], [5, 12], [4, 13], [3, 14], [6, 11], [7, 10], [2, 15]]
    assert seeding_order(4) == [1, 4, 3, 2]
    assert [rounds_of_elimination(n) for n in (2, 3, 4, 5, 8, 9, 12, 16, 17)] == [
        1,
        2,
        2,
        3,
        3,
        4,
        4,
        4,
        5,
    ]


def test_16_and_12_brackets() -> None:
    assert pairs(elimination(field_of(16), [], 1)) == [
        ("1", "16"), ("8", "9"), ("5", "12"), ("4", "13"),
        ("3", "14"), ("6", "11"), ("7", "10"), ("2", "15"),
    ]  # fmt: skip
    # 12 in a bracket of 16: seeds 13-16 are empty, so 1, 4, 3 and 2 have byes.
    assert pairs(elimination(field_of(12), [], 1)) == [
        ("8", "9"), ("5", "12"), ("6", "11"), ("7", "10"),
        ("1", None), ("4", None), ("3", None), ("2", None),
    ]  # fmt: skip


def play_out(n: int, withdrawn: frozenset[str] = frozenset()) -> list[list[Pairing]]:
    """An elimination where the better seed always wins; returns each round."""
    entrants, played, rounds = field_of(n), list[Played](), list[list[Pairing]]()
    for number in range(1, rounds_of_elimination(n) + 1):
        pairings = elimination(entrants, played, number, withdrawn)
        rounds.append(pairings)
        played += elimination_walkovers(entrants, played, number, withdrawn)
        for p in pairings:
            played.append(Played(number, p.first, p.second, p.first))
    with pytest.raises(PairingError):
        elimination(entrants, played, rounds_of_elimination(n) + 1, withdrawn)
    return rounds


@pytest.mark.parametrize("n", [2, 3, 5, 8, 12, 16, 23, 32])
def test_the_top_seeds_meet_only_as_late_as_their_ranks_allow(n: int) -> None:
    rounds = play_out(n)
    assert pairs(rounds[-1]) == [("1", "2")]
    if n > 4:
        assert sorted(pairs(rounds[-2])) == [("1", "4"), ("2", "3")]
    for number, pairings in enumerate(rounds, start=1):
        alive = n if number == 1 else 1 << (len(rounds) - number + 1)
        assert sorted(int(x) for p in pairings for x in (p.first, p.second) if x) == list(
            range(1, alive + 1)
        )


def test_a_withdrawn_entrants_opponent_advances_by_walkover() -> None:
    entrants = field_of(8)
    assert elimination_walkovers(entrants, [], 1, frozenset({"8"})) == [
        Played(1, "1", "8", "1", forfeit=True)
    ]
    rounds = play_out(8, frozenset({"8", "3"}))
    assert pairs(rounds[0]) == [("4", "5"), ("2", "7")]
    # Round 1 (1-8 5-4 3-6 7-2): 1 and 6 advance by walkover; round 2 as if played.
    assert pairs(rounds[1]) == [("1", "4"), ("2", "6")]
    assert pairs(rounds[2]) == [("1", "2")]
    with pytest.raises(PairingError, match="not decided"):
        elimination(entrants, [], 2)
