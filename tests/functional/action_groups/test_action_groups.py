"""Each action-group handler on real-shaped Bedrock events against moto DynamoDB."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import boto3
import pytest
from moto import mock_aws
from multitool.drafts import DraftStatus
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.ports.calendar import Booking
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.tables import create_all
from multitool.tools import MAX_RENEWALS, ToolContext, ToolPorts, run_calls
from multitool.wiring.action_groups import aws_environment
from multitool.wiring.tool_ports import dynamo_ports

from tests.support.bedrock_events import (
    LambdaContextStub,
    assert_bedrock_response,
    bedrock_action_event,
    response_body,
    tool_handler,
)
from tests.support.moto_tables import Tables

SESSION = {"userId": "user-1", "timezone": "Europe/Berlin", "now": "2026-12-01T10:00:00+01:00"}


class Backend:
    """moto DynamoDB with the tables created and the directory seeded; counts DynamoDB operations."""

    def __init__(self, client: Any, names: dict[str, str]) -> None:
        self.client = client
        self.names = names
        self.calls: Counter[str] = Counter()

    def count(self, model: Any, **_: Any) -> None:
        self.calls[model.name] += 1

    def stored_item(self, draft_id: str) -> dict[str, Any]:
        item = self.client.get_item(TableName=self.names["DRAFTS_TABLE_NAME"], Key={"id": {"S": draft_id}})
        stored: dict[str, Any] = item["Item"]
        return stored

    def draft_count(self) -> int:
        count: int = self.client.scan(TableName=self.names["DRAFTS_TABLE_NAME"], Select="COUNT")["Count"]
        return count


@pytest.fixture
def backend(moto_tables: Tables) -> Iterator[Backend]:
    """``moto_tables``, with every DynamoDB call the handlers' default session makes counted."""
    backend = Backend(moto_tables.client, moto_tables.names)
    boto3.setup_default_session(region_name="us-east-1")
    assert boto3.DEFAULT_SESSION is not None
    boto3.DEFAULT_SESSION.events.register("before-call.dynamodb.*", backend.count)
    yield backend
    boto3.DEFAULT_SESSION = None


def invoke(group: str, event: Any) -> dict[str, Any]:
    response: dict[str, Any] = tool_handler(group)(event, LambdaContextStub())
    assert_bedrock_response(response)
    return response


def email_event(**overrides: Any) -> dict[str, Any]:
    properties = {
        "to": ["Kinshuok", "guest@partner.org"],
        "cc": ["Zoë"],
        "subject": "The doc",
        "body": "Draft",
    }
    return bedrock_action_event("email_draft", "/email-drafts", "POST", {**properties, **overrides}, SESSION)


def meeting_event(**overrides: Any) -> dict[str, Any]:
    properties = {"attendees": ["Kinshuok", "Priya"], "title": "Sync", "when": "Thursday", **overrides}
    return bedrock_action_event("meeting_scheduler", "/meeting-proposals", "POST", properties, SESSION)


def jira_event(**overrides: Any) -> dict[str, Any]:
    properties = {
        "project": "WEB",
        "issueType": "Bug",
        "summary": "Login fails",
        "description": "Steps...",
        "priority": "High",
        "assignee": "Priya",
        **overrides,
    }
    return bedrock_action_event("jira_draft", "/jira-ticket-drafts", "POST", properties, SESSION)


def test_email_draft_payload_stored_draft_and_one_batch_read(backend: Backend) -> None:
    response = invoke("email_draft", email_event())
    inner = response["response"]
    assert (inner["actionGroup"], inner["apiPath"], inner["httpMethod"]) == (
        "email_draft",
        "/email-drafts",
        "POST",
    )
    assert inner["httpStatusCode"] == 200
    assert response["sessionAttributes"] == SESSION
    payload = response_body(response)
    assert payload["action"] == "show_new_email_draft"
    assert [r["status"] for r in payload["to"]] == ["resolved", "resolved"]
    assert payload["to"][0]["person"]["email"] == "kinshuok@example.com"
    assert payload["to"][1]["person"]["id"] == "external:guest@partner.org"
    assert payload["cc"][0]["status"] == "ambiguous"
    assert (payload["subject"], payload["body"]) == ("The doc", "Draft")
    assert backend.calls["BatchGetItem"] == 1
    assert backend.calls["GetItem"] == 0
    assert backend.calls["Query"] == 0

    item = backend.stored_item(payload["draftId"])
    assert item["owner"] == {"S": "user-1"}
    assert item["sessionId"] == {"S": "session-1"}
    assert item["status"] == {"S": "proposed"}
    assert item["action"] == {"S": "show_new_email_draft"}
    assert item["createdAt"]["S"].startswith("2026-12-01T09:00:00")
    assert int(item["expiresAt"]["N"]) == int(datetime(2026, 12, 8, 9, tzinfo=UTC).timestamp())
    assert (
        DynamoDraftStore(backend.names["DRAFTS_TABLE_NAME"], backend.client).get(payload["draftId"])
        is not None
    )


def test_retried_invocation_returns_the_same_draft(backend: Backend) -> None:
    first = response_body(invoke("email_draft", email_event()))
    retried_event = email_event()
    retried_event["sessionAttributes"]["now"] = "2026-12-01T10:00:05+01:00"  # Bedrock retries a bit later
    retried = response_body(invoke("email_draft", retried_event))
    assert retried == first
    assert backend.draft_count() == 1
    other = response_body(invoke("email_draft", email_event(subject="Another doc")))
    assert other["draftId"] != first["draftId"]
    assert backend.draft_count() == 2


def test_meeting_proposal_avoids_stored_bookings(backend: Backend) -> None:
    berlin = datetime(2026, 12, 3, 9, tzinfo=UTC) - timedelta(hours=1)  # 09:00 Berlin
    DynamoCalendar(backend.names["BOOKINGS_TABLE_NAME"], backend.client).book(
        Booking(
            id="b-1",
            title="Standup",
            organizer="someone",
            attendees=("priya@example.com",),
            start=berlin,
            end=berlin + timedelta(hours=1),
        )
    )
    backend.calls.clear()
    response = invoke("meeting_scheduler", meeting_event(durationMinutes=45))
    assert response["response"]["httpStatusCode"] == 200
    payload = response_body(response)
    assert payload["action"] == "show_meeting_scheduler"
    # Everyone's working hours overlap 10:00-12:30 Berlin (Kinshuok's day in Kolkata ends at
    # 12:30 Berlin, Priya's in London starts at 10:00), so the third slot is on Friday.
    assert payload["slots"] == [
        {"start": "2026-12-03T10:00:00+01:00", "end": "2026-12-03T10:45:00+01:00"},
        {"start": "2026-12-03T11:00:00+01:00", "end": "2026-12-03T11:45:00+01:00"},
        {"start": "2026-12-04T10:00:00+01:00", "end": "2026-12-04T10:45:00+01:00"},
    ]
    assert (payload["durationMinutes"], payload["timezone"], payload["requested"]) == (
        45,
        "Europe/Berlin",
        "Thursday",
    )
    assert [a["person"]["id"] for a in payload["attendees"]] == ["p-kin", "p-pri"]
    # one directory read + one busy read, one conditional write
    assert backend.calls["BatchGetItem"] == 2
    assert backend.calls["PutItem"] == 1
    item = backend.stored_item(payload["draftId"])
    assert item["payload"]["M"]["slots"]["L"][0]["M"]["start"] == {"S": "2026-12-03T10:00:00+01:00"}


def test_meeting_tomorrow_at_3pm_is_the_first_slot(backend: Backend) -> None:
    payload = response_body(invoke("meeting_scheduler", meeting_event(when="tomorrow at 3pm")))
    assert payload["slots"][0] == {"start": "2026-12-02T15:00:00+01:00", "end": "2026-12-02T15:30:00+01:00"}


def test_jira_ticket_draft(backend: Backend) -> None:
    response = invoke("jira_draft", jira_event(project="web", issueType="bug", priority="high"))
    assert response["response"]["httpStatusCode"] == 200
    payload = response_body(response)
    assert {
        k: payload[k] for k in ("action", "project", "issueType", "summary", "description", "priority")
    } == {
        "action": "show_jira_ticket_draft",
        "project": "WEB",
        "issueType": "Bug",
        "summary": "Login fails",
        "description": "Steps...",
        "priority": "High",
    }
    assert payload["assignee"]["person"]["email"] == "priya@example.com"
    assert backend.calls["BatchGetItem"] == 1
    assert backend.stored_item(payload["draftId"])["status"] == {"S": "proposed"}
    retried = response_body(invoke("jira_draft", jira_event(project="web", issueType="bug", priority="high")))
    assert retried["draftId"] == payload["draftId"]
    assert backend.draft_count() == 1


def test_jira_without_assignee_reads_no_directory(backend: Backend) -> None:
    event = jira_event()
    properties = event["requestBody"]["content"]["application/json"]["properties"]
    event["requestBody"]["content"]["application/json"]["properties"] = [
        p for p in properties if p["name"] != "assignee"
    ]
    payload = response_body(invoke("jira_draft", event))
    assert payload["assignee"] is None
    assert backend.calls["BatchGetItem"] == 0


def test_bedrock_bare_list_arrays_are_accepted(backend: Backend) -> None:
    event = email_event()
    event["requestBody"]["content"]["application/json"]["properties"][0]["value"] = "[Kinshuok, Priya Raman]"
    payload = response_body(invoke("email_draft", event))
    assert [r["person"]["id"] for r in payload["to"]] == ["p-kin", "p-pri"]


def test_ports_talk_to_the_configured_tables(backend: Backend) -> None:
    invoke("email_draft", email_event())
    environment = aws_environment()
    assert environment.config.working_hours_start == 9
    assert set(backend.calls) <= {"BatchGetItem", "PutItem", "TransactWriteItems", "GetItem", "Scan"}


# --------------------------------------------------------------------------- asking again after a discard


NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
EMAIL = ("create_email_draft", {"to": ["guest@partner.org"], "subject": "The doc", "body": "Here it is."})
JIRA = ("create_jira_ticket_draft", {"project": "WEB", "issueType": "Bug", "summary": "Login fails"})


@pytest.fixture
def ports() -> Iterator[ToolPorts]:
    with mock_aws():
        client = boto3.client("dynamodb")
        tables = create_all(client)
        yield dynamo_ports(
            client,
            drafts_table=tables["DRAFTS_TABLE_NAME"],
            directory_table=tables["DIRECTORY_TABLE_NAME"],
            bookings_table=tables["BOOKINGS_TABLE_NAME"],
        )


def test_a_discarded_draft_asked_for_again_comes_back_as_a_fresh_proposal(ports: ToolPorts) -> None:
    ctx = ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone="UTC")
    email, jira = run_calls([EMAIL, JIRA], ctx, ports)
    discarded = ports.drafts.get(email.body["draftId"])
    assert discarded is not None
    ports.drafts.replace(discarded, discarded.model_copy(update={"status": DraftStatus.DISCARDED}))

    email_again, jira_again = run_calls([EMAIL, JIRA], ctx, ports)

    fresh = ports.drafts.get(email_again.body["draftId"])
    assert fresh is not None
    assert fresh.id != discarded.id
    assert fresh.status is DraftStatus.PROPOSED
    assert fresh.payload["draftId"] == fresh.id
    assert jira_again.body["draftId"] == jira.body["draftId"]  # still proposed: the same draft


def _settle(ports: ToolPorts, draft_id: str, status: DraftStatus) -> None:
    draft = ports.drafts.get(draft_id)
    assert draft is not None
    ports.drafts.replace(draft, draft.model_copy(update={"status": status}))


def test_a_confirmed_draft_asked_for_again_is_a_fresh_proposal_and_a_retry_lands_on_it(
    ports: ToolPorts,
) -> None:
    ctx = ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone="UTC")
    (email,) = run_calls([EMAIL], ctx, ports)
    _settle(ports, email.body["draftId"], DraftStatus.DONE)

    (again,) = run_calls([EMAIL], ctx, ports)
    (retried,) = run_calls([EMAIL], ctx, ports)

    assert again.body["draftId"] != email.body["draftId"]
    assert retried.body["draftId"] == again.body["draftId"]
    fresh = ports.drafts.get(again.body["draftId"])
    assert fresh is not None
    assert fresh.status is DraftStatus.PROPOSED
    done = ports.drafts.get(email.body["draftId"])
    assert done is not None
    assert done.status is DraftStatus.DONE


def test_every_ask_after_a_confirm_or_discard_gets_a_proposal_however_many_came_before(
    ports: ToolPorts,
) -> None:
    ctx = ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone="UTC")
    seen: list[str] = []
    for round_number in range(8):
        (outcome,) = run_calls([EMAIL], ctx, ports)
        assert outcome.status == 200, outcome.body
        draft = ports.drafts.get(outcome.body["draftId"])
        assert draft is not None
        assert draft.status is DraftStatus.PROPOSED
        assert outcome.body["draftId"] not in seen
        seen.append(outcome.body["draftId"])
        _settle(ports, draft.id, DraftStatus.DONE if round_number % 2 else DraftStatus.DISCARDED)


def test_a_draft_being_sent_is_returned_as_it_is(ports: ToolPorts) -> None:
    ctx = ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone="UTC")
    (email,) = run_calls([EMAIL], ctx, ports)
    _settle(ports, email.body["draftId"], DraftStatus.EXECUTING)

    (again,) = run_calls([EMAIL], ctx, ports)

    assert again.body["draftId"] == email.body["draftId"]


def test_a_request_settled_more_often_than_the_renewals_allow_is_refused_not_shown_dead(
    ports: ToolPorts,
) -> None:
    ctx = ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone="UTC")
    for _ in range(MAX_RENEWALS + 1):
        (outcome,) = run_calls([EMAIL], ctx, ports)
        _settle(ports, outcome.body["draftId"], DraftStatus.DISCARDED)

    (refused, jira) = run_calls([EMAIL, JIRA], ctx, ports)

    assert refused.status == 422
    assert refused.body["error"]["code"] == "asked_too_often"
    assert jira.status == 200


def test_meeting_hours_said_as_a_span_with_a_shortened_weekday(backend: Backend) -> None:
    payload = response_body(
        invoke("meeting_scheduler", meeting_event(attendees=["Priya"], when="thurs 2-3pm"))
    )
    starts = [slot["start"] for slot in payload["slots"]]
    assert starts[:2] == ["2026-12-03T14:00:00+01:00", "2026-12-03T14:30:00+01:00"]
    assert all("T14:" in start for start in starts)  # every day searched, within the hours said
    assert "'2-3pm' read as 14:00-15:00." in payload["notes"]
    assert not any("not read" in note for note in payload["notes"])


def test_meeting_on_a_weekday_of_next_week_at_a_dotted_time(backend: Backend) -> None:
    payload = response_body(
        invoke("meeting_scheduler", meeting_event(attendees=["Priya"], when="Friday next week at 10.30"))
    )
    assert payload["slots"][0] == {"start": "2026-12-11T10:30:00+01:00", "end": "2026-12-11T11:00:00+01:00"}
    assert "'Friday' read as Fri 11 Dec (a week after the coming one)." in payload["notes"]


def test_meeting_longer_than_the_hours_asked_for_is_refused_saying_so(backend: Backend) -> None:
    response = invoke(
        "meeting_scheduler", meeting_event(attendees=["Priya"], when="thurs 2-3pm", durationMinutes=90)
    )
    inner = response["response"]
    assert inner["httpStatusCode"] == 422
    error = response_body(response)["error"]
    assert error["code"] == "no_free_slot"
    assert error["field"] == "when"
    assert "60 minutes (14:00-15:00), shorter than a 90-minute meeting" in error["message"]


def test_meeting_in_the_afternoons_of_next_week(backend: Backend) -> None:
    payload = response_body(
        invoke("meeting_scheduler", meeting_event(attendees=["Priya"], when="next week in the afternoon"))
    )
    starts = [datetime.fromisoformat(slot["start"]) for slot in payload["slots"]]
    assert starts, payload
    assert all(date(2026, 12, 7) <= s.date() <= date(2026, 12, 11) and 13 <= s.hour < 17 for s in starts)
    assert payload["times"][0] == "2026-12-07T13:00/17:00"
    assert len(payload["times"]) == 5


def test_a_repeating_meetings_later_meetings_block_a_later_proposal_and_its_own_are_checked(
    backend: Backend,
) -> None:
    # Given Priya's weekly series on Thursdays 10:00-11:00 Berlin, booked from 10 Dec
    from multitool.ports.recurrence import Recurrence

    first = datetime(2026, 12, 10, 9, tzinfo=UTC)  # 10:00 Berlin
    DynamoCalendar(backend.names["BOOKINGS_TABLE_NAME"], backend.client).book(
        Booking(
            id="series-1",
            title="Team sync",
            organizer="someone@example.com",
            attendees=("priya@example.com",),
            start=first,
            end=first + timedelta(hours=1),
            timezone="Europe/Berlin",
            recurrence=Recurrence(frequency="weekly", weekdays=("TH",)),
        )
    )
    backend.calls.clear()

    # When a meeting is proposed for Thursday the 17th at 10, its second meeting
    later = response_body(invoke("meeting_scheduler", meeting_event(when="Thursday 17 December at 10am")))
    # and a weekly one from Thursday 3 Dec at 10, whose second and later meetings meet the series
    weekly = response_body(
        invoke(
            "meeting_scheduler",
            meeting_event(
                when="every Thursday at 10am",
                times=["2026-12-03T10:00"],
                repeat={"frequency": "weekly", "weekdays": ["TH"]},
            ),
        )
    )

    # Then the single meeting is not offered at 10:00 that day
    assert all(not s["start"].startswith("2026-12-17T10:") for s in later["slots"])
    # and the series' card checks its first meetings, Priya busy from the second on
    assert weekly["repeat"]["weekdays"] == ["TH"]
    [first_series, *_] = weekly["series"]
    assert first_series["words"] == "Every Thursday, 10:00-10:30"
    assert first_series["rule"] == "FREQ=WEEKLY;BYDAY=TH"
    assert [o["busy"] for o in first_series["occurrences"]] == [[], *[["Priya Raman"]] * 5]
    assert "Thu 10 Dec 10:00: Priya Raman is booked then." in weekly["slotNotes"][0]
    assert {s["start"][:10] for s in weekly["slots"]} == {"2026-12-03"}  # the rule's day only
