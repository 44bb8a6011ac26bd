"""The short cut that loads the plainly valid bodies of a move and a declaration
(service/api/fast_load.py) answers exactly what marshmallow's own ``load`` answers: the
same dict, its values of the same types, its keys in the same order, for every body it
takes; and it leaves every body marshmallow refuses to marshmallow, whose errors stay
what they were. Compared on every schema that uses it, on bodies Hypothesis draws and
on hand-picked ones."""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import marshmallow as ma
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.api.fast_load import FastLoadSchema
from service.api.fields import CARD_CODES, DisplayName, StrictSchema
from service.api.resources.games.schemas import DeclarationRequestSchema, MoveRequestSchema


def subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *subclasses(sub)]
    return found


#: Every schema that uses the short cut (those the service declares).
SCHEMAS = subclasses(FastLoadSchema)


def typed(value: Any) -> Any:
    """``value`` with every type spelled out and every dict's order kept, so that
    ``True`` is not ``1``, ``1.0`` is not ``1`` and ``{a, b}`` is not ``{b, a}``."""
    if isinstance(value, dict):
        return (type(value), [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value), [typed(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return (float, "nan")
    return (type(value), value)


def outcome(load: Any, data: Any) -> Any:
    """What ``load(data)`` answers: its result, or its error's messages, typed."""
    try:
        return ("loaded", typed(load(data)))
    except ma.ValidationError as error:
        return ("refused", typed(error.messages))


def same_as_marshmallow(schema_class: type[ma.Schema], data: Any) -> None:
    """The schema's load (short cut or not) answers ``data`` as marshmallow's own load
    of the same schema does; whatever the short cut answers itself is that answer."""
    schema = schema_class()
    expected = outcome(lambda d: ma.Schema.load(schema_class(), d), data)
    assert outcome(schema.load, data) == expected
    if isinstance(schema, FastLoadSchema):
        fast = schema.fast_load(data)
        if fast is not None:
            assert ("loaded", typed(fast)) == expected


def test_the_move_and_the_declaration_use_the_short_cut() -> None:
    assert MoveRequestSchema in SCHEMAS and DeclarationRequestSchema in SCHEMAS
    for schema_class in SCHEMAS:
        assert schema_class().plan is not None, schema_class


# Values near each field's rules, and any JSON at all.
CARDS = st.sampled_from(CARD_CODES)
CARD_LIKE = st.one_of(
    CARDS,
    CARDS.map(str.lower),
    st.sampled_from(["", "0D", "11C", "7X", "7d ", " 7D", "7♦", "10", "D7", "7DD"]),
)
JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-2, 12),
    st.floats(),
    st.sampled_from([0.0, 1.0, 7.0, 10.0, 7.5, -0.0]),
    st.text(max_size=6),
)
JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)
NEAR = st.one_of(
    CARD_LIKE,
    st.lists(CARD_LIKE, max_size=6),
    st.lists(CARDS, max_size=40),
    st.lists(st.one_of(CARD_LIKE, JSON_SCALARS), max_size=4),
    st.sampled_from(["buona", "decino", "Buona", "BUONA", "napola", "yes", "true", "false"]),
    JSON_SCALARS,
    JSON,
)
EXTRA_KEYS = ["seat", "Card", "", "capture ", "matta", "cards", "__class__"]
#: Valid values of each field of the schemas, by name.
VALID = {
    "card": CARDS,
    "capture": st.none() | st.lists(CARDS, max_size=6),
    "sweep": st.booleans(),
    "declare": st.sampled_from(["buona", "decino"]),
    "matta_as": st.none() | st.integers(1, 10),
    "points": st.integers(),
}


@st.composite
def bodies(draw: st.DrawFn, schema_class: type[ma.Schema]) -> Any:
    """A body for ``schema_class``: mostly dicts of its keys (each present or not, in
    any order), with valid values, values near its fields' rules or anything; at times
    with unknown keys; at times not a dict at all."""
    keys = list(schema_class().load_fields)
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(JSON)
    chosen = draw(st.permutations(keys))
    chosen = [k for k in chosen if draw(st.booleans()) or k == keys[0]]
    if kind == 1:
        chosen += draw(st.lists(st.sampled_from(EXTRA_KEYS), max_size=2, unique=True))
    valid = kind >= 5  # half the bodies: valid values, at times one of them not
    body = {
        key: draw(VALID[key] if valid and key in VALID and draw(st.integers(0, 5)) else NEAR)
        for key in chosen
    }
    if kind == 2 and body:
        return [body]
    return body


@pytest.mark.parametrize("schema_class", SCHEMAS, ids=lambda c: c.__name__)
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_short_cut_answers_as_marshmallow(schema_class: type[ma.Schema], data: Any) -> None:
    same_as_marshmallow(schema_class, data.draw(bodies(schema_class)))


LONG = [CARD_CODES[i % 40] for i in range(20_000)]

MOVE_BODIES: list[Any] = [
    # Plainly valid: the short cut's.
    {"card": "7D"},
    {"card": "7D", "capture": ["7C"]},
    {"capture": ["7C"], "card": "7D"},
    {"card": "7D", "capture": []},
    {"card": "7D", "capture": None},
    {"card": "7D", "capture": ["7C", "7C"]},  # duplicates: loaded, refused by the game
    {"card": "7D", "capture": ["1D", "2C", "3S", "4B"], "sweep": True},
    {"sweep": False, "capture": [], "card": "10B"},
    {"card": "7D", "capture": LONG},
    # Refused, or anything else marshmallow answers.
    {"card": "7d"},
    {"card": "7D", "capture": ["7c"]},
    {"card": "7D", "capture": ["7C", None]},
    {"card": "7D", "capture": [["7C"]]},
    {"card": "7D", "capture": "7C"},
    {"card": "7D", "capture": ("7C",)},
    {"card": "7D", "capture": {"7C": 1}},
    {"card": "7D", "capture": [1]},
    {"card": "7D", "capture": [True]},
    {"card": "7D", "capture": [*LONG, "7c"]},
    {"card": 1},
    {"card": 7.0},
    {"card": True},
    {"card": None},
    {"card": ["7D"]},
    {"card": b"7D"},
    {"card": "7D", "sweep": "yes"},
    {"card": "7D", "sweep": "true"},
    {"card": "7D", "sweep": 1},
    {"card": "7D", "sweep": 0},
    {"card": "7D", "sweep": None},
    {"card": "7D", "seat": 1},
    {"card": "7D", "Capture": []},
    {"capture": ["7C"]},
    {"sweep": True},
    {},
    None,
    [],
    [{"card": "7D"}],
    "7D",
    7,
    True,
    OrderedDict(card="7D"),
    {"card": "7D", 1: "x"},
]

DECLARATION_BODIES: list[Any] = [
    {"declare": "buona"},
    {"declare": "decino", "matta_as": None, "points": 10},
    {"points": 3, "matta_as": 7, "declare": "buona"},
    {"declare": "buona", "matta_as": 1},
    {"declare": "buona", "matta_as": 10},
    {"declare": "buona", "points": -(2**80)},
    {"declare": "Buona"},
    {"declare": "napola"},
    {"declare": None},
    {"declare": 3},
    {"declare": "buona", "matta_as": 0},
    {"declare": "buona", "matta_as": 11},
    {"declare": "buona", "matta_as": 2**80},
    {"declare": "buona", "matta_as": 7.0},
    {"declare": "buona", "matta_as": 7.5},
    {"declare": "buona", "matta_as": True},
    {"declare": "buona", "matta_as": False},
    {"declare": "buona", "matta_as": "7"},
    {"declare": "buona", "points": True},
    {"declare": "buona", "points": 3.0},
    {"declare": "buona", "points": None},
    {"declare": "buona", "card": "7D"},
    {"matta_as": 7},
    {},
    None,
    ["buona"],
]


def short(body: Any) -> str:
    """A body's test id: its repr, cut (a 20,000-card list would be the whole id)."""
    text = repr(body)
    return text if len(text) <= 80 else f"{text[:60]}...({len(text)} chars)"


@pytest.mark.parametrize("body", MOVE_BODIES, ids=short)
def test_move_bodies_load_as_marshmallow_loads_them(body: Any) -> None:
    same_as_marshmallow(MoveRequestSchema, body)


@pytest.mark.parametrize("body", DECLARATION_BODIES, ids=short)
def test_declaration_bodies_load_as_marshmallow_loads_them(body: Any) -> None:
    same_as_marshmallow(DeclarationRequestSchema, body)


@pytest.mark.parametrize(
    ("schema_class", "body"),
    [
        (MoveRequestSchema, {"card": "7D"}),
        (MoveRequestSchema, {"capture": ["7C", "7C"], "card": "7D"}),
        (MoveRequestSchema, {"card": "7D", "capture": None, "sweep": False}),
        (MoveRequestSchema, {"card": "7D", "capture": LONG}),
        (DeclarationRequestSchema, {"declare": "decino", "matta_as": None, "points": 10}),
        (DeclarationRequestSchema, {"matta_as": 4, "declare": "buona"}),
    ],
)
def test_plainly_valid_bodies_take_the_short_cut(schema_class: type[ma.Schema], body: Any) -> None:
    schema = schema_class()
    assert isinstance(schema, FastLoadSchema)
    fast = schema.fast_load(body)
    assert fast is not None
    assert typed(fast) == typed(ma.Schema.load(schema_class(), body))
    assert list(fast) == [key for key in schema.load_fields if key in body]
    for key, value in fast.items():
        if isinstance(value, list):
            assert value is not body[key]  # a new list, as marshmallow's


def test_load_options_are_marshmallows() -> None:
    """``load`` given ``unknown``, ``partial`` or ``many`` is marshmallow's."""
    schema = MoveRequestSchema()
    assert schema.load({"card": "7D", "seat": 1}, unknown=ma.EXCLUDE) == {"card": "7D"}
    assert schema.load({"capture": []}, partial=True) == {"capture": []}
    assert schema.load([{"card": "7D"}], many=True) == [{"card": "7D"}]
    with pytest.raises(ma.ValidationError) as refused:
        schema.load({"card": "7D"}, many=True)
    assert refused.value.messages == {"_schema": ["Invalid input type."]}
    for options in ({"many": True}, {"partial": True}, {"unknown": ma.EXCLUDE}):
        assert MoveRequestSchema(**options).plan is None
        assert MoveRequestSchema(**options).fast_load({"card": "7D"}) is None


def test_a_field_it_does_not_know_leaves_every_body_to_marshmallow() -> None:
    """A field of a kind the short cut does not follow (here a name, which marshmallow
    normalises), a ``data_key``, a default: each answered as marshmallow answers."""

    class Named(FastLoadSchema):
        class Meta(StrictSchema.Meta):
            register = False

        name = DisplayName()

    class Keyed(FastLoadSchema):
        class Meta(StrictSchema.Meta):
            register = False

        card = ma.fields.String(data_key="Card")

    class Defaulted(FastLoadSchema):
        class Meta(StrictSchema.Meta):
            register = False

        card = ma.fields.String(load_default="7D")
        seen = ma.fields.List(ma.fields.String(), load_default=list)

    assert Named().plan is None and Keyed().plan is None
    assert Named().load({"name": "Zoe\u0301"}) == {"name": "Zo\u00e9"}
    assert Keyed().load({"Card": "7D"}) == {"card": "7D"}
    assert Defaulted().fast_load({}) == {"card": "7D", "seen": []}
    for body in ({}, {"card": "1B"}, {"seen": ["x"]}, {"card": None}):
        same_as_marshmallow(Defaulted, body)
    assert issubclass(FastLoadSchema, StrictSchema)
