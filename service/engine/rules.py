"""Rule options (docs/rules.md R9, and the variant options of R10)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class ForcedCapture(StrEnum):
    """R4.3: what compulsory capture applies to."""

    #: A card that can capture must capture; another card may be laid instead.
    CARD = "card"
    #: If any card in hand can capture, the player must capture (StarGames house rule).
    ANY = "any"


@dataclass(frozen=True, slots=True)
class Option:
    """What a rule option means, for the API's documentation and ``GET /v1/variants``."""

    name: str
    default: bool | str | int
    description: str
    choices: tuple[str, ...] = ()
    #: An integer option's least and greatest values.
    bounds: tuple[int, int] | None = None


#: Every rule option, in documentation order. Options not in ``COMMON_OPTIONS`` apply
#: only to the variants that list them in ``Variant.extra_options``.
OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        Option("re_bello", False, "1 point for capturing the king of coins `10D` (R9)."),
        Option(
            "napola",
            False,
            "Capturing the ace, 2 and 3 of coins scores the length of the unbroken run of "
            "coins from the ace: 3 to 10 points (R9).",
        ),
        Option(
            "napoleone",
            False,
            "A side that captures all ten coins in a hand wins the match when that hand "
            "ends, whatever the scores (R9).",
        ),
        Option(
            "forced_capture",
            "card",
            "`card` (R4.3): a card that can capture must capture, but another card may be "
            "laid instead. `any`: if any card in hand can capture, the player must capture.",
            choices=tuple(f.value for f in ForcedCapture),
        ),
        Option(
            "dealer_last_sweep",
            False,
            "Scopone scientifico: the dealer's side scores a scopa when the dealer's last card, "
            "the last of the hand, takes every card left on the table (R10).",
        ),
        Option(
            "table_low",
            False,
            "Cirulla: table cards dealt worth 9 or less (the `7C` counted as 1) are the "
            "dealer's, for 3 scopas (C2.4).",
        ),
        Option(
            "auto_declare",
            False,
            "Cirulla: the service declares for every seat that can, at its first turn of "
            "each deal, the decino before the buona (C3.5).",
        ),
        Option(
            "fewest_cards",
            False,
            "Cirulla: a sum of the played card's value must use as few cards as any such "
            "sum could (C4.6); captures by 15 are not limited.",
        ),
        Option(
            "matta_keeps_value",
            False,
            "Cirulla: the value a seat gave the `7C` in its declaration stays on it for the "
            "rest of the hand, in its hand and on the table, until it is captured (C5.2).",
        ),
        Option(
            "piccola_max",
            6,
            "Cirulla: the longest run of coins the piccola counts, 3 to 10 (C7.3).",
            bounds=(3, 10),
        ),
        Option(
            "cappotto",
            True,
            "Cirulla: a side that captures all ten coins in a hand wins the match when "
            "that hand is scored (C7.4).",
        ),
    )
}
#: The options only Cirulla takes, which a stored or reported rule set leaves out while
#: they stand at their defaults.
CIRULLA_OPTIONS = (
    "table_low",
    "auto_declare",
    "fewest_cards",
    "matta_keeps_value",
    "piccola_max",
    "cappotto",
)
COMMON_OPTIONS = ("re_bello", "napola", "napoleone", "forced_capture")


@dataclass(frozen=True, slots=True)
class Rules:
    """The options a match is played with. All off by default."""

    re_bello: bool = False
    napola: bool = False
    napoleone: bool = False
    forced_capture: ForcedCapture = ForcedCapture.CARD
    dealer_last_sweep: bool = False
    table_low: bool = False
    auto_declare: bool = False
    fewest_cards: bool = False
    matta_keeps_value: bool = False
    piccola_max: int = 6
    cappotto: bool = True

    def to_dict(self) -> dict[str, Any]:
        # By hand, not dataclasses.asdict (which deep-copies): this runs on every request.
        data: dict[str, Any] = {
            "re_bello": self.re_bello,
            "napola": self.napola,
            "napoleone": self.napoleone,
            "forced_capture": self.forced_capture.value,
            "dealer_last_sweep": self.dealer_last_sweep,
        }
        for name in CIRULLA_OPTIONS:  # Cirulla's, only where changed
            value = getattr(self, name)
            if value != _CIRULLA_DEFAULTS[name]:
                data[name] = value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Rules:
        data = dict(data or {})
        if "forced_capture" in data:
            data["forced_capture"] = ForcedCapture(data["forced_capture"])
        return cls(**data)

    def changed(self) -> list[str]:
        """The options set to something other than their default."""
        return [name for name, value in self.to_dict().items() if value != OPTIONS[name].default]


#: The Cirulla options at their defaults (whatever the others), to compare against.
_CIRULLA_DEFAULTS = {name: OPTIONS[name].default for name in CIRULLA_OPTIONS}
