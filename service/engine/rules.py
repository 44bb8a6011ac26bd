"""Rule options (RULES.md R9)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any


class ForcedCapture(StrEnum):
    """R4.3: what compulsory capture applies to."""

    #: A card that can capture must capture; another card may be laid instead.
    CARD = "card"
    #: If any card in hand can capture, the player must capture (StarGames house rule).
    ANY = "any"


@dataclass(frozen=True, slots=True)
class Rules:
    """The options of R9 a match is played with. All off by default."""

    re_bello: bool = False
    napola: bool = False
    napoleone: bool = False
    forced_capture: ForcedCapture = ForcedCapture.CARD

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["forced_capture"] = self.forced_capture.value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Rules:
        data = dict(data or {})
        if "forced_capture" in data:
            data["forced_capture"] = ForcedCapture(data["forced_capture"])
        return cls(**data)
