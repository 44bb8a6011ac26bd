"""How a setting is declared: a field of its section's frozen dataclass, one line, made
by :func:`setting` (or :func:`nonnegative`, :func:`positive`, the usual ranges), whose
metadata is its :class:`Setting` (its default, range, choices); its meaning in the
section's docstring, under ``Attributes:`` (Google style), whose first line is the
section's title. :func:`declared` reads a section's settings, each completed with its
variable's name, its type, its meaning and its section's title."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import marshmallow as ma

T = TypeVar("T")
#: The key of a field's metadata that holds its declaration.
DECLARATION = "setting"
#: An attribute's entry in a docstring's ``Attributes:`` section: its name, then its meaning.
_ENTRY = re.compile(r"(\w+): (.+)")


@dataclass(frozen=True)
class Setting:
    """One environment variable: how it is read, its default, what it means."""

    #: The value when the variable is unset or empty.
    default: Any
    #: What it means (from its section's docstring, as :func:`declared` completes it).
    meaning: str = ""
    #: The variable (the attribute's name in capitals), as :func:`declared` completes it.
    name: str = ""
    #: The attribute of :class:`service.config.Settings` that holds its value.
    attribute: str = ""
    kind: type = str  # int, float or str: the attribute's type
    #: The title of its section (of docs/configuration.md), as :func:`declared` completes it.
    group: str = ""
    #: The default when it depends on other settings: from their values, by name.
    follows: Callable[[Mapping[str, Any]], Any] | None = None
    #: The default as the documentation says it (else the default itself).
    shown_default: str = ""
    minimum: float | None = None
    maximum: float | None = None
    #: More than `minimum`, not equal to it (a duration that cannot be 0).
    above_minimum: bool = False
    choices: tuple[str, ...] = ()
    #: A choice in any case (it is read in capitals).
    any_case: bool = False
    #: Checks a value further (raises ValueError, whose message is shown).
    check: Callable[[str], object] | None = None
    #: Its key in the app's ``app.config``: the name, unless the app calls it otherwise;
    #: None for a setting read by the process around the app (gunicorn.conf.py, logging).
    key: str | None = ""
    #: Its value is never repeated in an error (a credential may be in it).
    secret: bool = False

    @property
    def config_key(self) -> str | None:
        """Its key in ``app.config`` (None: not there)."""
        return None if self.key is None else self.key or self.name

    def accepts(self) -> str:
        """What the variable takes, in words, for errors and the documentation."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.kind is str:
            return "text"
        what = "a whole number" if self.kind is int else "a number"
        low = _number(self.minimum)
        high = _number(self.maximum)
        if self.minimum is not None and self.maximum is not None:
            return f"{what} from {low} to {high}"
        if self.minimum is not None:
            return f"{what} above {low}" if self.above_minimum else f"{what}, {low} or more"
        return what

    def field(self) -> ma.fields.Field[Any]:
        """The marshmallow field that reads the variable's text."""
        validators: list[Callable[[Any], Any]] = []
        if self.minimum is not None or self.maximum is not None:
            validators.append(
                ma.validate.Range(self.minimum, self.maximum, min_inclusive=not self.above_minimum)
            )
        if self.choices:
            validators.append(ma.validate.OneOf(self.choices))
        if self.check is not None:
            validators.append(_checking(self.check))
        if self.kind is int:
            return ma.fields.Integer(strict=False, data_key=self.name, validate=validators)
        if self.kind is float:
            return ma.fields.Float(allow_nan=False, data_key=self.name, validate=validators)
        return ma.fields.String(data_key=self.name, validate=validators)

    def documented_default(self) -> str:
        if self.shown_default:
            return self.shown_default
        if self.default == "":
            return "none"
        return f"`{_number(self.default)}`"


@dataclass(frozen=True)
class Section:
    """A section of the settings (of docs/configuration.md): a frozen dataclass of
    :func:`setting` fields, one attribute a setting, whose docstring is the section's
    title, then an ``Attributes:`` section that says what each setting means."""


def setting(default: T, **declaration: Any) -> T:
    """A setting's field in its section's dataclass: its default (as the attribute's
    type), and the rest of :class:`Setting` by keyword. The dataclass itself has no
    default: :func:`service.config.load` applies it."""
    found: T = dataclasses.field(
        metadata={DECLARATION: Setting(default, **declaration)}, kw_only=True
    )
    return found


def nonnegative(default: T, **declaration: Any) -> T:
    """A number of 0 or more (a quota, a count, a time; for a quota, 0 is no limit)."""
    return setting(default, minimum=0, **declaration)


def positive(default: T, **declaration: Any) -> T:
    """A number more than 0 (a time that cannot be 0)."""
    return setting(default, minimum=0, above_minimum=True, **declaration)


def reading(path: str) -> Callable[[str], object]:
    """The check of a value by the function at ``path`` (``module:function``, the one
    reading of such a value, in service.play), imported only when a value is checked:
    gunicorn's master reads the settings without importing the service."""
    module, _, name = path.partition(":")

    def check(value: str) -> object:
        read: Callable[[str], object] = getattr(importlib.import_module(module), name)
        return read(value)

    return check


def declared(section: type[Section]) -> tuple[Setting, ...]:
    """A section's settings in their order, each with its name, type, meaning and group
    (its section's title), both from the section's docstring."""
    types = typing.get_type_hints(section)
    fields = dataclasses.fields(section)
    meanings = _meanings(section)
    if _documented(section) and set(meanings) != {field.name for field in fields}:
        raise TypeError(
            f"{section.__name__}'s docstring must say what each of its settings means, "
            f"no more: {sorted(set(meanings) ^ {field.name for field in fields})}"
        )
    return tuple(
        dataclasses.replace(
            field.metadata[DECLARATION],
            name=field.name.upper(),
            attribute=field.name,
            kind=types[field.name],
            meaning=meanings.get(field.name, ""),
            group=title(section),
        )
        for field in fields
    )


def title(section: type[Section]) -> str:
    """A section's title: its docstring's first line."""
    return _documented(section).partition("\n")[0]


def _documented(section: type[Section]) -> str:
    """Its docstring; none under ``python -OO``, which drops them (and then only the
    guide, which is not written so, would miss what they say)."""
    return inspect.cleandoc(section.__doc__ or "") if sys.flags.optimize < 2 else ""


def _meanings(section: type[Section]) -> dict[str, str]:
    """{attribute: meaning}, from the ``Attributes:`` section of its docstring: an entry
    ``name: meaning`` a line, its meaning going on in the lines indented further below."""
    lines = _documented(section).splitlines()
    if "Attributes:" not in lines:
        return {}
    meanings: dict[str, list[str]] = {}
    said: list[str] = []
    for line in lines[lines.index("Attributes:") + 1 :]:
        entry = _ENTRY.fullmatch(line.strip())
        if not line.strip():
            break
        if entry and not line.startswith(" " * 8):  # an entry, not the lines it goes on in
            said = meanings[entry[1]] = [entry[2]]
        else:
            said.append(line.strip())
    return {name: " ".join(said) for name, said in meanings.items()}


def _number(value: Any) -> str:
    """A figure as one writes it: 5.0 as 5, 0.25 as 0.25."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _checking(check: Callable[[str], object]) -> Callable[[str], None]:
    def validate(value: str) -> None:
        try:
            check(value)
        except ValueError as error:
            raise ma.ValidationError(str(error)) from None

    return validate
