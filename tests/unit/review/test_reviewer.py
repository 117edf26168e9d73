"""The review state machine with in-memory ports: confirm, discard, edits, exactly once."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Any

import pytest
from icalendar import Calendar as ICalendar
from multitool.drafts import Draft, DraftStatus
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDraftStore
from multitool.ports.jira import JiraRateLimited, JiraRejected
from multitool.ports.mail import MailRejected
from multitool.review import (
    ActionInProgress,
    AlreadyDiscarded,
    AlreadyDone,
    Caller,
    DraftNotFound,
    InvalidEdits,
    NotConfigured,
    ReviewConfig,
    SideEffectFailed,
    name_claim,
)
from multitool.review.reviewer import EXECUTION_LEASE, DraftView, Reviewer

from tests.support.review_support import (
    KIN_LEE,
    KINSHUOK,
    NOW,
    OWNER,
    PRIYA,
    SENDER,
    SLOTS,
    RecordingJira,
    RecordingMailer,
    ambiguous,
    email_draft,
    jira_draft,
    meeting_draft,
    resolved,
    unknown,
)

CALLER = Caller(OWNER)


class World:
    def __init__(self, *, jira: bool = True, sandbox: bool = False) -> None:
        self.now = NOW
        self.drafts = MemoryDraftStore()
        self.mailer = RecordingMailer()
        self.calendar = MemoryCalendar()
        self.jira = RecordingJira() if jira else None
        self.reviewer = Reviewer(
            self.drafts,
            mailer=self.mailer,
            calendar=self.calendar,
            jira=self.jira,
            config=ReviewConfig(sender_email=SENDER, sandbox=sandbox),
            clock=lambda: self.now,
        )

    def add(self, draft: Draft) -> Draft:
        [stored] = self.drafts.create_many([draft])
        return stored

    def stored(self, draft: Draft) -> Draft:
        found = self.drafts.get(draft.id)
        assert found is not None
        return found


@pytest.fixture
def world() -> World:
    return World()


# -- get and ownership -------------------------------------------------------------


def test_the_owner_gets_the_draft_with_its_card(world: World) -> None:
    draft = world.add(email_draft())

    view = DraftView.of(world.reviewer.get(CALLER, draft.id)).to_wire()

    assert view["status"] == "proposed"
    assert view["retryable"] is True
    assert view["card"]["type"] == "show_new_email_draft"
    assert view["card"]["id"] == draft.id
    assert "owner" not in view


@pytest.mark.parametrize("operation", ["get", "confirm", "discard"])
def test_another_users_draft_does_not_exist_for_them(world: World, operation: str) -> None:
    draft = world.add(email_draft())
    stranger = Caller("user-2")

    calls = {
        "get": lambda: world.reviewer.get(stranger, draft.id),
        "confirm": lambda: world.reviewer.confirm(stranger, draft.id, {}),
        "discard": lambda: world.reviewer.discard(stranger, draft.id),
    }

    with pytest.raises(DraftNotFound):
        calls[operation]()

    assert world.stored(draft).status is DraftStatus.PROPOSED
    assert world.mailer.sent == []


def test_an_unknown_id_is_not_found(world: World) -> None:
    with pytest.raises(DraftNotFound):
        world.reviewer.confirm(CALLER, "d_nope", {})


# -- email ----------------------------------------------------------------------------


def test_confirming_an_email_sends_it_once_and_stores_the_result(world: World) -> None:
    draft = world.add(email_draft())

    done = world.reviewer.confirm(CALLER, draft.id, {})

    assert done.status is DraftStatus.DONE
    [mail] = world.mailer.sent
    assert mail.to == ("kinshuok@example.com",)
    assert (mail.subject, mail.text) == ("The doc", "Here is the doc we talked about.")
    assert done.result == {"messageId": "msg-1", "recipients": ["kinshuok@example.com"]}
    assert done.edits is not None
    assert done.edits["to"] == [{"email": "kinshuok@example.com", "name": "Kinshuok Sen"}]
    assert world.stored(draft) == done


def test_the_users_edits_are_what_is_sent(world: World) -> None:
    draft = world.add(email_draft())

    world.reviewer.confirm(
        CALLER,
        draft.id,
        {
            "to": ["p-kinshuok", "ext@partner.test"],
            "cc": ["Kinshuok@example.com", "boss@example.com"],
            "subject": "  The doc, v2 ",
            "body": "Edited body.",
        },
    )

    [mail] = world.mailer.sent
    assert mail.to == ("kinshuok@example.com", "ext@partner.test")
    assert mail.cc == ("boss@example.com",)  # already in To: not copied twice
    assert (mail.subject, mail.text) == ("The doc, v2", "Edited body.")


def test_an_ambiguous_name_must_be_settled_before_confirming(world: World) -> None:
    draft = world.add(email_draft(to=[resolved("Priya", PRIYA), ambiguous("Kin", KINSHUOK, KIN_LEE)]))

    with pytest.raises(InvalidEdits) as caught:
        world.reviewer.confirm(CALLER, draft.id, {})

    assert caught.value.field == "to[1]"
    assert "Kin Lee (p-kinlee)" in caught.value.message
    assert world.stored(draft).status is DraftStatus.PROPOSED

    world.reviewer.confirm(CALLER, draft.id, {"to": ["p-priya", "p-kinlee"]})
    assert world.mailer.sent[0].to == ("priya@example.com", "kin.lee@example.com")


def test_an_unknown_name_needs_an_address(world: World) -> None:
    draft = world.add(email_draft(to=[unknown("Bob")]))

    with pytest.raises(InvalidEdits) as caught:
        world.reviewer.confirm(CALLER, draft.id, {})
    assert caught.value.field == "to[0]"
    assert "enter an email address" in caught.value.message

    with pytest.raises(InvalidEdits) as caught:
        world.reviewer.confirm(CALLER, draft.id, {"to": ["bob@example.com", "Bob"]})
    assert caught.value.field == "to[1]"

    world.reviewer.confirm(CALLER, draft.id, {"to": ["bob@example.com"]})
    assert world.mailer.sent[0].to == ("bob@example.com",)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"subject": ""}, "subject"),
        ({"body": "x" * 10_001}, "body"),
        ({"to": []}, "to"),
        ({"to": ["a@example.com", ""]}, "to[1]"),
        ({"bcc": ["a@example.com"]}, "bcc"),
        ({"to": "a@example.com"}, "to"),
    ],
)
def test_invalid_edits_name_the_field_and_change_nothing(
    world: World, body: dict[str, Any], field: str
) -> None:
    draft = world.add(email_draft())

    with pytest.raises(InvalidEdits) as caught:
        world.reviewer.confirm(CALLER, draft.id, body)

    assert caught.value.field == field
    assert world.stored(draft) == draft


# -- exactly once -------------------------------------------------------------------------


def test_a_repeated_confirm_returns_the_same_result_without_sending_again(world: World) -> None:
    draft = world.add(email_draft())
    first = world.reviewer.confirm(CALLER, draft.id, {"subject": "Final"})

    again = world.reviewer.confirm(CALLER, draft.id, {"subject": "Final"})
    same_by_default = world.reviewer.confirm(CALLER, draft.id, {})

    assert again == first == same_by_default
    assert len(world.mailer.sent) == 1


def test_a_confirm_with_different_content_after_done_is_a_conflict(world: World) -> None:
    draft = world.add(email_draft())
    done = world.reviewer.confirm(CALLER, draft.id, {})

    with pytest.raises(AlreadyDone) as caught:
        world.reviewer.confirm(CALLER, draft.id, {"subject": "Changed my mind"})

    assert caught.value.draft == done
    assert len(world.mailer.sent) == 1


def test_a_confirm_while_executing_is_in_progress(world: World) -> None:
    draft = world.add(email_draft())
    world.drafts.replace(draft, draft.model_copy(update={"status": DraftStatus.EXECUTING, "updated_at": NOW}))

    with pytest.raises(ActionInProgress):
        world.reviewer.confirm(CALLER, draft.id, {})
    with pytest.raises(ActionInProgress):
        world.reviewer.discard(CALLER, draft.id)
    assert world.mailer.sent == []


def test_an_execution_older_than_the_lease_is_taken_over(world: World) -> None:
    draft = world.add(email_draft())
    world.drafts.replace(draft, draft.model_copy(update={"status": DraftStatus.EXECUTING, "updated_at": NOW}))
    world.now = NOW + EXECUTION_LEASE + timedelta(seconds=1)

    done = world.reviewer.confirm(CALLER, draft.id, {})

    assert done.status is DraftStatus.DONE
    assert len(world.mailer.sent) == 1


def test_concurrent_confirms_send_once(world: World) -> None:
    draft = world.add(email_draft())
    barrier = threading.Barrier(8)
    outcomes: list[str] = []

    def confirm() -> None:
        barrier.wait()
        try:
            world.reviewer.confirm(CALLER, draft.id, {})
            outcomes.append("done")
        except ActionInProgress:
            outcomes.append("in_progress")

    threads = [threading.Thread(target=confirm) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(world.mailer.sent) == 1
    assert len(outcomes) == 8
    assert "done" in outcomes
    assert world.stored(draft).status is DraftStatus.DONE


# -- failures ------------------------------------------------------------------------------


def test_a_rejected_send_leaves_the_draft_failed_with_the_reason_and_the_edits(world: World) -> None:
    draft = world.add(email_draft())
    world.mailer.fail_with = MailRejected(
        "SES MessageRejected: Email address is not verified.", code="mail_rejected"
    )

    with pytest.raises(SideEffectFailed) as caught:
        world.reviewer.confirm(CALLER, draft.id, {"subject": "Edited subject", "body": "Edited body"})

    failed = world.stored(draft)
    assert caught.value.code == "mail_rejected"
    assert caught.value.draft == failed
    assert failed.status is DraftStatus.FAILED
    assert failed.error == "SES MessageRejected: Email address is not verified."
    assert failed.edits is not None
    assert (failed.edits["subject"], failed.edits["body"]) == ("Edited subject", "Edited body")
    assert DraftView.of(failed).retryable is True

    retried = world.reviewer.confirm(CALLER, draft.id, {})  # the kept edits are used again

    assert retried.status is DraftStatus.DONE
    assert retried.error is None
    assert world.mailer.sent[0].subject == "Edited subject"


def test_an_unexpected_error_marks_the_draft_failed_without_its_text(world: World) -> None:
    draft = world.add(email_draft())

    def explode(_mail: Any) -> Any:
        raise RuntimeError("secret body text")

    world.mailer.send = explode  # type: ignore[method-assign,assignment]

    with pytest.raises(RuntimeError):
        world.reviewer.confirm(CALLER, draft.id, {})

    failed = world.stored(draft)
    assert failed.status is DraftStatus.FAILED
    assert failed.error is not None
    assert "secret" not in failed.error


# -- discard ---------------------------------------------------------------------------------


def test_discard_is_final_and_idempotent(world: World) -> None:
    draft = world.add(email_draft())

    discarded = world.reviewer.discard(CALLER, draft.id)
    again = world.reviewer.discard(CALLER, draft.id)

    assert discarded.status is DraftStatus.DISCARDED
    assert again == discarded
    with pytest.raises(AlreadyDiscarded):
        world.reviewer.confirm(CALLER, draft.id, {})
    assert world.mailer.sent == []


def test_a_failed_draft_can_be_discarded_but_a_done_one_cannot(world: World) -> None:
    failing = world.add(email_draft(subject="one"))
    world.mailer.fail_with = MailRejected("SES MessageRejected", code="mail_rejected")
    with pytest.raises(SideEffectFailed):
        world.reviewer.confirm(CALLER, failing.id, {})
    assert world.reviewer.discard(CALLER, failing.id).status is DraftStatus.DISCARDED

    done = world.add(email_draft(subject="two"))
    world.reviewer.confirm(CALLER, done.id, {})
    with pytest.raises(AlreadyDone):
        world.reviewer.discard(CALLER, done.id)


# -- meetings ------------------------------------------------------------------------------------


def _slot(index: int) -> dict[str, str]:
    start, end = SLOTS[index]
    return {"start": start.isoformat(), "end": end.isoformat()}


def test_confirming_a_meeting_sends_an_invitation_to_every_attendee_and_books_the_time(world: World) -> None:
    draft = world.add(meeting_draft(attendees=[resolved("Kinshuok", KINSHUOK), resolved("Priya", PRIYA)]))
    caller = Caller(OWNER, email="owner@example.com")

    done = world.reviewer.confirm(caller, draft.id, {"slot": _slot(1), "title": "Doc sync"})

    [mail] = world.mailer.sent
    # the organizer (a verified caller) gets it too: that is how it reaches their calendar
    assert mail.to == ("kinshuok@example.com", "priya@example.com", "owner@example.com")
    assert mail.invitation is not None
    [event] = ICalendar.from_ical(mail.invitation).events
    assert str(event["UID"]) == draft.id
    assert str(event["SUMMARY"]) == "Doc sync"
    assert event.decoded("DTSTART") == SLOTS[1][0]
    assert str(event["ORGANIZER"]) == "mailto:owner@example.com"
    booking = world.calendar.bookings[draft.id]
    assert (booking.start, booking.end) == SLOTS[1]
    assert set(booking.attendees) == {"kinshuok@example.com", "priya@example.com", "owner@example.com"}
    assert done.result is not None
    assert done.result["bookingId"] == draft.id
    assert done.result["start"] == SLOTS[1][0].isoformat()


def test_the_slot_must_be_chosen_from_the_proposed_ones(world: World) -> None:
    draft = world.add(meeting_draft())

    with pytest.raises(InvalidEdits) as caught:
        world.reviewer.confirm(CALLER, draft.id, {})
    assert caught.value.field == "slot"

    other = {"start": "2026-12-03T15:00:00+01:00", "end": "2026-12-03T15:30:00+01:00"}
    with pytest.raises(InvalidEdits) as caught:
        world.reviewer.confirm(CALLER, draft.id, {"slot": other})
    assert caught.value.field == "slot"
    assert "proposed slots" in caught.value.message

    with pytest.raises(InvalidEdits) as caught:
        world.reviewer.confirm(CALLER, draft.id, {"slot": {"start": "Thursday"}})
    assert caught.value.field.startswith("slot.")


def test_the_same_instant_in_another_offset_is_the_same_slot(world: World) -> None:
    draft = world.add(meeting_draft())
    utc = {"start": "2026-12-03T08:00:00Z", "end": "2026-12-03T08:30:00Z"}

    done = world.reviewer.confirm(CALLER, draft.id, {"slot": utc})

    assert done.edits is not None
    assert done.edits["start"] == "2026-12-03T09:00:00+01:00"


def test_a_single_proposed_slot_needs_no_choice_and_the_organizer_defaults_to_the_sender(
    world: World,
) -> None:
    draft = world.add(meeting_draft(slots=[SLOTS[0]]))

    world.reviewer.confirm(CALLER, draft.id, {})

    [event] = ICalendar.from_ical(world.mailer.sent[0].invitation or b"").events
    assert str(event["ORGANIZER"]) == f"mailto:{SENDER}"


def test_a_slot_that_has_started_cannot_be_confirmed(world: World) -> None:
    draft = world.add(meeting_draft())
    world.now = SLOTS[0][0]

    with pytest.raises(InvalidEdits) as caught:
        world.reviewer.confirm(CALLER, draft.id, {"slot": _slot(0)})

    assert caught.value.field == "slot"
    assert world.stored(draft).status is DraftStatus.PROPOSED


def test_ambiguous_attendees_are_settled_by_id(world: World) -> None:
    draft = world.add(meeting_draft(attendees=[ambiguous("Kin", KINSHUOK, KIN_LEE)]))

    with pytest.raises(InvalidEdits) as caught:
        world.reviewer.confirm(CALLER, draft.id, {"slot": _slot(0)})
    assert caught.value.field == "attendees[0]"

    world.reviewer.confirm(CALLER, draft.id, {"slot": _slot(0), "attendees": ["p-kinshuok"]})
    assert world.mailer.sent[0].to == ("kinshuok@example.com",)


def test_a_failed_invitation_books_nothing(world: World) -> None:
    draft = world.add(meeting_draft())
    world.mailer.fail_with = MailRejected("SES MessageRejected", code="mail_rejected")

    with pytest.raises(SideEffectFailed):
        world.reviewer.confirm(CALLER, draft.id, {"slot": _slot(0)})

    assert world.calendar.bookings == {}
    failed = world.stored(draft)
    assert failed.edits is not None
    assert failed.edits["start"] == SLOTS[0][0].isoformat()


# -- Jira ----------------------------------------------------------------------------------------


def test_confirming_a_ticket_creates_the_issue_with_the_edits(world: World) -> None:
    draft = world.add(jira_draft(assignee=resolved("Priya", PRIYA)))

    done = world.reviewer.confirm(
        CALLER, draft.id, {"summary": "Checkout broken", "priority": "highest", "issueType": "task"}
    )

    assert world.jira is not None
    [issue] = world.jira.created
    assert (issue.project, issue.issue_type, issue.summary, issue.priority) == (
        "WEB",
        "Task",
        "Checkout broken",
        "Highest",
    )
    assert issue.assignee_email == "priya@example.com"
    assert done.result == {
        "issueKey": "WEB-1",
        "issueId": "10001",
        "issueUrl": "https://jira.example/browse/WEB-1",
    }


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"project": "NOPE"}, "project"),
        ({"issueType": "Epic"}, "issueType"),
        ({"priority": "urgent"}, "priority"),
    ],
)
def test_ticket_fields_are_checked_against_the_configured_projects(
    world: World, body: dict[str, Any], field: str
) -> None:
    draft = world.add(jira_draft())

    with pytest.raises(InvalidEdits) as caught:
        world.reviewer.confirm(CALLER, draft.id, body)

    assert caught.value.field == field


def test_an_ambiguous_assignee_is_settled_or_removed(world: World) -> None:
    draft = world.add(jira_draft(assignee=ambiguous("Kin", KINSHUOK, KIN_LEE)))

    with pytest.raises(InvalidEdits) as caught:
        world.reviewer.confirm(CALLER, draft.id, {})
    assert caught.value.field == "assignee"

    world.reviewer.confirm(CALLER, draft.id, {"assignee": None})
    assert world.jira is not None
    assert world.jira.created[0].assignee_email is None


def test_a_ticket_without_jira_configured_is_refused_before_anything_changes() -> None:
    world = World(jira=False)
    draft = world.add(jira_draft())

    with pytest.raises(NotConfigured, match="Jira is not configured"):
        world.reviewer.confirm(CALLER, draft.id, {})

    assert world.stored(draft).status is DraftStatus.PROPOSED


def test_a_rate_limited_create_keeps_retry_after_and_is_retryable(world: World) -> None:
    draft = world.add(jira_draft())
    assert world.jira is not None
    world.jira.fail_with = JiraRateLimited("Jira rate limit reached; retry after 30 s", retry_after=30)

    with pytest.raises(SideEffectFailed) as caught:
        world.reviewer.confirm(CALLER, draft.id, {"summary": "Edited"})

    assert caught.value.code == "jira_rate_limited"
    assert caught.value.retry_after == 30
    assert world.stored(draft).error == "Jira rate limit reached; retry after 30 s"

    done = world.reviewer.confirm(CALLER, draft.id, {})
    assert world.jira.created[0].summary == "Edited"
    assert done.status is DraftStatus.DONE


def test_a_jira_rejection_can_be_fixed_by_editing_and_confirming_again(world: World) -> None:
    draft = world.add(jira_draft())
    assert world.jira is not None
    world.jira.fail_with = JiraRejected("Jira rejected the issue: summary: too vague", errors={}, messages=[])

    with pytest.raises(SideEffectFailed):
        world.reviewer.confirm(CALLER, draft.id, {})

    world.reviewer.confirm(CALLER, draft.id, {"summary": "Checkout button ignores clicks on Safari"})
    assert world.jira.created[0].summary == "Checkout button ignores clicks on Safari"


def test_sandbox_results_are_labelled() -> None:
    world = World(sandbox=True)
    draft = world.add(email_draft())

    done = world.reviewer.confirm(CALLER, draft.id, {})

    assert done.result is not None
    assert done.result["sandbox"] is True


def test_confirmed_times_are_aware(world: World) -> None:
    draft = world.add(meeting_draft())
    done = world.reviewer.confirm(CALLER, draft.id, {"slot": _slot(0)})
    assert done.edits is not None
    assert datetime.fromisoformat(done.edits["start"]).utcoffset() == timedelta(hours=1)


@pytest.mark.parametrize(
    ("claims", "name"),
    [
        ({"name": "Alex Müller", "given_name": "A"}, "Alex Müller"),
        ({"given_name": "Alex", "family_name": "Müller"}, "Alex Müller"),
        ({"name": "\x00\r\n", "given_name": "Alex"}, "Alex"),
        ({"name": "Alex\r\nBcc: x@example.com"}, "Alex Bcc: x@example.com"),
        ({"name": 5}, None),
        ({}, None),
    ],
)
def test_the_requester_name_comes_from_the_name_claims_as_one_clean_line(
    claims: dict[str, Any], name: str | None
) -> None:
    assert name_claim(claims) == name
