"""What the OpenAPI document says beyond what apispec's marshmallow plugin says by itself:
each set of values the API uses in many places (:class:`~.fields.Enumeration`: Card,
BotLevel, Variant, ProblemType, ...) and each union (:class:`~.responses.TaggedUnion`:
Event) is one named schema in the components, and every field holding one refers to it;
a field that may also be null is ``anyOf`` [its schema, ``{"type": "null"}``], the one
way of writing it that client generators turn into ``X | None``.

flask-smorest takes the plugin through ``spec_kwargs`` (service/app.py); it converts
fields with :class:`Converter`, apispec's documented ``MarshmallowPlugin.Converter``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import marshmallow as ma
from apispec.ext.marshmallow import MarshmallowPlugin, OpenAPIConverter

from .fields import Enumerated
from .responses import TaggedUnion

#: What a reference keeps of the property a field would otherwise be: what belongs to
#: the field, not to the values (their type and enum are the named schema's).
_OWN = ("description", "default", "readOnly", "writeOnly", "deprecated", "examples")


class Converter(OpenAPIConverter):
    def field2property(self, field: ma.fields.Field) -> dict[str, Any]:
        if isinstance(field, Enumerated):
            enumeration = field.enumeration
            return self._refer(field, enumeration.name, enumeration.schema)
        if isinstance(field, TaggedUnion):
            return self._refer(field, field.component, lambda: self._union(field))
        prop: dict[str, Any] = super().field2property(field)
        if None in prop.get("enum", ()):
            return self._nullable_enum(prop)
        return prop

    @staticmethod
    def _nullable_enum(prop: dict[str, Any]) -> dict[str, Any]:
        """A nullable enum as ``anyOf`` [the values, ``null``], not ``null`` among the
        values: generators make one enum type and ``None`` of it (with ``null`` inside the
        enum, openapi-python-client made three identical enum classes)."""
        own = {k: v for k, v in prop.items() if k in _OWN}
        values = {k: v for k, v in prop.items() if k not in _OWN}
        values["enum"] = [v for v in values["enum"] if v is not None]
        kinds = values.get("type")
        if isinstance(kinds, list):
            rest = [k for k in kinds if k != "null"]
            values["type"] = rest[0] if len(rest) == 1 else rest
        return {"anyOf": [values, {"type": "null"}], **own}

    def _refer(
        self, field: ma.fields.Field, name: str, schema: Callable[[], dict[str, Any]]
    ) -> dict[str, Any]:
        """A reference to the named schema ``name`` (registered, from ``schema()``, the
        first time), with what the field says of itself; ``null`` too if it allows it."""
        if name not in self.spec.components.schemas:
            self.spec.components.schema(name, schema())
        ref = self.spec.components.get_ref("schema", name)
        own = {k: v for k, v in super().field2property(field).items() if k in _OWN}
        if field.allow_none:
            return {"anyOf": [ref, {"type": "null"}], **own}
        return {**ref, **own}

    def _union(self, field: TaggedUnion) -> dict[str, Any]:
        """``oneOf`` the members, told apart by the ``discriminator`` on the field's key."""
        refs = {tag: self.resolve_nested_schema(schema) for tag, schema in field.members.items()}
        return {
            "description": field.description,
            "oneOf": list(refs.values()),
            "discriminator": {
                "propertyName": field.key,
                "mapping": {tag: ref["$ref"] for tag, ref in refs.items()},
            },
        }


class ContractPlugin(MarshmallowPlugin):
    """apispec's marshmallow plugin, converting fields with :class:`Converter`."""

    Converter = Converter
