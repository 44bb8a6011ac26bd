"""The base of every response schema: marshmallow's, with a dump that runs a plan
compiled once from the schema's fields.

A response is dumped through its schema so that only the fields the contract declares
ever leave the service (a key a view adds by mistake is dropped, not sent). marshmallow's
own dump does that by calling a few methods per field of every object: for a move's
answer (the move, its events, the whole view) that was about a tenth of the request's
CPU time. The plan does the same walk with one closure per field, built from the same
fields through marshmallow's public attributes; it knows the field types the API's
schemas use, and any other type (or a dotted attribute, a dump default) is refused when
the plan is compiled (the first dump), not guessed at. Response schemas declare no
pre- or post-dump hooks: the plan would not run them.

tests/test_api_responses.py checks, for every response of whole matches of every variant
and of every other endpoint, that this dump equals marshmallow's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import marshmallow as ma
from marshmallow import fields

Dumper = Callable[[Any], Any]
_MISSING = object()


def _scalar(field: fields.Field) -> type | None:
    """The type a scalar ``field`` dumps its values as (converted only when a value is
    not of that type yet, as marshmallow does), or None for any other field."""
    if isinstance(field, TaggedUnion | fields.Nested | fields.List | fields.Dict):
        return None
    if isinstance(field, fields.Boolean):
        return bool
    if isinstance(field, fields.Integer) and not field.as_string:
        return int
    if isinstance(field, fields.Float) and not field.as_string:
        return float
    if isinstance(field, fields.String):
        return str
    return None


def field_dumper(field: fields.Field) -> Dumper | None:
    """How ``field`` dumps a (present) value; None when it passes the value as it is."""
    kind = _scalar(field)
    if kind is not None:
        return lambda value: value if value is None or type(value) is kind else kind(value)
    if isinstance(field, TaggedUnion):
        return _union_dumper(field)
    if isinstance(field, fields.Nested):
        return _nested_dumper(field)
    if isinstance(field, fields.List):
        return _list_dumper(field)
    if isinstance(field, fields.Dict):
        return _dict_dumper(field)
    if type(field) in (fields.Raw, fields.Field):
        return None
    raise TypeError(f"{field!r}: no dump plan for this field type")


def _union_dumper(field: TaggedUnion) -> Dumper:
    members = {tag: schema_dumper(schema) for tag, schema in field.members.items()}
    key = field.key
    return lambda value: None if value is None else members[value[key]](value)


def _nested_dumper(field: fields.Nested) -> Dumper:
    nested = schema_dumper(field.schema)
    if field.many:
        return lambda value: None if value is None else [nested(v) for v in value]
    return lambda value: None if value is None else nested(value)


def _list_dumper(field: fields.List) -> Dumper:
    item = _scalar(field.inner)
    if item is not None:  # (a list of cards: the conversion inline, no call an item)
        return lambda value: (
            None
            if value is None
            else [v if v is None or type(v) is item else item(v) for v in value]
        )
    inner = field_dumper(field.inner)
    if inner is None:
        return lambda value: None if value is None else list(value)
    return lambda value: None if value is None else [inner(v) for v in value]


def _dict_dumper(field: fields.Dict) -> Dumper:
    if field.key_field is not None and not isinstance(field.key_field, fields.String):
        raise TypeError(f"{field!r}: only string keys are planned")
    values = field_dumper(field.value_field) if field.value_field is not None else None
    return lambda value: (
        None
        if value is None
        else {str(k): v if values is None else values(v) for k, v in value.items()}
    )


def schema_dumper(schema: ma.Schema) -> Dumper:
    """The plan of ``schema``: (key, attribute, scalar type, dumper) for each field it
    dumps; a scalar's conversion is inline (no call a field), any other field's value
    goes through its dumper (if it has one)."""
    plan = []
    for name, field in schema.dump_fields.items():
        attribute = field.attribute or name
        if "." in attribute or field.dump_default is not ma.missing:
            raise TypeError(f"{schema!r}.{name}: dotted attributes, dump defaults: not planned")
        kind = _scalar(field)
        dumper = None if kind is not None else field_dumper(field)
        plan.append((field.data_key or name, attribute, kind, dumper))

    def dump(obj: Any) -> dict[str, Any]:
        # (A plain dict, what views are, without the ABC's isinstance check.)
        get: Callable[[str, Any], Any]
        if type(obj) is dict or isinstance(obj, Mapping):
            get = obj.get
        else:
            get = lambda a, d: getattr(obj, a, d)  # noqa: E731
        out = {}
        for key, attribute, kind, dumper in plan:
            value = get(attribute, _MISSING)
            if value is _MISSING:
                continue
            if kind is not None:
                if value is not None and type(value) is not kind:
                    value = kind(value)
            elif dumper is not None:
                value = dumper(value)
            out[key] = value
        return out

    return dump


class TaggedUnion(fields.Field):
    """A value that is one of several response schemas, the one its ``key`` names: in
    the spec, a named ``oneOf`` of them with a ``discriminator`` on ``key``
    (service/api/openapi.py). A value whose ``key`` names none of them fails to dump
    (a KeyError): a union lists every kind of value it is given."""

    def __init__(
        self,
        component: str,
        key: str,
        members: Mapping[str, ResponseSchema],
        *,
        description: str,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        #: The name of the union in the spec's components, and what it is.
        self.component = component
        self.description = description
        self.key = key
        #: The schema of each value of ``key``.
        self.members = dict(members)

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        if value is None:
            return None
        return self.members[value[self.key]].dump(value)


class ResponseSchema(ma.Schema):
    """A schema of what the API answers; ``dump`` runs the compiled plan.

    Every field is always present in an answer, and the spec says so (``required``: a
    generated client then types it as present), but for those ``optional`` names."""

    #: The fields an answer may leave out.
    optional: ClassVar[frozenset[str]] = frozenset()
    _plan: Dumper | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            field.required = name not in self.optional

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        plan = self._plan
        if plan is None:
            plan = self._plan = schema_dumper(self)
        if self.many if many is None else many:
            return [plan(o) for o in obj]
        return plan(obj)
