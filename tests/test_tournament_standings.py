"""The standings of service.tournaments, worked out by hand: FIDE's Buchholz and
Sonneborn-Berger with the 2023 regulations' unplayed rounds (a dummy opponent), then
game points, scopas and seed. Pure: no Redis."""

from __future__ import annotations

import pytest

from service.tournaments import Entrant, Played, Standing, standings

SIX = [Entrant(name, 2000.0 - 10 * seed, seed) for seed, name in enumerate("ABCDEF", start=1)]

#: A Swiss of 6, 3 rounds. F withdraws after round 1 (absent in rounds 2 and 3);
#: E has the bye in round 2; in round 3 E does not come (B wins by forfeit) and C has
#: the bye.
SWISS = [
    Played(1, "A", "D", "A", points=(11, 6), scopas=(2, 1)),
    Played(1, "B", "E", "B", points=(11, 7), scopas=(1, 1)),
    Played(1, "C", "F", "C", points=(11, 10), scopas=(2, 0)),
    Played(2, "A", "B", "A", points=(11, 8), scopas=(1, 0)),
    Played(2, "C", "D", "D", points=(7, 11), scopas=(0, 2)),
    Played(2, "E", None, "E"),
    Played(3, "D", "A", "D", points=(11, 9), scopas=(1, 3)),
    Played(3, "B", "E", "B", forfeit=True),
    Played(3, "C", None, "C"),
]

# By hand. Points: A 2 (W W L), B 2 (W L, forfeit win), C 2 (W L, bye), D 2 (L W W),
# E 1 (L, bye, forfeit loss), F 0 (L, absent, absent). 3 rounds.
#
# Scores as opponents see them (art. 16.3): F's absences are followed only by
# voluntary unplayed rounds (or are the last round), so they count as draws: F = 1.
# E's forfeit loss counts as the 0 it scored: E = 1. The others: their own scores.
#
# Own unplayed rounds (art. 16.4): a dummy whose score is one's own, capped at the
# opponent's adjusted score for a forfeit, at 0.5 x 3 rounds = 1.5 for a bye or an
# absence.
#
#       Buchholz                       Sonneborn-Berger
#   A   D 2 + B 2 + D 2      = 6       1x2 + 1x2 + 0x2     = 4
#   D   A 2 + C 2 + A 2      = 6       0x2 + 1x2 + 1x2     = 4
#   C   F 1 + D 2 + bye 1.5  = 4.5     1x1 + 0x2 + 1x1.5   = 2.5
#   B   E 1 + A 2 + E: min(2, 1) = 1   1x1 + 0x2 + 1x1     = 2
#                            = 4
#   E   B 2 + bye min(1, 1.5) = 1 + forfeit min(1, B 2) = 1
#                            = 4       0x2 + 1x1 + 0x1     = 1
#   F   C 2 + absent min(0, 1.5) = 0 + 0
#                            = 2       0
#
# A and D tie on points, Buchholz and Sonneborn-Berger: game points decide, A 11 + 11
# + 9 = 31 against D 6 + 11 + 11 = 28. Then C (Buchholz 4.5) before B (4).
EXPECTED = [
    Standing("A", 1, 2, 6, 4, 31, 6, played=3, wins=2, losses=1, byes=0),
    Standing("D", 2, 2, 6, 4, 28, 4, played=3, wins=2, losses=1, byes=0),
    Standing("C", 3, 2, 4.5, 2.5, 18, 2, played=2, wins=1, losses=1, byes=1),
    Standing("B", 4, 2, 4, 2, 19, 1, played=2, wins=2, losses=1, byes=0),
    Standing("E", 5, 1, 4, 1, 7, 1, played=1, wins=0, losses=2, byes=1),
    Standing("F", 6, 0, 2, 0, 10, 0, played=1, wins=0, losses=1, byes=0),
]


def test_a_small_swiss_worked_out_by_hand() -> None:
    assert standings(SIX, SWISS, "swiss") == EXPECTED


def test_undecided_games_are_ignored_and_order_does_not_matter() -> None:
    pending = Played(4, "A", "C", None)
    assert standings(SIX, [pending, *reversed(SWISS)], "swiss") == EXPECTED


def test_an_absence_followed_by_a_game_counts_as_the_zero_it_scored() -> None:
    # F comes back in round 4 (A beats B, C beats D, E beats F): its absences (rounds 2
    # and 3) are no longer its last rounds, so they count the 0 they scored (art.
    # 16.2.3): F = 0 for its opponents. C (3 points): Buchholz F 0 + D 2 + bye
    # min(3, 0.5 x 4) = 2 + D 2 = 6; Sonneborn-Berger 1x0 + 0x2 + 1x2 + 1x2 = 4.
    record = [
        *SWISS,
        Played(4, "A", "B", "A"),
        Played(4, "C", "D", "C"),
        Played(4, "E", "F", "E"),
    ]
    c = next(s for s in standings(SIX, record, "swiss") if s.id == "C")
    assert (c.points, c.buchholz, c.sonneborn_berger) == (3, 6, 4)


def test_equal_lines_are_ranked_by_seed() -> None:
    two = [Entrant("x", 1500.0, 2), Entrant("y", 1600.0, 1)]
    assert [(s.id, s.rank) for s in standings(two, [], "swiss")] == [("y", 1), ("x", 2)]


def test_a_round_robin_counts_forfeits_as_games_and_byes_as_nothing() -> None:
    three = SIX[:3]
    record = [
        Played(1, "B", "C", "B", points=(11, 2)),
        Played(1, "A", None, "A"),
        Played(2, "C", "A", "A", forfeit=True),
        Played(2, "B", None, "B"),
        Played(3, "A", "B", "B", points=(4, 11)),
        Played(3, "C", None, "C"),
    ]
    # Points: A 1, B 2, C 0; byes score 0. Buchholz: A = C 0 + B 2 = 2 (the forfeit is
    # a game, art. 15.2), B = C 0 + A 1 = 1, C = B 2 + A 1 = 3.
    assert standings(three, record, "round_robin") == [
        Standing("B", 1, 2, 1, 1, 22, 0, played=2, wins=2, losses=0, byes=1),
        Standing("A", 2, 1, 2, 0, 4, 0, played=1, wins=1, losses=1, byes=1),
        Standing("C", 3, 0, 3, 0, 2, 0, played=1, wins=0, losses=2, byes=1),
    ]


def test_an_elimination_ranks_by_the_round_reached() -> None:
    four = SIX[:4]
    record = [
        Played(1, "A", "D", "A", points=(11, 3)),
        Played(1, "B", "C", "C", points=(9, 11)),
        Played(2, "A", "C", "C", points=(10, 11)),
    ]
    # C won the final, A lost it; B and D went out in round 1: B (lost to C, 2 points
    # after round 2) has the higher Buchholz than D (lost to A, 1 point).
    assert [(s.id, s.rank) for s in standings(four, record, "elimination")] == [
        ("C", 1),
        ("A", 2),
        ("B", 3),
        ("D", 4),
    ]


def test_bad_records_are_refused() -> None:
    with pytest.raises(ValueError, match="format"):
        standings(SIX, [], "ladder")
    with pytest.raises(ValueError, match="twice"):
        standings(SIX, [Played(1, "A", "B", "A"), Played(1, "A", "C", "A")], "swiss")
    with pytest.raises(ValueError, match="winner"):
        standings(SIX, [Played(1, "A", "B", "C")], "swiss")
