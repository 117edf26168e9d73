"""The Bedrock agent runtime on recorded-shape InvokeAgent streams, incl. RETURN_CONTROL."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from botocore.exceptions import ClientError, EventStreamError
from msgspec.structs import replace
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.people import Person
from multitool.ports.calendar import Booking
from multitool.runtimes import AgentRuntime, ModelBusy, ModelFailed, TurnRequest
from multitool.runtimes.product import product_flows
from multitool.runtimes.prompts import contract_text
from multitool.tools import ToolPorts

from tests.support import bedrock_streams as b

NOW = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
REQUEST = TurnRequest(
    "user-1", "sess-1", "Email Kinshuok, schedule a sync and file a bug", "Europe/Berlin", NOW
)


class ScriptedAgent:
    """invoke_agent() returning the next scripted completion stream (a generator, as boto3 does)."""

    def __init__(self, *streams) -> None:
        self.streams = list(streams)
        self.calls: list[dict] = []

    def invoke_agent(self, **kwargs):
        self.calls.append(kwargs)
        stream = self.streams.pop(0)
        if isinstance(stream, Exception):
            raise stream

        def completion():
            for event in stream:
                if isinstance(event, Exception):
                    raise event
                yield event

        return {
            "completion": completion(),
            "contentType": "application/json",
            "sessionId": kwargs["sessionId"],
        }


@pytest.fixture
def ports() -> ToolPorts:
    people = [
        Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com"),
        Person(id="p2", display_name="Priya Natarajan", email="priya@example.com"),
    ]
    return ToolPorts(MemoryDirectory(people), MemoryCalendar(), MemoryDraftStore())


def runtime(agent: ScriptedAgent, ports: ToolPorts, **kwargs) -> AgentRuntime:
    return AgentRuntime(agent, "AGENT12345", "ALIAS12345", product_flows(ports), **kwargs)


def test_lambda_executor_stream_gives_cards_from_the_trace(ports) -> None:
    step = "step-0"
    agent = ScriptedAgent(
        [
            b.invocation_input(step, "email_draft", "/email-drafts"),
            b.invocation_input(step, "meeting_scheduler", "/meeting-proposals"),
            b.observation(step, b.email_payload()),
            b.observation(step, b.meeting_payload()),
            b.final_response("step-1", "Drafted."),
            b.chunk("Drafted an email and proposed times."),
        ]
    )

    results = runtime(agent, ports).run_turn(REQUEST)

    assert [c.id for c in results.client_actions] == ["d_email1", "d_meet1"]
    assert results.message == "Drafted an email and proposed times."
    call = agent.calls[0]
    assert call["agentId"] == "AGENT12345"
    assert call["agentAliasId"] == "ALIAS12345"
    assert call["sessionId"] == "sess-1"
    assert call["inputText"] == REQUEST.message
    assert call["enableTrace"] is True
    assert call["sessionState"]["sessionAttributes"] == {
        "userId": "user-1",
        "timezone": "Europe/Berlin",
        "now": NOW.isoformat(),
    }
    assert call["sessionState"]["promptSessionAttributes"]["rules"] == contract_text()


def test_return_control_with_three_inputs_runs_one_batch_and_answers_each(ports) -> None:
    inputs = [
        b.api_invocation_input(
            "email_draft", "/email-drafts", {"to": ["Kinshuok"], "subject": "Doc", "body": "Hi"}
        ),
        b.api_invocation_input(
            "meeting_scheduler",
            "/meeting-proposals",
            {"attendees": ["Kinshuok"], "title": "Sync", "when": "Thursday"},
        ),
        b.api_invocation_input(
            "jira_draft",
            "/jira-ticket-drafts",
            {"project": "WEB", "issueType": "Bug", "summary": "Login crash"},
        ),
    ]
    agent = ScriptedAgent(
        [b.rationale("s-0", "Three actions."), b.return_control("inv-42", inputs)],
        [b.chunk("Your email, meeting and ticket are ready.")],
    )

    results = runtime(agent, ports).run_turn(REQUEST)

    assert [c.type for c in results.client_actions] == [
        "show_new_email_draft",
        "show_meeting_scheduler",
        "show_jira_ticket_draft",
    ]
    assert results.message == "Your email, meeting and ticket are ready."
    assert ports.directory.reads == 1
    assert ports.drafts.writes == 1
    second = agent.calls[1]
    assert second["inputText"] == ""
    state = second["sessionState"]
    assert state["invocationId"] == "inv-42"
    assert state["sessionAttributes"]["userId"] == "user-1"
    answers = [entry["apiResult"] for entry in state["returnControlInvocationResults"]]
    assert [(a["actionGroup"], a["apiPath"], a["httpMethod"]) for a in answers] == [
        ("email_draft", "/email-drafts", "POST"),
        ("meeting_scheduler", "/meeting-proposals", "POST"),
        ("jira_draft", "/jira-ticket-drafts", "POST"),
    ]
    assert [a["httpStatusCode"] for a in answers] == [200, 200, 200]
    bodies = [json.loads(a["responseBody"]["application/json"]["body"]) for a in answers]
    assert [body["action"] for body in bodies] == [
        "show_new_email_draft",
        "show_meeting_scheduler",
        "show_jira_ticket_draft",
    ]
    assert [c.id for c in results.client_actions] == [body["draftId"] for body in bodies]


def test_bad_inputs_get_their_own_error_results(ports) -> None:
    inputs = [
        b.api_invocation_input(
            "email_draft", "/email-drafts", {"to": ["Kinshuok"], "subject": "Doc", "body": "Hi"}
        ),
        b.api_invocation_input("email_draft", "/nowhere", {}),
        b.api_invocation_input("jira_draft", "/jira-ticket-drafts", {"project": "NOPE", "summary": "x"}),
        {
            "functionInvocationInput": {
                "actionGroup": "email_draft",
                "function": "create_email_draft",
                "actionInvocationType": "RESULT",
                "parameters": [
                    {"name": "to", "type": "array", "value": '["Priya"]'},
                    {"name": "subject", "type": "string", "value": "Hello"},
                    {"name": "body", "type": "string", "value": "Hi Priya"},
                ],
            }
        },
    ]
    agent = ScriptedAgent([b.return_control("inv-7", inputs)], [b.chunk("Partly done.")])

    results = runtime(agent, ports).run_turn(REQUEST)

    entries = agent.calls[1]["sessionState"]["returnControlInvocationResults"]
    assert [entries[i]["apiResult"]["httpStatusCode"] for i in range(3)] == [200, 404, 400]
    error = json.loads(entries[2]["apiResult"]["responseBody"]["application/json"]["body"])["error"]
    assert error["code"] in {"invalid_input", "unknown_project"}
    function = entries[3]["functionResult"]
    assert function["function"] == "create_email_draft"
    assert json.loads(function["responseBody"]["TEXT"]["body"])["action"] == "show_new_email_draft"
    assert len(results.client_actions) == 2
    assert {f.code for f in results.failures} >= {"unknown_tool"}


def test_throttling_in_the_stream_is_model_busy(ports) -> None:
    throttled = EventStreamError(
        {"Error": {"Code": "throttlingException", "Message": "Rate exceeded"}}, "InvokeAgent"
    )
    agent = ScriptedAgent([b.rationale("s-0", "x"), throttled])

    with pytest.raises(ModelBusy):
        runtime(agent, ports).run_turn(REQUEST)


def test_access_denied_is_model_failed(ports) -> None:
    denied = ClientError({"Error": {"Code": "AccessDeniedException", "Message": "no"}}, "InvokeAgent")

    with pytest.raises(ModelFailed):
        runtime(ScriptedAgent(denied), ports).run_turn(REQUEST)


def test_return_control_rounds_are_bounded(ports) -> None:
    email = b.api_invocation_input(
        "email_draft", "/email-drafts", {"to": ["Kinshuok"], "subject": "D", "body": "B"}
    )
    agent = ScriptedAgent(*[[b.return_control(f"inv-{i}", [email])] for i in range(3)])

    results = runtime(agent, ports, max_rounds=2).run_turn(REQUEST)

    assert len(agent.calls) == 2
    assert len(results.client_actions) == 1


def test_the_senders_address_reaches_action_groups_and_return_control_tools(ports) -> None:
    # Thursday 3 December, the requester is busy all morning in Berlin.
    morning = (datetime(2026, 12, 3, 8, 0, tzinfo=UTC), datetime(2026, 12, 3, 11, 0, tzinfo=UTC))
    ports.calendar.book(
        Booking(
            id="b-1",
            title="Offsite",
            organizer="me@example.com",
            attendees=("me@example.com",),
            start=morning[0],
            end=morning[1],
        )
    )
    meeting = b.api_invocation_input(
        "meeting_scheduler",
        "/meeting-proposals",
        {"attendees": ["Kinshuok"], "title": "Sync", "when": "Thursday"},
    )
    agent = ScriptedAgent([b.return_control("inv-1", [meeting])], [b.chunk("Proposed.")])

    results = runtime(agent, ports).run_turn(replace(REQUEST, user_email="me@example.com"))

    first, second = agent.calls
    assert first["sessionState"]["sessionAttributes"]["userEmail"] == "me@example.com"
    assert second["sessionState"]["sessionAttributes"]["userEmail"] == "me@example.com"
    (card,) = results.client_actions
    assert card.slots
    assert all(slot.start >= morning[1] for slot in card.slots)
