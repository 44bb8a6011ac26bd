"""The pairings of a round, in three formats.

- :func:`swiss`: FIDE's Dutch system (C.04.3), by caissify-pairings' engine, fed the
  history FIDE-endorsed pairers (bbpPairings, JaVaFo) read from a tournament file.
- :func:`round_robin`: FIDE's Berger tables (C.05, Annex 1), fixed before the start.
- :func:`elimination`: a single-elimination bracket seeded as tennis and Challonge
  seed theirs (1 and 2 can meet only in the final).

A Scopa game always has a winner: a win scores 1, a loss 0. In a Swiss, the bye
(FIDE's pairing-allocated bye) scores 1. In a round robin of an odd number, the
entrant paired with the dummy sits out and scores 0. The pairings name only active
entrants: a withdrawn entrant is never paired again, and the games it was due to play
in a round robin or an elimination are handed back, as forfeits already decided, by
:func:`round_robin_forfeits` and :func:`elimination_walkovers` (the caller stores them
with the round's results).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

from caissify_pairings.engines.dutch import dutch_pairings  # type: ignore[import-untyped]
from caissify_pairings.engines.round_robin import berger_round  # type: ignore[import-untyped]

from .history import History, Kind, Outcome, check_entrants, history, score
from .records import Entrant, Pairing, Played


class PairingError(ValueError):
    """No pairing of the round satisfies the format's absolute rules, or the records
    do not allow pairing it yet (an earlier game undecided, the tournament over)."""


# --------------------------------------------------------------------------- Swiss


def _float(outcome: Outcome, mine: float, theirs: float) -> str:
    """FIDE's float of one round (C.04.3 A.4, as bbpPairings computes it): a game
    against a higher score floats up, against a lower one down; a round not played
    floats down if it scored (bye, forfeit win), otherwise not at all."""
    if not outcome.played:
        return "down" if outcome.points > 0 else "none"
    return "down" if mine > theirs else "up" if mine < theirs else "none"


def _player(entrant: Entrant, past: History) -> dict[str, Any]:
    """caissify's player record of ``entrant``, from its outcomes in ``past``."""
    mine = past[entrant.id]
    outcomes = [mine[n] for n in sorted(mine)]
    floats = [
        _float(o, score(mine, o.round), score(past[o.opponent], o.round) if o.opponent else 0.0)
        for o in outcomes
    ]
    return {
        "id": entrant.seed,
        "name": entrant.id,
        "score": score(mine),
        "rating": round(entrant.rating),
        "starting_number": entrant.seed,
        "pairing_number": entrant.seed,
        # Seats of games played only: byes and forfeits do not count (C.04.3 A.6).
        "color_hist": ["white" if o.seat == 0 else "black" for o in outcomes if o.played],
        "float_history": floats,
        "bye_count": sum(o.kind is Kind.BYE for o in outcomes),
        "forfeit_win_count": sum(o.kind is Kind.FORFEIT_WIN for o in outcomes),
    }


def _active(entrants: Sequence[Entrant], withdrawn: Collection[str]) -> list[Entrant]:
    check_entrants(entrants)
    unknown = set(withdrawn) - {e.id for e in entrants}
    if unknown:
        raise ValueError(f"withdrawn entrants that are not entrants: {sorted(unknown)}")
    return sorted((e for e in entrants if e.id not in withdrawn), key=lambda e: e.seed)


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def swiss(
    entrants: Sequence[Entrant],
    played: Iterable[Played],
    round_number: int,
    total_rounds: int,
    withdrawn: Collection[str] = frozenset(),
) -> list[Pairing]:
    """Round ``round_number`` of ``total_rounds`` of a Swiss, by FIDE's Dutch system.

    Scores: a win 1, a loss 0, the bye 1, a forfeit win 1. The history handed to the
    engine is the one FIDE's rules (and bbpPairings) read: the seats of the games
    played only; a float for every round (A.4: up or down against a different score, a
    scoring bye or forfeit win is a downfloat, any other unplayed round none); byes and
    forfeit wins (either makes an entrant ineligible for the bye, C.04.1 c); and the
    pairs that met over the table (a forfeit is no meeting: the two may be paired
    again). A round in which an entrant had no record is an absence (0 points).

    Withdrawn entrants are not paired. Deterministic: pairing numbers are the seeds.
    Returns the games, then the bye if any, by table. Raises PairingError if a
    record of an earlier round is undecided, or if no pairing meets the absolute
    criteria (no rematch, at most one bye per entrant, every active entrant paired).
    """
    if not 1 <= round_number <= total_rounds:
        raise ValueError(f"round {round_number} is not one of 1..{total_rounds}")
    records = list(played)
    pending = sorted({p.round for p in records if p.round < round_number and p.winner is None})
    if pending:
        raise PairingError(f"round(s) {pending} have undecided results")
    active = _active(entrants, withdrawn)
    if len(active) < 2:
        raise PairingError(f"round {round_number}: fewer than two active entrants")
    past, _ = history(
        entrants, records, bye_points=1.0, before=round_number, absent_through=round_number - 1
    )
    by_seed = {e.seed: e for e in active}
    seed_of = {e.id: e.seed for e in entrants}
    met = {
        _pair(seed_of[e.id], seed_of[o.opponent])
        for e in active
        for o in past[e.id].values()
        if o.played and o.opponent is not None
    }
    raw = dutch_pairings([_player(e, past) for e in active], met, round_number, total_rounds)
    pairings = [
        Pairing(
            int(row["table"]),
            by_seed[row["white_id"]].id,
            None if row.get("black_id") is None else by_seed[row["black_id"]].id,
        )
        for row in sorted(raw, key=lambda row: int(row["table"]))
    ]
    _check_swiss(pairings, active, past, met, round_number)
    return pairings


def _check_swiss(
    pairings: list[Pairing],
    active: list[Entrant],
    past: History,
    met: set[tuple[int, int]],
    round_number: int,
) -> None:
    """Raise PairingError unless ``pairings`` meet FIDE's absolute criteria."""
    seeds = {e.id: e.seed for e in active}
    named = [p.first for p in pairings] + [p.second for p in pairings if p.second]
    if sorted(named) != sorted(seeds):
        raise PairingError(f"round {round_number}: no pairing gives everyone one table")
    byes = [p.first for p in pairings if p.second is None]
    if len(byes) > len(active) % 2:
        raise PairingError(f"round {round_number}: no pairing leaves a single bye")
    for p in pairings:
        if p.second is not None and _pair(seeds[p.first], seeds[p.second]) in met:
            raise PairingError(f"round {round_number}: every pairing repeats a game")
    for bye in byes:
        if any(o.kind in (Kind.BYE, Kind.FORFEIT_WIN) for o in past[bye].values()):
            raise PairingError(
                f"round {round_number}: the bye would go to {bye}, who already had a bye"
                " or a forfeit win"
            )


# --------------------------------------------------------------------- round robin


def rounds_of_round_robin(n: int) -> int:
    """Rounds of a round robin of ``n`` entrants: n - 1, or n when n is odd."""
    if n < 2:
        raise ValueError(f"a round robin needs two entrants or more, not {n}")
    return n - 1 if n % 2 == 0 else n


def _berger(entrants: Sequence[Entrant], round_number: int) -> list[tuple[str, str | None]]:
    """Round ``round_number`` of FIDE's Berger table for these entrants, in the table's
    order, as (first, second); the dummy of an odd number is None, and its opponent is
    then named first.

    Pairing numbers are the seeds' order, withdrawn entrants included (the table is
    fixed at the start). caissify's ``berger_round`` gives the table (our tests check it
    against FIDE's); its engine is not used, as it renumbers the tables.
    """
    check_entrants(entrants)
    ordered = sorted(entrants, key=lambda e: e.seed)
    total = rounds_of_round_robin(len(ordered))
    if not 1 <= round_number <= total:
        raise PairingError(f"round {round_number} is not one of 1..{total}")
    number = {i + 1: e.id for i, e in enumerate(ordered)}
    table: list[tuple[int, int]] = berger_round(total + 1, round_number)
    return [(number[a], number.get(b)) if a in number else (number[b], None) for a, b in table]


def round_robin(
    entrants: Sequence[Entrant], round_number: int, withdrawn: Collection[str] = frozenset()
) -> list[Pairing]:
    """Round ``round_number`` of a round robin, by FIDE's Berger tables (C.05 Annex 1;
    for 6 entrants, round 1 is 1-6 2-5 3-4, round 2 6-4 5-3 1-2, ...): the first named
    sits first. Pairing numbers are the seeds' order; an odd number adds a dummy
    (number n + 1) whose opponent has a bye, scored 0 (a round robin's bye is a round
    off, not a win). A round depends on its number only, never on results.

    Games with a withdrawn entrant are left out (:func:`round_robin_forfeits` gives
    them, decided). Returns the games in the table's order (tables 1, 2, ...), then
    the bye.
    """
    _active(entrants, withdrawn)
    rows = [
        (first, second)
        for first, second in _berger(entrants, round_number)
        if first not in withdrawn and second not in withdrawn
    ]
    rows.sort(key=lambda row: row[1] is None)
    return [Pairing(table, first, second) for table, (first, second) in enumerate(rows, 1)]


def round_robin_forfeits(
    entrants: Sequence[Entrant], round_number: int, withdrawn: Collection[str]
) -> list[Played]:
    """The games of round ``round_number`` that a withdrawn entrant was due to play
    against an active one, decided: forfeit wins of the active side (FIDE C.07 art.
    15.2 counts them as results in a round robin). Two withdrawn entrants: no record
    (neither scores)."""
    _active(entrants, withdrawn)
    return [
        Played(round_number, first, second, winner, forfeit=True)
        for first, second in _berger(entrants, round_number)
        if second is not None and (first in withdrawn) != (second in withdrawn)
        for winner in [second if first in withdrawn else first]
    ]


# --------------------------------------------------------------------- elimination


def rounds_of_elimination(n: int) -> int:
    """Rounds of a single elimination of ``n`` entrants: log2 of the bracket's size
    (the next power of two)."""
    if n < 2:
        raise ValueError(f"an elimination needs two entrants or more, not {n}")
    return (n - 1).bit_length()


def seeding_order(size: int) -> list[int]:
    """The seeds of a bracket of ``size`` (a power of two) slot by slot, two slots a
    match, as tennis and Challonge place them: for 16, 1 16 9 8 5 12 13 4 3 14 11 6 7
    10 15 2, i.e. 1-16, 8-9, 5-12, 4-13 in the top half and 3-14, 6-11, 7-10, 2-15 in
    the bottom one. Seeds k and k + 1 meet no sooner than the better one's rank allows:
    1 and 2 only in the final, 1-4 in the semi-finals."""
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket's size is a power of two, not {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [
            seed
            for i, top in enumerate(order)
            for seed in ((top, total - top) if i % 2 == 0 else (total - top, top))
        ]
    return order


Slot = str | None


def _advance(
    round_number: int,
    a: Slot,
    b: Slot,
    winners: dict[tuple[int, frozenset[str]], str],
    withdrawn: Collection[str],
) -> Slot:
    """Who comes out of one match of round ``round_number``: the sole entrant of a
    slot pair with a bye; else the recorded winner; else the side still active
    against a withdrawn one (a walkover); nobody if both withdrew."""
    if a is None or b is None:
        return a if b is None else b
    winner = winners.get((round_number, frozenset((a, b))))
    if winner is not None:
        return winner
    if a in withdrawn or b in withdrawn:
        return None if a in withdrawn and b in withdrawn else b if a in withdrawn else a
    raise PairingError(f"round {round_number}: {a} against {b} is not decided")


def _matches(slots: list[Slot]) -> list[tuple[Slot, Slot]]:
    return list(zip(slots[::2], slots[1::2], strict=True))


def _bracket(
    entrants: Sequence[Entrant],
    played: Iterable[Played],
    round_number: int,
    withdrawn: Collection[str],
) -> list[tuple[Slot, Slot]]:
    """The matches of round ``round_number``, in bracket order (each a pair of slots:
    an entrant, or None for a bye or an emptied slot)."""
    _active(entrants, withdrawn)
    rounds = rounds_of_elimination(len(entrants))
    if not 1 <= round_number <= rounds:
        raise PairingError(f"round {round_number} is not one of 1..{rounds}")
    by_seed = {rank: e.id for rank, e in enumerate(sorted(entrants, key=lambda e: e.seed), 1)}
    slots: list[Slot] = [by_seed.get(seed) for seed in seeding_order(1 << rounds)]
    winners = {
        (p.round, frozenset((p.first, p.second))): p.winner
        for p in played
        if p.second is not None and p.winner is not None
    }
    for n in range(1, round_number):
        slots = [_advance(n, a, b, winners, withdrawn) for a, b in _matches(slots)]
    return _matches(slots)


def elimination(
    entrants: Sequence[Entrant],
    played: Iterable[Played],
    round_number: int,
    withdrawn: Collection[str] = frozenset(),
) -> list[Pairing]:
    """Round ``round_number`` of a single elimination seeded by :func:`seeding_order`
    on a bracket of the next power of two: in round 1 the top seeds, as many as the
    bracket has empty slots, have byes; each later round pairs the winners of
    adjacent matches of the round before (read from ``played``; the better seed sits
    first). A match against a withdrawn entrant is a walkover, left out here
    (:func:`elimination_walkovers` gives it, decided). Returns the games in bracket
    order, then the byes. Raises PairingError if a match of an earlier round is not
    decided, or after the final.
    """
    seed = {e.id: e.seed for e in entrants}
    games: list[Pairing] = []
    byes: list[str] = []
    for a, b in _bracket(entrants, played, round_number, withdrawn):
        sides = sorted((s for s in (a, b) if s is not None), key=seed.__getitem__)
        if any(s in withdrawn for s in sides):
            continue
        if len(sides) == 2:
            games.append(Pairing(len(games) + 1, sides[0], sides[1]))
        elif sides:
            byes.append(sides[0])
    return games + [Pairing(len(games) + i, bye, None) for i, bye in enumerate(byes, 1)]


def elimination_walkovers(
    entrants: Sequence[Entrant],
    played: Iterable[Played],
    round_number: int,
    withdrawn: Collection[str],
) -> list[Played]:
    """The matches of round ``round_number`` between an active and a withdrawn entrant,
    decided: forfeit wins (walkovers) of the active one, which advances."""
    return [
        Played(round_number, a, b, a if b in withdrawn else b, forfeit=True)
        for a, b in _bracket(entrants, played, round_number, withdrawn)
        if a is not None and b is not None and (a in withdrawn) != (b in withdrawn)
    ]
