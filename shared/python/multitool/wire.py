"""Base type for everything that crosses a boundary as JSON.

Python code uses snake_case; the wire (Lambda bodies, API responses, stored
items, the web page) uses camelCase. Dump with ``to_wire()``, read with ``from_wire()``.

Requests, payloads, cards, stored items and the small values they are made of (people, name
resolutions, slots) are all :class:`WireModel` models. On pydantic 2.14 and Python 3.13 a frozen model
is the cheapest of pydantic's shapes to define (about 0.3 ms a class, against 1.1-1.5 ms for a frozen,
slotted pydantic dataclass of the same fields, whose stdlib half compiles its generated methods) and
validates as fast (4.2 against 4.5 µs for a name resolution with three people): a cold start defines
dozens of them and validates a few.
"""

from typing import Any, Self

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        str_strip_whitespace=True,
        frozen=True,
        # A class's validator and serializer are built when it is first validated or dumped (pydantic's
        # ``defer_build``), not when its module is imported: every function imports dozens of these
        # classes and uses a few per request. A class built on the fly costs what it would have at
        # import (about 0.4 ms on Python 3.13); one a function never uses costs nothing.
        defer_build=True,
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready camelCase mapping of this model."""
        return self.model_dump(mode="json", by_alias=True)

    @classmethod
    def from_wire(cls, data: object) -> Self:
        """The model of a camelCase (or snake_case) mapping; raises ``ValidationError``."""
        return cls.model_validate(data)
