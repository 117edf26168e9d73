"""Tool calls: what a dispatch accepts, in which wire shapes, and what it refuses before any handler runs."""

from __future__ import annotations

from typing import Any

import pytest
from multitool.runtimes.flow import (
    ToolCall,
)

from tests.support.flow_steps import (
    forecast_flow,
)

# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("bad_call", "fragment"),
    [
        ({"name": "weather", "args": {}}, "id"),
        ({"id": "", "name": "weather", "args": {}}, "id"),
        ({"id": "1", "args": {}}, "name"),
        ({"id": "1", "name": "  ", "args": {}}, "name"),
        ({"id": "1", "name": "weather", "args": ["LA"]}, "args must be a mapping"),
        ({"id": "1", "name": "weather", "args": None}, "args must be a mapping"),
        (42, "must be a ToolCall or a mapping"),
    ],
)
def test_bad_calls_are_refused_before_any_handler_runs(bad_call: Any, fragment: str) -> None:
    flow, step = forecast_flow()
    with pytest.raises(ValueError, match=fragment):
        flow.dispatch([ToolCall("0", "traffic", {}), bad_call])
    assert step.log == []


def test_two_calls_with_the_same_id_are_refused() -> None:
    flow, step = forecast_flow()
    with pytest.raises(ValueError, match="same-id") as raised:
        flow.dispatch([ToolCall("same-id", "weather", {}), ToolCall("same-id", "forecast", {})])
    assert "share the id" in str(raised.value)
    assert step.log == []


@pytest.mark.parametrize("calls", ["weather", {"id": "1", "name": "weather"}, None])
def test_dispatch_needs_a_list_of_calls(calls: Any) -> None:
    flow, _ = forecast_flow()
    with pytest.raises(ValueError, match="list of tool calls"):
        flow.dispatch(calls)


def test_tool_call_validates_on_construction() -> None:
    with pytest.raises(ValueError, match="id"):
        ToolCall("", "weather", {})
    with pytest.raises(ValueError, match="args must be a mapping"):
        ToolCall("1", "weather", "LA")  # type: ignore[arg-type]


def test_tool_call_from_converse_and_return_control_shapes() -> None:
    converse = {"toolUse": {"toolUseId": "tu-1", "name": "get_weather", "input": {"city": "LA"}}}
    assert ToolCall.from_mapping(converse) == ToolCall("tu-1", "get_weather", {"city": "LA"})
    assert ToolCall.from_mapping(converse["toolUse"]) == ToolCall("tu-1", "get_weather", {"city": "LA"})
    return_control = {
        "functionInvocationInput": {
            "actionGroup": "weather",
            "function": "get_weather",
            "parameters": [{"name": "city", "type": "string", "value": "NYC"}],
        }
    }
    assert ToolCall.from_mapping(return_control, call_id="inv-1:0") == ToolCall(
        "inv-1:0", "get_weather", {"city": "NYC"}
    )
    assert ToolCall.from_mapping({"id": "1", "name": "ping"}) == ToolCall("1", "ping", {})


def test_dispatch_accepts_plain_mappings() -> None:
    flow, step = forecast_flow()
    turn = flow.dispatch(
        [{"toolUseId": "a", "name": "weather", "input": {"c": 1}}, {"id": "b", "name": "forecast"}]
    )
    assert [entry[0] for entry in step.log] == ["group"]
    assert [r.call_id for r in turn.results] == ["a", "b"]
