"""A request body's schema whose ``load`` takes a short cut for the bodies of the
common, plainly valid shape, and leaves every other body to marshmallow.

A move's body is a card, perhaps a list of cards and a boolean: marshmallow's ``load``
of it (field by field, each value through its field's ``deserialize``, an error store,
the hooks) cost more than anything else the API's own code did for a move. For a body
that is a ``dict`` of the schema's own keys, each value of exactly the type its field
takes (a ``str``, a ``bool``, an ``int``, a ``list`` of those) and accepted by the
field's own validators, :meth:`FastLoadSchema.load` builds the same ``dict`` that
marshmallow's would, in the same order, without the machinery; anything else (a
missing required field, an unknown key, ``None`` where a field refuses it, a float, a
value a validator refuses) goes to marshmallow's ``load``, which answers it as it
always did: the same errors, the same messages.

What the short cut reads of each field is derived from the schema itself, when it is
made: the fields' types, their validators, ``required``, ``allow_none``,
``load_default``; the schema stays the one source of the spec and of the rules. A
schema with a field of any other kind, or made with options the short cut does not
follow (``many``, ``partial``, an ``unknown`` other than ``RAISE``), always goes to
marshmallow. The short cut runs no schema hooks: a schema that uses it must have none
(``pre_load``, ``validates_schema``, ``post_load``...); tests/test_api_bodies_fast.py
compares it with marshmallow's own ``load`` for every schema that uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import marshmallow as ma
from marshmallow import fields, types, validate

from .fields import Enumerated, StrictBoolean, StrictInteger, StrictSchema


class _Defer(Exception):
    """A value the short cut leaves to marshmallow."""


#: A field's check: the value loaded, or :class:`_Defer`.
Check = Callable[[Any], Any]


def _validated(check: Check, validators: Sequence[Callable[[Any], Any]]) -> Check:
    """``check``, then the field's validators. Only ``OneOf``: a set lookup (for the
    exact ``str``, ``int`` or ``bool`` values a check lets through, being in the set is
    being in the list). Otherwise each validator as marshmallow's ``And`` runs them: a
    ``ValidationError``, or ``False`` returned, defers."""
    if not validators:
        return check
    if all(type(v) is validate.OneOf for v in validators):
        try:
            allowed = frozenset.intersection(
                *(frozenset(v.choices) for v in validators)  # type: ignore[attr-defined]
            )
        except TypeError:  # unhashable choices: the validators look
            pass
        else:

            def in_choices(value: Any) -> Any:
                loaded = check(value)
                if loaded not in allowed:
                    raise _Defer
                return loaded

            return in_choices

    def validated(value: Any) -> Any:
        loaded = check(value)
        for validator in validators:
            try:
                if validator(loaded) is False:
                    raise _Defer
            except ma.ValidationError:
                raise _Defer from None
        return loaded

    return validated


def _exact(kind: type) -> Check:
    """A value of exactly ``kind`` (not a subclass: no bool for an int), as it is."""

    def check(value: Any) -> Any:
        if type(value) is not kind:
            raise _Defer
        return value

    return check


def _list_of(inner: Check) -> Check:
    """A list (a new one, as marshmallow's ``List`` makes) of values ``inner`` loads."""

    def check(value: Any) -> Any:
        if type(value) is not list:
            raise _Defer
        return [inner(each) for each in value]

    return check


def _or_none(check: Check) -> Check:
    def or_none(value: Any) -> Any:
        return None if value is None else check(value)

    return or_none


def _check(field: fields.Field) -> Check | None:
    """How the short cut loads a value given for ``field`` (not a missing one), or None
    when it does not know the field's kind."""
    if field.pre_load or field.post_load:
        return None
    check: Check
    kind = type(field)
    if kind in (fields.String, Enumerated):
        # String's deserialize returns a str as it is (a bytes is decoded: deferred).
        check = _exact(str)
    elif kind is StrictBoolean:
        check = _exact(bool)
    elif kind is StrictInteger:
        # An int (not a bool, not a float) loads as itself: int(value) == value.
        check = _exact(int)
    elif isinstance(field, fields.List) and kind is fields.List:
        inner = _check(field.inner)
        if inner is None:
            return None
        check = _list_of(inner)
    else:
        return None
    check = _validated(check, field.validators)
    return _or_none(check) if field.allow_none else check


class _Plan:
    """How the short cut loads one schema's bodies."""

    def __init__(self, schema: ma.Schema, steps: list[tuple[str, Check, bool, Any]]) -> None:
        self.dict_class = schema.dict_class
        self.steps = steps
        self.keys = frozenset(name for name, *_ in steps)

    def load(self, data: dict[Any, Any]) -> Any:
        if not self.keys.issuperset(data):
            raise _Defer
        loaded = self.dict_class()
        for name, check, required, default in self.steps:
            if name in data:
                loaded[name] = check(data[name])
            elif required:
                raise _Defer
            elif default is not ma.missing:
                loaded[name] = default() if callable(default) else default
        return loaded


def _plan(schema: ma.Schema) -> _Plan | None:
    if schema.many or schema.partial is not None or schema.unknown != ma.RAISE:
        return None
    steps = []
    for name, field in schema.load_fields.items():
        check = _check(field)
        if (
            check is None
            or field.data_key is not None
            or field.attribute is not None
            or "." in name
        ):
            return None
        steps.append((name, check, field.required, field.load_default))
    return _Plan(schema, steps)


class FastLoadSchema(StrictSchema):
    """A request body whose plainly valid bodies load without marshmallow's machinery
    (the module's docstring says which); every other one loads as a StrictSchema's."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.plan = _plan(self)

    def fast_load(self, data: Any) -> Any | None:
        """``data`` loaded by the short cut, or None when it leaves it to marshmallow."""
        if self.plan is None or type(data) is not dict:
            return None
        try:
            return self.plan.load(data)
        except _Defer:
            return None

    def load(
        self,
        data: Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        many: bool | None = None,
        partial: bool | types.StrSequenceOrSet | None = None,
        unknown: types.UnknownOption | None = None,
    ) -> Any:
        if many is None and partial is None and unknown is None:
            loaded = self.fast_load(data)
            if loaded is not None:
                return loaded
        return super().load(data, many=many, partial=partial, unknown=unknown)
