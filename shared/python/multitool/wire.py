"""Base model for everything that crosses a boundary as JSON.

Python code uses snake_case; the wire (Lambda bodies, API responses, stored
items, the web page) uses camelCase. Dump with ``by_alias=True`` (``to_wire``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=True,
        extra="forbid",
        str_strip_whitespace=True,
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready camelCase mapping of this model."""
        return self.model_dump(mode="json", by_alias=True)
