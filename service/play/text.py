"""The rules of the text people type for others to read: display names, and the free
text a platform sends (a game's metadata values, an abort's reason). No Flask, no
marshmallow: the command path checks every command's text fields with :func:`checked`
(service/play/commands/texts.py, as each command's policy names them); the API's text
fields (service/api/fields.py) state the rules in the spec.

What every kind of text is refused for, in this order:

1. its length in code points, as sent, over the kind's bound (checked first, on the
   length alone, so that no other rule ever reads a long text);
2. an invisible character: a control (C0, C1), a lone surrogate, a line or paragraph
   separator, a format character (bidirectional controls and isolates, zero-width spaces
   and joiners, U+2060-U+2064, U+FEFF, U+180E, the tag characters U+E0000-U+E007F...) or
   any other default-ignorable code point (the Hangul fillers U+115F, U+1160, U+3164 and
   U+FFA0, letters that draw blank), except a variation selector just after a visible
   character (the one it varies: ``❤️`` is U+2764 U+FE0F);
3. for a display name: an unassigned or private-use code point (they show as nothing
   agreed); then the name is NFC-normalised (an accented letter typed either way is the
   same name) and its length checked again;
4. nothing visible: no letter, digit, punctuation or symbol once spaces, marks and the
   blank braille pattern (U+2800) are set aside (an empty text among them);
5. over :data:`MAX_MARKS` combining marks in a row (on one character: a stack of dozens
   draws over the text around it);
6. for a display name: over :data:`MAX_NAME_CHARACTERS` grapheme clusters (UAX #29,
   what a reader counts as characters).

Each rule is one pass over the text, and all but the length read at most the kind's
bound in code points: a check costs time linear in what it reads, whatever the text.
The grapheme segmentation of rule 6 (the ``regex`` module's ``\\X``, which scans back
over a run of regional indicators at each boundary) runs only on a name of over
:data:`MAX_NAME_CHARACTERS` code points and at most :data:`MAX_NAME_CODE_POINTS`; and
NFC normalisation (CPython's, which sorts a run of combining marks with a quadratic
sort) only on a text within its bound.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import regex

#: The most grapheme clusters in a display name.
MAX_NAME_CHARACTERS = 40
#: The most combining marks in a row, on one character (Vietnamese puts two on a letter).
MAX_MARKS = 4
#: The most code points in a display name: 40 characters of a base and its marks.
MAX_NAME_CODE_POINTS = MAX_NAME_CHARACTERS * (1 + MAX_MARKS)
#: The longest reason an abort may give, in code points.
MAX_ABORT_REASON = 200
#: The longest metadata value, in code points (the metadata's bytes in all are bounded
#: too, by the schema that holds them).
MAX_METADATA_VALUE = 1024


@dataclass(frozen=True)
class TextKind:
    """A kind of text and its bounds: how messages name it (``field``), its length in
    code points, and, for a display name, its length in characters as a reader counts
    them, and the rules only names follow (NFC, no unassigned or private-use code
    points)."""

    field: str
    max_code_points: int
    max_characters: int | None = None
    name: bool = False

    def rules(self) -> str:
        """The rules, as the API's documentation states them."""
        if self.name:
            size = (
                f"1 to {self.max_characters} characters as a reader counts them (grapheme "
                f"clusters), at most {self.max_code_points} code points; stored NFC-normalised"
            )
        else:
            size = f"1 to {self.max_code_points} characters (code points), stored as sent"
        refused = "an unassigned or private-use code point, " if self.name else ""
        return (
            f"Plain text: {size}. Refused (422) when it holds a control character, a line "
            "or paragraph separator, a format character (bidirectional controls and "
            "isolates such as U+202E, zero-width spaces and joiners such as U+200B, "
            "U+2060-U+2064, U+FEFF, tags) or another invisible one (the Hangul fillers "
            "U+115F, U+1160, U+3164, U+FFA0; a variation selector not just after a "
            f"visible character), {refused}nothing visible once spaces, combining marks "
            f"and U+2800 are set aside, or over {MAX_MARKS} combining marks in a row."
        )


DISPLAY_NAME = TextKind("name", MAX_NAME_CODE_POINTS, max_characters=MAX_NAME_CHARACTERS, name=True)
ABORT_REASON = TextKind("reason", MAX_ABORT_REASON)
METADATA_VALUE = TextKind("metadata value", MAX_METADATA_VALUE)


class TextRefusedError(ValueError):
    """A text breaks a rule of its kind: the message names the field and the rule, and
    at most one code point of the text (never the text)."""

    def __init__(self, kind: TextKind, rule: str, message: str) -> None:
        super().__init__(f"The {kind.field} {message}")
        self.field = kind.field
        #: Where the text is in the input, as a validation problem's ``errors`` nest
        #: it (``("seats", "0", "name")``); empty: not said.
        self.where: tuple[str, ...] = ()
        #: The rule broken: ``too-long``, ``invisible``, ``unassigned``, ``blank``,
        #: ``stacked-marks`` or ``too-many-characters``.
        self.rule = rule


_VISIBLE_BASE = r"[\p{L}\p{N}\p{P}\p{S}]"
#: What is invisible (rule 2): one character class, but a variation selector after a
#: visible character (a one-character look-behind). One pass.
_INVISIBLE = regex.compile(
    r"(?V1)[[\p{Cc}\p{Cs}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]"
    r"--\p{Variation_Selector}]"
    rf"|(?<!{_VISIBLE_BASE})\p{{Variation_Selector}}"
)
_UNDEFINED = regex.compile(r"[\p{Cn}\p{Co}]")
_VISIBLE = regex.compile(r"(?V1)[[\p{L}\p{N}\p{P}\p{S}]--[\u2800]]")
_STACKED = regex.compile(rf"[\p{{Mn}}\p{{Me}}]{{{MAX_MARKS + 1}}}")
_GRAPHEME = regex.compile(r"\X")
_BIDI = regex.compile(r"\p{Bidi_Control}")
_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")


def _what(char: str) -> str:
    """What an invisible character is, in a few words."""
    category = unicodedata.category(char)
    if _BIDI.match(char):
        return "a bidirectional control"
    if char in _ZERO_WIDTH:
        return "a zero-width character"
    if "\U000e0000" <= char <= "\U000e007f":
        return "a tag character"
    if char in _FILLERS:
        return "a filler that draws blank"
    if regex.match(r"\p{Variation_Selector}", char):
        return "a variation selector with no visible character before it"
    if category == "Cs":
        return "a lone surrogate"
    if category in ("Zl", "Zp"):
        return "a line or paragraph separator"
    if category == "Cc":
        return "a control character"
    if category == "Cf":
        return "an invisible formatting character"
    return "an invisible character"


def _code_point(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" {name}" if name else "")


def checked(value: str, kind: TextKind) -> str:
    """``value`` if it is text of ``kind`` (a display name NFC-normalised), else
    :class:`TextRefusedError` naming the first rule it breaks (see the module's
    docstring). Linear in at most ``kind.max_code_points`` whatever ``value``'s length."""
    if len(value) > kind.max_code_points:
        raise _too_long(kind, len(value))
    found = _INVISIBLE.search(value)
    if found:
        char = found.group()
        raise TextRefusedError(
            kind,
            "invisible",
            f"holds {_code_point(char)}, {_what(char)}, at character {found.start() + 1}: "
            "use plain text, without control, formatting (bidirectional, zero-width) or "
            "other invisible characters.",
        )
    if kind.name:
        value = _normalised(value, kind)
    if not _VISIBLE.search(value):
        what = "is empty" if not value else "has no visible character"
        raise TextRefusedError(
            kind,
            "blank",
            f"{what}: it needs at least one letter, digit, punctuation mark or symbol "
            "(spaces, combining marks and blank characters alone do not count).",
        )
    stacked = _STACKED.search(value)
    if stacked:
        raise TextRefusedError(
            kind,
            "stacked-marks",
            f"has over {MAX_MARKS} combining marks in a row at character "
            f"{stacked.start() + 1}: at most {MAX_MARKS} accents or other marks on one "
            "character.",
        )
    if kind.max_characters is not None and len(value) > kind.max_characters:
        count = len(_GRAPHEME.findall(value))
        if count > kind.max_characters:
            raise TextRefusedError(
                kind,
                "too-many-characters",
                f"has {count} characters (grapheme clusters): at most {kind.max_characters}.",
            )
    return value


def _normalised(value: str, kind: TextKind) -> str:
    """A name's rule 3: no unassigned or private-use code point, then NFC (which may
    lengthen it: its length is checked again)."""
    undefined = _UNDEFINED.search(value)
    if undefined:
        char = undefined.group()
        what = "a private-use" if unicodedata.category(char) == "Co" else "an unassigned"
        raise TextRefusedError(
            kind,
            "unassigned",
            f"holds U+{ord(char):04X}, {what} code point, at character "
            f"{undefined.start() + 1}: it shows as nothing agreed; use assigned characters.",
        )
    value = unicodedata.normalize("NFC", value)
    if len(value) > kind.max_code_points:
        raise _too_long(kind, len(value))
    return value


def _too_long(kind: TextKind, length: int) -> TextRefusedError:
    characters = f"{kind.max_characters} characters, " if kind.max_characters else ""
    return TextRefusedError(
        kind,
        "too-long",
        f"is {length} code points long: at most {characters}{kind.max_code_points} code points.",
    )


def display_name(value: str) -> str:
    """``value`` as a display name, NFC-normalised; :class:`TextRefusedError` if it is not one."""
    return checked(value, DISPLAY_NAME)
