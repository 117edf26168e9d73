"""Routes: go / stay / direct, their fields, and what a handler's return is read as."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import pytest
from multitool.runtimes.flow import (
    ACKNOWLEDGED,
    Flow,
    Route,
    RoutingError,
    StateError,
    Step,
    ToolCall,
    ToolResult,
    direct,
    go,
    stay,
    tool,
    tools,
)

from tests.support.flow_steps import (
    REQUIREMENT,
    Anonymous,
    DoneStep,
    Unregistered,
    calls_of,
    forecast_flow,
)

# --------------------------------------------------------------------------- routes


@pytest.mark.parametrize("target", ["", "   ", None, 42])
def test_go_refuses_a_missing_or_blank_target(target: Any) -> None:
    with pytest.raises(RoutingError):
        go(target)
    with pytest.raises(ValueError, match="target"):  # RoutingError is a ValueError
        go(target)


def test_go_refuses_a_step_class_without_id() -> None:
    class Anonymous(Step):
        pass

    with pytest.raises(RoutingError):
        go(Anonymous)


def test_direct_refuses_empty_text() -> None:
    with pytest.raises(RoutingError):
        direct(" ")


def test_routes_are_immutable_and_with_methods_build_new_ones() -> None:
    base = go("done")
    refined = (
        base.with_state({"a": 1})
        .with_state({"b": [1, 2]})
        .with_prompt("Next prompt")
        .with_content_type("application/json")
        .with_message("Hello")
        .with_results({"c1": {"x": 1}})
        .with_results({"c2": "two"})
    )

    assert base == Route(step="done")
    assert dict(refined.state) == {"a": 1, "b": [1, 2]}
    assert (refined.prompt, refined.content_type, refined.message) == (
        "Next prompt",
        "application/json",
        "Hello",
    )
    assert dict(refined.results) == {"c1": {"x": 1}, "c2": "two"}
    with pytest.raises(AttributeError):
        refined.step = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        refined.state["a"] = 2  # type: ignore[index]


def test_route_state_is_copied_from_the_caller() -> None:
    source = {"items": [1]}
    route = stay().with_state(source)
    source["items"].append(2)
    assert dict(route.state) == {"items": [1]}


def test_route_kinds() -> None:
    assert go("done").kind == "go"
    assert go(DoneStep).step is DoneStep
    assert stay().kind == "stay"
    assert stay().step is None
    assert stay("why").feedback == "why"
    assert direct("hi").kind == "direct"
    assert go("done", feedback="moving on").feedback == "moving on"


def test_route_state_must_be_json() -> None:
    with pytest.raises(StateError):
        stay().with_state({"when": object()})


def test_prompt_and_content_type_apply_and_belong_to_their_step() -> None:
    class Prompting(Step):
        id = "prompting"

        @tool
        def ask(self, args: Mapping[str, Any]) -> Route:
            return stay().with_prompt("Ask for the city.").with_content_type("text/markdown")

        @tool
        def stay_quietly(self, args: Mapping[str, Any]) -> Route:
            return stay()

        @tool
        def move(self, args: Mapping[str, Any]) -> Route:
            return go(DoneStep)

    flow = Flow(steps=[Prompting, DoneStep], start=Prompting)
    flow.dispatch([ToolCall("1", "ask", {})])
    assert (flow.prompt, flow.content_type) == ("Ask for the city.", "text/markdown")
    flow.dispatch([ToolCall("2", "stay_quietly", {})])
    assert flow.prompt == "Ask for the city."
    turn = flow.dispatch([ToolCall("3", "move", {})])
    assert turn.step == "done"
    assert flow.snapshot()["prompt"] is None
    assert flow.snapshot()["content_type"] is None


# --------------------------------------------------------------------------- group return validation


@pytest.mark.parametrize(
    ("returned", "what"),
    [
        (None, "None"),
        ("", "an empty step name"),
        ("   ", "an empty step name"),
        (Anonymous, "an empty step name"),
        (42, "an unsupported int result"),
        (True, "an unsupported bool result"),
        (["done"], "an unsupported list result"),
        (object(), "an object without step"),
        ({"target": "done"}, "an object without step"),
        (SimpleNamespace(step=""), "an object with an invalid step"),
        (SimpleNamespace(step=3), "an object with an invalid step"),
        ({"step": None}, "an object with an invalid step"),
        ("nowhere", "an unknown step 'nowhere'"),
        (go("nowhere"), "an unknown step 'nowhere'"),
        (Unregistered, "an unknown step 'unregistered'"),
        (go(Unregistered), "an unknown step 'unregistered'"),
        (SimpleNamespace(step="nowhere"), "an unknown step 'nowhere'"),
    ],
)
def test_invalid_group_returns_raise_the_exact_diagnostic(returned: object, what: str) -> None:
    class Weather(Step):
        id = "weather"

        @tools(["get_weather"])
        def batch(self, calls: Sequence[ToolCall]) -> object:
            return returned

    flow = Flow(steps=[Weather, DoneStep], start=Weather)

    with pytest.raises(RoutingError) as raised:
        flow.dispatch([ToolCall("1", "get_weather", {"city": "LA"})])

    assert str(raised.value) == f"Group tool handler for [get_weather] returned {what}. {REQUIREMENT}"


def test_the_diagnostic_lists_the_sorted_tool_set() -> None:
    flow, step = forecast_flow()
    step.group_return = None
    with pytest.raises(RoutingError) as raised:
        flow.dispatch(calls_of("weather", "forecast"))
    assert str(raised.value).startswith("Group tool handler for [forecast, weather] returned None.")


def test_nothing_is_applied_after_an_invalid_group_return() -> None:
    class Careless(Step):
        id = "careless"

        @tool
        def setup(self, args: Mapping[str, Any]) -> Route:
            return stay().with_prompt("original prompt")

        @tools(["get_weather"])
        def batch(self, calls: Sequence[ToolCall]) -> Route:
            self.save_state({"city_LA": 20})
            return go("nowhere").with_state({"leaked": True}).with_prompt("leaked prompt")

    flow = Flow(steps=[Careless, DoneStep], start=Careless, state={"kept": 1})
    flow.dispatch([ToolCall("0", "setup", {})])

    with pytest.raises(RoutingError):
        flow.dispatch([ToolCall("1", "get_weather", {})])

    assert flow.state == {"kept": 1}
    assert flow.prompt == "original prompt"
    assert flow.step == "careless"
    assert flow.snapshot() == {
        "step": "careless",
        "state": {"kept": 1},
        "prompt": "original prompt",
        "content_type": None,
    }


def test_an_invalid_individual_return_applies_nothing_from_the_turn() -> None:
    class Mixed(Step):
        id = "mixed"

        @tool
        def good(self, args: Mapping[str, Any]) -> Route:
            self.save_state({"good": True})
            return go(DoneStep).with_state({"moved": True})

        @tool
        def bad(self, args: Mapping[str, Any]) -> object:
            return 3.5

    flow = Flow(steps=[Mixed, DoneStep], start=Mixed)
    with pytest.raises(RoutingError) as raised:
        flow.dispatch([ToolCall("1", "good", {}), ToolCall("2", "bad", {})])

    assert str(raised.value) == f"Tool handler for bad returned an unsupported float result. {REQUIREMENT}"
    assert flow.state == {}
    assert flow.step == "mixed"


@pytest.mark.parametrize(
    "returned",
    [
        "done",
        DoneStep,
        go("done"),
        go(DoneStep),
        SimpleNamespace(step="done", prompt="next"),
        {"step": DoneStep, "state": {"from_mapping": True}},
    ],
)
def test_valid_group_returns_route_to_the_target(returned: object) -> None:
    flow, step = forecast_flow()
    step.group_return = returned
    turn = flow.dispatch(calls_of("weather", "forecast"))
    assert turn.step == "done"
    assert turn.route is not None
    assert [r.content for r in turn.results] == [ACKNOWLEDGED, ACKNOWLEDGED]


def test_a_foreign_route_object_carries_its_fields() -> None:
    flow, step = forecast_flow()
    step.group_return = {"step": "done", "state": {"a": 1}, "prompt": "p", "feedback": "fb"}
    turn = flow.dispatch(calls_of("weather", "forecast"))
    assert flow.state == {"a": 1}
    assert flow.prompt == "p"
    assert [r.content for r in turn.results] == ["fb", "fb"]


def test_a_foreign_route_object_with_a_bad_field_is_refused() -> None:
    flow, step = forecast_flow()
    step.group_return = {"step": "done", "prompt": 5}
    with pytest.raises(RoutingError, match="invalid prompt"):
        flow.dispatch(calls_of("weather", "forecast"))


def test_group_route_applies_once_with_per_call_results() -> None:
    class Drafting(Step):
        id = "drafting"

        def __init__(self) -> None:
            self.backend_requests = 0

        @tools(["draft_email"])
        def batch(self, calls: Sequence[ToolCall]) -> Route:
            self.backend_requests += 1
            payloads = {call.id: {"to": call.args["to"]} for call in calls[:2]}
            return (
                go(DoneStep, feedback="Drafted.")
                .with_results(payloads)
                .with_state({"drafts": len(payloads)})
                .with_message("Review the drafts.")
            )

    step = Drafting()
    flow = Flow(steps=[step, DoneStep], start=Drafting)
    turn = flow.dispatch(
        [
            ToolCall("e1", "draft_email", {"to": "ana"}),
            ToolCall("e2", "draft_email", {"to": "bo"}),
            ToolCall("e3", "draft_email", {"to": "cy"}),
        ]
    )

    assert step.backend_requests == 1
    assert turn.results == (
        ToolResult("e1", {"to": "ana"}),
        ToolResult("e2", {"to": "bo"}),
        ToolResult("e3", "Drafted."),
    )
    assert turn.routes == (turn.route,)
    assert turn.messages == ("Review the drafts.",)
    assert flow.state == {"drafts": 2}


def test_results_for_foreign_call_ids_are_refused() -> None:
    flow, step = forecast_flow()
    step.group_return = stay().with_results({"not-a-call": "x"})
    with pytest.raises(RoutingError, match="not-a-call"):
        flow.dispatch(calls_of("weather", "forecast"))
    assert flow.step == "forecast_step"
