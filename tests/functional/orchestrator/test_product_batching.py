"""The product step over moto DynamoDB: N calls of a model response -> 1 directory read, 1 draft write."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

import boto3
import pytest
import urllib3
from moto import mock_aws
from multitool.local.standins.jira_server import start_fake_jira
from multitool.people import Person
from multitool.ports.atlassian.jira_cloud import JiraCloudClient
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.ports.directory import DynamoDirectory, seed_people
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.tables import create_all
from multitool.runtimes.flow import ToolCall
from multitool.runtimes.product import TOOL_NAMES, ProductStep, product_flow
from multitool.tools import REGISTRY, ToolContext, ToolPorts
from multitool.wiring.tool_ports import builtin_mailboxes

NOW = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
PEOPLE = [
    Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com"),
    Person(id="p2", display_name="Priya Natarajan", email="priya@example.com"),
]
REQUESTER = "jordan@example.com"
ARGS = {
    "create_email_draft": {"to": ["Kinshuok"], "subject": "About the doc", "body": "Please review the doc."},
    "reply_to_email": {"message": {"said": "Priya's email", "people": ["Priya"]}, "body": "Sounds good."},
    "forward_email": {
        "message": {"said": "the invoice", "words": ["invoice"]},
        "to": ["Kinshuok"],
        "note": "FYI",
    },
    "propose_meeting": {"attendees": ["Kinshuok", "Priya"], "title": "Sync", "when": "Thursday"},
    "create_jira_ticket_draft": {
        "project": "WEB",
        "issueType": "Bug",
        "summary": "Login crash",
        "assignee": "Priya",
    },
    "comment_on_jira_issue": {"issue": {"said": "WEB-12", "key": "WEB-12"}, "comment": "Fixed in build"},
    "transition_jira_issue": {
        "issue": {"said": "the login crash ticket", "words": ["login", "crash"]},
        "status": "Done",
    },
    "update_jira_issue": {"issue": {"said": "WEB-12"}, "summary": "Login crash", "assignee": "Priya"},
    "link_jira_issues": {"issue": {"said": "WEB-12"}, "other": {"said": "OPS-3"}, "link": "blocks"},
    "move_meeting": {
        "meeting": {"said": "the sync with Priya", "people": ["Priya"]},
        "shiftMinutes": 30,
        "message": "Late",
    },
    "cancel_meeting": {"meeting": {"said": "the sync", "words": ["sync"]}, "message": "Sorry"},
    "answer_invitation": {
        "meeting": {"said": "the retro", "words": ["retro"]},
        "response": "declined",
        "message": "Out",
    },
    "show_calendar": {"when": "Thursday", "fromDay": "2026-12-03"},
    "find_free_time": {"people": ["Priya"], "when": "Thursday", "fromDay": "2026-12-03"},
}


@pytest.fixture
def backend():
    """Moto tables behind real adapters, with every DynamoDB request counted by operation."""
    with mock_aws():
        client = boto3.client("dynamodb")
        tables = create_all(client)
        seed_people(client, tables["DIRECTORY_TABLE_NAME"], PEOPLE)
        requests: Counter[str] = Counter()
        client.meta.events.register(
            "before-call.dynamodb.*", lambda model, **_: requests.update([model.name])
        )
        with start_fake_jira(seeded=True) as jira:
            ports = ToolPorts(
                directory=DynamoDirectory(tables["DIRECTORY_TABLE_NAME"], client),
                calendar=DynamoCalendar(tables["BOOKINGS_TABLE_NAME"], client),
                drafts=DynamoDraftStore(tables["DRAFTS_TABLE_NAME"], client),
                jira=JiraCloudClient(jira.url, jira.email, jira.api_token, urllib3.PoolManager()),
                mailboxes=builtin_mailboxes(client, tables["MAILBOX_TABLE_NAME"]),
            )
            yield ports, requests, client, tables


def distinct_args(name: str, index: int) -> dict:
    """The tool's arguments, made distinct per call so every call is its own draft."""
    field = {
        "create_email_draft": "subject",
        "reply_to_email": "body",
        "forward_email": "note",
        "propose_meeting": "title",
        "create_jira_ticket_draft": "summary",
        "comment_on_jira_issue": "comment",
        "transition_jira_issue": "status",
        "update_jira_issue": "summary",
        "link_jira_issues": "link",
        "move_meeting": "message",
        "cancel_meeting": "message",
        "answer_invitation": "message",
        "show_calendar": "when",
        "find_free_time": "when",
    }
    return {**ARGS[name], field[name]: f"{ARGS[name][field[name]]} {index}"}


def dispatch(ports: ToolPorts, calls: list[ToolCall]):
    ctx = ToolContext(
        owner="user-1", session_id="sess-1", now=NOW, timezone="Europe/Berlin", requester_email=REQUESTER
    )
    return product_flow(ctx, ports).dispatch(calls)


def directory_reads(requests: Counter[str]) -> int:
    return requests["BatchGetItem"] + requests["GetItem"] + requests["Query"] + requests["Scan"]


def draft_writes(requests: Counter[str]) -> int:
    return requests["TransactWriteItems"] + requests["BatchWriteItem"] + requests["PutItem"]


def test_step_exposes_every_tool_through_one_batch_handler_and_no_generated_groups() -> None:
    assert set(TOOL_NAMES) == set(REGISTRY)
    assert set(ProductStep.exposed_tools()) == set(REGISTRY)
    assert ProductStep.tool_groups() == ()


@pytest.mark.parametrize("count", [1, 3, 6, 9])
def test_n_calls_make_one_directory_read_and_one_draft_write(backend, count: int) -> None:
    ports, requests, client, tables = backend
    names = [TOOL_NAMES[i % len(TOOL_NAMES)] for i in range(count)]
    calls = [ToolCall(f"call-{i}", name, distinct_args(name, i)) for i, name in enumerate(names)]
    requests.clear()

    turn = dispatch(ports, calls)

    assert [r.call_id for r in turn.results] == [c.id for c in calls]
    assert not any(r.is_error for r in turn.results)
    assert all("draftId" in r.content for r in turn.results)
    assert turn.group == tuple(sorted(set(names)))
    # Directory: one BatchGetItem for every name of every call; calendar: at most one busy read (the
    # agenda's calendar read needs the caller's address, which this context has not); mailbox: one
    # Query for every message reference of every call.
    busy_reads = 1 if {"propose_meeting", "find_free_time"} & set(names) else 0
    mailbox_reads = 1 if {"reply_to_email", "forward_email"} & set(names) else 0
    # the caller's meetings: one read of their days for every meeting reference of every call
    meeting_reads = 1 if {"move_meeting", "cancel_meeting", "answer_invitation"} & set(names) else 0
    named = {
        "create_email_draft",
        "reply_to_email",
        "forward_email",
        "propose_meeting",
        "move_meeting",
        "create_jira_ticket_draft",
        "update_jira_issue",
        "find_free_time",
        "show_calendar",
    }
    assert (
        directory_reads(requests)
        == (1 if named & set(names) else 0) + busy_reads + mailbox_reads + meeting_reads
    )
    assert draft_writes(requests) == 1
    stored = client.scan(TableName=tables["DRAFTS_TABLE_NAME"])["Count"]
    assert stored == count


def test_one_bad_call_does_not_lose_the_others(backend) -> None:
    ports, requests, _, _ = backend
    calls = [
        ToolCall("a", "create_email_draft", ARGS["create_email_draft"]),
        ToolCall("b", "create_jira_ticket_draft", {**ARGS["create_jira_ticket_draft"], "project": "NOPE"}),
        ToolCall("c", "propose_meeting", ARGS["propose_meeting"]),
    ]
    requests.clear()

    turn = dispatch(ports, calls)

    contents = {r.call_id: r.content for r in turn.results}
    assert contents["a"]["action"] == "show_new_email_draft"
    assert contents["b"]["error"]["code"] == "unknown_project"
    assert contents["c"]["action"] == "show_meeting_scheduler"
    assert draft_writes(requests) == 1


def test_an_unknown_tool_beside_known_ones_gets_an_error_result(backend) -> None:
    ports, _, _, _ = backend
    calls = [ToolCall("a", "create_email_draft", ARGS["create_email_draft"]), ToolCall("b", "teleport", {})]

    turn = dispatch(ports, calls)

    assert turn.results[0].content["action"] == "show_new_email_draft"
    assert turn.results[1].is_error
