"""Property tests for batch dispatch: results per call, exact-set matching, routing, state."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from multitool.runtimes.flow import Flow, Route, Step, ToolCall, go, stay, tool, tools

GROUP = frozenset({"weather", "forecast"})
NAMES = ("weather", "forecast", "traffic", "invented")


class Target(Step):
    id = "target"


class Other(Step):
    id = "other"


class Recording(Step):
    id = "recording"

    def __init__(self) -> None:
        self.log: list[tuple[str, Any]] = []

    @tool
    def weather(self, args: Mapping[str, Any]) -> object:
        self.log.append(("weather", args["n"]))
        return _route_for(args.get("route"))

    @tool
    def forecast(self, args: Mapping[str, Any]) -> object:
        self.log.append(("forecast", args["n"]))
        return _route_for(args.get("route"))

    @tool
    def traffic(self, args: Mapping[str, Any]) -> object:
        self.log.append(("traffic", args["n"]))
        return _route_for(args.get("route"))

    @tools(["weather", "forecast"])
    def pair(self, calls: Sequence[ToolCall]) -> Route:
        self.log.append(("group", tuple(calls)))
        return go(Target)


def _route_for(choice: str | None) -> Route | None:
    return {None: None, "stay": stay("stayed"), "target": go(Target), "other": go("other")}[choice]


call_names = st.lists(st.sampled_from(NAMES), min_size=1, max_size=12)


def make_calls(names: Sequence[str], routes: Sequence[str | None] | None = None) -> list[ToolCall]:
    return [
        ToolCall(f"id-{i}", name, {"n": i, "route": routes[i] if routes else None})
        for i, name in enumerate(names)
    ]


def new_flow() -> tuple[Flow, Recording]:
    step = Recording()
    return Flow(steps=[step, Target, Other], start=Recording), step


@given(call_names)
def test_exactly_one_result_per_call_id_in_call_order(names: list[str]) -> None:
    flow, _ = new_flow()
    calls = make_calls(names)
    turn = flow.dispatch(calls)
    assert [result.call_id for result in turn.results] == [call.id for call in calls]


@given(call_names)
def test_group_runs_iff_the_distinct_names_are_exactly_the_declared_set(names: list[str]) -> None:
    flow, step = new_flow()
    calls = make_calls(names)

    turn = flow.dispatch(calls)

    if set(names) == GROUP:
        assert step.log == [("group", tuple(calls))]
        assert turn.step == "target"
    else:
        assert all(kind != "group" for kind, _ in step.log)
        assert step.log == [(name, i) for i, name in enumerate(names) if name != "invented"]
        unknown = [r.call_id for r in turn.results if r.is_error]
        assert unknown == [f"id-{i}" for i, name in enumerate(names) if name == "invented"]


@given(st.data())
def test_matching_is_independent_of_call_order(data: st.DataObject) -> None:
    names = data.draw(call_names)
    shuffled = data.draw(st.permutations(names))
    first, first_step = new_flow()
    second, second_step = new_flow()

    first.dispatch(make_calls(names))
    second.dispatch(make_calls(shuffled))

    assert (first_step.log[:1] and first_step.log[0][0] == "group") == (
        second_step.log[:1] and second_step.log[0][0] == "group"
    )


@given(
    st.lists(
        st.tuples(
            st.sampled_from(("weather", "traffic")), st.sampled_from((None, "stay", "target", "other"))
        ),
        min_size=1,
        max_size=10,
    )
)
def test_the_last_route_sets_the_step(pairs: list[tuple[str, str | None]]) -> None:
    names = [name for name, _ in pairs]
    routes = [route for _, route in pairs]
    flow, _ = new_flow()

    turn = flow.dispatch(make_calls(names, routes))

    chosen = [route for route in routes if route is not None]
    expected = (
        {"stay": "recording", "target": "target", "other": "other"}[chosen[-1]] if chosen else "recording"
    )
    assert turn.step == expected == flow.step
    assert len(turn.routes) == len(chosen)


json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@given(st.dictionaries(st.text(min_size=1, max_size=10), json_values, max_size=6))
def test_saved_state_round_trips_through_a_snapshot(values: dict[str, Any]) -> None:
    class Saving(Step):
        id = "saving"

        @tools(["save"])
        def batch(self, calls: Sequence[ToolCall]) -> Route:
            self.save_state(values)
            return go(Target)

    flow = Flow(steps=[Saving, Target], start=Saving)
    flow.dispatch([ToolCall("1", "save", {})])

    restored = Flow.restore(json.loads(json.dumps(flow.snapshot())), steps=[Saving, Target])

    assert restored.state == values == flow.state
    assert restored.step == "target"
