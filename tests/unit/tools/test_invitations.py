"""The meeting invitation, parsed back with icalendar."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from icalendar import Calendar
from multitool.tools.meeting.invitations import Invitation, Participant, build_invitation

BERLIN = ZoneInfo("Europe/Berlin")


def _invitation(**changes: object) -> Invitation:
    values: dict[str, object] = {
        "uid": "d_0123456789abcdef",
        "title": "Sync about the doc, part 2",
        "organizer": Participant("priya@example.com", "Priya Raman"),
        "attendees": (Participant("kinshuok@example.com", "Kinshuok Sen"), Participant("ext@partner.test")),
        "start": datetime(2026, 12, 3, 9, 0, tzinfo=BERLIN),
        "end": datetime(2026, 12, 3, 9, 30, tzinfo=BERLIN),
        "timezone": "Europe/Berlin",
    }
    values.update(changes)
    return Invitation(**values)  # type: ignore[arg-type]


def test_invitation_is_a_request_with_one_event_in_the_meeting_time_zone() -> None:
    stamp = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)

    calendar = Calendar.from_ical(build_invitation(_invitation(), stamp=stamp))

    assert calendar["METHOD"] == "REQUEST"
    assert calendar["VERSION"] == "2.0"
    events = calendar.walk("VEVENT")
    assert len(events) == 1
    event = events[0]
    assert str(event["UID"]) == "d_0123456789abcdef"
    assert str(event["SUMMARY"]) == "Sync about the doc, part 2"
    assert event["SEQUENCE"] == 0
    assert event.decoded("DTSTAMP") == stamp
    start, end = event.decoded("DTSTART"), event.decoded("DTEND")
    assert start == datetime(2026, 12, 3, 9, 0, tzinfo=BERLIN)
    assert end - start == timedelta(minutes=30)
    assert event["DTSTART"].params["TZID"] == "Europe/Berlin"
    assert event["DTEND"].params["TZID"] == "Europe/Berlin"
    assert [tz["TZID"] for tz in calendar.walk("VTIMEZONE")] == ["Europe/Berlin"]


def test_organizer_and_every_attendee_are_mailto_addresses_asked_to_rsvp() -> None:
    [event] = Calendar.from_ical(build_invitation(_invitation())).events

    organizer = event.organizer
    assert organizer is not None
    assert str(organizer) == "mailto:priya@example.com"
    assert organizer.params["CN"] == "Priya Raman"
    attendees = event.attendees
    assert [str(a) for a in attendees] == ["mailto:kinshuok@example.com", "mailto:ext@partner.test"]
    assert all(a.params["RSVP"] == "TRUE" for a in attendees)
    assert all(a.params["PARTSTAT"] == "NEEDS-ACTION" for a in attendees)
    assert attendees[0].params["CN"] == "Kinshuok Sen"


def test_start_given_in_another_zone_is_expressed_in_the_meeting_zone() -> None:
    start = datetime(2026, 12, 3, 8, 0, tzinfo=UTC)

    ical = build_invitation(_invitation(start=start, end=start + timedelta(hours=1)))

    assert b"DTSTART;TZID=Europe/Berlin:20261203T090000" in ical
    assert b"DTEND;TZID=Europe/Berlin:20261203T100000" in ical


def test_non_ascii_title_round_trips() -> None:
    event = Calendar.from_ical(build_invitation(_invitation(title="Zoë's kickoff ☕"))).walk("VEVENT")[0]
    assert str(event["SUMMARY"]) == "Zoë's kickoff ☕"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"start": datetime(2026, 12, 3, 9, 0)}, "time-zone aware"),
        ({"end": datetime(2026, 12, 3, 8, 0, tzinfo=BERLIN)}, "after its start"),
    ],
)
def test_invalid_times_are_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_invitation(_invitation(**changes))
