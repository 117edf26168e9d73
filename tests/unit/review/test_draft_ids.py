"""The review state machine: expired and malformed draft ids."""

from __future__ import annotations

from datetime import timedelta

import pytest
from icalendar import Calendar as ICalendar
from multitool.api.review_app import review_app
from multitool.drafts import DraftStatus
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDraftStore
from multitool.ports.jira import JiraOutcomeUnknown
from multitool.review import Caller, DraftNotFound, ReviewConfig
from multitool.review.reviewer import Reviewer

from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.review_support import (
    NOW,
    OWNER,
    SENDER,
    SLOTS,
    RecordingJira,
    RecordingMailer,
    email_draft,
    jira_draft,
    meeting_draft,
)

CALLER = Caller(OWNER)


class World:
    def __init__(self) -> None:
        self.now = NOW
        self.drafts = MemoryDraftStore()
        self.mailer = RecordingMailer()
        self.reviewer = Reviewer(
            self.drafts,
            mailer=self.mailer,
            calendar=MemoryCalendar(),
            jira=None,
            config=ReviewConfig(sender_email=SENDER),
            clock=lambda: self.now,
        )


@pytest.mark.parametrize("operation", ["get", "confirm", "discard"])
def test_a_draft_past_its_ttl_is_gone_even_before_dynamodb_deletes_it(operation: str) -> None:
    # Given a proposed draft whose expiresAt has passed (DynamoDB deletes expired items lazily, days later)
    world = World()
    [draft] = world.drafts.create_many([email_draft()])
    world.now = NOW + timedelta(seconds=draft.expires_at - int(NOW.timestamp()))
    calls = {
        "get": lambda: world.reviewer.get(CALLER, draft.id),
        "confirm": lambda: world.reviewer.confirm(CALLER, draft.id, {}),
        "discard": lambda: world.reviewer.discard(CALLER, draft.id),
    }
    # When its owner gets, confirms or discards it
    with pytest.raises(DraftNotFound):
        calls[operation]()
    # Then it is not found, nothing is sent and the stored draft is untouched
    assert world.mailer.sent == []
    assert world.drafts.drafts[draft.id].status is DraftStatus.PROPOSED


def test_a_draft_one_second_before_its_ttl_can_still_be_confirmed() -> None:
    world = World()
    [draft] = world.drafts.create_many([email_draft()])
    world.now = NOW + timedelta(seconds=draft.expires_at - int(NOW.timestamp()) - 1)
    assert world.reviewer.confirm(CALLER, draft.id, {}).status is DraftStatus.DONE


@pytest.mark.parametrize("draft_id", ["d_" + "x" * 5000, "d_" + "é" * 1000, ""])
def test_an_id_no_draft_can_have_is_not_found_without_a_read(draft_id: str) -> None:
    # A DynamoDB key over 2048 bytes is a ValidationException (a 500), not a missing draft.
    world = World()
    with pytest.raises(DraftNotFound):
        world.reviewer.get(CALLER, draft_id)
    assert world.drafts.reads == 0


def test_a_confirm_body_nested_too_deep_to_parse_is_a_400() -> None:
    world = World()
    [draft] = world.drafts.create_many([email_draft()])
    app = review_app(lambda: world.reviewer)
    nested = "[" * 100_000 + "]" * 100_000

    response = app.resolve(
        http_api_event("POST", f"/actions/{draft.id}/confirm", nested, sub=OWNER), FakeLambdaContext()
    )

    assert response["statusCode"] == 400
    assert json_body(response)["error"]["code"] == "bad_request"
    assert world.mailer.sent == []


def test_a_jira_create_without_an_answer_leaves_the_draft_failed_with_words_to_check_jira() -> None:
    world = World()
    jira = RecordingJira()
    world.reviewer.jira = jira
    [draft] = world.drafts.create_many([jira_draft()])
    jira.fail_with = JiraOutcomeUnknown("Jira did not answer; it may have been created. Check Jira.")
    app = review_app(lambda: world.reviewer)

    response = app.resolve(
        http_api_event("POST", f"/actions/{draft.id}/confirm", {}, sub=OWNER), FakeLambdaContext()
    )

    assert response["statusCode"] == 502  # not "retry as is": the issue may exist
    body = json_body(response)
    assert body["error"]["code"] == "jira_outcome_unknown"
    assert body["action"]["status"] == "failed"
    assert "Check Jira" in body["action"]["error"]


@pytest.mark.parametrize(
    ("claims", "organizer", "booked_for_caller"),
    [
        ({"email": "ceo@example.com"}, f"mailto:{SENDER}", False),
        ({"email": "ceo@example.com", "email_verified": "false"}, f"mailto:{SENDER}", False),
        ({"email": "owner@example.com", "email_verified": "true"}, "mailto:owner@example.com", True),
    ],
)
def test_only_a_verified_email_claim_organizes_the_meeting_and_gets_its_time_booked(
    claims: dict[str, str], organizer: str, booked_for_caller: bool
) -> None:
    # An unverified email is whatever the user typed in their profile: it must not make them
    # the organizer as someone else, nor block someone else's time in the bookings.
    world = World()
    calendar = MemoryCalendar()
    world.reviewer.calendar = calendar
    [draft] = world.drafts.create_many([meeting_draft()])
    app = review_app(lambda: world.reviewer)
    slot = {"start": SLOTS[0][0].isoformat(), "end": SLOTS[0][1].isoformat()}

    response = app.resolve(
        http_api_event("POST", f"/actions/{draft.id}/confirm", {"slot": slot}, sub=OWNER, claims=claims),
        FakeLambdaContext(),
    )

    assert response["statusCode"] == 200
    [mail] = world.mailer.sent
    assert mail.invitation is not None
    [event] = ICalendar.from_ical(mail.invitation).events
    assert str(event["ORGANIZER"]) == organizer
    attendees = set(calendar.bookings[draft.id].attendees)
    assert ("owner@example.com" in attendees) is booked_for_caller
    assert "ceo@example.com" not in attendees
