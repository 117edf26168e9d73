"""The one way a validation error becomes words: ``field: message; field: message``.

Every API (action groups, /chat, the review, the card mapper) names a field the same way:
camelCase names joined by dots, list positions in brackets (``to[0]``, ``slot.start``,
``attendees[2]``), the request body itself ``body``. Messages never echo the input.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

IGNORED_PARTS = frozenset({"body"})
"""Location parts that name the request body itself (Powertools' ``("body", "to", 0)``)."""


def field_path(location: Iterable[int | str]) -> str:
    """``("to", 0)`` -> ``to[0]``; ``("slot", "start")`` -> ``slot.start``; ``()`` -> ``body``."""
    path = ""
    for part in location:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part not in IGNORED_PARTS or path:
            path += f".{part}" if path else str(part)
    return path or "body"


# pydantic's words for these name the model class ("instance of Slot"): internal names, not the API's.
_WORDS = {
    "missing": "is missing",
    "json_invalid": "must be valid JSON",
    "model_type": "must be a JSON object",
    "model_attributes_type": "must be a JSON object",
    "dataclass_type": "must be a JSON object",
    "dataclass_exact_type": "must be a JSON object",
}


def _message(item: Mapping[str, Any]) -> str:
    return _WORDS.get(str(item.get("type")), "") or str(item.get("msg") or "is invalid")


def error_items(error: ValidationError | Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    if isinstance(error, ValidationError):
        return list(error.errors(include_url=False, include_input=False))
    return list(error)


def problems(error: ValidationError | Sequence[Mapping[str, Any]], *, empty: str = "body") -> str:
    """``"to[0]: String should have at least 1 character; subject: is missing"``."""
    parts = []
    for item in error_items(error):
        path = field_path(item.get("loc", ()))
        parts.append(f"{empty if path == 'body' else path}: {_message(item)}")
    return "; ".join(parts)


def first_field(error: ValidationError | Sequence[Mapping[str, Any]]) -> str:
    """The field of the first problem (what an error's ``field`` names)."""
    items = error_items(error)
    return field_path(items[0].get("loc", ())) if items else "body"
