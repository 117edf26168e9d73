"""The dispatch contract's programming errors, and the JSON rule a flow's state is held to.

These are never turned into tool results: a :class:`FlowError` is a bug in a step (a bad
declaration, a handler that does not answer with a route, state that is not JSON), so it
propagates out of :meth:`Flow.dispatch` with nothing of the turn applied.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class FlowError(Exception):
    """A programming error against the dispatch contract; never turned into a tool result."""


class ToolsDeclarationError(FlowError, TypeError):
    """A Step's ``@tool`` / ``@tools`` declarations are inconsistent (raised at class definition)."""


class RoutingError(FlowError, ValueError):
    """A handler returned something that is not a route, or a route to an unknown step."""


class StateError(FlowError, TypeError):
    """State that is not JSON, or state written outside a dispatch."""


def _json_object(values: object, what: str) -> dict[str, Any]:
    """A deep copy of ``values`` restricted to JSON: string keys, JSON scalars, lists, objects."""
    if not isinstance(values, Mapping):
        raise StateError(f"{what} must be a mapping, got {type(values).__name__}.")
    return {_json_key(key, what): _json_value(value, f"{what}[{key!r}]") for key, value in values.items()}


def _json_key(key: object, what: str) -> str:
    if not isinstance(key, str):
        raise StateError(f"{what} keys must be strings, got {key!r}.")
    return key


def _json_value(value: object, where: str) -> Any:
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, Mapping):
        return {_json_key(key, where): _json_value(item, f"{where}[{key!r}]") for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(item, f"{where}[{index}]") for index, item in enumerate(value)]
    raise StateError(f"{where} is not JSON-serializable: {type(value).__name__}.")
