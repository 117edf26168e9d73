"""run_calls: every call of a turn as one backend operation, each call with its own outcome."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from multitool.drafts import DraftStatus
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.settings import JiraProject
from multitool.toolkit.context import MAX_CALLS_PER_BATCH, ToolConfig, ToolContext
from multitool.toolkit.errors import UnknownTool
from multitool.tools import REGISTRY, ToolPorts, run_calls, spec_for

from tests.support.bedrock_events import sample_people

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
EMAIL = ("create_email_draft", {"to": ["Kinshuok"], "subject": "The doc", "body": "Here is the doc."})
MEETING = ("propose_meeting", {"attendees": ["Kinshuok", "Zoe"], "title": "Sync", "when": "Thursday"})
JIRA = ("create_jira_ticket_draft", {"project": "web", "issueType": "bug", "summary": "Login fails"})


class Backends:
    def __init__(self) -> None:
        self.directory = MemoryDirectory(sample_people())
        self.calendar = MemoryCalendar()
        self.drafts = MemoryDraftStore()
        self.ports = ToolPorts(self.directory, self.calendar, self.drafts)


@pytest.fixture
def backends() -> Backends:
    return Backends()


def ctx(session: str = "s-1") -> ToolContext:
    return ToolContext(owner="user-1", session_id=session, now=NOW, timezone="Europe/Berlin")


def test_registry_lists_the_tools_by_operation_id() -> None:
    assert {name: (s.action_group, s.api_path, s.method, s.action) for name, s in REGISTRY.items()} == {
        "create_email_draft": ("email_draft", "/email-drafts", "POST", "show_new_email_draft"),
        "reply_to_email": ("email_reply", "/email-replies", "POST", "show_email_reply"),
        "forward_email": ("email_forward", "/email-forwards", "POST", "show_email_forward"),
        "propose_meeting": ("meeting_scheduler", "/meeting-proposals", "POST", "show_meeting_scheduler"),
        "create_jira_ticket_draft": ("jira_draft", "/jira-ticket-drafts", "POST", "show_jira_ticket_draft"),
        "move_meeting": ("meeting_move", "/meeting-moves", "POST", "show_meeting_move"),
        "cancel_meeting": ("meeting_cancel", "/meeting-cancellations", "POST", "show_meeting_cancel"),
        "answer_invitation": ("invitation_answer", "/invitation-answers", "POST", "show_invitation_answer"),
        "show_calendar": ("calendar_agenda", "/calendar-agenda", "POST", "show_agenda"),
        "find_free_time": ("free_time", "/free-times", "POST", "show_free_times"),
        "comment_on_jira_issue": ("jira_comment", "/jira-comments", "POST", "show_jira_comment"),
        "transition_jira_issue": ("jira_transition", "/jira-transitions", "POST", "show_jira_transition"),
        "update_jira_issue": ("jira_update", "/jira-updates", "POST", "show_jira_update"),
        "link_jira_issues": ("jira_link", "/jira-links", "POST", "show_jira_link"),
    }
    assert all(s.description for s in REGISTRY.values())


def test_spec_for_finds_an_operation_or_says_none_exists() -> None:
    assert spec_for("jira_draft", "/jira-ticket-drafts", "post").name == "create_jira_ticket_draft"
    with pytest.raises(UnknownTool):
        spec_for("jira_draft", "/email-drafts", "POST")


def test_email_payload_and_stored_draft(backends: Backends) -> None:
    (outcome,) = run_calls([EMAIL], ctx(), backends.ports)
    payload = outcome.body
    assert outcome.status == 200
    assert payload["action"] == "show_new_email_draft"
    assert payload["to"][0]["status"] == "resolved"
    assert payload["to"][0]["person"]["email"] == "kinshuok@example.com"
    assert (payload["subject"], payload["body"], payload["cc"]) == ("The doc", "Here is the doc.", [])
    stored = backends.drafts.drafts[payload["draftId"]]
    assert stored.owner == "user-1"
    assert stored.session_id == "s-1"
    assert stored.status is DraftStatus.PROPOSED
    assert stored.created_at == NOW
    assert stored.expires_at == int(NOW.timestamp()) + ToolConfig().draft_ttl_seconds
    assert stored.payload == payload


def test_three_tools_make_one_directory_read_one_busy_read_and_one_write(backends: Backends) -> None:
    outcomes = run_calls(
        [EMAIL, MEETING, JIRA, (*EMAIL[0:1], {**EMAIL[1], "to": ["Priya"]})], ctx(), backends.ports
    )
    assert [o.status for o in outcomes] == [200, 200, 200, 200]
    assert [o.body["action"] for o in outcomes] == [
        "show_new_email_draft",
        "show_meeting_scheduler",
        "show_jira_ticket_draft",
        "show_new_email_draft",
    ]
    assert backends.directory.reads == 1
    assert backends.calendar.reads == 1
    assert backends.drafts.writes == 1
    assert len(backends.drafts.drafts) == 4


def test_a_bad_call_gets_its_own_error_and_loses_nothing(backends: Backends) -> None:
    bad_date = ("propose_meeting", {**MEETING[1], "when": "yesterday"})
    missing = ("create_email_draft", {"subject": "No recipients", "body": "x"})
    unknown: tuple[str, dict[str, Any]] = ("send_fax", {})
    outcomes = run_calls([EMAIL, bad_date, missing, unknown, JIRA], ctx(), backends.ports)
    assert [o.status for o in outcomes] == [200, 422, 400, 404, 200]
    assert outcomes[1].body["error"]["code"] == "date_in_past"
    assert outcomes[2].body["error"] == {
        "code": "invalid_input",
        "message": "to: is missing",
        "field": "to",
    }
    assert outcomes[3].body["error"]["code"] == "unknown_tool"
    assert len(backends.drafts.drafts) == 2


def test_same_input_in_the_same_session_is_the_same_draft(backends: Backends) -> None:
    first = run_calls([EMAIL], ctx(), backends.ports)[0].body
    retried = run_calls([EMAIL], ctx(), backends.ports)[0].body
    other_session = run_calls([EMAIL], ctx("s-2"), backends.ports)[0].body
    assert retried == first
    assert other_session["draftId"] != first["draftId"]
    assert len(backends.drafts.drafts) == 2


def test_ambiguous_and_unknown_names_are_on_the_card_with_notes(backends: Backends) -> None:
    call = ("create_email_draft", {"to": ["Zoe", "Bob"], "subject": "Hi", "body": "x"})
    (outcome,) = run_calls([call], ctx(), backends.ports)
    to = outcome.body["to"]
    assert [r["status"] for r in to] == ["ambiguous", "unknown"]
    assert len(to[0]["candidates"]) == 2
    assert any("Bob" in note for note in outcome.body["notes"])


def test_jira_project_and_issue_type_are_matched_and_canonicalised(backends: Backends) -> None:
    call = ("create_jira_ticket_draft", {**JIRA[1], "priority": "high", "assignee": "Priya"})
    payload = run_calls([call], ctx(), backends.ports)[0].body
    assert (payload["project"], payload["issueType"], payload["priority"]) == ("WEB", "Bug", "High")
    assert payload["assignee"]["person"]["id"] == "p-pri"
    assert payload["description"] == ""


def test_unknown_jira_project_lists_the_known_ones(backends: Backends) -> None:
    call = ("create_jira_ticket_draft", {**JIRA[1], "project": "NOPE"})
    (outcome,) = run_calls([call], ctx(), backends.ports)
    assert outcome.status == 404
    assert outcome.body["error"]["code"] == "unknown_project"
    assert "OPS (Operations)" in outcome.body["error"]["message"]
    assert "WEB (Website)" in outcome.body["error"]["message"]


@pytest.mark.parametrize("named", ["Website", "website", "the Website project", "web"])
def test_a_project_named_rather_than_keyed_is_its_key_and_the_card_says_so(
    backends: Backends, named: str
) -> None:
    call = ("create_jira_ticket_draft", {**JIRA[1], "project": named})
    (outcome,) = run_calls([call], ctx(), backends.ports)
    assert outcome.ok, outcome.body
    assert outcome.body["project"] == "WEB"
    said = [note for note in outcome.body["notes"] if note.startswith("Project ")]
    assert said == ([] if named == "web" else [f"Project '{named}' read as WEB (Website)."])


def test_a_name_two_projects_share_is_no_project(backends: Backends) -> None:
    config = ToolConfig(
        jira_projects={
            "WEB": JiraProject(name="Website", issue_types=("Bug",)),
            "SITE": JiraProject(name="Website", issue_types=("Bug",)),
        }
    )
    call = ("create_jira_ticket_draft", {**JIRA[1], "project": "Website"})
    (outcome,) = run_calls([call], ctx(), backends.ports, config)
    assert outcome.body["error"]["code"] == "unknown_project"


def test_issue_type_must_belong_to_the_project(backends: Backends) -> None:
    config = ToolConfig(
        jira_projects={"OPS": JiraProject(name="Operations", issue_types=("Incident", "Task"))}
    )
    call = ("create_jira_ticket_draft", {"project": "ops", "issueType": "Story", "summary": "x"})
    (outcome,) = run_calls([call], ctx(), backends.ports, config)
    assert outcome.status == 422
    assert outcome.body["error"] == {
        "code": "unknown_issue_type",
        "message": "Project OPS has no issue type 'Story'. Use one of: Incident, Task.",
        "field": "issueType",
    }


def test_jira_assignee_address_outside_the_directory_stays_unknown(backends: Backends) -> None:
    call = ("create_jira_ticket_draft", {**JIRA[1], "assignee": "guest@partner.org"})
    payload = run_calls([call], ctx(), backends.ports)[0].body
    assert payload["assignee"]["status"] == "unknown"


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({**EMAIL[1], "subject": ""}, "subject"),
        ({**EMAIL[1], "subject": "   "}, "subject"),
        ({**EMAIL[1], "subject": "x" * 201}, "subject"),
        ({**EMAIL[1], "body": "x" * 10_001}, "body"),
        ({**EMAIL[1], "to": ["x"] * 21}, "to"),
        ({**EMAIL[1], "to": [""]}, "to[0]"),
        ({**EMAIL[1], "bcc": ["x"]}, "bcc"),
        ({**EMAIL[1], "to": "Kinshuok"}, "to"),
    ],
)
def test_limits_and_types_are_enforced(backends: Backends, arguments: dict[str, Any], field: str) -> None:
    (outcome,) = run_calls([("create_email_draft", arguments)], ctx(), backends.ports)
    assert outcome.status == 400
    assert outcome.body["error"]["field"] == field
    assert backends.drafts.writes == 0


def test_personal_content_is_not_echoed_in_errors(backends: Backends) -> None:
    secret = "my-secret-body " * 1000
    (outcome,) = run_calls([("create_email_draft", {**EMAIL[1], "body": secret})], ctx(), backends.ports)
    assert "my-secret-body" not in outcome.body["error"]["message"]


def test_calls_beyond_the_limit_are_refused_by_position_and_the_first_ones_run(backends: Backends) -> None:
    calls = [
        ("create_email_draft", {"to": ["Kinshuok"], "subject": f"Topic {i}", "body": "Notes."})
        for i in range(MAX_CALLS_PER_BATCH + 5)
    ]

    outcomes = run_calls(calls, ctx(), backends.ports)

    ran, refused = outcomes[:MAX_CALLS_PER_BATCH], outcomes[MAX_CALLS_PER_BATCH:]
    assert [o.status for o in ran] == [200] * MAX_CALLS_PER_BATCH
    assert [o.body["subject"] for o in ran] == [f"Topic {i}" for i in range(MAX_CALLS_PER_BATCH)]
    assert len({o.body["draftId"] for o in ran}) == MAX_CALLS_PER_BATCH
    assert {o.status for o in refused} == {422}
    assert {o.body["error"]["code"] for o in refused} == {"too_many_calls"}
    # One message for every refused call, so whoever relays them says it once; it names the
    # limit, that these calls were not run, and which ones.
    (message,) = {o.body["error"]["message"] for o in refused}
    assert f"At most {MAX_CALLS_PER_BATCH} tool calls" in message
    assert "not run" in message
    assert f"{MAX_CALLS_PER_BATCH + 1} to {MAX_CALLS_PER_BATCH + 5}" in message
    assert "5 create_email_draft" in message
    # The calls that ran are still one batch: one directory read and one draft write.
    assert backends.directory.reads == 1
    assert backends.drafts.writes == 1
    assert len(backends.drafts.drafts) == MAX_CALLS_PER_BATCH


def test_a_failing_backend_is_a_retryable_error_for_every_call(backends: Backends) -> None:
    class Down(MemoryDirectory):
        def resolve(self, names: Any) -> Any:
            raise RuntimeError("throttled")

    ports = ToolPorts(Down(), backends.calendar, backends.drafts)
    outcomes = run_calls([EMAIL, ("send_fax", {})], ctx(), ports)
    assert [o.status for o in outcomes] == [503, 404]
    assert outcomes[0].body["error"]["code"] == "backend_unavailable"
