"""The card a confirmed message shows: the drafted card with the draft's confirmed content (its
``edits``, the tool's content on the wire) put in, for any card type, by the shape of the values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from multitool.people import NameResolution, Person, Resolution
from multitool.slack.sent import sent_card
from multitool.tools.jira.jira_draft import JiraTicketDraftCard
from multitool.tools.meeting.meeting_scheduler import MeetingSchedulerCard

PRIYA = Person(id="p2", display_name="Priya Natarajan", email="priya@example.com", timezone="Asia/Kolkata")
MEI = Person(id="p3", display_name="Mei Tanaka", email="mei@example.com", timezone="Asia/Tokyo")
START = datetime(2026, 12, 3, 8, tzinfo=UTC)


def resolved(person: Person) -> NameResolution:
    return NameResolution(query=person.display_name.split()[0], status=Resolution.RESOLVED, person=person)


def meeting() -> MeetingSchedulerCard:
    slots = [
        {"start": START + timedelta(hours=i), "end": START + timedelta(hours=i, minutes=30)} for i in range(3)
    ]
    return MeetingSchedulerCard.model_validate(
        {
            "type": "show_meeting_scheduler",
            "id": "d2",
            "title": "Sync",
            "attendees": [resolved(PRIYA).to_wire()],
            "timezone": "Europe/Berlin",
            "slots": slots,
            "slotNotes": [["first"], ["second"], ["third"]],
        }
    )


def test_the_booked_slot_is_the_only_one_with_its_own_per_slot_entries() -> None:
    edits = {
        "title": "Sync, renamed",
        "attendees": [{"email": "priya@example.com", "name": "Priya"}, {"email": "mei@example.com"}],
        "start": (START + timedelta(hours=1)).isoformat(),
        "end": (START + timedelta(hours=1, minutes=30)).isoformat(),
        "timezone": "Europe/Berlin",
    }
    card = sent_card(meeting(), edits)
    assert isinstance(card, MeetingSchedulerCard)
    assert card.title == "Sync, renamed"
    assert [(s.start, s.end) for s in card.slots] == [
        (START + timedelta(hours=1), START + timedelta(hours=1, minutes=30))
    ]
    assert card.slot_notes == (("second",),)
    # The person the card offered keeps their directory entry; a new address is shown as itself.
    assert [a.person.display_name for a in card.attendees if a.person] == [
        "Priya Natarajan",
        "mei@example.com",
    ]
    assert all(a.status is Resolution.RESOLVED for a in card.attendees)


def test_a_jira_assignee_confirmed_by_address_is_the_person_offered() -> None:
    card = JiraTicketDraftCard.model_validate(
        {
            "type": "show_jira_ticket_draft",
            "id": "d3",
            "project": "WEB",
            "summary": "Fix login",
            "assignee": NameResolution(
                query="Priya", status=Resolution.AMBIGUOUS, candidates=(PRIYA, MEI)
            ).to_wire(),
        }
    )
    sent = sent_card(
        card, {"project": "WEB", "summary": "Fix the login", "assignee": {"email": "mei@example.com"}}
    )
    assert isinstance(sent, JiraTicketDraftCard)
    assert sent.summary == "Fix the login"
    assert sent.assignee is not None
    assert sent.assignee.person == MEI


def test_a_confirmed_value_the_card_does_not_take_is_shown_as_drafted() -> None:
    card = sent_card(meeting(), {"title": 42, "timezone": "Europe/Berlin"})
    assert card.title == "Sync"
    assert sent_card(meeting(), None) == meeting()
