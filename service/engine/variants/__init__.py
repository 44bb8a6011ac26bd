"""The variants the service plays, by name."""

from __future__ import annotations

from ..errors import InvalidSetupError
from .base import DealPlan, Variant
from .scopa import Scopa

VARIANTS: dict[str, Variant] = {v.name: v for v in (Scopa(),)}


def get_variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        known = ", ".join(sorted(VARIANTS))
        raise InvalidSetupError(f"unknown variant {name!r}: choose one of {known}") from None


__all__ = ["VARIANTS", "DealPlan", "Variant", "get_variant"]
