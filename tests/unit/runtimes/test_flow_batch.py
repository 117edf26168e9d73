"""``@batch``: one handler for every call of its tools in a response, whatever the mix."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from multitool.runtimes.flow import (
    Flow,
    Route,
    RoutingError,
    Step,
    ToolCall,
    ToolsDeclarationError,
    batch,
    go,
    stay,
    tool,
    tools,
)

from tests.support.flow_steps import REQUIREMENT, RecordingLogger, calls_of


class DoneStep(Step):
    id = "done"


class OfficeStep(Step):
    """email / meeting / ticket in one @batch, plus an individual 'note' tool; records every run."""

    id = "office"

    def __init__(self) -> None:
        self.log: list[tuple[str, Any]] = []
        self.batch_return: object = None

    @batch(["email", "meeting", "ticket"])
    def office(self, calls: Sequence[ToolCall]) -> object:
        self.log.append(("batch", tuple(call.id for call in calls)))
        self.save_state({"batched": len(calls)})
        if self.batch_return is not None:
            return self.batch_return
        return stay().with_results({call.id: {"done": call.name} for call in calls})

    @tool
    def note(self, args: Mapping[str, Any]) -> Route | None:
        self.log.append(("note", dict(args)))
        return None


def office_flow() -> tuple[Flow, OfficeStep]:
    step = OfficeStep()
    return Flow(steps=[step, DoneStep], start=OfficeStep), step


# --------------------------------------------------------------------------- declarations


def test_batch_tools_are_exposed_beside_the_tool_methods() -> None:
    assert set(OfficeStep.exposed_tools()) == {"email", "meeting", "ticket", "note"}
    assert OfficeStep.tool_groups() == ()


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ([], "@batch requires at least one tool name."),
        (["email", " "], "@batch requires non-empty tool names."),
        (["email", "email"], "@batch cannot declare tool 'email' more than once."),
        ("email", "@batch takes a list of tool names, not the string 'email'."),
    ],
)
def test_bad_batch_declarations_are_refused(names: Any, message: str) -> None:
    with pytest.raises(ToolsDeclarationError) as raised:
        batch(names)
    assert str(raised.value) == message


def test_a_tool_with_both_a_tool_and_a_batch_handler_is_refused_naming_both() -> None:
    with pytest.raises(ToolsDeclarationError) as raised:

        class Both(Step):
            id = "both"

            @batch(["email", "meeting"])
            def office(self, calls: Sequence[ToolCall]) -> Route:
                return stay()

            @tool
            def email(self, args: Mapping[str, Any]) -> None:
                return None

    assert "Tool 'email' has both a @tool handler" in str(raised.value)
    assert "Both.email" in str(raised.value)
    assert "Both.office" in str(raised.value)


def test_two_methods_declaring_the_same_batch_are_refused() -> None:
    with pytest.raises(ToolsDeclarationError, match=r"@batch\(\['a', 'b'\]\) is declared by both"):

        class Twice(Step):
            id = "twice"

            @batch(["a", "b"])
            def one(self, calls: Sequence[ToolCall]) -> Route:
                return stay()

            @batch(["b", "a"])
            def two(self, calls: Sequence[ToolCall]) -> Route:
                return stay()


def test_a_subclass_batch_replaces_the_inherited_one_it_overlaps() -> None:
    class Narrower(OfficeStep):
        id = "narrower"

        @batch(["email"])
        def only_email(self, calls: Sequence[ToolCall]) -> Route:
            self.log.append(("narrow", tuple(call.id for call in calls)))
            return stay()

    assert set(Narrower.exposed_tools()) == {"email", "note"}
    step = Narrower()
    turn = Flow(steps=[step], start=Narrower).dispatch(calls_of("email", "meeting"))
    assert step.log == [("narrow", ("call-0",))]
    assert turn.results[1].is_error
    assert turn.results[1].content == "Unknown tool: meeting"


# --------------------------------------------------------------------------- dispatch


@pytest.mark.parametrize(
    "names",
    [
        ["email"],
        ["meeting", "email"],
        ["ticket", "email", "meeting", "email", "ticket"],
        ["meeting"] * 7,
    ],
)
def test_any_mix_and_number_of_batch_tools_is_one_run_with_every_call_in_order(names: list[str]) -> None:
    flow, step = office_flow()
    calls = calls_of(*names)

    turn = flow.dispatch(calls)

    assert step.log == [("batch", tuple(call.id for call in calls))]
    assert [r.call_id for r in turn.results] == [call.id for call in calls]
    assert [r.content for r in turn.results] == [{"done": name} for name in names]
    assert turn.group == tuple(sorted(set(names)))
    assert flow.state == {"batched": len(names)}


def test_other_tools_of_the_same_response_run_individually_around_the_one_batch() -> None:
    flow, step = office_flow()

    turn = flow.dispatch(calls_of("note", "email", "note", "ticket"))

    assert [entry[0] for entry in step.log] == ["note", "batch", "note"]
    assert step.log[1] == ("batch", ("call-1", "call-3"))
    assert [r.content for r in turn.results] == ["OK", {"done": "email"}, "OK", {"done": "ticket"}]
    assert turn.group is None


def test_an_unknown_tool_beside_batch_calls_is_an_error_result_and_the_batch_still_runs() -> None:
    flow, step = office_flow()

    turn = flow.dispatch(calls_of("email", "launch_rocket", "meeting"))

    assert step.log == [("batch", ("call-0", "call-2"))]
    assert turn.results[1].is_error
    assert turn.results[1].content == "Unknown tool: launch_rocket"
    assert not turn.results[0].is_error
    assert not turn.results[2].is_error


def test_an_exact_tools_group_takes_precedence_over_the_batch() -> None:
    class WithGroup(OfficeStep):
        id = "with_group"

        @tools(["email", "meeting"])
        def email_and_meeting(self, calls: Sequence[ToolCall]) -> Route:
            self.log.append(("group", tuple(call.id for call in calls)))
            return stay()

    step = WithGroup()
    flow = Flow(steps=[step], start=WithGroup)
    flow.dispatch(calls_of("meeting", "email"))
    flow.dispatch(calls_of("email", "ticket"))
    assert step.log == [("group", ("call-0", "call-1")), ("batch", ("call-0", "call-1"))]


def test_the_batch_route_applies_once_for_all_its_calls() -> None:
    flow, step = office_flow()
    step.batch_return = go(DoneStep).with_state({"moved": True}).with_message("All drafted.")

    turn = flow.dispatch(calls_of("email", "meeting", "ticket"))

    assert turn.step == "done"
    assert flow.step == "done"
    assert turn.routes == (step.batch_return,)
    assert turn.messages == ("All drafted.",)
    assert [r.content for r in turn.results] == ["All drafted."] * 3
    assert flow.state == {"batched": 3, "moved": True}


def test_a_batch_returning_no_route_raises_and_applies_nothing() -> None:
    flow, step = office_flow()
    flow.dispatch(calls_of("note"))
    step.batch_return = 42

    with pytest.raises(RoutingError) as raised:
        flow.dispatch(calls_of("email", "meeting"))

    assert str(raised.value) == (
        f"Batch handler for [email, meeting, ticket] returned an unsupported int result. {REQUIREMENT}"
    )
    assert flow.state == {}
    assert flow.step == "office"


def test_a_failing_batch_is_an_error_result_for_each_of_its_calls_and_never_replayed(
    log: RecordingLogger,
) -> None:
    class Failing(OfficeStep):
        id = "failing"

        @batch(["email", "meeting", "ticket"])
        def office(self, calls: Sequence[ToolCall]) -> Route:
            self.log.append(("batch", tuple(call.id for call in calls)))
            raise ConnectionError("backend down")

    step = Failing()
    turn = Flow(steps=[step], start=Failing).dispatch(calls_of("email", "note", "meeting"))

    assert [entry[0] for entry in step.log] == ["batch", "note"]
    assert [r.is_error for r in turn.results] == [True, False, True]
    assert log.records[0][1] == "Batch tool handler failed"
    assert log.records[0][2]["tools"] == ["email", "meeting", "ticket"]
    assert turn.step == "failing"
