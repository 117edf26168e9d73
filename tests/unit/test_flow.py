"""The batch-dispatch contract of multitool.runtimes.flow."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import multitool.runtimes.flow as flow_module
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
    ToolsDeclarationError,
    Turn,
    direct,
    go,
    stay,
    tool,
    tools,
)

REQUIREMENT = (
    "It must return a routing result: a non-empty step name, a Step target, "
    "or an object with a non-empty string or Step target in its step property."
)


def calls_of(*names: str, args: Mapping[str, Any] | None = None) -> list[ToolCall]:
    return [ToolCall(f"call-{i}", name, dict(args or {"n": i})) for i, name in enumerate(names)]


class RecordingLogger:
    def __init__(self) -> None:
        self.records: list[tuple[str, str, dict[str, Any]]] = []

    def exception(self, message: str, *, extra: dict[str, Any]) -> None:
        self.records.append(("exception", message, extra))

    def warning(self, message: str, *, extra: dict[str, Any]) -> None:
        self.records.append(("warning", message, extra))

    def error(self, message: str, *, extra: dict[str, Any]) -> None:
        # Where the failure was raised varies with the code; the test checks it names a place.
        assert extra.pop("where")
        self.records.append(("error", message, extra))


@pytest.fixture
def log(monkeypatch: pytest.MonkeyPatch) -> RecordingLogger:
    recorder = RecordingLogger()
    monkeypatch.setattr(flow_module, "logger", recorder)
    return recorder


class DoneStep(Step):
    id = "done"


class OtherStep(Step):
    id = "other"


class ForecastStep(Step):
    """weather / forecast / traffic, with a group for {weather, forecast}; records every invocation."""

    id = "forecast_step"

    def __init__(self) -> None:
        self.log: list[tuple[str, Any]] = []
        self.group_return: object = go(DoneStep)
        self.individual_return: object = None

    @tool
    def weather(self, args: Mapping[str, Any]) -> object:
        self.log.append(("weather", dict(args)))
        return self.individual_return

    @tool
    def forecast(self, args: Mapping[str, Any]) -> object:
        self.log.append(("forecast", dict(args)))
        return self.individual_return

    @tool
    def traffic(self, args: Mapping[str, Any]) -> object:
        self.log.append(("traffic", dict(args)))
        return None

    @tools(["weather", "forecast"])
    def weather_and_forecast(self, calls: Sequence[ToolCall]) -> object:
        self.log.append(("group", tuple(calls)))
        return self.group_return


def forecast_flow() -> tuple[Flow, ForecastStep]:
    step = ForecastStep()
    return Flow(steps=[step, DoneStep, OtherStep], start=ForecastStep), step


# --------------------------------------------------------------------------- declarations


def test_tools_without_names_is_refused_at_class_definition() -> None:
    with pytest.raises(ToolsDeclarationError) as raised:

        class _Empty(Step):
            @tools([])
            def batch(self, calls: Sequence[ToolCall]) -> Route:
                return stay()

    assert str(raised.value) == "@tools requires at least one tool name."


@pytest.mark.parametrize("names", [[""], ["weather", "  "], ["weather", None]])
def test_tools_with_an_empty_name_is_refused(names: list[Any]) -> None:
    with pytest.raises(ToolsDeclarationError) as raised:

        class _Blank(Step):
            @tools(names)
            def batch(self, calls: Sequence[ToolCall]) -> Route:
                return stay()

    assert str(raised.value) == "@tools requires non-empty tool names."


def test_tools_with_a_repeated_name_is_refused() -> None:
    with pytest.raises(ToolsDeclarationError) as raised:

        class _Twice(Step):
            @tools(["get_weather", "get_weather"])
            def batch(self, calls: Sequence[ToolCall]) -> Route:
                return stay()

    assert str(raised.value) == "@tools cannot declare tool 'get_weather' more than once."


def test_tools_given_a_bare_string_is_refused() -> None:
    with pytest.raises(ToolsDeclarationError, match="list of tool names"):
        tools("weather")


def test_two_methods_declaring_the_same_set_are_refused_naming_both() -> None:
    with pytest.raises(ToolsDeclarationError) as raised:

        class Clash(Step):
            @tools(["weather", "forecast"])
            def first_batch(self, calls: Sequence[ToolCall]) -> Route:
                return stay()

            @tools(["forecast", "weather"])
            def second_batch(self, calls: Sequence[ToolCall]) -> Route:
                return stay()

    message = str(raised.value)
    assert "Clash.first_batch" in message
    assert "Clash.second_batch" in message
    assert "forecast" in message
    assert "weather" in message


def test_two_methods_handling_the_same_tool_are_refused() -> None:
    with pytest.raises(ToolsDeclarationError, match=r"one_way.*other_way"):

        class _Clash(Step):
            @tool("weather")
            def one_way(self, args: Mapping[str, Any]) -> None:
                return None

            @tool("weather")
            def other_way(self, args: Mapping[str, Any]) -> None:
                return None


@pytest.mark.parametrize("name", ["", "   "])
def test_tool_with_an_empty_name_is_refused(name: str) -> None:
    with pytest.raises(ToolsDeclarationError, match="non-empty tool name"):
        tool(name)


def test_async_handlers_are_refused() -> None:
    with pytest.raises(ToolsDeclarationError, match="synchronous"):

        class _Async(Step):
            @tool
            async def weather(self, args: Mapping[str, Any]) -> None:
                return None


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


# --------------------------------------------------------------------------- matching


@pytest.mark.parametrize(
    ("names", "matches"),
    [
        (["weather", "forecast"], True),
        (["forecast", "weather"], True),
        (["weather", "forecast", "weather"], True),
        (["forecast", "forecast", "weather", "weather"], True),
        (["weather"], False),
        (["forecast"], False),
        (["weather", "forecast", "traffic"], False),
    ],
)
def test_group_matches_the_exact_distinct_name_set(names: list[str], matches: bool) -> None:
    flow, step = forecast_flow()
    calls = calls_of(*names)

    turn = flow.dispatch(calls)

    group_runs = [entry for entry in step.log if entry[0] == "group"]
    if matches:
        assert group_runs == [("group", tuple(calls))]
        assert turn.group == ("forecast", "weather")
        assert turn.step == "done"
    else:
        assert group_runs == []
        assert turn.group is None
        assert [entry[0] for entry in step.log] == names
        assert turn.step == "forecast_step"


def test_group_receives_all_calls_once_in_original_order_with_ids_and_args() -> None:
    flow, step = forecast_flow()
    calls = [
        ToolCall("z-9", "forecast", {"city": "LA", "days": 3}),
        ToolCall("a-1", "weather", {"city": "NYC"}),
        ToolCall("m-5", "forecast", {"city": "NYC", "days": 1}),
    ]

    flow.dispatch(calls)

    assert len(step.log) == 1
    kind, received = step.log[0]
    assert kind == "group"
    assert [(c.id, c.name, dict(c.args)) for c in received] == [
        ("z-9", "forecast", {"city": "LA", "days": 3}),
        ("a-1", "weather", {"city": "NYC"}),
        ("m-5", "forecast", {"city": "NYC", "days": 1}),
    ]


def test_a_single_call_is_taken_by_a_matching_group() -> None:
    class Single(Step):
        id = "single"

        def __init__(self) -> None:
            self.seen: list[str] = []

        @tool
        def get_weather(self, args: Mapping[str, Any]) -> None:
            self.seen.append("individual")

        @tools(["get_weather"])
        def batch(self, calls: Sequence[ToolCall]) -> Route:
            self.seen.append(f"group:{len(calls)}")
            return stay("grouped")

    step = Single()
    flow = Flow(steps=[step], start=Single)

    turn = flow.dispatch([ToolCall("only", "get_weather", {"city": "LA"})])

    assert step.seen == ["group:1"]
    assert turn.results == (ToolResult("only", "grouped"),)


@pytest.mark.parametrize("group_return", [stay("not now"), direct("Answered.")])
def test_group_is_authoritative_individual_handlers_never_run(group_return: Route) -> None:
    flow, step = forecast_flow()
    step.group_return = group_return

    turn = flow.dispatch(calls_of("weather", "forecast"))

    assert [entry[0] for entry in step.log] == ["group"]
    assert len(turn.results) == 2


def test_group_failure_does_not_fall_back_to_individual_handlers(log: RecordingLogger) -> None:
    class Failing(ForecastStep):
        id = "failing"

        @tools(["weather", "forecast"])
        def weather_and_forecast(self, calls: Sequence[ToolCall]) -> object:
            self.log.append(("group", tuple(calls)))
            raise ConnectionError("backend down")

    step = Failing()
    flow = Flow(steps=[step, DoneStep], start=Failing)

    turn = flow.dispatch(calls_of("weather", "forecast", "weather"))

    assert [entry[0] for entry in step.log] == ["group"]
    assert [r.call_id for r in turn.results] == ["call-0", "call-1", "call-2"]
    assert all(r.is_error for r in turn.results)
    assert turn.step == "failing"


@pytest.mark.parametrize("count", [1, 2, 10])
def test_one_result_per_call_id_in_call_order(count: int) -> None:
    class Counting(Step):
        id = "counting"

        @tool
        def solo(self, args: Mapping[str, Any]) -> None:
            return None

        @tools(["grouped"])
        def batch(self, calls: Sequence[ToolCall]) -> Route:
            return stay("batched")

    for name in ("solo", "grouped"):
        flow = Flow(steps=[Counting], start=Counting)
        calls = [ToolCall(f"{name}-{i}", name, {"i": i}) for i in range(count)]

        turn = flow.dispatch(calls)

        assert [r.call_id for r in turn.results] == [c.id for c in calls]
        expected = ACKNOWLEDGED if name == "solo" else "batched"
        assert all(r.content == expected and not r.is_error for r in turn.results)


def test_no_calls_make_an_empty_turn() -> None:
    flow, step = forecast_flow()
    assert flow.dispatch([]) == Turn(results=(), step="forecast_step")
    assert step.log == []


# --------------------------------------------------------------------------- individual dispatch


def test_individual_handlers_run_sequentially_in_call_order() -> None:
    flow, step = forecast_flow()
    calls = calls_of("traffic", "weather", "traffic", "weather")

    turn = flow.dispatch(calls)

    assert step.log == [
        ("traffic", {"n": 0}),
        ("weather", {"n": 1}),
        ("traffic", {"n": 2}),
        ("weather", {"n": 3}),
    ]
    assert turn.results == tuple(ToolResult(c.id, ACKNOWLEDGED) for c in calls)
    assert turn.route is None
    assert turn.step == "forecast_step"


def test_each_route_is_applied_in_order_and_the_last_sets_the_step() -> None:
    class Router(Step):
        id = "router"

        @tool
        def to(self, args: Mapping[str, Any]) -> Route | None:
            target = args.get("target")
            return None if target is None else go(target).with_state({f"via_{target}": True})

    flow = Flow(steps=[Router, DoneStep, OtherStep], start=Router)
    calls = [
        ToolCall("1", "to", {"target": "done"}),
        ToolCall("2", "to", {"target": "other"}),
        ToolCall("3", "to", {}),
    ]

    turn = flow.dispatch(calls)

    assert turn.step == "other"
    assert flow.step == "other"
    assert [r.step for r in turn.routes] == ["done", "other"]
    assert turn.route == turn.routes[-1]
    assert flow.state == {"via_done": True, "via_other": True}


def test_stay_returns_to_the_step_that_handled_the_call() -> None:
    class Router(Step):
        id = "router"

        @tool
        def leave(self, args: Mapping[str, Any]) -> Route:
            return go(DoneStep)

        @tool
        def remain(self, args: Mapping[str, Any]) -> Route:
            return stay("still here")

    flow = Flow(steps=[Router, DoneStep], start=Router)
    turn = flow.dispatch([ToolCall("1", "leave", {}), ToolCall("2", "remain", {})])
    assert turn.step == "router"
    assert turn.results[1] == ToolResult("2", "still here")


def test_individual_result_content_prefers_results_then_feedback_then_message() -> None:
    class Contents(Step):
        id = "contents"

        @tool
        def payload(self, args: Mapping[str, Any]) -> Route:
            call = self.current_call
            assert call is not None
            return stay("feedback").with_results({call.id: {"draft": args["n"]}})

        @tool
        def feedback(self, args: Mapping[str, Any]) -> Route:
            return stay("try again").with_message("shown to the user")

        @tool
        def message(self, args: Mapping[str, Any]) -> Route:
            return stay().with_message("for the user")

        @tool
        def bare(self, args: Mapping[str, Any]) -> Route:
            return stay()

    flow = Flow(steps=[Contents], start=Contents)
    turn = flow.dispatch(
        [
            ToolCall("p1", "payload", {"n": 1}),
            ToolCall("p2", "payload", {"n": 2}),
            ToolCall("f", "feedback", {}),
            ToolCall("m", "message", {}),
            ToolCall("b", "bare", {}),
        ]
    )

    assert [r.content for r in turn.results] == [
        {"draft": 1},
        {"draft": 2},
        "try again",
        "for the user",
        ACKNOWLEDGED,
    ]
    assert turn.messages == ("shown to the user", "for the user")


def test_current_call_is_the_running_call_and_none_in_groups_and_outside() -> None:
    class Watching(Step):
        id = "watching"

        def __init__(self) -> None:
            self.seen: list[str | None] = []

        @tool
        def look(self, args: Mapping[str, Any]) -> None:
            call = self.current_call
            self.seen.append(call.id if call else None)

        @tools(["grouped"])
        def batch(self, calls: Sequence[ToolCall]) -> Route:
            call = self.current_call
            self.seen.append(call.id if call else None)
            return stay()

    step = Watching()
    flow = Flow(steps=[step], start=Watching)
    flow.dispatch([ToolCall("a", "look", {}), ToolCall("b", "look", {})])
    flow.dispatch([ToolCall("c", "grouped", {})])
    assert step.seen == ["a", "b", None]
    assert step.current_call is None


def test_direct_answers_the_user() -> None:
    class Answering(Step):
        id = "answering"

        @tool
        def answer(self, args: Mapping[str, Any]) -> Route:
            return direct(f"Answer {args['n']}.")

        @tools(["both"])
        def batch(self, calls: Sequence[ToolCall]) -> Route:
            return direct("One answer for the group.")

    flow = Flow(steps=[Answering], start=Answering)
    turn = flow.dispatch(calls_of("answer", "answer"))
    assert turn.direct == "Answer 0.\n\nAnswer 1."
    assert turn.step == "answering"
    assert turn.route is not None
    assert turn.route.kind == "direct"
    assert flow.dispatch(calls_of("both")).direct == "One answer for the group."
    assert flow.dispatch(calls_of("answer")).direct == "Answer 0."


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


class Anonymous(Step):
    """A Step class without an id."""


class Unregistered(Step):
    id = "unregistered"


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


# --------------------------------------------------------------------------- unknown tools and failures


def test_an_unknown_tool_gets_an_error_result_and_the_others_still_run(log: RecordingLogger) -> None:
    flow, step = forecast_flow()
    turn = flow.dispatch(
        [
            ToolCall("1", "weather", {}),
            ToolCall("2", "teleport", {}),
            ToolCall("3", "traffic", {}),
        ]
    )
    assert turn.results == (
        ToolResult("1", ACKNOWLEDGED),
        ToolResult("2", "Unknown tool: teleport", is_error=True),
        ToolResult("3", ACKNOWLEDGED),
    )
    assert [entry[0] for entry in step.log] == ["weather", "traffic"]
    assert log.records[0][0] == "warning"


def test_an_unknown_tool_next_to_a_group_set_falls_through_to_individual_dispatch(
    log: RecordingLogger,
) -> None:
    flow, step = forecast_flow()
    turn = flow.dispatch(calls_of("weather", "forecast", "invented"))
    assert [entry[0] for entry in step.log] == ["weather", "forecast"]
    assert turn.results[2] == ToolResult("call-2", "Unknown tool: invented", is_error=True)


def test_an_individual_handler_failure_becomes_that_calls_error(log: RecordingLogger) -> None:
    class Flaky(Step):
        id = "flaky"

        @tool
        def fetch(self, args: Mapping[str, Any]) -> Route | None:
            if args.get("fail"):
                self.save_state({"half_done": True})
                raise TimeoutError("backend timed out: secret-host:5432")
            self.save_state({f"fetched_{args['n']}": True})
            return go(DoneStep) if args.get("move") else None

    flow = Flow(steps=[Flaky, DoneStep], start=Flaky)
    turn = flow.dispatch(
        [
            ToolCall("1", "fetch", {"n": 1}),
            ToolCall("2", "fetch", {"n": 2, "fail": True}),
            ToolCall("3", "fetch", {"n": 3}),
        ]
    )

    assert [r.is_error for r in turn.results] == [False, True, False]
    assert turn.results[1].content == "Tool fetch failed (TimeoutError). The request was not completed."
    assert "secret-host" not in turn.results[1].content
    assert flow.state == {"fetched_1": True, "fetched_3": True}
    assert turn.step == "flaky"
    assert log.records == [
        (
            "error",
            "Tool handler failed",
            {"step": "flaky", "tools": ["fetch"], "call_id": "2", "error_type": "TimeoutError"},
        )
    ]


def test_a_group_failure_errors_every_call_keeps_the_step_and_logs_the_tool_set(log: RecordingLogger) -> None:
    class Batch(Step):
        id = "batch"

        @tools(["a", "b"])
        def batch(self, calls: Sequence[ToolCall]) -> Route:
            self.save_state({"partial": True})
            raise RuntimeError("backend failed")

    flow = Flow(steps=[Batch, DoneStep], start=Batch, state={"before": 1})
    turn = flow.dispatch(calls_of("b", "a", "b"))

    assert [r.call_id for r in turn.results] == ["call-0", "call-1", "call-2"]
    assert all(r.is_error for r in turn.results)
    assert {r.content for r in turn.results} == {
        "Tools [a, b] failed (RuntimeError). The request was not completed."
    }
    assert turn.step == "batch"
    assert turn.route is None
    assert flow.state == {"before": 1}
    assert log.records == [
        (
            "error",
            "Group tool handler failed",
            {
                "step": "batch",
                "tools": ["a", "b"],
                "call_ids": ["call-0", "call-1", "call-2"],
                "error_type": "RuntimeError",
            },
        )
    ]


def test_routing_errors_raised_inside_handlers_propagate() -> None:
    class Buggy(Step):
        id = "buggy"

        @tool
        def move(self, args: Mapping[str, Any]) -> Route:
            return go("   ")

        @tools(["grouped"])
        def batch(self, calls: Sequence[ToolCall]) -> Route:
            missing: Any = None
            return go(missing)

    flow = Flow(steps=[Buggy], start=Buggy)
    with pytest.raises(RoutingError):
        flow.dispatch([ToolCall("1", "move", {})])
    with pytest.raises(RoutingError):
        flow.dispatch([ToolCall("1", "grouped", {})])


def test_non_json_state_is_a_programming_error_that_propagates() -> None:
    class Saving(Step):
        id = "saving"

        @tool
        def save(self, args: Mapping[str, Any]) -> None:
            self.save_state({"when": {1, 2}})

    flow = Flow(steps=[Saving], start=Saving)
    with pytest.raises(StateError, match="not JSON-serializable"):
        flow.dispatch([ToolCall("1", "save", {})])


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


# --------------------------------------------------------------------------- flow construction


def test_flow_refuses_bad_step_lists() -> None:
    with pytest.raises(ValueError, match="share the id"):
        Flow(steps=[DoneStep, DoneStep], start=DoneStep)
    with pytest.raises(ValueError, match="needs a non-empty id"):
        Flow(steps=[Anonymous], start=Anonymous)
    with pytest.raises(ValueError, match="start step"):
        Flow(steps=[DoneStep], start=OtherStep)
    with pytest.raises(ValueError, match="Step classes or instances"):
        Flow(steps=[object()], start="done")  # type: ignore[list-item]


def test_step_instances_carry_their_collaborators() -> None:
    class WithBackend(Step):
        id = "with_backend"

        def __init__(self, backend: list[str]) -> None:
            self.backend = backend

        @tool
        def call(self, args: Mapping[str, Any]) -> None:
            self.backend.append(args["x"])

    backend: list[str] = []
    flow = Flow(steps=[WithBackend(backend)], start="with_backend")
    flow.dispatch([ToolCall("1", "call", {"x": "hello"})])
    assert backend == ["hello"]
    assert isinstance(flow.current, WithBackend)


# --------------------------------------------------------------------------- inheritance


class BaseWeather(Step):
    id = "base_weather"

    def __init__(self) -> None:
        self.seen: list[str] = []

    @tool
    def get_weather(self, args: Mapping[str, Any]) -> None:
        self.seen.append("base:individual")

    @tools(["get_weather"])
    def batch(self, calls: Sequence[ToolCall]) -> Route:
        self.seen.append("base:group")
        return stay()


def test_registrations_are_inherited() -> None:
    class Child(BaseWeather):
        id = "child"

        @tool
        def get_forecast(self, args: Mapping[str, Any]) -> None:
            self.seen.append("child:forecast")

    step = Child()
    flow = Flow(steps=[step], start=Child)
    flow.dispatch(calls_of("get_weather"))
    flow.dispatch(calls_of("get_weather", "get_forecast"))
    assert step.seen == ["base:group", "base:individual", "child:forecast"]
    assert Child.exposed_tools() == ("get_weather", "get_forecast")
    assert Child.tool_groups() == (("get_weather",),)


def test_a_subclass_can_replace_an_inherited_group() -> None:
    class Child(BaseWeather):
        id = "child"

        @tools(["get_weather"])
        def better_batch(self, calls: Sequence[ToolCall]) -> Route:
            self.seen.append("child:group")
            return go(DoneStep)

    step = Child()
    flow = Flow(steps=[step, DoneStep], start=Child)
    assert flow.dispatch(calls_of("get_weather")).step == "done"
    assert step.seen == ["child:group"]


def test_an_undecorated_override_keeps_the_registration() -> None:
    class Child(BaseWeather):
        id = "child"

        def batch(self, calls: Sequence[ToolCall]) -> Route:
            self.seen.append("child:override")
            return stay()

    step = Child()
    Flow(steps=[step], start=Child).dispatch(calls_of("get_weather"))
    assert step.seen == ["child:override"]


def test_a_base_class_is_not_affected_by_its_subclasses() -> None:
    class Child(BaseWeather):
        id = "child"

        @tool
        def extra(self, args: Mapping[str, Any]) -> None:
            return None

    assert "extra" in Child.exposed_tools()
    assert BaseWeather.exposed_tools() == ("get_weather",)
