"""Base types for everything that crosses a boundary as JSON.

Python code uses snake_case; the wire (Lambda bodies, API responses, stored
items, the web page) uses camelCase. Dump with ``to_wire()``, read with ``from_wire()``.

Requests, payloads, cards and stored items are :class:`WireModel` models, and so are most of the
small values they are made of: on pydantic 2.14 and Python 3.13 a frozen model is the cheapest of
pydantic's shapes to define (about 0.3 ms a class, where a frozen, slotted pydantic dataclass of the
same fields takes 1.1-1.5 ms: its stdlib half compiles its generated methods), and a cold start
defines dozens.

The few values a trace validates by the thousand inside its cards (people, name resolutions, slots
and each person's side of one) are frozen, slotted pydantic dataclasses with :data:`VALUE_CONFIG` and
the :class:`WireValue` methods instead: inside a card's ``validate_json`` they validate about a
quarter faster than models (1,000 cards of a trace: 10.0 against 13.3 ms, ``python -m benchmarks
traces``), worth their 1 ms more each to define.
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

    @classmethod
    def from_wire(cls, data: object) -> Self:
        """The model of a camelCase (or snake_case) mapping; raises ``ValidationError``."""
        return cls.model_validate(data)


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
