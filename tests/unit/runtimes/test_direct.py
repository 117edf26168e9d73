"""One model call when the cards say it all: when each runtime answers from the cards, when it
calls the model again, and what the model reads on the session's next turn."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

import botocore.session
import pytest
from botocore.exceptions import ClientError
from botocore.validate import validate_parameters
from msgspec.structs import replace
from multitool.chat.service import ChatRequest, ChatService
from multitool.local.sandbox.memory import (
    MemoryCalendar,
    MemoryDirectory,
    MemoryDraftStore,
    MemorySessionStore,
)
from multitool.people import Person
from multitool.runtimes import AgentCoreRuntime, AgentRuntime, ConverseRuntime
from multitool.runtimes.base import UNFINISHED
from multitool.runtimes.carryover import (
    MAX_CARRY_BYTES,
    CarryFailed,
    MemoryCarryOver,
    carry_text,
    parse_carry,
)
from multitool.runtimes.product import product_flows
from multitool.toolkit.context import MAX_BODY_CHARS
from multitool.tools import ToolPorts

from tests.support import bedrock_streams as b
from tests.support import harness_streams as h
from tests.unit.runtimes.test_agent import ScriptedAgent
from tests.unit.runtimes.test_agentcore import EMAIL, MEETING, REQUEST
from tests.unit.runtimes.test_converse import ScriptedModel, reply, use

COMPOSED = (
    "I drafted an email to Kinshuok Sharma about the doc and found 3 times for a sync with "
    "Kinshuok Sharma on Thursday. Nothing is sent or booked until you confirm."
)
AMBIGUOUS = {"attendees": ["Kinshuok", "Alex"], "title": "Sync", "when": "Thursday"}


@pytest.fixture
def ports() -> ToolPorts:
    people = [Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com")]
    return ToolPorts(MemoryDirectory(people), MemoryCalendar(), MemoryDraftStore())


def service_input(service: str, operation: str) -> Any:
    return botocore.session.get_session().get_service_model(service).operation_model(operation).input_shape


def alternating(messages: Sequence[Mapping[str, Any]]) -> bool:
    roles = [m["role"] for m in messages]
    return roles[0] == "user" and all(a != b for a, b in itertools.pairwise(roles))


def harness(client: Any, ports: ToolPorts, carry: Any = None, **kwargs: Any) -> AgentCoreRuntime:
    return AgentCoreRuntime(client, h.HARNESS_ARN, product_flows(ports), carry=carry, **kwargs)


# --------------------------------------------------------------------------- Converse


def test_converse_calls_the_model_again_when_a_card_needs_the_users_clarification(ports) -> None:
    # Given a response whose meeting names someone the directory does not know
    model = ScriptedModel(
        reply(
            use("t1", "create_email_draft", EMAIL), use("t2", "propose_meeting", AMBIGUOUS), stop="tool_use"
        ),
        reply({"text": "Who is Alex? Pick them on the card."}),
    )

    results = ConverseRuntime(model, "m", product_flows(ports)).run_turn(REQUEST)

    # Then the model reads both results and asks, in its own words
    assert len(model.requests) == 2
    assert results.message == "Who is Alex? Pick them on the card."
    assert len(results.client_actions) == 2


def test_converse_after_a_refused_call_and_a_retry_answers_from_every_card_of_the_turn(ports) -> None:
    # Given a first response with one refused call, and a retry that drafts the meeting
    model = ScriptedModel(
        reply(
            use("t1", "create_email_draft", EMAIL),
            use("t2", "propose_meeting", {**MEETING, "when": "yesterday"}),
            stop="tool_use",
        ),
        reply(use("t3", "propose_meeting", MEETING), stop="tool_use"),
    )

    results = ConverseRuntime(model, "m", product_flows(ports)).run_turn(REQUEST)

    # Then the retry's drafts end the turn, and the answer names the first round's card too
    assert len(model.requests) == 2
    assert results.message == COMPOSED


def test_a_call_refused_before_it_reaches_the_tools_keeps_the_turn_on_the_model(ports) -> None:
    # Given a response with a good call and one whose input is not an object
    model = ScriptedModel(
        reply(
            use("t1", "create_email_draft", EMAIL), use("t2", "propose_meeting", "Thursday"), stop="tool_use"
        ),
        reply({"text": "I drafted the email; the meeting call was malformed."}),
    )
    converse = ConverseRuntime(model, "m", product_flows(ports)).run_turn(REQUEST)
    client = h.ScriptedHarness(
        h.response(
            h.tool_use(0, "t1", "create_email_draft", EMAIL),
            h.tool_use(1, "t2", "propose_meeting", "{not json"),
            stop="tool_use",
        ),
        h.answer("I drafted the email; the meeting call was malformed."),
    )
    harnessed = harness(client, ports, MemoryCarryOver()).run_turn(REQUEST)

    # Then both runtimes give the model the error to read
    assert len(model.requests) == 2
    assert len(client.requests) == 2
    assert converse.message == harnessed.message == "I drafted the email; the meeting call was malformed."
    assert [r["status"] for r in client.tool_results(1)] == ["success", "error"]


def test_the_next_converse_turn_reads_valid_history_with_the_answer_the_user_saw(ports) -> None:
    # Given a session whose first turn was answered from its cards
    model = ScriptedModel(
        reply(use("t1", "create_email_draft", EMAIL), use("t2", "propose_meeting", MEETING), stop="tool_use"),
        reply({"text": "You're welcome."}),
    )
    chat = ChatService(ConverseRuntime(model, "m", product_flows(ports)), MemorySessionStore())
    first = chat.reply("user-1", ChatRequest(message="Email Kinshuok about the doc and schedule a sync"))

    # When the user writes again
    chat.reply("user-1", ChatRequest(message="Thanks", session_id=first.session_id))

    # Then the second request is one Converse accepts, and its history holds what the user was told
    request = model.requests[1]
    validate_parameters(request, service_input("bedrock-runtime", "Converse"))
    assert alternating(request["messages"])
    earlier = request["messages"][1]["content"][0]["text"]
    assert earlier.startswith(COMPOSED)
    email_id = first.client_actions[0].id
    assert f"[cards: {email_id} create_email_draft: Draft email to Kinshuok Sharma" in earlier


# --------------------------------------------------------------------------- the harness


def test_without_a_carry_store_the_harness_resumes_on_the_model(ports) -> None:
    client = h.ScriptedHarness(
        h.calls(("t1", "create_email_draft", EMAIL), ("t2", "propose_meeting", MEETING)),
        h.answer("Both drafted."),
    )

    results = harness(client, ports).run_turn(REQUEST)

    assert len(client.requests) == 2
    assert results.message == "Both drafted."


class FailingCarry(MemoryCarryOver):
    def keep(self, user_id: str, session_id: str, messages: Sequence[Mapping[str, Any]]) -> None:
        raise CarryFailed("The harness step could not be stored.")


def test_a_step_that_cannot_be_carried_is_resumed_on_the_model_now(ports) -> None:
    client = h.ScriptedHarness(
        h.calls(("t1", "create_email_draft", EMAIL), ("t2", "propose_meeting", MEETING)),
        h.answer("Both drafted."),
    )

    results = harness(client, ports, FailingCarry()).run_turn(REQUEST)

    # The answer waits for the model rather than leave the harness session without the step
    assert len(client.requests) == 2
    assert [r["toolUseId"] for r in client.tool_results(1)] == ["t1", "t2"]
    assert results.message == "Both drafted."


def test_a_step_too_large_to_carry_is_resumed_on_the_model_now(ports) -> None:
    # Given eleven full-length emails in one response: their results are more than the store keeps
    body = "x" * MAX_BODY_CHARS
    uses = [
        (f"t{i}", "create_email_draft", {**EMAIL, "subject": f"Part {i}", "body": body}) for i in range(11)
    ]
    client = h.ScriptedHarness(h.calls(*uses), h.answer("Eleven drafts."))
    carry = MemoryCarryOver()

    results = harness(client, ports, carry).run_turn(REQUEST)

    assert len(client.requests) == 2
    assert results.message == "Eleven drafts."
    assert carry.steps == {}


def test_a_carried_step_the_harness_never_read_is_carried_again(ports) -> None:
    # Given a turn answered from its cards, and a next turn whose harness call is throttled
    throttled = ClientError({"Error": {"Code": "throttlingException", "Message": "slow"}}, "InvokeHarness")
    client = h.ScriptedHarness(
        h.calls(("t1", "create_email_draft", EMAIL), ("t2", "propose_meeting", MEETING)),
        throttled,
        h.answer("You're welcome."),
    )
    carry = MemoryCarryOver()
    runtime = harness(client, ports, carry)
    assert runtime.run_turn(REQUEST).message == COMPOSED
    step = carry.take("user-1", "sess-1")
    carry.keep("user-1", "sess-1", step)

    with pytest.raises(Exception, match="busy"):
        runtime.run_turn(replace(REQUEST, message="Thanks"))

    # Then the turn after it still sends the step first, once
    assert runtime.run_turn(replace(REQUEST, message="Thanks")).message == "You're welcome."
    assert client.requests[2]["messages"] == [*step, {"role": "user", "content": [{"text": "Thanks"}]}]
    assert carry.steps == {}


def test_a_carried_step_belongs_to_its_user_and_session(ports) -> None:
    client = h.ScriptedHarness(
        h.calls(("t1", "create_email_draft", EMAIL), ("t2", "propose_meeting", MEETING)),
        h.answer("Hello."),
    )
    carry = MemoryCarryOver()
    runtime = harness(client, ports, carry)
    runtime.run_turn(REQUEST)

    runtime.run_turn(replace(REQUEST, user_id="user-2", message="Hi"))

    assert client.requests[1]["messages"] == [{"role": "user", "content": [{"text": "Hi"}]}]
    assert set(carry.steps) == {("user-1", "sess-1")}


def test_a_stored_step_that_is_not_messages_is_dropped() -> None:
    assert parse_carry('{"role": "user"}') == []
    assert parse_carry("not json") == []
    assert parse_carry('[{"role": "system", "content": []}]') == []
    assert parse_carry(None) == []
    with pytest.raises(CarryFailed):
        carry_text([{"role": "user", "content": [{"text": "x" * MAX_CARRY_BYTES}]}])


# --------------------------------------------------------------------------- RETURN_CONTROL


def test_return_control_sends_the_results_even_when_the_cards_say_it_all(ports) -> None:
    # Given an agent that returns control with an email and a meeting call, both of which draft
    inputs = [
        b.api_invocation_input("email_draft", "/email-drafts", EMAIL),
        b.api_invocation_input("meeting_scheduler", "/meeting-proposals", MEETING),
    ]
    agent = ScriptedAgent([b.return_control("inv-1", inputs)], [b.chunk("Drafted both.")])

    results = AgentRuntime(agent, "AGENT12345", "ALIAS12345", product_flows(ports)).run_turn(REQUEST)

    # Then the results still go back (Bedrock ignores inputText beside them and always continues,
    # and the agent keeps the session itself): the agent's own answer is the reply
    second = agent.calls[1]
    validate_parameters(second, service_input("bedrock-agent-runtime", "InvokeAgent"))
    assert second["sessionState"]["invocationId"] == "inv-1"
    assert len(second["sessionState"]["returnControlInvocationResults"]) == 2
    assert results.message == "Drafted both."
    assert results.message != UNFINISHED
    assert (
        json.loads(
            second["sessionState"]["returnControlInvocationResults"][0]["apiResult"]["responseBody"][
                "application/json"
            ]["body"]
        )["action"]
        == "show_new_email_draft"
    )


def test_the_deployed_harness_carries_in_the_sessions_table_and_the_offline_one_in_memory() -> None:
    from multitool.runtimes import build_runtime
    from multitool.runtimes.carryover import DynamoCarryOver

    from tests.unit.runtimes.test_agentcore import Clients, settings

    class WithTable(Clients):
        dynamodb = object()  # type: ignore[assignment]

    deployed = build_runtime(
        settings(RUNTIME="agentcore", HARNESS_ARN=h.HARNESS_ARN),
        WithTable(),
        lambda _r: None,  # type: ignore[arg-type,return-value]
    )
    offline = build_runtime(settings(), WithTable(), lambda _r: None)  # type: ignore[arg-type,return-value]

    assert isinstance(deployed, AgentCoreRuntime)
    assert isinstance(deployed.carry, DynamoCarryOver)
    assert (deployed.carry.table_name, deployed.carry.client) == ("s", WithTable.dynamodb)
    assert isinstance(offline, AgentCoreRuntime)
    assert isinstance(offline.carry, MemoryCarryOver)
