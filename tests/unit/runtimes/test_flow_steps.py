"""A Step: the tools it exposes, and the flow state its handlers read and write."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from multitool.runtimes.flow import (
    Flow,
    Route,
    StateError,
    Step,
    ToolCall,
    ToolResult,
    go,
    stay,
    tool,
    tools,
)

from tests.support.flow_steps import (
    DoneStep,
    OtherStep,
    calls_of,
    forecast_flow,
)

# --------------------------------------------------------------------------- exposure


def test_exposed_tools_are_the_tool_methods_only() -> None:
    class Exposing(Step):
        id = "exposing"

        @tool
        def weather(self, args: Mapping[str, Any]) -> None:
            return None

        @tool("get_forecast")
        def forecast_handler(self, args: Mapping[str, Any]) -> None:
            return None

        @tools(["weather", "hidden"])
        def batch(self, calls: Sequence[ToolCall]) -> Route:
            return stay()

    assert Exposing.exposed_tools() == ("weather", "get_forecast")
    assert Exposing.tool_groups() == (("hidden", "weather"),)
    flow = Flow(steps=[Exposing, DoneStep], start="exposing")
    assert flow.exposed_tools() == ("weather", "get_forecast")
    flow.dispatch([ToolCall("1", "weather", {})])
    assert flow.dispatch([ToolCall("2", "weather", {})]).step == "exposing"


def test_flow_exposes_the_current_steps_tools() -> None:
    flow, _ = forecast_flow()
    assert flow.exposed_tools() == ("weather", "forecast", "traffic")
    flow.dispatch(calls_of("weather", "forecast"))
    assert flow.step == "done"
    assert flow.exposed_tools() == ()


def test_a_group_of_unexposed_names_is_still_dispatchable() -> None:
    class HiddenGroup(Step):
        id = "hidden_group"

        @tools(["secret"])
        def batch(self, calls: Sequence[ToolCall]) -> Route:
            return go(DoneStep).with_results({call.id: "handled" for call in calls})

    assert HiddenGroup.exposed_tools() == ()
    flow = Flow(steps=[HiddenGroup, DoneStep], start=HiddenGroup)
    turn = flow.dispatch([ToolCall("1", "secret", {})])
    assert turn.results == (ToolResult("1", "handled"),)
    assert turn.step == "done"


# --------------------------------------------------------------------------- state


def test_save_state_writes_to_the_flows_json_state() -> None:
    class Saving(Step):
        id = "saving"

        @tool
        def save(self, args: Mapping[str, Any]) -> None:
            self.save_state({f"key_{args['n']}": {"values": (1, 2), "n": args["n"]}})
            assert self.state[f"key_{args['n']}"]["n"] == args["n"]

        @tool
        def read(self, args: Mapping[str, Any]) -> Route:
            return stay(json.dumps(dict(self.state), sort_keys=True))

    flow = Flow(steps=[Saving], start=Saving)
    turn = flow.dispatch(
        [ToolCall("1", "save", {"n": 1}), ToolCall("2", "read", {}), ToolCall("3", "save", {"n": 2})]
    )

    assert turn.results[1].content == '{"key_1": {"n": 1, "values": [1, 2]}}'
    assert flow.state == {"key_1": {"values": [1, 2], "n": 1}, "key_2": {"values": [1, 2], "n": 2}}
    assert json.loads(json.dumps(flow.state)) == flow.state


def test_flow_state_is_a_copy() -> None:
    flow = Flow(steps=[DoneStep], start=DoneStep, state={"items": [1]})
    flow.state["items"].append(2)
    flow.state["new"] = True
    assert flow.state == {"items": [1]}


def test_save_state_outside_a_dispatch_is_refused() -> None:
    with pytest.raises(StateError, match="only available while the step handles tool calls"):
        DoneStep().save_state({"a": 1})
    with pytest.raises(StateError):
        _ = DoneStep().state


def test_state_round_trips_through_json_and_restore() -> None:
    class Saver(Step):
        id = "saver"

        @tools(["weather", "forecast"])
        def batch(self, calls: Sequence[ToolCall]) -> Route:
            self.save_state({"cities": ["LA", "NYC"], "count": len(calls)})
            return go(OtherStep).with_prompt("Compare them.").with_content_type("text/plain")

    first = Flow(steps=[Saver, OtherStep], start=Saver)
    first.dispatch(calls_of("weather", "forecast"))

    stored = json.dumps(first.snapshot())
    restored = Flow.restore(json.loads(stored), steps=[Saver, OtherStep])

    assert restored.step == "other"
    assert restored.state == {"cities": ["LA", "NYC"], "count": 2}
    assert (restored.prompt, restored.content_type) == ("Compare them.", "text/plain")
    assert restored.snapshot() == first.snapshot()


def test_restore_continues_the_conversation() -> None:
    class Counter(Step):
        id = "counter"

        @tool
        def bump(self, args: Mapping[str, Any]) -> None:
            self.save_state({"count": self.state.get("count", 0) + 1})

    snapshot = Flow(steps=[Counter], start=Counter).snapshot()
    for _ in range(3):
        flow = Flow.restore(json.loads(json.dumps(snapshot)), steps=[Counter])
        flow.dispatch([ToolCall("1", "bump", {})])
        snapshot = flow.snapshot()
    assert snapshot["state"] == {"count": 3}


@pytest.mark.parametrize(
    ("snapshot", "fragment"),
    [
        ({"step": "vanished", "state": {}}, "start step 'vanished'"),
        ({"state": {}}, "needs a step id"),
        ({"step": "done", "state": ["not", "a", "mapping"]}, "state must be a mapping"),
        ({"step": "done", "state": {}, "prompt": 3}, "prompt must be a string"),
    ],
)
def test_restore_refuses_a_bad_snapshot(snapshot: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        Flow.restore(snapshot, steps=[DoneStep])
