"""The model runtimes: a malformed input never loses the others."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError, EventStreamError
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.people import Person
from multitool.runtimes import AgentCoreRuntime, ConverseRuntime, ModelBusy, build_runtime
from multitool.runtimes.base import UNFINISHED
from multitool.runtimes.converse import CUT_SHORT
from multitool.runtimes.product import product_flows
from multitool.settings.chat import ChatSettings
from multitool.toolkit.context import MAX_BODY_CHARS
from multitool.tools import ToolPorts

from tests.support import bedrock_streams as b
from tests.support.harness_streams import HARNESS_ARN
from tests.unit.runtimes.test_agent import REQUEST, ScriptedAgent, runtime

EMAIL = b.api_invocation_input(
    "email_draft", "/email-drafts", {"to": ["Kinshuok"], "subject": "Doc", "body": "Hi"}
)
EMAIL_ARGS = {"to": ["Kinshuok"], "subject": "Doc", "body": "Hi"}
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


# -- Converse: the output token limit ------------------------------------------------------------


class ScriptedConverse:
    def __init__(self, *responses: dict[str, Any]) -> None:
        self.responses = list(responses)
        self.requests: list[dict[str, Any]] = []

    def converse(self, **kwargs: Any) -> dict[str, Any]:
        self.requests.append(kwargs)
        return self.responses.pop(0)


def _answer(*content: dict[str, Any], stop: str) -> dict[str, Any]:
    return {"output": {"message": {"role": "assistant", "content": list(content)}}, "stopReason": stop}


def test_the_output_token_limit_leaves_room_for_a_full_length_email_body(ports: ToolPorts) -> None:
    # A body may be MAX_BODY_CHARS long; at ~4 characters a token the model must be allowed to write it.
    model = ScriptedConverse(_answer({"text": "Hello."}, stop="end_turn"))
    ConverseRuntime(model, "m", product_flows(ports)).run_turn(REQUEST)
    assert model.requests[0]["inferenceConfig"]["maxTokens"] * 4 > MAX_BODY_CHARS
    configured = ScriptedConverse(_answer({"text": "Hello."}, stop="end_turn"))
    ConverseRuntime(configured, "m", product_flows(ports), max_tokens=2048).run_turn(REQUEST)
    assert configured.requests[0]["inferenceConfig"]["maxTokens"] == 2048


def test_build_runtime_passes_the_configured_output_token_limit() -> None:
    settings = ChatSettings.from_env(
        {
            "DRAFTS_TABLE_NAME": "d",
            "DIRECTORY_TABLE_NAME": "p",
            "BOOKINGS_TABLE_NAME": "b",
            "SESSIONS_TABLE_NAME": "s",
            "RUNTIME": "converse",
            "MODEL_ID": "m",
            "MAX_OUTPUT_TOKENS": "8192",
        }
    )

    class Clients:
        bedrock_runtime = ScriptedConverse()

    built = build_runtime(settings, Clients(), lambda _request: None)  # type: ignore[arg-type,return-value]
    assert isinstance(built, ConverseRuntime)
    assert built.max_tokens == 8192


@pytest.mark.parametrize(
    ("model_id", "budget"),
    [
        ("global.anthropic.claude-sonnet-5-5", 16384),  # thinking counts against maxTokens
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", 4096),
    ],
)
def test_without_a_configured_limit_each_model_gets_its_default_budget(model_id: str, budget: int) -> None:
    base = {
        "DRAFTS_TABLE_NAME": "d",
        "DIRECTORY_TABLE_NAME": "p",
        "BOOKINGS_TABLE_NAME": "b",
        "SESSIONS_TABLE_NAME": "s",
        "MODEL_ID": model_id,
    }

    class Clients:
        bedrock_runtime = ScriptedConverse()
        bedrock_agentcore = object()
        dynamodb = object()

    converse = build_runtime(
        ChatSettings.from_env({**base, "RUNTIME": "converse"}),
        Clients(),  # type: ignore[arg-type]
        lambda _request: None,  # type: ignore[arg-type,return-value]
    )
    harness = build_runtime(
        ChatSettings.from_env({**base, "RUNTIME": "agentcore", "HARNESS_ARN": HARNESS_ARN}),
        Clients(),  # type: ignore[arg-type]
        lambda _request: None,  # type: ignore[arg-type,return-value]
    )
    assert isinstance(converse, ConverseRuntime)
    assert isinstance(harness, AgentCoreRuntime)
    assert converse.max_tokens == harness.max_tokens == budget


def test_an_answer_cut_at_the_token_limit_says_so_instead_of_dropping_its_tool_calls_silently(
    ports: ToolPorts,
) -> None:
    # Given a model answer that hit maxTokens while writing its tool calls
    cut = _answer(
        {"text": "Drafting both."},
        {"toolUse": {"toolUseId": "t1", "name": "create_email_draft", "input": {"to": ["Kinshuok"]}}},
        stop="max_tokens",
    )
    model = ScriptedConverse(cut)
    # When the turn runs
    results = ConverseRuntime(model, "m", product_flows(ports)).run_turn(REQUEST)
    # Then no draft is made from a possibly truncated call, and the user is told the answer was cut
    assert results.client_actions == ()
    assert results.message.startswith("Drafting both.")
    assert CUT_SHORT in results.message
    assert ports.drafts.writes == 0


# -- a model failure after drafts were made ------------------------------------------------------

THROTTLED = ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "Converse")


class FailingConverse(ScriptedConverse):
    def converse(self, **kwargs: Any) -> dict[str, Any]:
        self.requests.append(kwargs)
        answer = self.responses.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_a_converse_failure_after_a_round_of_tools_keeps_the_drafts_made(ports: ToolPorts) -> None:
    # Given a model that drafted an email and made a refused call, and is throttled on the next call
    refused = {"attendees": ["Kinshuok"], "title": "Sync", "when": "yesterday"}
    model = FailingConverse(
        _answer(
            {"toolUse": {"toolUseId": "t1", "name": "create_email_draft", "input": EMAIL_ARGS}},
            {"toolUse": {"toolUseId": "t2", "name": "propose_meeting", "input": refused}},
            stop="tool_use",
        ),
        THROTTLED,  # type: ignore[arg-type]
    )
    # When the turn runs
    results = ConverseRuntime(model, "m", product_flows(ports)).run_turn(REQUEST)
    # Then the user gets the email card and words saying the rest was not finished
    assert [card.type for card in results.client_actions] == ["show_new_email_draft"]
    assert results.message == UNFINISHED


def test_a_converse_failure_before_any_draft_is_still_an_error(ports: ToolPorts) -> None:
    model = FailingConverse(THROTTLED)  # type: ignore[arg-type]
    with pytest.raises(ModelBusy):
        ConverseRuntime(model, "m", product_flows(ports)).run_turn(REQUEST)


def test_an_agent_stream_broken_after_an_action_group_ran_keeps_its_draft(ports: ToolPorts) -> None:
    broken = EventStreamError({"Error": {"Code": "throttlingException", "Message": "Rate"}}, "InvokeAgent")
    agent = ScriptedAgent(
        [
            b.invocation_input("step-0", "email_draft", "/email-drafts"),
            b.observation("step-0", b.email_payload()),
            broken,
        ]
    )

    results = runtime(agent, ports).run_turn(REQUEST)

    assert [card.id for card in results.client_actions] == ["d_email1"]
    assert results.message == UNFINISHED
