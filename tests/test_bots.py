"""The computer players: legal moves only, the greedy heuristic, the expert's search
(determinism, blindness to hidden cards, obvious scopas, exact endgames) and the
tournament script at a tiny size."""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Iterator

import pytest

from service.bots import Bot, deal_end, make_bot
from service.bots.clock import Clock
from service.bots.expert import (
    DEAL_END_PLIES,
    PLAYOUT_OVERHEAD_PLIES,
    PLIES_PER_MS,
    ExpertBot,
    is_determined,
    max_candidates,
    ordered_candidates,
    playout_plies,
    rollout,
    solve,
)
from service.bots.greedy import GreedyBot
from service.bots.ismcts import ITERATION_OVERHEAD_PLIES, MIN_TREE_PLIES, grows_tree
from service.bots.playout import (
    greedy_code,
    greedy_ranking,
    margin,
    play_out,
    sweepable_cache,
)
from service.bots.random_bot import RandomBot
from service.engine import Knowledge
from service.engine.cards import PRIMIERA_POINTS, Card
from service.engine.hand import DEALT, HAND_OVER, Hand, move_code
from service.engine.masks import BIT, FULL, VALUE, indices, mask_of
from service.engine.match import Match, moves_of
from service.engine.rules import ForcedCapture, Rules
from service.engine.variants import VARIANTS
from service.engine.views import knowledge_of
from tests import helpers
from tests.bench import tournament

#: A fast expert for tests; the huge cap and no deadline keep the wall clock out of its
#: choices.
TINY_BUDGET_MS = 0.5


def tiny_expert() -> ExpertBot:
    return ExpertBot(budget_ms=TINY_BUDGET_MS, cap_factor=1e6, deadline_seconds=math.inf)


def cards(codes: str) -> list[Card]:
    return [Card.parse(code) for code in codes.split()]


def code(card: str, capture: str = "") -> int:
    return move_code(Card.parse(card).index, mask_of(cards(capture)))


def setups() -> Iterator[tuple[str, int, Rules]]:
    """Every variant, player count and forced-capture rule, with its options on in turn."""
    for name, variant in VARIANTS.items():
        for players in variant.player_counts:
            for forced in ForcedCapture:
                extras = {"napola": True} if forced is ForcedCapture.ANY else {"re_bello": True}
                if "dealer_last_sweep" in variant.options:
                    extras["dealer_last_sweep"] = True
                yield name, players, Rules(forced_capture=forced, **extras)


def position(
    hand: str,
    table: str,
    other: str | None = None,
    stock: str = "",
    variant: str = "scopa",
) -> Match:
    """A 2-player position with seat 0 to play ``hand`` on ``table``; seat 1 holds
    ``other`` (default: three cards nobody else uses), the stock is ``stock``, and every
    other card has been captured by seat 1 (so that the 40 cards are all somewhere)."""
    used = set(hand.split() + table.split() + stock.split())
    if other is None:
        other = " ".join([c.code for c in _all_cards() if c.code not in used][:3])
    placed = set(hand.split() + table.split() + stock.split() + other.split())
    captured = " ".join(c.code for c in _all_cards() if c.code not in placed)
    # helpers.position: seed 0, seat 1 deals, seat 0 to play, no scopas, no capturer.
    return helpers.position(
        [hand, other], table, variant=variant, stock=stock, piles=["", captured]
    )


def _all_cards() -> list[Card]:
    return [Card.parse(f"{v}{s}") for s in "DCSB" for v in range(1, 11)]


def choose(bot: Bot, match: Match, seed: int = 0) -> int:
    seat = match.turn
    assert seat is not None
    return bot.choose(knowledge_of(match, seat), match.hand.legal_codes(), random.Random(seed))


class TestLegalMovesOnly:
    """Thousands of positions from bot play in every variant, player count and rule:
    each bot's choice is one of the legal moves, and the hands play to their end."""

    @pytest.mark.parametrize(("variant", "players", "rules"), list(setups()))
    def test_every_choice_is_legal(self, variant: str, players: int, rules: Rules) -> None:
        bots = [tiny_expert(), GreedyBot(), RandomBot()]
        rng = random.Random(f"{variant}:{players}:{rules}")
        positions = 0
        for game in range(3):
            match, _ = Match.new(variant=variant, players=players, rules=rules, seed=game)
            while not match.hand_scores:
                seat = match.turn
                assert seat is not None
                legal = match.hand.legal_codes()
                knowledge = knowledge_of(match, seat)
                for bot in bots[1:]:
                    assert bot.choose(knowledge, legal, rng) in legal
                player = bots[(seat + game) % len(bots)]
                chosen = player.choose(knowledge, legal, rng)
                assert chosen in legal
                positions += 1
                match.push(moves_of([chosen])[0])
        assert positions >= 3 * 10

    def test_the_fast_greedy_policy_is_the_greedy_bot(self) -> None:
        """The expert's playouts model the greedy player exactly."""
        greedy = GreedyBot()
        rng = random.Random(7)
        checked = 0
        for variant, players, rules in setups():
            match, _ = Match.new(variant=variant, players=players, rules=rules, seed=checked)
            cache = sweepable_cache(match.variant)
            while not match.hand_scores:
                seat = match.turn
                assert seat is not None
                legal = match.hand.legal_codes()
                expected = greedy.choose(knowledge_of(match, seat), legal, rng)
                assert greedy_code(match.hand, legal, cache) == expected
                assert greedy_ranking(match.hand, legal, cache)[0] == expected
                checked += 1
                match.push(moves_of([rng.choice(legal)])[0])
        assert checked > 1000


class TestGreedy:
    def test_a_scopa_goes_first(self) -> None:
        match = position(hand="7C 3D 9B", table="3C 4S")
        assert choose(GreedyBot(), match) == code("7C", "3C 4S")

    def test_then_the_settebello(self) -> None:
        match = position(hand="7C 5C", table="7D 5D")
        assert choose(GreedyBot(), match) == code("7C", "7D")

    def test_then_the_most_coins(self) -> None:
        match = position(hand="4C 6S", table="4D 4S 6B 9C")
        assert choose(GreedyBot(), match) == code("4C", "4D")

    def test_then_primiera_value(self) -> None:
        match = position(hand="6C 10C", table="6S 10S 9B")
        assert choose(GreedyBot(), match) == code("6C", "6S")

    def test_among_sums_the_higher_primiera_total(self) -> None:
        # 10 takes 4+6 (primiera values 14+18) or 3+3+4 (13+13+14): the larger total.
        match = position(hand="10C", table="4S 6B 3C 3B 8S")
        assert choose(GreedyBot(), match) == code("10C", "3C 3B 4S")

    def test_it_lays_no_card_that_leaves_a_sweepable_table(self) -> None:
        match = position(hand="1S 8B", table="9C")
        assert choose(GreedyBot(), match) == code("8B")

    def test_it_keeps_the_settebello_then_coins_then_primiera(self) -> None:
        assert choose(GreedyBot(), position(hand="7D 7C", table="10C 9S")) == code("7C")
        assert choose(GreedyBot(), position(hand="5D 5C", table="10C 9S")) == code("5C")
        assert choose(GreedyBot(), position(hand="6C 8C", table="10S 9S")) == code("8C")


class TestExpert:
    def test_a_single_legal_move_is_played_at_once(self) -> None:
        match = position(hand="7C", table="3C 4S", stock="1D 2D 3D 4D 5D 6D")
        bot = ExpertBot()
        assert choose(bot, match) == code("7C", "3C 4S")
        assert bot.last_playouts == 0

    def test_it_takes_an_obvious_scopa(self) -> None:
        stock = "1D 2D 3D 4D 5D 6D 8D 9D 10D 1B 2B 3B"
        match = position(hand="7C 2S 9B", table="3C 4S", stock=stock)
        for seed in range(5):
            assert choose(ExpertBot(budget_ms=5, cap_factor=1e6), match, seed) == code(
                "7C", "3C 4S"
            )

    def test_it_is_deterministic_under_a_seed(self) -> None:
        for match in random_positions(12):
            first = [choose(tiny_expert(), match, seed) for seed in range(4)]
            again = [choose(tiny_expert(), match, seed) for seed in range(4)]
            assert first == again

    def test_make_bot_passes_the_budget(self) -> None:
        bot = make_bot("expert", budget_ms=10)
        assert isinstance(bot, ExpertBot) and bot.budget_ms == 10

    def test_it_solves_the_last_round_exactly(self) -> None:
        # The stock is empty, so the opponent's cards are known. Laying the ace leaves
        # 6+1 for the opponent's 7 to sweep; laying the 7 does not.
        match = position(hand="7C 1B", table="6S", other="7S 10B")
        assert is_determined(knowledge_of(match, 0))
        legal = match.hand.legal_codes()
        assert solve(match.hand, legal, (0, 1), 0)[0] == code("7C")
        bot = ExpertBot()
        assert choose(bot, match) == code("7C")
        assert bot.last_value == solve(match.hand, legal, (0, 1), 0)[1]

    def test_hidden_cards_make_it_search(self) -> None:
        match = position(hand="7C 1B", table="6S", other="7S 10B", stock="1D 2D 3D 4D 5D 6D")
        assert not is_determined(knowledge_of(match, 0))

    @pytest.mark.parametrize(("variant", "expected"), [("scopa", -2), ("cirulla", 7)])
    def test_it_values_a_hand_by_the_variants_points(self, variant: str, expected: int) -> None:
        """The margin the search values counts every point the play decides: in Cirulla,
        the grande (docs/rules.md C7.2: 8D 9D 10D, 5 points) and the piccola (C7.3: the
        run of coins from the ace, 1D to 4D here, 4 points) on top of R7's. Side 0 holds
        seven coins (R7: 1 point) against the rest (cards, settebello, primiera: 3)."""
        own = mask_of(Card.parse(c) for c in "1D 2D 3D 4D 8D 9D 10D".split())
        hand = Hand(VARIANTS[variant], Rules(), hands=[0, 0], piles=[own, FULL ^ own], turn=None)
        assert margin(hand, (0, 1), 0) == expected
        assert margin(hand, (0, 1), 1) == -expected


#: A king on a table of 28 cards (aces to sevens) can take hundreds of sets making 10.
FULL_TABLE = " ".join(f"{value}{suit}" for value in range(1, 8) for suit in "DCSB")


def crowded(stock: str = "9S 9B 8D 8C 8S 8B") -> Match:
    """Three kings against a full table: thousands of legal moves (with cards hidden,
    by default; with an empty stock, nothing is)."""
    return position(hand="10D 10C 10S", table=FULL_TABLE, other="10B 9D 9C", stock=stock)


class CountingClock(Clock):
    """A clock that expires at its ``limit``-th reading, whatever the time: for tests
    of what a search answers when it is cut at a given point."""

    def __init__(self, limit: float = math.inf) -> None:
        super().__init__(math.inf)
        self.limit = limit
        self.readings = 0

    def tick(self, work: int = 1) -> bool:
        self.readings += 1
        self.expired = self.readings >= self.limit
        return self.expired


class TestDeadlines:
    """The wall clock stops a search inside it (tests/test_deadlines.py holds the
    worst positions of each variant to the deadline); here, what it answers then."""

    def test_candidates_take_every_card_before_a_second_way_of_any(self) -> None:
        match = crowded()
        legal = match.hand.legal_codes()
        order = ordered_candidates(match.hand, legal)
        assert sorted(order) == sorted(legal) and len(legal) > 1000
        assert order[0] == greedy_code(match.hand, legal, sweepable_cache(match.variant))
        assert {code & 63 for code in order[:3]} == {c.index for c in cards("10D 10C 10S")}

    def test_a_search_plays_no_more_candidates_than_its_budget_affords(self) -> None:
        """Without a deadline, the budget decides: a prefix of the candidates, the same
        move for the same seed."""
        match = crowded()
        knowledge = knowledge_of(match, 0)
        bot = ExpertBot(budget_ms=2, cap_factor=math.inf, deadline_seconds=math.inf)
        first = choose(bot, match, seed=3)
        # The stock is dealt after this deal: the playouts stop at its end (deal_end.py).
        plies_per_playout = 3 + 3 + PLAYOUT_OVERHEAD_PLIES + DEAL_END_PLIES
        assert playout_plies(knowledge, deal_end.model_for(knowledge)) == plies_per_playout
        affordable = bot.ply_budget // plies_per_playout
        assert not bot.last_cut
        legal = match.hand.legal_codes()
        assert 0 < bot.last_playouts <= 2 * affordable < len(legal)
        assert first in ordered_candidates(match.hand, legal)[: max_candidates(affordable)]
        assert [choose(bot, match, seed=3) for _ in range(2)] == [first, first]
        assert not is_determined(knowledge)

    def test_a_search_out_of_time_answers_a_legal_move(self) -> None:
        for match in [crowded(), *random_positions(5)]:
            bot = ExpertBot(budget_ms=1000, deadline_seconds=0.0)
            legal = match.hand.legal_codes()
            assert choose(bot, match) in legal
            assert bot.last_cut and bot.cap_hits == 1
            assert bot.last_value is not None
            # One rollout, then the clock: the greedy player's choice, from one world.
            assert bot.last_playouts == 1

    def test_the_earlier_limit_stops_the_search(self) -> None:
        assert ExpertBot(budget_ms=50).cap_seconds == pytest.approx(0.15)
        bot = ExpertBot(budget_ms=1000, cap_factor=0.0, deadline_seconds=60.0)
        choose(bot, crowded())  # capped at MIN_CAP_MS, far before the deadline
        assert bot.last_cut

    def test_a_solve_out_of_time_answers_the_greedy_choice(self) -> None:
        match = crowded(stock="")
        legal = match.hand.legal_codes()
        assert is_determined(knowledge_of(match, 0))
        clock = Clock(0.0)  # expired before it starts
        code, value = solve(match.hand, legal, (0, 1), 0, clock)
        assert clock.expired
        assert code == greedy_code(match.hand, legal, sweepable_cache(match.variant))
        assert value == rollout(match.hand, code, (0, 1), 0)

    def test_a_solve_cut_short_answers_the_best_move_it_valued(self) -> None:
        """Cut at any point, the solver answers a move with its exact minimax value,
        the greedy player's choice at first, better ones as it has more time, and in
        the end the best (here the greedy player's choice is not)."""
        match = position(hand="10C 3S 4B", table="4C 3C 4D 1B", other="9C 3B 8B")
        legal = match.hand.legal_codes()
        best = solve(match.hand, legal, (0, 1), 0)
        greedy = greedy_code(match.hand, legal, sweepable_cache(match.variant))
        assert best[0] != greedy
        uncut = CountingClock()
        solve(match.hand, legal, (0, 1), 0, uncut)
        values = []
        for limit in range(1, uncut.readings + 2):
            clock = CountingClock(limit)
            code, value = solve(match.hand, legal, (0, 1), 0, clock)
            assert value == solve(match.hand, [code], (0, 1), 0)[1]
            assert clock.expired == (limit <= uncut.readings)
            if limit == 1:
                assert code == greedy
            values.append(value)
        assert values == sorted(values)
        assert (code, value) == best

    def test_a_bot_with_time_to_spare_is_not_cut(self) -> None:
        bot = ExpertBot(budget_ms=TINY_BUDGET_MS, cap_factor=math.inf, deadline_seconds=60.0)
        for match in random_positions(5):
            choose(bot, match)
            assert not bot.last_cut
        assert bot.cap_hits == 0


def tree_expert(budget_ms: float = TINY_BUDGET_MS * 4) -> ExpertBot:
    """The expert with the information-set tree search (service/bots/ismcts.py)."""
    return ExpertBot(budget_ms, cap_factor=1e6, deadline_seconds=math.inf, tree=True)


class TestTreeSearch:
    """The information-set MCTS the expert plays where the whole deck is dealt at once
    (service/bots/ismcts.py): a fair search at the flat search's budget."""

    def test_it_plays_where_the_whole_deck_is_dealt_at_once(self) -> None:
        """Scopone and scopone scientifico (docs/rules.md R10) deal every card at the
        start; every other variant deals again from a stock, and keeps the flat search.
        Below MIN_TREE_PLIES of budget, the flat search everywhere."""
        for name, variant in VARIANTS.items():
            for players in variant.player_counts:
                match, _ = Match.new(variant=name, players=players, seed=1)
                assert match.turn is not None
                known = knowledge_of(match, match.turn)
                whole_deck = name in ("scopone", "scopone_scientifico")
                assert grows_tree(known, MIN_TREE_PLIES) == whole_deck
                assert not grows_tree(known, MIN_TREE_PLIES - 1)

    def test_the_expert_searches_scopone_with_the_tree(self) -> None:
        """In scopone the expert's search is the tree's at its budget, and the flat
        one at the apprentice's: the same choice, value and work given the same draws."""
        budget = MIN_TREE_PLIES / PLIES_PER_MS
        for match in random_positions(2, players=4, variant="scopone"):
            for ms, tree in ((budget, True), (budget / 10, False)):
                limits = {"cap_factor": 1e6, "deadline_seconds": math.inf}
                expert = ExpertBot(ms, **limits)
                assert expert.ply_budget >= MIN_TREE_PLIES or not tree
                chosen = ExpertBot(ms, tree=tree, **limits)
                other = ExpertBot(ms, tree=not tree, **limits)
                assert choose(expert, match) == choose(chosen, match)
                assert (expert.last_value, expert.last_plies, expert.last_playouts) == (
                    chosen.last_value,
                    chosen.last_plies,
                    chosen.last_playouts,
                )
                choose(other, match)
                # The flat search charges whole playouts; the tree, moves and iterations.
                assert (other.last_plies, other.last_playouts) != (
                    expert.last_plies,
                    expert.last_playouts,
                )

    def test_it_takes_an_obvious_scopa(self) -> None:
        stock = "1D 2D 3D 4D 5D 6D 8D 9D 10D 1B 2B 3B"
        match = position(hand="7C 2S 9B", table="3C 4S", stock=stock)
        for seed in range(5):
            bot = tree_expert(5.0)
            assert choose(bot, match, seed) == code("7C", "3C 4S")
            assert bot.last_plies >= bot.ply_budget and bot.last_value is not None

    def test_it_spends_its_budget_and_no_more_than_one_iteration_over(self) -> None:
        for players, variant in ((2, "scopa"), (4, "scopone")):
            for match in random_positions(4, players=players, variant=variant):
                seat = match.turn
                assert seat is not None
                playout = playout_plies(knowledge_of(match, seat))
                bot = tree_expert()
                assert choose(bot, match) in match.hand.legal_codes()
                over = playout + ITERATION_OVERHEAD_PLIES
                assert bot.ply_budget <= bot.last_plies < bot.ply_budget + over
                # Every iteration is charged its overhead and at least one move.
                assert bot.last_plies >= bot.last_playouts * (ITERATION_OVERHEAD_PLIES + 1)

    def test_it_is_deterministic_and_never_peeks(self) -> None:
        rng = random.Random(9)
        for players, variant in ((2, "scopa"), (4, "scopone"), (4, "scopone_scientifico")):
            for match in random_positions(3, players=players, variant=variant, rng=rng):
                seat = match.turn
                assert seat is not None
                twin = with_hidden_cards_shuffled(match, seat, rng)
                for seed in range(2):
                    chosen = choose(tree_expert(), match, seed)
                    assert chosen == choose(tree_expert(), twin, seed)

    def test_the_wall_clock_stops_it_with_an_answer(self) -> None:
        """A deadline already passed: one iteration, a legal move, the cut counted."""
        match = next(iter(random_positions(1, players=4, variant="scopone")))
        bot = ExpertBot(1000.0, deadline_seconds=0.0, tree=True)
        assert choose(bot, match) in match.hand.legal_codes()
        assert bot.last_playouts == 1 and bot.last_cut and bot.cap_hits == 1


class TestDealEnd:
    """The value of a deal's end in classic Scopa (service/bots/deal_end.py), where the
    expert's playouts stop: its parts checked against brute force, and the search that
    uses it."""

    @pytest.mark.parametrize("seed", range(6))
    def test_suit_moments_are_those_of_every_split(self, seed: int) -> None:
        rng = random.Random(seed)
        owner = [rng.choice("oxl") for _ in range(10)]  # own, other's, left to take
        own = sum(1 << v for v in range(10) if owner[v] == "o")
        other = sum(1 << v for v in range(10) if owner[v] == "x")
        left = [v for v in range(10) if owner[v] == "l"]
        points = [PRIMIERA_POINTS[v + 1] for v in range(10)]

        def best(mask: int) -> int:
            return max((points[v] for v in range(10) if mask >> v & 1), default=0)

        diffs = []
        for split in range(1 << len(left)):
            mine = sum(1 << v for i, v in enumerate(left) if split >> i & 1)
            theirs = sum(1 << v for i, v in enumerate(left) if not split >> i & 1)
            diffs.append(best(own | mine) - best(other | theirs))
        mean, variance = deal_end.suit_moments(own, other)
        assert mean == pytest.approx(statistics.fmean(diffs))
        assert variance == pytest.approx(statistics.pvariance(diffs))

    def test_sweep_chance_counts_every_deal(self) -> None:
        variant = VARIANTS["scopa"]
        table = mask_of(cards("2C 4S"))  # a 6 takes both
        stock = mask_of(cards("6D 6B 1C 3C 9S 10B 8D"))
        dealt = list(itertools.combinations(indices(stock), 3))
        sweeping = [d for d in dealt if any(VALUE[i] == 6 for i in d)]
        chance = deal_end.sweep_chance(variant, table, stock)
        assert chance == pytest.approx(len(sweeping) / len(dealt))
        assert deal_end.sweep_chance(variant, mask_of(cards("10C 10S")), stock) == 0.0
        assert deal_end.sweep_chance(variant, 0, stock) == 0.0

    @staticmethod
    def dealt(players: int, seed: int) -> Hand:
        """A classic Scopa hand played greedily to the end of its first deal."""
        match, _ = Match.new(variant="scopa", seed=seed, players=players, first_dealer=0)
        hand = match.hand.copy()
        play_out(hand, DEALT | HAND_OVER)
        # The next deal is dealt, and the hand goes on.
        assert len(hand.stock) == len(match.hand.stock) - 3 * players
        assert hand.turn is not None
        return hand

    @pytest.mark.parametrize("players", [2, 4])
    def test_it_values_both_sides_alike(self, players: int) -> None:
        """A side's value is the other's negated, from either seat of a side, and every
        scopa made so far counts one point."""
        model = deal_end.MODELS[players]
        teams = tuple(seat % 2 for seat in range(players))
        for seed in range(5):
            hand = self.dealt(players, seed)
            value = deal_end.value(model, hand, teams, 0)
            assert deal_end.value(model, hand, teams, 1) == pytest.approx(-value)
            hand.scopas[0] += 1
            assert deal_end.value(model, hand, teams, 0) == pytest.approx(value + 1)
            assert abs(value) < 8

    def test_more_of_what_scores_is_worth_more(self) -> None:
        """The settebello in one's own pile rather than the other's is worth 2 points and
        more; more cards, more coins or a better primiera are worth more, by less than a
        point each."""
        model = deal_end.MODELS[2]
        variant = VARIANTS["scopa"]
        table = mask_of(cards("5S 3B"))

        def worth(own: str, other: str) -> float:
            return deal_end.leader_value(
                model, variant, mask_of(cards(own)), mask_of(cards(other)), table, 0, 3
            )

        base = worth("2S 9C 8C 4B", "9B 10B 10C 3S")
        # The 7D is the settebello (a point either way), a coin and a seven.
        swing = worth("7D 9C 8C 4B", "9B 10B 10C 2S") - worth("2S 9C 8C 4B", "9B 10B 10C 7D")
        assert 2.0 < swing < 3.5
        for more in ("2S 9C 8C 4B 8S 9S", "2S 9C 8C 4B 2D", "2S 9C 8C 4B 7C"):
            assert base < worth(more, "9B 10B 10C 3S") < base + 1

    def test_it_applies_to_classic_scopa_with_its_default_rules(self) -> None:
        for players in (2, 4):
            match, _ = Match.new(variant="scopa", seed=1, players=players)
            assert (
                deal_end.model_for(knowledge_of(match, match.hand.turn or 0))
                is (deal_end.MODELS[players])
            )
        others = [
            Match.new(variant="scopone", seed=1, players=4)[0],
            Match.new(variant="cirulla", seed=1, players=2)[0],
            Match.new(variant="scopa", seed=1, players=3)[0],
            Match.new(variant="scopa", seed=1, players=2, rules=Rules(re_bello=True))[0],
            position(hand="7C 1B", table="6S", other="7S 10B"),  # the last deal
        ]
        for match in others:
            assert deal_end.model_for(knowledge_of(match, match.hand.turn or 0)) is None

    @pytest.mark.parametrize("stock_cards", [2, 36])
    def test_a_stock_no_dealt_hand_leaves_is_played_to_the_end(self, stock_cards: int) -> None:
        """A hint's position may hold any stock: not whole deals (2 cards), or more deals
        than a hand ever has left (36 cards: six deals). The model is not used there,
        and the expert answers a legal move (this once raised from the hint endpoint)."""
        cards = [c.code for c in _all_cards() if c.code not in {"7C", "1B"}]
        match = position(hand="7C", table="1B", other="", stock=" ".join(cards[:stock_cards]))
        known = knowledge_of(match, 0)
        assert known.stock_count == stock_cards
        assert deal_end.model_for(known) is None
        legal = match.hand.legal_codes()
        assert choose(ExpertBot(5.0, cap_factor=math.inf), match) in legal

    def test_a_playout_stops_at_the_end_of_the_deal(self) -> None:
        """With the model, a rollout is the greedy play of the deal in hand, then the
        model's value; the search charges it a ply a card and the model's cost."""
        match, _ = Match.new(variant="scopa", seed=4, players=2, first_dealer=1)
        knowledge = knowledge_of(match, 0)
        model = deal_end.model_for(knowledge)
        assert model is not None
        code = match.hand.legal_codes()[0]
        hand = match.hand.copy()
        hand.push(code)
        play_out(hand, DEALT | HAND_OVER)
        expected = deal_end.value(model, hand, (0, 1), 0)
        assert rollout(match.hand, code, (0, 1), 0, margin, model) == pytest.approx(expected)
        assert playout_plies(knowledge, model) == 6 + PLAYOUT_OVERHEAD_PLIES + DEAL_END_PLIES
        bot = tiny_expert()
        choose(bot, match)
        assert bot.last_plies == bot.last_playouts * playout_plies(knowledge, model)


class TestNoPeeking:
    """The expert's choices depend on what its seat knows, never on the hidden cards."""

    @pytest.mark.parametrize(("players", "variant"), [(2, "scopa"), (3, "escoba"), (4, "scopone")])
    def test_swapping_hidden_cards_changes_nothing(self, players: int, variant: str) -> None:
        rng = random.Random(players)
        for match in random_positions(3, players=players, variant=variant, rng=rng):
            seat = match.turn
            assert seat is not None
            twin = with_hidden_cards_shuffled(match, seat, rng)
            assert twin.hand.hands != match.hand.hands or twin.hand.stock != match.hand.stock
            assert knowledge_of(twin, seat) == knowledge_of(match, seat)
            legal = match.hand.legal_codes()
            assert twin.hand.legal_codes() == legal
            choices = [choose(tiny_expert(), match, s) for s in range(25)]
            assert choices == [choose(tiny_expert(), twin, s) for s in range(25)]

    def test_the_knowledge_holds_no_hidden_card(self) -> None:
        match = next(iter(random_positions(1)))
        seat = match.turn
        assert seat is not None
        knowledge: Knowledge = knowledge_of(match, seat)
        hidden = sum(mask_of(h) for s, h in enumerate(match.hands) if s != seat)
        hidden |= mask_of(match.stock)
        assert knowledge.unseen == hidden
        assert knowledge.hand & hidden == 0 and knowledge.table & hidden == 0


def random_positions(
    count: int, players: int = 2, variant: str = "scopa", rng: random.Random | None = None
) -> Iterator[Match]:
    """Positions some random moves into a hand, with a choice for the seat to play and
    cards hidden from it."""
    rng = rng or random.Random(count)
    found = 0
    seed = 0
    while found < count:
        seed += 1
        match, _ = Match.new(variant=variant, players=players, seed=seed)
        for _ in range(rng.randrange(0, 8)):
            match.push(rng.choice(match.legal_moves()))
        seat = match.turn
        assert seat is not None
        if len(match.hand.legal_codes()) > 1 and not is_determined(knowledge_of(match, seat)):
            found += 1
            yield match


def with_hidden_cards_shuffled(match: Match, seat: int, rng: random.Random) -> Match:
    """A copy of ``match`` whose cards hidden from ``seat`` (other hands and the stock)
    are dealt out again differently, every count kept."""
    twin = Match.from_dict(match.to_dict())
    hand = twin.hand
    hidden = [i for s, h in enumerate(hand.hands) if s != seat for i in indices(h)]
    hidden += hand.stock
    while True:
        shuffled = hidden[:]
        rng.shuffle(shuffled)
        if shuffled != hidden:
            break
    pos = 0
    for s, h in enumerate(hand.hands):
        if s == seat:
            continue
        count = h.bit_count()
        hand.hands[s] = sum(BIT[i] for i in shuffled[pos : pos + count])
        pos += count
    hand.stock = shuffled[pos:]
    return twin


class TestTournament:
    def test_a_tiny_tournament_adds_up(self) -> None:
        pairings = [*tournament.PAIRINGS, ("greedy", "greedy")]
        reports = tournament.run(pairings, deals=3, jobs=1, seed=5, budget=TINY_BUDGET_MS)
        assert [(r.name_a, r.name_b) for r in reports] == pairings
        for report in reports:
            assert len(report.results) == 3
            assert sum(report.wins_draws_losses) == 6
            mean, half = report.mean_and_halfwidth
            assert mean == pytest.approx(sum(report.hand_margins) / 6)
            assert half >= 0
        # The same deterministic player in both seats: the two games of a deal mirror.
        assert all(sum(r.margins) == 0 for r in reports[-1].results)
        assert reports[0].times("expert") and not reports[0].times("greedy")
        assert not reports[1].times("greedy") and not reports[1].times("random")
        text = tournament.table(reports, TINY_BUDGET_MS)
        assert "expert vs greedy" in text and "median" in text

    @pytest.mark.parametrize("game", [("scopa", 4), ("scopone", 4), ("cirulla", 2)])
    def test_partnerships_and_other_games(self, game: tuple[str, int]) -> None:
        """With 4 players each bot is a partnership (seats 0 and 2, then 1 and 3); the
        same player on both sides mirrors as with 2."""
        pairings = [("greedy", "random"), ("greedy", "greedy")]
        reports = tournament.run(
            pairings, deals=2, jobs=1, seed=3, budget=TINY_BUDGET_MS, games=[game]
        )
        assert [r.game for r in reports] == [game, game]
        assert all(sum(r.margins) == 0 for r in reports[-1].results)
        assert "players" in tournament.table(reports, TINY_BUDGET_MS)

    def test_the_earlier_expert_is_the_expert_without_its_later_changes(self) -> None:
        """expert_v1 differs from the expert in what a Cirulla hand is worth, in its
        search where the whole deck is dealt at once (always flat) and in its playouts
        in classic Scopa (always to the end of the hand): given the same random draws,
        the expert without its deal-end model makes every choice of a 2-player Scopa
        hand as expert_v1 does, and values it the same; with it, it does not."""
        match, _ = Match.new(variant="scopa", seed=11, players=2, first_dealer=0)
        expert = tournament.make_player("expert", TINY_BUDGET_MS, 0.0)
        assert isinstance(expert, ExpertBot) and expert.deal_end
        expert.deal_end = False
        earlier = tournament.make_player("expert_v1", TINY_BUDGET_MS, 0.0)
        assert isinstance(earlier, ExpertBot) and not earlier.deal_end
        current = tournament.make_player("expert", TINY_BUDGET_MS, 0.0)
        assert isinstance(current, ExpertBot)
        values_differ = False
        while not match.hand_scores:
            assert match.turn is not None
            known, legal = knowledge_of(match, match.turn), match.hand.legal_codes()
            chosen = expert.choose(known, legal, random.Random(len(legal)))
            assert earlier.choose(known, legal, random.Random(len(legal))) == chosen
            assert earlier.last_value == expert.last_value
            current.choose(known, legal, random.Random(len(legal)))
            values_differ |= current.last_value != expert.last_value
            match.push(moves_of([chosen])[0])
        assert values_differ
        report = tournament.run(
            [("expert", "expert_v1")], 1, 1, 2, TINY_BUDGET_MS, games=[("cirulla", 2)]
        )
        assert "expert vs expert_v1" in tournament.table(report, TINY_BUDGET_MS)
        with pytest.raises(SystemExit):
            tournament.main(["--pairing", "expert:expert_v0", "--deals", "1"])

    def test_the_other_experts_differ_only_in_their_search_or_worth(self) -> None:
        """`make tournament PAIRINGS=expert:flat` (or ismcts, expert_v1) measures the
        expert against itself with another search or valuation, at the same budget."""
        for name, tree in (("flat", False), ("ismcts", True), ("expert_v1", False)):
            bot = tournament.make_player(name, 5.0, 0.0)
            assert isinstance(bot, ExpertBot) and bot.tree is tree
            assert bot.ply_budget == ExpertBot(5.0).ply_budget
            assert tournament.budget_share(name) == 1.0
        report = tournament.run([("ismcts", "greedy")], 2, 1, 4, TINY_BUDGET_MS)
        assert report[0].times("ismcts") and "ismcts vs greedy" in tournament.table(
            report, TINY_BUDGET_MS
        )

    def test_elo_ratings_fit_the_pairings(self) -> None:
        """Ratings whose differences are 400 log10(score / (1 - score)) of each pairing,
        the anchor at 0; one-sided pairings clipped."""

        def report(a: str, b: str, wins: int, losses: int) -> tournament.PairingReport:
            margins = [(1, 1)] * (wins // 2) + [(-1, -1)] * (losses // 2)
            return tournament.PairingReport(a, b, [tournament.DealResult(m) for m in margins])

        ratings = tournament.elo_ratings(
            [report("greedy", "random", 30, 10), report("expert", "greedy", 30, 10)]
        )
        step = 400 * math.log10(3)
        assert ratings["random"] == 0
        assert ratings["greedy"] == pytest.approx(step)
        assert ratings["expert"] == pytest.approx(2 * step)

    def test_it_is_deterministic(self) -> None:
        runs = [
            tournament.run([("expert", "random")], deals=2, jobs=1, seed=9, budget=0.2)
            for _ in range(2)
        ]
        assert [r.margins for r in runs[0][0].results] == [r.margins for r in runs[1][0].results]

    def test_the_levels_tournament_rates_every_level(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`--levels` plays each level against the next weaker one (and the expert
        against greedy), each searching level at its share of the budget, and rates all
        four; an unknown player is refused before anything is played."""
        assert tournament.main(["--levels", "--deals", "2", "--jobs", "1", "--budget", "1"]) == 0
        out = capsys.readouterr().out
        for a, b in tournament.LEVEL_PAIRINGS:
            assert f"| {a} vs {b} |" in out
        ratings = out.split("Elo-style ratings in scopa, 2 players (random = 0): ")[1]
        assert all(name in ratings for name in ("random", "greedy", "apprentice", "expert"))
        # The apprentice thinks for a tenth of the expert's budget.
        assert "Apprentice CPU time per move with a choice" in out and "budget 0.1 ms" in out
        with pytest.raises(SystemExit):
            tournament.main(["--pairing", "master:expert", "--deals", "1"])
