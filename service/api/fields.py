"""The fields every resource's schemas are made of: cards, strict integers and booleans,
text whose rules (service/play/text.py: display names, abort reasons, metadata values)
the spec states and the command path checks, the variant and its rule options, a seat's
player id and a game's metadata. Every field is documented, because the OpenAPI contract
in ``openapi/openapi.json`` is
generated from the schemas.

A set of values the API uses in many places (the cards, the bot levels, the variants) is
an :class:`Enumeration`: the spec describes it once, as a named schema in its components,
and every :class:`Enumerated` field refers to it (service/api/openapi.py). Each value has
a stable name there too (``x-enum-varnames``), the name a generated client gives its
member: ``SEVEN_OF_COINS`` for ``7D``, not ``VALUE_27``, which would shift when a value is
added."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ..bots.base import LEVELS
from ..engine import DECK, VARIANTS, Rules, get_variant
from ..engine.rules import OPTIONS, Option
from ..play.text import ABORT_REASON, DISPLAY_NAME, METADATA_VALUE, TextKind
from .card_names import card_name

CARD_CODES = [card.code for card in DECK]


def identifier(text: str) -> str:
    """``text`` as an enum member's name: upper case, words joined by ``_`` (``Seven of
    Coins``: ``SEVEN_OF_COINS``; ``/problems/illegal-move``: ``PROBLEMS_ILLEGAL_MOVE``)."""
    return re.sub(r"[^A-Z0-9]+", "_", text.upper()).strip("_")


@dataclass(frozen=True)
class Enumeration:
    """A set of strings the spec names once (``name``, in its components) and refers to
    wherever a field takes one of them."""

    name: str
    values: tuple[str, ...]
    description: str
    #: The value the spec shows as an example (default: the first).
    example: str | None = None
    #: The message of a value that is not one of them (``{input}``: the value).
    error: str = "Must be one of: {choices}."
    #: Each value's name in a generated client, in the order of ``values`` (default:
    #: the value made an :func:`identifier`).
    names: tuple[str, ...] | None = None
    #: What each value means, in the order of ``values`` (``x-enum-descriptions``, which
    #: client generators write beside each member), if the values need saying.
    descriptions: tuple[str, ...] | None = None

    def varnames(self) -> list[str]:
        """The names of the values (``x-enum-varnames``): identifiers, one per value, all
        different; a ValueError says which when they are not."""
        names = list(self.names or (identifier(v) for v in self.values))
        if len(names) != len(self.values) or len(set(names)) != len(names):
            raise ValueError(f"{self.name}: one distinct name per value, not {names}")
        bad = [n for n in names if not n.isidentifier() or n[0].isdigit()]
        if bad:
            raise ValueError(f"{self.name}: {bad} are not identifiers")
        return names

    def schema(self) -> dict[str, Any]:
        """The named schema: a string enum, described, with an example, and a stable name
        for each value (``x-enum-varnames``, which client generators read), and what each
        means if told."""
        schema: dict[str, Any] = {
            "type": "string",
            "enum": list(self.values),
            "x-enum-varnames": self.varnames(),
            "description": self.description,
            "examples": [self.example or self.values[0]],
        }
        if self.descriptions is not None:
            if len(self.descriptions) != len(self.values):
                raise ValueError(f"{self.name}: one description per value")
            schema["x-enum-descriptions"] = list(self.descriptions)
        return schema


class Enumerated(fields.String):
    """A string that must be one of an enumeration's values; in the spec, a reference to
    the enumeration's named schema (with the field's own description beside it)."""

    def __init__(self, enumeration: Enumeration, **kwargs: Any) -> None:
        self.enumeration = enumeration
        self.allowed = frozenset(enumeration.values)
        self.refuse = validate.OneOf(enumeration.values, error=enumeration.error)
        super().__init__(**kwargs)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> str:
        if type(value) is str and value in self.allowed:
            return value  # (a plain str of the enumeration: what String's would return)
        text: str = super()._deserialize(value, attr, data, **kwargs)
        if text not in self.allowed:
            self.refuse(text)  # (raises, with the enumeration's message)
        return text


class EnumeratedList(fields.List):
    """A list of an enumeration's values: a plain list of them is taken as it is (what
    the list's field would make of it, item by item); anything else goes item by item,
    each refused as the enumeration refuses it."""

    inner: Enumerated

    def __init__(self, enumeration: Enumeration, **kwargs: Any) -> None:
        super().__init__(Enumerated(enumeration), **kwargs)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> list[Any]:
        allowed = self.inner.allowed
        if type(value) is list and all(type(v) is str and v in allowed for v in value):
            return list(value)
        return super()._deserialize(value, attr, data, **kwargs)


CARD = Enumeration(
    "Card",
    tuple(CARD_CODES),
    "A card (docs/rules.md R1): its value 1-10 (ace 1, Fante 8, Cavallo 9, Re 10) then its "
    "suit: `D` Denari (coins), `C` Coppe (cups), `S` Spade (swords), `B` Bastoni (clubs). "
    "`7D` is the settebello.",
    example="7D",
    error="{input!r} is not a card code such as '7D'.",
    names=tuple(identifier(card_name(c.value, c.suit, "italian", "en")) for c in DECK),
)
BOT_LEVEL = Enumeration(
    "BotLevel",
    tuple(level.name for level in LEVELS),
    "A computer player's level, weakest first; `GET /v1/bot-levels` describes each, with "
    "its measured strength: "
    + ", ".join(f"`{level.name}` ({level.label})" for level in LEVELS)
    + ".",
)
VARIANT = Enumeration(
    "Variant",
    tuple(VARIANTS),
    "A game the service plays (docs/rules.md R10); `GET /v1/variants` describes each: "
    + ", ".join(f"`{v.name}` ({v.title})" for v in VARIANTS.values())
    + ".",
)


def Card(**kwargs: Any) -> Enumerated:  # noqa: N802 - a field factory, used like a class
    """A card code (docs/rules.md R1): value 1-10 then suit D, C, S or B."""
    return Enumerated(CARD, **kwargs)


def Cards(description: str, **kwargs: Any) -> fields.List:  # noqa: N802
    return EnumeratedList(CARD, metadata={"description": description}, **kwargs)


def BotLevel(**kwargs: Any) -> Enumerated:  # noqa: N802
    return Enumerated(BOT_LEVEL, **kwargs)


class StrictInteger(fields.Integer):
    """An integer that must be a JSON number with no fractional part: 12 or 12.0 (what
    JSON Schema, and so the spec, calls an integer), not 12.5, "12" or true."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return super()._deserialize(value, attr, data, **kwargs)


def Integer(description: str | None = None, **kwargs: Any) -> fields.Integer:  # noqa: N802
    """An integer that must be a JSON integer: no 2.5, no "12", no true; the spec
    describes it with ``description``, if given."""
    if description is not None:
        kwargs["metadata"] = {"description": description}
    return StrictInteger(strict=True, **kwargs)


class StrictBoolean(fields.Boolean):
    """A boolean that must be a JSON true or false: no "yes", no 1."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def Boolean(description: str | None = None, **kwargs: Any) -> fields.Boolean:  # noqa: N802
    """A boolean that must be a JSON true or false; the spec describes it with
    ``description``, if given."""
    if description is not None:
        kwargs["metadata"] = {"description": description}
    return StrictBoolean(**kwargs)


def String(description: str, *, example: str | None = None, **kwargs: Any) -> fields.String:  # noqa: N802
    """A string field, which the spec describes with ``description`` (and shows with
    ``example``, if given)."""
    metadata = {"description": description}
    if example is not None:
        metadata["example"] = example
    return fields.String(metadata=metadata, **kwargs)


def Float(description: str, **kwargs: Any) -> fields.Float:  # noqa: N802
    """A number field, which the spec describes with ``description``."""
    return fields.Float(metadata={"description": description}, **kwargs)


def Nested(schema: Any, description: str, **kwargs: Any) -> fields.Nested:  # noqa: N802
    """An object of ``schema``, which the spec describes with ``description``."""
    return fields.Nested(schema, metadata={"description": description}, **kwargs)


def NestedList(schema: Any, description: str, **kwargs: Any) -> fields.List:  # noqa: N802
    """A list of objects of ``schema``, which the spec describes with ``description``."""
    return fields.List(fields.Nested(schema), metadata={"description": description}, **kwargs)


class Text(fields.String):
    """A string of a kind of text (service/play/text.py) whose rules the spec states: its
    description ends with them, and gives its bounds (``minLength``, ``maxLength``). The
    rules are checked once, by the command path, for every entry point (the policy's
    ``texts``: service/play/commands/texts.py), not here."""

    def __init__(self, kind: TextKind, **kwargs: Any) -> None:
        self.kind = kind
        metadata = dict(kwargs.pop("metadata", None) or {})
        said = metadata.get("description")
        metadata["description"] = f"{said} {kind.rules()}" if said else kind.rules()
        metadata.setdefault("minLength", 1)
        metadata.setdefault("maxLength", kind.max_code_points)
        super().__init__(metadata=metadata, **kwargs)


class DisplayName(Text):
    """A person's display name (:data:`~service.play.text.DISPLAY_NAME`): 1-40
    characters of plain text, NFC-normalised."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(DISPLAY_NAME, **kwargs)


def AbortReason(**kwargs: Any) -> Text:  # noqa: N802
    """Why a game is aborted: 1-200 characters of plain text."""
    return Text(ABORT_REASON, **kwargs)


def MetadataValue(**kwargs: Any) -> Text:  # noqa: N802
    """A value of a game's metadata: 1-1024 characters of plain text."""
    return Text(METADATA_VALUE, **kwargs)


def Variant(description: str = "The game whose rules apply.") -> Enumerated:  # noqa: N802
    """The ``variant`` of a request: classic Scopa when left out."""
    return Enumerated(VARIANT, load_default="scopa", metadata={"description": description})


def VariantName(**kwargs: Any) -> Enumerated:  # noqa: N802
    """The variant of an answer."""
    return Enumerated(VARIANT, **kwargs)


class StrictSchema(ma.Schema):
    """A request body: unknown fields are refused."""

    class Meta:
        unknown = ma.RAISE
        ordered = True


def _option_field(option: Option, *, cirulla: bool = False) -> fields.Field:
    """A rule option's field. Cirulla's have no default here: left out, they are left
    out of the stored rules too, which keep only what differs from the defaults."""
    metadata: dict[str, Any] = {"description": option.description}
    if cirulla:
        metadata["default"] = option.default
        if option.bounds:
            low, high = option.bounds
            return Integer(validate=validate.Range(low, high), metadata=metadata)
        return Boolean(metadata=metadata)
    if option.choices:
        return fields.String(
            load_default=option.default,
            validate=validate.OneOf(option.choices),
            metadata=metadata,
        )
    return Boolean(load_default=option.default, metadata=metadata)


class RulesSchema(StrictSchema):
    """Rule options (docs/rules.md R9, R10); every one is off unless asked for. Options
    that belong to another variant are refused with 422."""

    re_bello = _option_field(OPTIONS["re_bello"])
    napola = _option_field(OPTIONS["napola"])
    napoleone = _option_field(OPTIONS["napoleone"])
    forced_capture = _option_field(OPTIONS["forced_capture"])
    dealer_last_sweep = _option_field(OPTIONS["dealer_last_sweep"])
    table_low = _option_field(OPTIONS["table_low"], cirulla=True)
    auto_declare = _option_field(OPTIONS["auto_declare"], cirulla=True)
    fewest_cards = _option_field(OPTIONS["fewest_cards"], cirulla=True)
    matta_keeps_value = _option_field(OPTIONS["matta_keeps_value"], cirulla=True)
    piccola_max = _option_field(OPTIONS["piccola_max"], cirulla=True)
    cappotto = _option_field(OPTIONS["cappotto"], cirulla=True)


def RulesField() -> fields.Nested:  # noqa: N802
    """The ``rules`` of a request: every option at its default when left out."""
    return fields.Nested(RulesSchema, load_default=lambda: dict(_default_rules()))


@functools.cache
def _default_rules() -> dict[str, Any]:
    """Every option at its default, loaded once (a schema made for each request that
    leaves ``rules`` out cost a creation more than its game did); callers get a copy."""
    loaded: dict[str, Any] = RulesSchema().load({})
    return loaded


def check_rules_fit(data: dict[str, Any]) -> None:
    """Raise a ValidationError on ``rules`` when an option does not apply to the variant."""
    problem = get_variant(data["variant"]).check_rules(Rules.from_dict(data["rules"]))
    if problem:
        raise ma.ValidationError(problem + ".", field_name="rules")


def KeptMatta() -> fields.Integer:  # noqa: N802
    """The value Cirulla's 7C keeps in a position (option ``matta_keeps_value``)."""
    return Integer(
        allow_none=True,
        validate=validate.Range(1, 10),
        metadata={
            "description": "Cirulla with the option `matta_keeps_value` only: the value a "
            "declaration gave the `7C`, in the hand or on the table, which it keeps until "
            "captured (docs/rules.md C5.2); leave it out or null when it keeps none."
        },
    )


def check_kept_matta(data: dict[str, Any]) -> None:
    """Raise a ValidationError on ``matta_as`` where the position's rules give the 7C no
    kept value (C5.2), or where the 7C is in neither the hand nor the table."""
    if data.get("matta_as") is None:
        return
    if not Rules.from_dict(data["rules"]).matta_keeps_value:
        raise ma.ValidationError(
            "The 7C keeps a value only in Cirulla with the option matta_keeps_value (C5.2).",
            field_name="matta_as",
        )
    if "7C" not in data["hand"] and "7C" not in data["table"]:
        raise ma.ValidationError(
            "The 7C is in neither the hand nor the table: it keeps no value here.",
            field_name="matta_as",
        )


def check_no_repeats(groups: dict[str, list[list[str]]]) -> None:
    """Raise a ValidationError naming the field where a card appears a second time."""
    seen: dict[str, str] = {}
    for field, lists in groups.items():
        for cards in lists:
            for code in cards:
                if code in seen:
                    where = "twice" if seen[code] == field else f"in both {seen[code]} and {field}"
                    raise ma.ValidationError(f"{code} appears {where}.", field_name=field)
                seen[code] = field


# -- who plays, and the platform's data about a game ---------------------------------------


def Name(description: str, **kwargs: Any) -> fields.String:  # noqa: N802
    """A person's display name (its rules: service/play/text.py)."""
    return DisplayName(metadata={"description": description}, **kwargs)


#: A platform's player id: printable ASCII, no spaces (a UUID, a number, "user:42").
MAX_PLAYER_ID = 64
PLAYER_ID = validate.Regexp(
    r"^[\x21-\x7e]{1,64}$",
    error=f"1 to {MAX_PLAYER_ID} printable ASCII characters, no spaces.",
)
#: A game's metadata: at most this many entries, of at most this many bytes in all (keys
#: and values, UTF-8); keys of letters, digits and _ . - (they are listing filters:
#: `metadata.<key>=<value>`).
MAX_METADATA_ENTRIES = 16
MAX_METADATA_BYTES = 1024
METADATA_KEY = validate.Regexp(
    r"^[A-Za-z0-9_.-]{1,40}$", error="1 to 40 letters, digits, _ . or -."
)

#: The query parameters of a metadata filter: ``metadata.<key>=<value>``.
METADATA_FILTER = "metadata."


class MetadataFilters(StrictSchema):
    """A query of a key's games (a listing, an export) that filters by metadata: each
    ``metadata.<key>=<value>`` parameter, gathered under ``metadata``; an unknown
    parameter is refused (422)."""

    metadata = fields.Dict(
        keys=fields.String(validate=METADATA_KEY),
        values=fields.String(validate=validate.Length(max=MAX_METADATA_BYTES)),
        metadata={
            "description": "Sent as `metadata.<key>=<value>` (one parameter per key): only "
            "the games whose metadata has each of these entries.",
            "example": {"tournament": "spring-cup"},
        },
    )

    @ma.pre_load
    def _metadata_filters(self, data: Any, **kwargs: Any) -> dict[str, Any]:
        """``metadata.<key>=<value>`` parameters, gathered under ``metadata``."""
        loaded = {k: data[k] for k in data if not k.startswith(METADATA_FILTER)}
        filters = {
            k[len(METADATA_FILTER) :]: data[k] for k in data if k.startswith(METADATA_FILTER)
        }
        if filters:
            loaded["metadata"] = filters
        return loaded


def PlayerId(description: str, **kwargs: Any) -> fields.String:  # noqa: N802
    """A seat's player id, the platform's own."""
    return fields.String(
        validate=PLAYER_ID, metadata={"description": description, "example": "user-8812"}, **kwargs
    )


def check_metadata(value: dict[str, str]) -> None:
    """Metadata within its bounds (entries, bytes)."""
    if len(value) > MAX_METADATA_ENTRIES:
        raise ma.ValidationError(f"At most {MAX_METADATA_ENTRIES} entries.")
    size = sum(len(k.encode()) + len(v.encode("utf-8", "surrogatepass")) for k, v in value.items())
    if size > MAX_METADATA_BYTES:
        raise ma.ValidationError(
            f"At most {MAX_METADATA_BYTES} bytes of keys and values in all (UTF-8); these "
            f"are {size}."
        )


def Metadata(values: fields.Field | None = None, **kwargs: Any) -> fields.Dict:  # noqa: N802
    """A game's metadata: its values stated as :func:`MetadataValue` (the command path
    checks them), or ``values``."""
    return fields.Dict(
        keys=fields.String(validate=METADATA_KEY),
        values=values or MetadataValue(),
        metadata={
            "description": f"The platform's own data about the game, as text: at most "
            f"{MAX_METADATA_ENTRIES} entries of {MAX_METADATA_BYTES} bytes in all, keys of "
            "letters, digits and `_ . -`. Shown to everyone who sees the game; a key lists "
            "its games by it (`metadata.<key>=<value>`).",
            "example": {"tournament": "spring-cup", "round": "3"},
        },
        **kwargs,
    )


#: The most entries a listing's page holds (a key's games, tournaments, a leaderboard).
MAX_PAGE = 100


def PageLimit(entries: str) -> fields.Integer:  # noqa: N802
    """A listing's ``limit``: how many ``entries`` a page holds at most (from a query
    string: text)."""
    return fields.Integer(
        load_default=20,
        validate=validate.Range(1, MAX_PAGE),
        metadata={
            "description": f"The most {entries} on the page (1 to {MAX_PAGE}; 20 by default)."
        },
    )


def PageCursor(first: str) -> fields.String:  # noqa: N802
    """A listing's ``cursor``: where a page starts, from the page before's ``next``
    (``first``: where a page starts without one)."""
    return String(
        "Where the page starts: the `cursor` of the `next` link of the page before "
        f"(opaque). Left out: {first}.",
        validate=validate.Length(1, 200),
    )
