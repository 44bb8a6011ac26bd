"""A match: the deal, the play and the scoring of hand after hand (docs/rules.md R2-R8).

``Match`` holds the whole state, hidden cards included; what a viewer may see of it is
decided in :mod:`service.engine.views`, never here. Every method that changes the state
returns the events it caused, as JSON-ready dicts; private parts of an event (a seat's
dealt cards) sit under the key ``"hands"``, which views filter per viewer.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .cards import DECK, Card, codes, sorted_cards
from .errors import (
    AmbiguousMoveError,
    IllegalDeclarationError,
    IllegalMoveError,
    InvalidSetupError,
    MatchOverError,
    NotYourTurnError,
)
from .hand import DEALT, HAND_OVER, SCOPA, Hand, code_capture
from .legal import code_of
from .legal import moves_of as moves_of  # re-exported: service/play imports it from here
from .masks import BIT, cards_of
from .moves import Declaration, DeclarationKind, Move, best_declaration
from .rules import Rules
from .scoring import SideScore, score_piles
from .states import EventKind, Status
from .variants import Variant, get_variant

Event = dict[str, Any]

#: Looked up once, for the checks and the event of every move: reading an enum member
#: off its class is slow in Python 3.11 (its metaclass has a ``__getattr__``).
_PLAYING: Final = Status.PLAYING
_MOVE: Final = EventKind.MOVE

MIN_TARGET = 1
MAX_TARGET = 100


def team_of_seats(players: int) -> list[int]:
    """R2: alone with 2 or 3 players; with 4 or 6, two sides of alternate seats."""
    if players in (2, 3):
        return list(range(players))
    if players in (4, 6):
        return [seat % 2 for seat in range(players)]
    raise InvalidSetupError(f"{players} players: Scopa is played by 2, 3, 4 or 6")


def _seat_names(variant: Variant, players: int | None, names: Sequence[str] | None) -> list[str]:
    """The seats' names :meth:`Match.new` is given, or made for ``players`` (by default
    the variant's fewest), checked against each other and the variant's player counts."""
    if names is None:
        players = players if players is not None else variant.player_counts[0]
        names = [f"Player {seat + 1}" for seat in range(players)]
    elif players is not None and players != len(names):
        raise InvalidSetupError(f"players is {players} but {len(names)} seats are named")
    if len(names) not in variant.player_counts:
        allowed = ", ".join(map(str, variant.player_counts))
        raise InvalidSetupError(f"{variant.title} is played by {allowed} players, not {len(names)}")
    return list(names)


def _first_dealer(players: int, seed: int | None, first_dealer: int | None) -> int:
    """The first dealer :meth:`Match.new` is given (checked), else drawn: from the seed
    when there is one, else from the operating system's cryptographic source."""
    if first_dealer is None:
        if seed is not None:
            return random.Random(f"scopa:{seed}:dealer").randrange(players)
        return secrets.randbelow(players)
    if not 0 <= first_dealer < players:
        raise InvalidSetupError(f"first_dealer {first_dealer} is not a seat (0-{players - 1})")
    return first_dealer


@dataclass
class Match:
    """The full state of a match. Build one with :meth:`Match.new`."""

    variant: Variant
    names: list[str]
    target: int
    rules: Rules
    seed: int | None
    teams: list[int]
    dealer: int
    #: The deals are not secret: made from a seed or a deck the creator gave.
    seeded: bool = False
    hand_number: int = 0
    #: The hand being played (after the match ends: the last one, finished).
    hand: Hand = field(init=False)
    scores: list[int] = field(default_factory=list)
    hand_scores: list[dict[str, Any]] = field(default_factory=list)
    status: Status = Status.PLAYING
    winner: int | None = None
    last_move: dict[str, Any] | None = None
    #: This hand, by seat: the declared cards not yet played, face up (Cirulla, C3.4);
    #: the declarations' points; the dealer's bonus when it is a line of its own (C7).
    exposed: list[int] = field(default_factory=list)
    declared_points: list[int] = field(default_factory=list)
    bonus_scopas: list[int] = field(default_factory=list)

    # -- creation -------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        *,
        variant: str = "scopa",
        players: int | None = None,
        names: Sequence[str] | None = None,
        target: int | None = None,
        rules: Rules | None = None,
        seed: int | None = None,
        deck: Sequence[Card] | None = None,
        first_dealer: int | None = None,
    ) -> tuple[Match, list[Event]]:
        """Set up a match and deal its first hand.

        ``seed`` makes the first dealer and every shuffle reproducible; ``deck`` (all 40
        cards) is dealt in order for the first hand; without either, shuffles come from
        the operating system's cryptographic source.
        """
        rules_ = rules or Rules()
        the_variant = get_variant(variant)
        names = _seat_names(the_variant, players, names)
        players = len(names)
        problem = the_variant.check_rules(rules_)
        if problem:
            raise InvalidSetupError(problem)
        target = the_variant.default_target if target is None else target
        if not MIN_TARGET <= target <= MAX_TARGET:
            raise InvalidSetupError(f"target {target} is out of range {MIN_TARGET}-{MAX_TARGET}")
        if deck is not None:
            deck = list(deck)
            if len(deck) != len(DECK) or set(deck) != set(DECK):
                raise InvalidSetupError("deck must list each of the 40 cards exactly once")
        teams = team_of_seats(players)
        match = cls(
            variant=the_variant,
            names=names,
            target=target,
            rules=rules_,
            seed=seed,
            teams=teams,
            dealer=_first_dealer(players, seed, first_dealer),
            seeded=seed is not None or deck is not None,
            scores=[0] * (max(teams) + 1),
        )
        events = [match.started_event()]
        match._start_hand(events, [c.index for c in deck] if deck is not None else None)
        return match, events

    def started_event(self) -> Event:
        """The ``match_started`` event: the match as it was set up, before its first deal."""
        return {
            "type": EventKind.MATCH_STARTED,
            "variant": self.variant.name,
            "seats": [
                {"seat": s, "name": n, "team": t}
                for s, (n, t) in enumerate(zip(self.names, self.teams, strict=True))
            ],
            "target": self.target,
            "rules": self.rules.to_dict(),
            "seeded": self.seeded,
            "dealer": self.dealer,
        }

    # -- reading ------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def team_count(self) -> int:
        return len(self.scores)

    def seats_of(self, team: int) -> list[int]:
        return [seat for seat, t in enumerate(self.teams) if t == team]

    # The current hand with readable cards, read-only: a position is set up by
    # assigning ``match.hand`` a Hand (see Hand's constructor and factories).

    @property
    def turn(self) -> int | None:
        """The seat to play; None once the hand's last card is played."""
        return self.hand.turn

    @property
    def hands(self) -> list[list[Card]]:
        """Each seat's cards, in listing order."""
        return [sorted_cards(cards_of(h)) for h in self.hand.hands]

    @property
    def table(self) -> list[Card]:
        return sorted_cards(cards_of(self.hand.table))

    @property
    def stock(self) -> list[Card]:
        """The cards still to deal, in dealing order."""
        return [DECK[i] for i in self.hand.stock]

    @property
    def piles(self) -> list[list[Card]]:
        """The cards each seat captured in this hand."""
        return [sorted_cards(cards_of(p)) for p in self.hand.piles]

    @property
    def scopas(self) -> list[int]:
        """Each seat's scopas in this hand (a copy)."""
        return list(self.hand.scopas)

    @property
    def last_capturer(self) -> int | None:
        return self.hand.last_capturer

    def legal_declarations(self, seat: int | None = None) -> list[Declaration]:
        """What ``seat`` (default: the seat to play) may declare now (Cirulla, C3.1): at
        its turn, holding the three cards of the deal, not declared yet; else nothing."""
        seat = self.turn if seat is None else seat
        if self.status != _PLAYING or seat is None or seat != self.turn:
            return []
        held = self.hand.hands[seat]
        if self.exposed[seat] or held.bit_count() != self.hand.hand_size:
            return []
        return self.variant.declarations(held)

    def declare(self, seat: int, kind: DeclarationKind, matta_as: int | None = None) -> list[Event]:
        """Check and make ``seat``'s declaration (C3): its cards go face up, its points to
        its side; the seat then plays a card. Returns the events (the declaration)."""
        if self.status != _PLAYING:
            raise MatchOverError("the match is over: no more moves")
        if seat != self.turn:
            raise NotYourTurnError(f"it is seat {self.turn}'s turn, not seat {seat}'s")
        declaration = Declaration(kind, matta_as)
        legal = self.legal_declarations(seat)
        if declaration not in legal:
            raise IllegalDeclarationError(self._why_no_declaration(seat, declaration, legal))
        return [self._declare(seat, declaration)]

    def _why_no_declaration(
        self, seat: int, declaration: Declaration, legal: list[Declaration]
    ) -> str:
        if not self.variant.has_declarations:
            return f"{self.variant.title} has no declarations"
        if self.exposed[seat]:
            return "you declared already in this deal: play a card"
        if self.hand.hands[seat].bit_count() != self.hand.hand_size:
            return "a declaration is made at your first turn of a deal, before you play (C3.1)"
        if not legal:
            return (
                "your three cards make no declaration: they must be worth 9 or less, or "
                "three of a kind (C3.1)"
            )
        same = [d for d in legal if d.kind == declaration.kind]
        if same and same[0].matta_as is None:
            return "the 7C is not among your cards: leave matta_as out, or send null (C3.2)"
        if same:
            allowed = ", ".join(str(d.matta_as) for d in same)
            if declaration.matta_as is None:
                return (
                    f"say the value the 7C takes in this {declaration.kind}: matta_as may "
                    f"be {allowed} (C3.2)"
                )
            return (
                f"the 7C cannot count as {declaration.matta_as} in this {declaration.kind}: "
                f"matta_as may be {allowed} (C3.2)"
            )
        others = " or ".join(sorted({d.kind.value for d in legal}))
        return f"your cards make no {declaration.kind}: they make a {others} (C3.1-C3.3)"

    def _declare(self, seat: int, declaration: Declaration) -> Event:
        held = self.hand.hands[seat]
        self.exposed[seat] = held
        self.declared_points[seat] += declaration.points
        if declaration.matta_as is not None and self.rules.matta_keeps_value:
            self.hand.matta_as = declaration.matta_as  # until it is captured (C5.2)
        return {
            "type": EventKind.DECLARATION,
            "hand": self.hand_number,
            "seat": seat,
            **declaration.to_dict(),
            "cards": codes(sorted_cards(cards_of(held))),
            "points": declaration.points,
        }

    def _auto_declare(self, events: list[Event]) -> None:
        """C3.5 (option ``auto_declare``): declare for the seat to play if it can, the
        decino before the buona, the matta worth the most it can."""
        if not self.rules.auto_declare or self.turn is None:
            return
        best = best_declaration(self.legal_declarations())
        if best is not None:
            events.append(self._declare(self.turn, best))

    def legal_moves(self, seat: int | None = None) -> list[Move]:
        """The legal moves of ``seat`` (default: the seat to play); empty when it is not
        that seat's turn or the match is over."""
        seat = self.turn if seat is None else seat
        if self.status != _PLAYING or seat is None or seat != self.turn:
            return []
        return moves_of(self.hand.legal_codes())

    # -- playing ----------------------------------------------------------------------------

    def play(
        self, seat: int, card: Card, capture: Iterable[Card] | None = None
    ) -> tuple[Move, list[Event]]:
        """Check and apply a move of ``seat``. ``capture`` may be None when the card has
        exactly one legal move. Returns the move and the events it caused (the move first)."""
        if self.status != _PLAYING:
            raise MatchOverError("the match is over: no more moves")
        if seat != self.turn:
            raise NotYourTurnError(f"it is seat {self.turn}'s turn, not seat {seat}'s")
        move = self.checked_move(seat, card, capture)
        return move, self.push(move)

    def checked_move(self, seat: int, card: Card, capture: Iterable[Card] | None) -> Move:
        """The legal move ``seat`` means by ``card`` and ``capture``; else the error saying why."""
        if not self.hand.hands[seat] & BIT[card.index]:
            raise IllegalMoveError(f"{card} is not in your hand")
        legal = self.legal_moves(seat)
        own = [m for m in legal if m.card == card]
        choices = [codes(m.captured) for m in own]
        if capture is None:
            if len(own) == 1:
                return own[0]
            if not own:
                raise IllegalMoveError(
                    f"{card} captures nothing, and another card in your hand can capture: "
                    "with forced_capture 'any' you must capture",
                    choices,
                )
            raise AmbiguousMoveError(
                f"{card} can capture in {len(own)} ways: say which in 'capture'", choices
            )
        capture = list(capture)
        move = Move.of(card, capture)
        if move in own and len(move.capture) == len(capture):
            return move
        raise IllegalMoveError(self._why_illegal(move, capture, own), choices)

    def _why_illegal(self, move: Move, capture: list[Card], own: list[Move]) -> str:
        card = move.card
        if len(set(capture)) != len(capture):
            return "the capture names a card twice"
        missing = [c for c in capture if not self.hand.table & BIT[c.index]]
        if missing:
            return f"{', '.join(map(str, missing))} not on the table"
        if not own:
            return (
                f"{card} captures nothing, and another card in your hand can capture: "
                "with forced_capture 'any' you must capture"
            )
        if not capture:
            return f"{card} can capture, so it must take one of the captures listed (R4.3)"
        if all(not m.capture for m in own):
            return f"{card} captures nothing here: play it with an empty capture"
        kept = self.hand.matta_as  # the value the 7C keeps, if any (C5.2)
        value = self.variant.card_value(card.index, kept)
        total = sum(self.variant.card_value(c.index, kept) for c in capture)
        single = any(
            len(m.capture) == 1
            and self.variant.card_value(next(iter(m.capture)).index, kept) == value
            for m in own
        )
        if single and len(capture) > 1 and total == value:
            return (
                f"a card of value {value} is on the table: {card} must take exactly one "
                "such card, a single match goes before any sum (R4.1)"
            )
        return (
            f"{'+'.join(map(str, sorted_cards(capture)))} is not a capture {card} can make "
            f"(the values add up to {total}; see the captures listed)"
        )

    def push(self, move: Move) -> list[Event]:
        """Apply ``move`` for the seat to play WITHOUT checking it is legal: the fast path
        for callers that took the move from :meth:`legal_moves`. Use :meth:`play` otherwise."""
        seat = self.hand.turn
        assert seat is not None
        table = self.hand.table
        kept = self.hand.matta_as  # before the move, which may end it (C5.2)
        code = code_of(move)
        flags = self.hand.push(code)
        self.last_move = {
            "seat": seat,
            "card": move.card.code,
            "capture": codes(move.captured),
            "scopa": bool(flags & SCOPA),
        }
        variant = self.variant
        if variant.reports_capture_kind:  # (C4.4)
            kind = variant.capture_kind(move.card.index, code_capture(code), table, kept)
            self.last_move["kind"] = kind
        if variant.has_declarations:
            self.exposed[seat] &= ~BIT[move.card.index]  # played: face down no more
        events: list[Event] = [{"type": _MOVE, **self.last_move}]
        if flags & DEALT:
            events.append(self._deal_event(0, self.hand.hand_size))
        if flags & HAND_OVER:
            self._end_hand(events)
        elif variant.has_declarations:
            self._auto_declare(events)
        return events

    # -- the deal and the end of a hand ---------------------------------------------------------

    def _shuffled_deck(self, attempt: int) -> list[int]:
        deck = list(range(len(DECK)))
        if self.seed is not None:
            random.Random(f"scopa:{self.seed}:{self.hand_number}:{attempt}").shuffle(deck)
        else:
            # Sorted by a random 64-bit key each, from one read of the system's CSPRNG
            # (SystemRandom's shuffle read it once a card): a uniform order, as
            # unpredictable; equal keys (odds about 2**-54 a deal) keep their order.
            keys = secrets.token_bytes(8 * len(deck))
            deck.sort(key=lambda card: keys[8 * card : 8 * card + 8])
        return deck

    def _start_hand(self, events: list[Event], deck: list[int] | None = None) -> None:
        """Deal a new hand (R3): hands then table, again while the variant asks for a
        redeal (3 or 4 kings on the table); then the dealer's bonus, if the variant has one."""
        self.hand_number += 1
        attempt = 0
        while True:
            cards = deck if deck is not None and attempt == 0 else self._shuffled_deck(attempt)
            hand = Hand.deal(self.variant, self.rules, self.players, self.dealer, cards)
            table = hand.table
            if not self.variant.needs_redeal(table):
                break
            events.append(
                {
                    "type": EventKind.REDEAL,
                    "hand": self.hand_number,
                    "dealer": self.dealer,
                    "table": codes(sorted_cards(cards_of(table))),
                    "reason": self.variant.redeal_reason,
                }
            )
            attempt += 1
        self.hand = hand
        self.last_move = None
        self.exposed = [0] * self.players
        self.declared_points = [0] * self.players
        self.bonus_scopas = [0] * self.players
        events.append(self._deal_event(table, hand.hand_size))
        bonus, wild_as = self.variant.table_bonus(table, self.rules)
        if bonus:
            hand = self.hand
            hand.piles[self.dealer] |= table
            if self.variant.bonus_apart:
                self.bonus_scopas[self.dealer] += bonus
            else:
                hand.scopas[self.dealer] += bonus
            hand.last_capturer = self.dealer
            hand.table = 0
            event: Event = {
                "type": EventKind.DEALER_BONUS,
                "hand": self.hand_number,
                "seat": self.dealer,
                "capture": codes(sorted_cards(cards_of(table))),
                "scopas": bonus,
            }
            if wild_as is not None:
                event["matta_as"] = wild_as  # (C2.3, C10.1)
            events.append(event)
        if self.variant.has_declarations:
            self._auto_declare(events)

    def _deal_event(self, table: int, size: int) -> Event:
        return {
            "type": EventKind.DEAL,
            "hand": self.hand_number,
            "dealer": self.dealer,
            "cards_each": size,
            "table": codes(sorted_cards(cards_of(table))),
            "stock_count": len(self.hand.stock),
            "hands": {str(seat): codes(hand) for seat, hand in enumerate(self.hands)},
        }

    def _end_hand(self, events: list[Event]) -> None:
        """R6-R8, after the hand's last card: the table went to the last capturer; score
        the hand; the match goes on or ends."""
        hand = self.hand
        capturer = hand.last_capturer
        remainder = hand.table
        hand.table = 0
        sides = self.score_current_piles()
        for side in sides:
            self.scores[side.team] += side.total
        hand_score: dict[str, Any] = {
            "hand": self.hand_number,
            "teams": [side.to_dict() for side in sides],
            "scores": list(self.scores),
        }
        self.hand_scores.append(hand_score)
        events.append(
            {
                "type": EventKind.HAND_OVER,
                "hand": self.hand_number,
                "remainder": {
                    "seat": capturer,
                    "team": None if capturer is None else self.teams[capturer],
                    "cards": codes(sorted_cards(cards_of(remainder))),
                },
                "score": hand_score,
            }
        )
        decided = self._match_winner()
        if decided is not None:
            winner, reason = decided
            self.status, self.winner = Status.FINISHED, winner
            events.append(
                {
                    "type": EventKind.MATCH_OVER,
                    "winner": winner,
                    "scores": list(self.scores),
                    "reason": reason,
                }
            )
            return
        self.dealer = (self.dealer + 1) % self.players
        self._start_hand(events)

    def score_current_piles(self) -> list[SideScore]:
        """The hand's score as it stands: R7, and the variant's own lines (Cirulla's
        dealer's bonus, declarations, grande and piccola, C7)."""
        piles, scopas = self.hand.team_piles(self.teams, self.team_count)
        variant = self.variant
        extra: list[dict[str, int]] = []
        for team, pile in enumerate(piles):
            lines: dict[str, int] = {}
            seats = self.seats_of(team)
            if variant.bonus_apart:
                lines["dealer_bonus"] = sum(self.bonus_scopas[s] for s in seats)
            if variant.has_declarations:
                lines["declarations"] = sum(self.declared_points[s] for s in seats)
            lines.update(variant.bonus_points(pile, self.rules))
            extra.append(lines)
        return score_piles(piles, scopas, self.rules, extra)

    def _match_winner(self) -> tuple[int, str] | None:
        """The winner and why: a side that wins outright with its pile (R9 napoleone;
        Cirulla's cappotto, C7.4), else R8: once a side reached the target, the single
        highest total."""
        piles, _ = self.hand.team_piles(self.teams, self.team_count)
        for team, pile in enumerate(piles):
            reason = self.variant.wins_outright(pile, self.rules)
            if reason is not None:
                return team, reason
        top = max(self.scores)
        if top < self.target or self.scores.count(top) > 1:
            return None
        return self.scores.index(top), "target"

    # -- storage --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-ready data, hidden cards included: for storage only."""
        return {
            "variant": self.variant.name,
            "names": list(self.names),
            "target": self.target,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "teams": list(self.teams),
            "dealer": self.dealer,
            "seeded": self.seeded,
            "hand_number": self.hand_number,
            # The hand being played, as masks (see masks.py) and the stock's card indices.
            "turn": self.hand.turn,
            "hands": list(self.hand.hands),
            "table": self.hand.table,
            "stock": list(self.hand.stock),
            "piles": list(self.hand.piles),
            "scopas": list(self.hand.scopas),
            "last_capturer": self.hand.last_capturer,
            "scores": list(self.scores),
            "hand_scores": list(self.hand_scores),
            "status": self.status.value,
            "winner": self.winner,
            "last_move": self.last_move,
            # Only the variants that have them (Cirulla): the others' stay as they were.
            **(
                {
                    "exposed": list(self.exposed),
                    "declared_points": list(self.declared_points),
                    "bonus_scopas": list(self.bonus_scopas),
                }
                if self.variant.has_declarations or self.variant.bonus_apart
                else {}
            ),
            # The value the 7C keeps (Cirulla, C5.2), only with the option that keeps one.
            **({"matta_as": self.hand.matta_as or None} if self.rules.matta_keeps_value else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        match = cls(
            variant=get_variant(data["variant"]),
            names=list(data["names"]),
            target=data["target"],
            rules=Rules.from_dict(data["rules"]),
            seed=data["seed"],
            teams=list(data["teams"]),
            dealer=data["dealer"],
            seeded=data["seeded"],
            hand_number=data["hand_number"],
            scores=list(data["scores"]),
            hand_scores=list(data["hand_scores"]),
            status=Status(data["status"]),
            winner=data["winner"],
            last_move=data["last_move"],
        )
        # Matches stored before declarations existed have none of these.
        none = [0] * len(match.names)
        match.exposed = list(data.get("exposed", none))
        match.declared_points = list(data.get("declared_points", none))
        match.bonus_scopas = list(data.get("bonus_scopas", none))
        # The hand's size is not stored: every stored match has a valid player count,
        # so it is the variant's deal for its players (the constructor's default).
        match.hand = Hand(
            match.variant,
            match.rules,
            hands=data["hands"],
            table=data["table"],
            stock=data["stock"],
            dealer=match.dealer,
            turn=data["turn"],
            piles=data["piles"],
            scopas=data["scopas"],
            last_capturer=data["last_capturer"],
            matta_as=data.get("matta_as") or 0,  # none in matches stored before C5.2
        )
        return match
