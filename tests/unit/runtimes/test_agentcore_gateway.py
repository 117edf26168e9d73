"""The harness runtime with the Gateway as its tool source: toolResult blocks in the stream become cards."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from moto import mock_aws
from multitool.drafts import UNCLAIMED_OWNER, Draft
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.people import Person
from multitool.ports import tables
from multitool.ports.drafts import DynamoDraftStore
from multitool.runtimes import AgentCoreRuntime, AwsClients, TurnRequest, build_runtime
from multitool.runtimes.harness_gateway import NOT_CLAIMED, allowed_tools, gateway_tools
from multitool.runtimes.product import product_flows
from multitool.settings.chat import ChatSettings
from multitool.tools import ToolContext, ToolPorts, run_calls

from tests.support import harness_streams as h
from tests.support.gateway_events import gateway_turn_stream

NOW = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
GATEWAY_ARN = "arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/multitool-gw-abc123"
REQUEST = TurnRequest("user-1", "sess-1", "Email Kinshuok and file a bug", "Europe/Berlin", NOW)
EMAIL = {"to": ["Kinshuok"], "subject": "About the doc", "body": "Please have a look."}
JIRA = {"project": "WEB", "issueType": "Bug", "summary": "Login crash"}


@pytest.fixture
def ports() -> ToolPorts:
    people = [Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com")]
    return ToolPorts(MemoryDirectory(people), MemoryCalendar(), MemoryDraftStore())


def gateway_answers(ports: ToolPorts, *calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """What the Lambdas answer the Gateway: unclaimed drafts, stored in ``ports``."""
    ctx = ToolContext(owner=UNCLAIMED_OWNER, session_id="gateway:req-1", now=NOW)
    return [outcome.body for outcome in run_calls(list(calls), ctx, ports)]


class Claims:
    """The real claim on the memory store, recording what each turn asked to claim."""

    def __init__(self, ports: ToolPorts) -> None:
        self.ports = ports
        self.asked: list[tuple[str, list[str]]] = []

    def __call__(self, user_id: str, draft_ids: Iterable[str]) -> frozenset[str]:
        from multitool.runtimes.claims import claim_drafts

        ids = list(draft_ids)
        self.asked.append((user_id, ids))
        return claim_drafts(self.ports.drafts, user_id, ids)


def gateway_runtime(client: Any, ports: ToolPorts, claims: Claims | None = None) -> AgentCoreRuntime:
    return AgentCoreRuntime(
        client, h.HARNESS_ARN, product_flows(ports), tools=gateway_tools(GATEWAY_ARN), claims=claims
    )


def test_the_request_names_the_gateway_as_the_only_tool_source(ports: ToolPorts) -> None:
    client = h.ScriptedHarness(h.answer("Hello."))
    gateway_runtime(client, ports).run_turn(REQUEST)
    (request,) = client.requests
    assert request["tools"] == [
        {
            "type": "agentcore_gateway",
            "name": "multitool",
            "config": {"agentCoreGateway": {"gatewayArn": GATEWAY_ARN, "outboundAuth": {"awsIam": {}}}},
        }
    ]
    assert request["allowedTools"] == ["@multitool"]
    assert allowed_tools([{"type": "inline_function", "name": "x"}]) == ["x"]


def test_gateway_results_in_the_stream_become_claimed_cards(ports: ToolPorts) -> None:
    email, jira = gateway_answers(ports, ("create_email_draft", EMAIL), ("create_jira_ticket_draft", JIRA))
    stream = gateway_turn_stream(
        [
            ("tu1", "email-draft___create_email_draft", EMAIL, email),
            ("tu2", "jira-draft___create_jira_ticket_draft", JIRA, jira),
        ],
        "Both drafted.",
    )
    claims = Claims(ports)
    results = gateway_runtime(h.ScriptedHarness(stream), ports, claims).run_turn(REQUEST)

    assert [card.type for card in results.client_actions] == [
        "show_new_email_draft",
        "show_jira_ticket_draft",
    ]
    assert [card.id for card in results.client_actions] == [email["draftId"], jira["draftId"]]
    assert claims.asked == [("user-1", [email["draftId"], jira["draftId"]])]
    for draft_id in (email["draftId"], jira["draftId"]):
        stored = ports.drafts.get(draft_id)
        assert stored is not None
        assert stored.owner == "user-1"
    assert results.message.startswith("Both drafted.")


def test_a_json_result_block_reads_like_a_text_one_and_repeats_are_one_card(ports: ToolPorts) -> None:
    (email,) = gateway_answers(ports, ("create_email_draft", EMAIL))
    stream = h.response(
        h.tool_use(0, "tu1", "email-draft___create_email_draft", EMAIL, kind="mcp_tool_use"),
        h.tool_result(1, "tu1", email),  # JSON content
        h.tool_use(2, "tu2", "email-draft___create_email_draft", EMAIL, kind="mcp_tool_use"),
        h.tool_result(3, "tu2", email),  # the same draft again: deduped by the extractor
        h.text(4, "Drafted."),
    )
    results = gateway_runtime(h.ScriptedHarness(stream), ports, Claims(ports)).run_turn(REQUEST)
    assert [card.id for card in results.client_actions] == [email["draftId"]]


def test_an_error_result_is_a_failure_not_a_card(ports: ToolPorts) -> None:
    error = {
        "error": {
            "code": "unknown_project",
            "message": "There is no project NOPE. Use: WEB, OPS.",
            "field": "project",
        }
    }
    stream = gateway_turn_stream([("tu1", "jira-draft___create_jira_ticket_draft", JIRA, error)], "Sorry.")
    results = gateway_runtime(h.ScriptedHarness(stream), ports, Claims(ports)).run_turn(REQUEST)
    assert results.client_actions == ()
    assert [failure.code for failure in results.failures] == ["unknown_project"]


def test_a_draft_the_turn_cannot_claim_shows_no_card(ports: ToolPorts) -> None:
    (email,) = gateway_answers(ports, ("create_email_draft", EMAIL))
    stored = ports.drafts.get(email["draftId"])
    assert stored is not None
    ports.drafts.claim(stored, "someone-else")
    stream = gateway_turn_stream([("tu1", "email-draft___create_email_draft", EMAIL, email)], "Done.")
    results = gateway_runtime(h.ScriptedHarness(stream), ports, Claims(ports)).run_turn(REQUEST)
    assert results.client_actions == ()
    assert [failure.code for failure in results.failures] == [NOT_CLAIMED["error"]["code"]]


def test_without_a_claim_step_no_gateway_draft_becomes_a_card(ports: ToolPorts) -> None:
    (email,) = gateway_answers(ports, ("create_email_draft", EMAIL))
    stream = gateway_turn_stream([("tu1", "email-draft___create_email_draft", EMAIL, email)], "Done.")
    results = gateway_runtime(h.ScriptedHarness(stream), ports).run_turn(REQUEST)
    assert results.client_actions == ()


def test_a_result_that_is_not_json_and_a_result_without_its_call_are_read_tolerantly(
    ports: ToolPorts,
) -> None:
    stream = h.response(
        h.tool_use(0, "tu1", "email-draft___create_email_draft", EMAIL, kind="mcp_tool_use"),
        h.checked(
            {
                "contentBlockStart": {
                    "contentBlockIndex": 1,
                    "start": {"toolResult": {"toolUseId": "tu1", "status": "error"}},
                }
            }
        ),
        h.checked(
            {
                "contentBlockDelta": {
                    "contentBlockIndex": 1,
                    "delta": {"toolResult": [{"text": "Lambda timed out"}]},
                }
            }
        ),
        h.block_stop(1),
        h.tool_result(2, "orphan", {"action": "show_new_email_draft", "draftId": "d_x"}),  # no toolUse
        h.Raw({"contentBlockDelta": {"contentBlockIndex": 9, "delta": {"toolResult": [{"text": "?"}]}}}),
        h.text(3, "That failed."),
    )
    results = gateway_runtime(h.ScriptedHarness(stream), ports, Claims(ports)).run_turn(REQUEST)
    assert results.client_actions == ()
    assert [failure.code for failure in results.failures] == ["tool_failed"]
    assert json.dumps(results.failures[0].message).count("Lambda timed out") == 1


def test_gateway_arn_makes_the_deployed_harness_use_the_gateway_and_claim_on_the_drafts_table() -> None:

    with mock_aws():
        clients = AwsClients(boto3.session.Session(region_name="us-east-1"))
        names = tables.create_all(clients.dynamodb)
        settings = ChatSettings.from_env(
            {
                **names,
                "RUNTIME": "agentcore",
                "HARNESS_ARN": h.HARNESS_ARN,
                "GATEWAY_ARN": GATEWAY_ARN,
                "MAX_TOOL_ROUNDS": "3",
            }
        )
        built = build_runtime(settings, clients, lambda _r: None)  # type: ignore[arg-type,return-value]
        assert isinstance(built, AgentCoreRuntime)
        assert (built.tools, built.max_rounds) == (gateway_tools(GATEWAY_ARN), 3)
        assert built.claims is not None
        draft = Draft.model_validate(
            {
                "id": "d_1",
                "owner": UNCLAIMED_OWNER,
                "sessionId": "gateway:r1",
                "action": "show_new_email_draft",
                "payload": {},
                "createdAt": NOW,
                "updatedAt": NOW,
                "expiresAt": 4_000_000_000,
            }
        )
        DynamoDraftStore(names["DRAFTS_TABLE_NAME"], clients.dynamodb).create_many([draft])
        assert built.claims("user-1", ["d_1", "d_missing"]) == frozenset({"d_1"})
