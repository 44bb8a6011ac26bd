"""One hand in play (docs/rules.md R2-R6), on card masks: the fast core under :class:`Match`.

A move is coded as one integer, ``capture_mask << 6 | card_index`` (see
:func:`move_code`), so that generating and applying moves allocates almost nothing:
this is what the computer players' search runs on. :class:`Match` wraps it with
readable cards and moves, events, scoring and the match's rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from .knowledge import Knowledge
from .masks import BIT, SIG_SLICE, realize
from .rules import ForcedCapture, Rules
from .variants import Variant
from .variants.cirulla import MATTA_BIT

#: Looked up once: every Hand made (every copy a search makes) asks, and looking an
#: enum member up is slow.
_FORCED_ANY: Final = ForcedCapture.ANY

#: Flags :meth:`Hand.push` returns.
SCOPA: Final = 1
DEALT: Final = 2
HAND_OVER: Final = 4


def move_code(card_index: int, capture: int = 0) -> int:
    return capture << 6 | card_index


def code_card(code: int) -> int:
    return code & 63


def code_capture(code: int) -> int:
    return code >> 6


class Hand:
    """The state of the hand being played. Hands, the table and piles are masks; the
    stock is a list of card indices in dealing order.

    Build one with keywords, or with :meth:`deal` (a new hand) or :meth:`from_knowledge`
    (the position a seat knows); :meth:`copy` is the search's fast copy."""

    __slots__ = (
        "variant",
        "rules",
        "players",
        "dealer",
        "hand_size",
        "hands",
        "table",
        "stock",
        "piles",
        "scopas",
        "last_capturer",
        "turn",
        "matta_as",
        "_forced_any",
        "_rows",
        "_plain_scopa",
        "_filter",
    )

    def __init__(
        self,
        variant: Variant,
        rules: Rules,
        *,
        hands: Sequence[int],
        table: int = 0,
        stock: Iterable[int] = (),
        dealer: int = 0,
        turn: int | None = 0,
        piles: Sequence[int] | None = None,
        scopas: Sequence[int] | None = None,
        last_capturer: int | None = None,
        hand_size: int | None = None,
        matta_as: int = 0,
    ) -> None:
        """A position: each seat's hand (``hands[seat]``, a mask; there are as many
        seats as hands), the table (a mask), the stock (card indices in dealing order),
        the dealer and the seat to play (None once the hand's last card is played),
        each seat's captured cards (masks) and scopas (none by default), the last seat
        to capture, and the cards dealt to each seat in a round (by default the
        variant's deal for that many players, or 0 for a count it is not played by),
        and the value the matta keeps (Cirulla's option ``matta_keeps_value``, C5.2; 0,
        the default: none). The sequences are copied."""
        players = len(hands)
        if hand_size is None:
            valid = players in variant.player_counts
            hand_size = variant.deal_plan(players).hand_size if valid else 0
        self.variant = variant
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.hand_size = hand_size
        self.hands = list(hands)
        self.table = table
        self.stock = list(stock)
        self.piles = [0] * players if piles is None else list(piles)
        self.scopas = [0] * players if scopas is None else list(scopas)
        if len(self.piles) != players or len(self.scopas) != players:
            raise ValueError(
                f"{players} hands, but {len(self.piles)} piles and {len(self.scopas)} scopas"
            )
        self.last_capturer = last_capturer
        #: The seat to play; None once the hand's last card is played.
        self.turn = turn
        #: The value Cirulla's matta (7C) keeps from a declaration until it is captured
        #: (option ``matta_keeps_value``, C5.2); 0: it keeps none.
        self.matta_as = matta_as
        self._forced_any = rules.forced_capture is _FORCED_ANY
        self._rows = variant.recipe_rows
        # R5 as it stands (no variant rule to ask): checked inline on the hot path.
        self._plain_scopa = variant.plain_sweeps
        #: A rule that narrows the captures (Cirulla's fewest_cards), or None.
        self._filter = variant.capture_filter(rules)

    @classmethod
    def deal(
        cls, variant: Variant, rules: Rules, players: int, dealer: int, cards: list[int]
    ) -> Hand:
        """R3: a new hand dealt from ``cards`` (card indices in dealing order): each seat
        in playing order, from the seat after the dealer, gets its ``hand_size`` cards at
        once, then the table gets ``table_size``; the rest is the stock. The seat after
        the dealer plays first. Whether the variant wants a redeal, or gives the dealer a
        bonus, is the caller's to ask (see Match)."""
        plan = variant.deal_plan(players)
        hands = [0] * players
        pos = 0
        for offset in range(1, players + 1):
            mask = 0
            for index in cards[pos : pos + plan.hand_size]:
                mask |= BIT[index]
            hands[(dealer + offset) % players] = mask
            pos += plan.hand_size
        table = 0
        for index in cards[pos : pos + plan.table_size]:
            table |= BIT[index]
        pos += plan.table_size
        # Hand rather than cls (Hand has no subclasses): a native call in a mypyc build.
        return Hand(
            variant,
            rules,
            hands=hands,
            table=table,
            stock=cards[pos:],
            dealer=dealer,
            turn=(dealer + 1) % players,
            hand_size=plan.hand_size,
        )

    @classmethod
    def from_knowledge(
        cls,
        knowledge: Knowledge,
        hands: Sequence[int] | None = None,
        stock: Iterable[int] = (),
    ) -> Hand:
        """The position ``knowledge``'s seat knows, that seat to play: its own hand, the
        table, the piles, scopas, last capturer, dealer and hand size as it knows them.
        The other seats hold ``hands[seat]`` (masks, one per seat; the knowing seat's
        entry is replaced by its own hand), or nothing when ``hands`` is None, and the
        stock is ``stock`` (card indices in dealing order). Its :meth:`legal_codes` are
        the seat's legal moves."""
        seat = knowledge.seat
        held = [0] * knowledge.players if hands is None else list(hands)
        if len(held) != knowledge.players:
            raise ValueError(f"{len(held)} hands for {knowledge.players} players")
        held[seat] = knowledge.hand
        return Hand(  # rather than cls: see deal()
            knowledge.variant,
            knowledge.rules,
            hands=held,
            table=knowledge.table,
            stock=stock,
            dealer=knowledge.dealer,
            turn=seat,
            piles=knowledge.piles,
            scopas=knowledge.scopas,
            last_capturer=knowledge.last_capturer,
            hand_size=knowledge.hand_size,
            matta_as=knowledge.matta_as or 0,
        )

    def copy(self) -> Hand:
        """An independent copy, for a search to play on (its inner loop): the fields are
        assigned straight to a blank Hand, without the constructor's keyword handling
        and defaults, which cost more than the copy itself in CPython."""
        if not _BLANK_NEW:  # a mypyc build: the constructor is a native call there
            return Hand(
                self.variant,
                self.rules,
                hands=self.hands,
                table=self.table,
                stock=self.stock,
                dealer=self.dealer,
                turn=self.turn,
                piles=self.piles,
                scopas=self.scopas,
                last_capturer=self.last_capturer,
                hand_size=self.hand_size,
                matta_as=self.matta_as,
            )
        new: Hand = _new_hand(Hand)
        new.variant = self.variant
        new.rules = self.rules
        new.players = self.players
        new.dealer = self.dealer
        new.hand_size = self.hand_size
        new.hands = list(self.hands)
        new.table = self.table
        new.stock = list(self.stock)
        new.piles = list(self.piles)
        new.scopas = list(self.scopas)
        new.last_capturer = self.last_capturer
        new.turn = self.turn
        new.matta_as = self.matta_as
        new._forced_any = self._forced_any
        new._rows = self._rows
        new._plain_scopa = self._plain_scopa
        new._filter = self._filter
        return new

    @property
    def is_last_card(self) -> bool:
        """The seat to play holds the last card of the hand."""
        return not self.stock and sum(h.bit_count() for h in self.hands) == 1

    def legal_codes(self) -> list[int]:
        """The legal moves of the seat to play, coded (R4): every capture choice of each
        card; a card that can capture must (R4.3); with forced_capture "any", laying a
        card is legal only when no card can capture.

        The hot path of every search: the variant's capture recipes for every card are
        looked up once by the table's signature (masks.py), and realized inline. While
        the matta keeps a value (C5.2), they come from the variant's kept_row instead."""
        table = self.table
        if not self.matta_as:
            sig = (
                SIG_SLICE[table & 0x3FF]
                + SIG_SLICE[table >> 10 & 0x3FF]
                + SIG_SLICE[table >> 20 & 0x3FF]
                + SIG_SLICE[table >> 30]
            )
            row = self._rows.get(sig)
            if row is None:
                row = self.variant.recipe_row(sig)
        else:  # the matta keeps a value (C5.2)
            variant = self.variant
            row = variant.kept_row(variant.kept_signature(table, self.matta_as), self.matta_as)
        seat = self.turn
        assert seat is not None
        hand = self.hands[seat]
        codes: list[int] = []
        lays: list[int] = []
        while hand:
            low = hand & -hand
            hand ^= low
            index = low.bit_length() - 1
            recipes = row[index]
            if not recipes:
                lays.append(index)
                continue
            for recipe in recipes:
                if isinstance(recipe, int):
                    codes.append((table & recipe) << 6 | index)
                else:
                    codes.extend(c << 6 | index for c in realize((recipe,), table))
        if not codes:
            return lays
        if self._filter is not None:
            codes = self._filter(codes, self.matta_as)
        if lays and not self._forced_any:
            codes += lays
        return codes

    def push(self, code: int) -> int:
        """Apply a coded move for the seat to play WITHOUT checking it is legal, deal the
        next round when every hand is empty, and close the hand after its last card (R6:
        the table goes to the last capturer). Returns SCOPA | DEALT | HAND_OVER flags.
        The matta's kept value (C5.2) ends when it goes to a pile."""
        seat = self.turn
        assert seat is not None
        index = code & 63
        capture = code >> 6
        bit = BIT[index]
        hands = self.hands
        held = hands[seat] ^ bit
        hands[seat] = held
        # The last card of the hand leaves every hand and the stock empty.
        last_card = not held and not self.stock and not any(hands)
        table = self.table
        flags = 0
        if capture:
            if self._plain_scopa:
                scopa = capture == table and not last_card
            else:
                scopa = self.variant.is_scopa(
                    index, capture, table, last_card, seat == self.dealer, self.rules
                )
            if scopa:
                self.scopas[seat] += 1
                flags = SCOPA
            self.table = table ^ capture
            self.piles[seat] |= capture | bit
            self.last_capturer = seat
            if self.matta_as and (capture | bit) & MATTA_BIT:
                self.matta_as = 0
        else:
            self.table = table | bit
        if last_card:
            if self.last_capturer is not None:
                self.piles[self.last_capturer] |= self.table
            self.matta_as = 0  # the hand is over (C5.2)
            self.turn = None
            return flags | HAND_OVER
        if not held and not any(hands):
            self.deal_round()
            flags |= DEALT
        seat += 1
        self.turn = seat if seat < self.players else 0
        return flags

    def deal_round(self) -> None:
        """R3: every hand is empty: ``hand_size`` more cards to each seat from the stock,
        starting with the seat after the dealer."""
        size, stock = self.hand_size, self.stock
        pos = 0
        for offset in range(1, self.players + 1):
            seat = (self.dealer + offset) % self.players
            mask = 0
            for index in stock[pos : pos + size]:
                mask |= BIT[index]
            self.hands[seat] = mask
            pos += size
        del stock[:pos]

    def team_piles(self, teams: list[int], team_count: int) -> tuple[list[int], list[int]]:
        """Each side's captured cards (mask) and scopas."""
        piles = [0] * team_count
        scopas = [0] * team_count
        for seat, team in enumerate(teams):
            piles[team] |= self.piles[seat]
            scopas[team] += self.scopas[seat]
        return piles, scopas


#: For :meth:`Hand.copy`: allocates a Hand without running its constructor (looked up
#: once). That is ``object.__new__`` when this module runs as Python source; in a mypyc
#: build (`make compile`) ``Hand.__new__`` runs ``__init__``, so copy() calls the
#: constructor instead (a native call, keywords and all, in compiled code).
_new_hand: Final = Hand.__new__
_BLANK_NEW: Final = _new_hand is object.__new__


def unplayed(hand: Hand) -> int:
    """Cards still in some seat's hand or the stock (mask)."""
    mask = 0
    for h in hand.hands:
        mask |= h
    for index in hand.stock:
        mask |= BIT[index]
    return mask
