"""The variants the service plays, by name: every module of this package that defines a
:class:`Variant` subclass with a ``name`` adds one."""

from __future__ import annotations

import importlib
import pkgutil

from ..errors import InvalidSetupError
from .base import REGISTRY, DealPlan, Variant

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")

#: One instance of each variant the engine plays, classic Scopa first, then by name.
_ALL: dict[str, Variant] = {
    name: REGISTRY[name]() for name in sorted(REGISTRY, key=lambda n: (n != "scopa", n))
}
#: The variants the service offers: all but those being built (``Variant.playable``).
VARIANTS: dict[str, Variant] = {name: v for name, v in _ALL.items() if v.playable}


def get_variant(name: str) -> Variant:
    try:
        return _ALL[name]
    except KeyError:
        known = ", ".join(VARIANTS)
        raise InvalidSetupError(f"unknown variant {name!r}: choose one of {known}") from None


__all__ = ["VARIANTS", "DealPlan", "Variant", "get_variant"]
