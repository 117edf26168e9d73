"""Base types for everything that crosses a boundary as JSON.

Python code uses snake_case; the wire (Lambda bodies, API responses, stored
items, the web page) uses camelCase. Dump with ``by_alias=True`` (``to_wire``).

Requests, payloads, cards and stored items are :class:`WireModel` models. The
small values they are made of, read by the thousand when a trace is turned
into cards (people, name resolutions, slots), are frozen, slotted pydantic
dataclasses with :data:`VALUE_CONFIG` and the :class:`WireValue` methods: the
same validation, aliases and JSON Schema, at about two thirds of a model's
validation cost and with faster attribute reads.
"""

from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel
from pydantic_core import SchemaSerializer, SchemaValidator

VALUE_CONFIG = ConfigDict(
    alias_generator=to_camel,
    populate_by_name=True,
    extra="forbid",
    str_strip_whitespace=True,
    # A class's validator and serializer are built when it is first validated or dumped (pydantic's
    # ``defer_build``), not when its module is imported: every function imports dozens of these
    # classes and uses a few per request. A class built on the fly costs what it would have at import
    # (about 0.4 ms on Python 3.13); one a function never uses costs nothing.
    defer_build=True,
)


class WireModel(BaseModel):
    model_config = ConfigDict(**VALUE_CONFIG, frozen=True)

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready camelCase mapping of this model."""
        return self.model_dump(mode="json", by_alias=True)


class WireValue:
    """``to_wire``/``from_wire`` for a value declared as
    ``@pydantic.dataclasses.dataclass(frozen=True, slots=True, config=VALUE_CONFIG)``."""

    __slots__ = ()
    __pydantic_validator__: ClassVar[SchemaValidator]
    __pydantic_serializer__: ClassVar[SchemaSerializer]

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready camelCase mapping of this value."""
        wire: dict[str, Any] = self.__pydantic_serializer__.to_python(self, mode="json", by_alias=True)
        return wire

    @classmethod
    def from_wire(cls, data: object) -> Self:
        """The value of a camelCase (or snake_case) mapping; raises ``ValidationError``."""
        value: Self = cls.__pydantic_validator__.validate_python(data)
        return value
