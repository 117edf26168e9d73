"""Findings of the runtime review in the model runtimes: a malformed input never loses the others."""

from __future__ import annotations

import json
from typing import Any

import pytest
from multitool.people import Person
from multitool.ports.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.tools import ToolPorts

from tests import bedrock_streams as b
from tests.unit.test_runtimes_agent import REQUEST, ScriptedAgent, runtime

EMAIL = b.api_invocation_input(
    "email_draft", "/email-drafts", {"to": ["Kinshuok"], "subject": "Doc", "body": "Hi"}
)
JIRA_INPUT = {"actionGroup": "jira_draft", "apiPath": "/jira-ticket-drafts", "httpMethod": "POST"}


@pytest.fixture
def ports() -> ToolPorts:
    people = [Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com")]
    return ToolPorts(MemoryDirectory(people), MemoryCalendar(), MemoryDraftStore())


@pytest.mark.parametrize(
    "request_body",
    ["not an object", {"content": "not an object"}, {"content": {"application/json": "not an object"}}],
)
def test_a_return_control_input_with_a_malformed_body_is_answered_400_and_the_others_run(
    ports: ToolPorts, request_body: Any
) -> None:
    # Given a returnControl whose second input has a request body of the wrong shape
    broken = {"apiInvocationInput": {**JIRA_INPUT, "requestBody": request_body}}
    agent = ScriptedAgent([b.return_control("inv-1", [EMAIL, broken])], [b.chunk("Done.")])
    # When the turn runs
    results = runtime(agent, ports).run_turn(REQUEST)
    # Then the email is drafted and each input gets its own result, the broken one a 400
    assert [card.type for card in results.client_actions] == ["show_new_email_draft"]
    answers = [e["apiResult"] for e in agent.calls[1]["sessionState"]["returnControlInvocationResults"]]
    assert [(a["actionGroup"], a["apiPath"], a["httpMethod"], a["httpStatusCode"]) for a in answers] == [
        ("email_draft", "/email-drafts", "POST", 200),
        ("jira_draft", "/jira-ticket-drafts", "POST", 400),
    ]
    error = json.loads(answers[1]["responseBody"]["application/json"]["body"])["error"]
    assert (error["code"], error["field"]) == ("invalid_input", "requestBody")


def test_a_deeply_nested_property_is_that_inputs_400_not_a_failed_turn(ports: ToolPorts) -> None:
    # Given a property value nested deeper than Python's JSON decoder can recurse (within the size limit)
    nested = "[" * 20_000 + "]" * 20_000
    deep = {
        "apiInvocationInput": {
            **JIRA_INPUT,
            "requestBody": {
                "content": {
                    "application/json": {
                        "properties": [{"name": "summary", "type": "array", "value": nested}]
                    }
                }
            },
        }
    }
    agent = ScriptedAgent([b.return_control("inv-1", [EMAIL, deep])], [b.chunk("Done.")])

    results = runtime(agent, ports).run_turn(REQUEST)

    assert [card.type for card in results.client_actions] == ["show_new_email_draft"]
    answers = [e["apiResult"] for e in agent.calls[1]["sessionState"]["returnControlInvocationResults"]]
    assert [a["httpStatusCode"] for a in answers] == [200, 400]
    error = json.loads(answers[1]["responseBody"]["application/json"]["body"])["error"]
    assert (error["code"], error["field"]) == ("invalid_input", "summary")
