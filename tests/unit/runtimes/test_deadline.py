"""A turn near its deadline answers with what it made instead of starting a model call it cannot finish."""

from __future__ import annotations

import time

from msgspec.structs import replace
from multitool.chat.service import RESPONSE_RESERVE_SECONDS, turn_deadline
from multitool.runtimes.base import MODEL_CALL_RESERVE_SECONDS, OUT_OF_TIME

from tests.support import bedrock_streams as b
from tests.unit.runtimes.test_agent import REQUEST as AGENT_REQUEST
from tests.unit.runtimes.test_agent import ScriptedAgent
from tests.unit.runtimes.test_agent import ports as agent_ports  # noqa: F401  (fixture)
from tests.unit.runtimes.test_agent import runtime as agent_runtime
from tests.unit.runtimes.test_converse import (
    EMAIL,
    MEETING,
    REQUEST,
    ScriptedModel,
    ports,  # noqa: F401  (fixture)
    reply,
    use,
)
from tests.unit.runtimes.test_converse import runtime as converse_runtime

# A call the tool refuses: the model reads its error, so the turn needs a further model call.
PAST = use("t9", "propose_meeting", {"attendees": ["Kinshuok"], "title": "Sync", "when": "yesterday"})


def soon() -> float:
    """A deadline too close for another model call, but not yet passed."""
    return time.monotonic() + MODEL_CALL_RESERVE_SECONDS / 2


def test_converse_keeps_the_cards_and_skips_the_model_call_it_cannot_finish(ports) -> None:  # noqa: F811
    # Given a model that asks for two tools and one refused call, and no time left for a second call
    model = ScriptedModel(
        reply(
            use("t1", "create_email_draft", EMAIL),
            use("t2", "propose_meeting", MEETING),
            PAST,
            stop="tool_use",
        ),
        reply({"text": "never asked"}),
    )

    # When the turn runs
    results = converse_runtime(model, ports).run_turn(replace(REQUEST, deadline=soon()))

    # Then both drafts come back as cards, the user is told why the turn stopped, and no call was wasted
    assert [c.type for c in results.client_actions] == ["show_new_email_draft", "show_meeting_scheduler"]
    assert results.message == OUT_OF_TIME
    assert len(model.requests) == 1


def test_converse_with_time_left_finishes_the_turn(ports) -> None:  # noqa: F811
    model = ScriptedModel(
        reply(use("t1", "create_email_draft", EMAIL), PAST, stop="tool_use"),
        reply({"text": "Drafted."}),
    )
    later = time.monotonic() + MODEL_CALL_RESERVE_SECONDS * 3

    results = converse_runtime(model, ports).run_turn(replace(REQUEST, deadline=later))

    assert results.message == "Drafted."
    assert len(model.requests) == 2


def test_the_first_model_call_always_runs(ports) -> None:  # noqa: F811
    model = ScriptedModel(reply({"text": "Hello."}))

    results = converse_runtime(model, ports).run_turn(replace(REQUEST, deadline=time.monotonic()))

    assert results.message == "Hello."


def test_return_control_answers_with_its_drafts_when_no_time_is_left_to_send_them_back(
    agent_ports,  # noqa: F811
) -> None:
    # Given an agent that hands back two calls, and a deadline too close to hand the results back
    inputs = [
        b.api_invocation_input(
            "email_draft", "/email-drafts", {"to": ["Kinshuok"], "subject": "D", "body": "B"}
        ),
        b.api_invocation_input(
            "meeting_scheduler",
            "/meeting-proposals",
            {"attendees": ["Kinshuok"], "title": "S", "when": "Thursday"},
        ),
    ]
    agent = ScriptedAgent([b.return_control("inv-1", inputs)], [b.chunk("never streamed")])

    # When the turn runs
    results = agent_runtime(agent, agent_ports).run_turn(replace(AGENT_REQUEST, deadline=soon()))

    # Then the drafts made in-process are cards, and the agent was not called a second time
    assert [c.type for c in results.client_actions] == ["show_new_email_draft", "show_meeting_scheduler"]
    assert results.message == OUT_OF_TIME
    assert len(agent.calls) == 1


class Context:
    def __init__(self, remaining_ms: int) -> None:
        self.remaining_ms = remaining_ms

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


def test_the_deadline_is_the_invocations_end_less_the_time_to_answer() -> None:
    before = time.monotonic()
    deadline = turn_deadline(Context(29_000))
    after = time.monotonic()

    assert deadline is not None
    assert before + 29 - RESPONSE_RESERVE_SECONDS <= deadline <= after + 29 - RESPONSE_RESERVE_SECONDS
    assert turn_deadline(None) is None
