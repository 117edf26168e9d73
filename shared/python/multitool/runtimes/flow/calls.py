"""One model response's tool calls as the flow receives them, and the one result each gets back."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

ACKNOWLEDGED = "OK"
"""Result content for a call whose handler returned nothing to say."""


class ToolCall(msgspec.Struct, frozen=True):
    """One tool call of a model response, as the model sent it."""

    id: str
    name: str
    args: Mapping[str, Any]

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip():
            raise ValueError(f"A tool call needs a non-empty string id, got {self.id!r}.")
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"Tool call {self.id!r} needs a non-empty string name, got {self.name!r}.")
        if not isinstance(self.args, Mapping):
            raise ValueError(
                f"Tool call {self.id!r} ({self.name}) args must be a mapping, got {type(self.args).__name__}."
            )

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, call_id: str | None = None) -> ToolCall:
        """Build a call from a plain mapping.

        Accepts ``{"id", "name", "args"}``, a Converse ``toolUse`` block
        (``{"toolUseId", "name", "input"}``, optionally wrapped in ``{"toolUse": ...}``)
        and a Bedrock ``functionInvocationInput`` (``{"function", "parameters": [{"name", "value"}]}``,
        optionally wrapped). Return-control inputs carry no per-call id: pass ``call_id=``.
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"A tool call must be a mapping, got {type(data).__name__}.")
        for wrapper in ("toolUse", "functionInvocationInput"):
            inner = data.get(wrapper)
            if isinstance(inner, Mapping):
                data = inner
                break
        given_id = call_id if call_id is not None else data.get("id", data.get("toolUseId"))
        name = data.get("name", data.get("function"))
        if "args" in data:
            args = data["args"]
        elif "input" in data:
            args = data["input"]
        elif "parameters" in data:
            args = _parameters_to_args(data["parameters"], given_id)
        else:
            args = {}
        return cls(id=given_id, name=name, args=args)


def _parameters_to_args(parameters: object, call_id: object) -> dict[str, Any]:
    if not isinstance(parameters, Sequence) or isinstance(parameters, str):
        raise ValueError(f"Tool call {call_id!r} parameters must be a list of {{name, value}} entries.")
    args: dict[str, Any] = {}
    for entry in parameters:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise ValueError(f"Tool call {call_id!r} has a parameter without a name: {entry!r}.")
        args[entry["name"]] = entry.get("value")
    return args


class ToolResult(msgspec.Struct, frozen=True):
    """The answer to one tool call; every call of a response gets exactly one."""

    call_id: str
    content: Any
    is_error: bool = False


def _checked_calls(calls: Iterable[ToolCall | Mapping[str, Any]]) -> tuple[ToolCall, ...]:
    if isinstance(calls, str | bytes | Mapping) or not isinstance(calls, Iterable):
        raise ValueError(f"dispatch() takes a list of tool calls, got {type(calls).__name__}.")
    checked: list[ToolCall] = []
    seen: set[str] = set()
    for position, item in enumerate(calls, start=1):
        if isinstance(item, ToolCall):
            call = item
        elif isinstance(item, Mapping):
            call = ToolCall.from_mapping(item)
        else:
            raise ValueError(
                f"Tool call #{position} must be a ToolCall or a mapping, got {type(item).__name__}."
            )
        if call.id in seen:
            raise ValueError(f"Two tool calls share the id '{call.id}'.")
        seen.add(call.id)
        checked.append(call)
    return tuple(checked)
