"""Flow.dispatch: which handler takes a response's calls, the results, failures, and the flow's steps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    Turn,
    direct,
    go,
    stay,
    tool,
    tools,
)

from tests.support.flow_steps import (
    Anonymous,
    DoneStep,
    ForecastStep,
    OtherStep,
    RecordingLogger,
    calls_of,
    forecast_flow,
)

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
