"""Slot proposals: working hours in the user's zone, attendees' busy times, the asked-for time first."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

import pytest
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.ports.calendar import Booking, Interval
from multitool.toolkit.context import ToolConfig, ToolContext
from multitool.toolkit.errors import InvalidInput
from multitool.tools import ToolPorts, run_calls
from multitool.tools.meeting.scheduling import search_days
from multitool.tools.meeting.slots import Slot
from multitool.tools.meeting.when import RequestedTime

from tests.support.bedrock_events import sample_people
from tests.unit.tools.test_scheduling import propose_slots

BERLIN = "Europe/Berlin"
# Tuesday 1 December 2026, 10:00 in Berlin.
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
CONFIG = ToolConfig()


def ctx(now: datetime = NOW, timezone: str = BERLIN) -> ToolContext:
    return ToolContext(owner="user-1", session_id="s-1", now=now, timezone=timezone)


def berlin(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 12, day, hour, minute, tzinfo=ctx().zone)


def starts(slots: list[Slot]) -> list[datetime]:
    return [s.start for s in slots]


def test_three_distinct_slots_from_the_start_of_working_hours() -> None:
    slots = propose_slots(RequestedTime(date(2026, 12, 3)), timedelta(minutes=30), [], ctx(), CONFIG)
    assert starts(slots) == [berlin(3, 9), berlin(3, 9, 30), berlin(3, 10)]
    assert all(s.end - s.start == timedelta(minutes=30) for s in slots)
    assert all(s.start.utcoffset() == timedelta(hours=1) for s in slots)  # shown in the user's zone


def test_longer_meetings_do_not_overlap_each_other() -> None:
    slots = propose_slots(RequestedTime(date(2026, 12, 3)), timedelta(minutes=45), [], ctx(), CONFIG)
    assert starts(slots) == [berlin(3, 9), berlin(3, 10), berlin(3, 11)]


def test_busy_intervals_are_avoided() -> None:
    busy = [
        Interval(start=berlin(3, 9), end=berlin(3, 10, 30)),
        Interval(start=berlin(3, 11), end=berlin(3, 12)),
    ]
    slots = propose_slots(RequestedTime(date(2026, 12, 3)), timedelta(minutes=30), busy, ctx(), CONFIG)
    assert starts(slots) == [berlin(3, 10, 30), berlin(3, 12), berlin(3, 12, 30)]


def test_a_full_day_moves_on_to_the_next_working_day() -> None:
    busy = [Interval(start=berlin(4, 9), end=berlin(4, 17))]  # Friday fully booked
    slots = propose_slots(RequestedTime(date(2026, 12, 4)), timedelta(minutes=30), busy, ctx(), CONFIG)
    assert [s.start.date() for s in slots] == [date(2026, 12, 7)] * 3  # Monday, weekend skipped


def test_slots_end_within_working_hours() -> None:
    busy = [Interval(start=berlin(3, 9), end=berlin(3, 16))]
    slots = propose_slots(RequestedTime(date(2026, 12, 3)), timedelta(minutes=60), busy, ctx(), CONFIG)
    assert starts(slots)[0] == berlin(3, 16)
    assert starts(slots)[1] == berlin(4, 9)
    hours = CONFIG.working_hours_start, CONFIG.working_hours_end
    assert all(hours[0] <= s.start.hour and s.end.hour <= hours[1] for s in slots)


def test_today_starts_from_now_rounded_up() -> None:
    now = berlin(1, 10, 10).astimezone(UTC)
    slots = propose_slots(RequestedTime(date(2026, 12, 1)), timedelta(minutes=30), [], ctx(now), CONFIG)
    assert starts(slots)[0] == berlin(1, 10, 30)


def test_an_asked_for_time_comes_first_when_free() -> None:
    asked = RequestedTime(date(2026, 12, 2), time(15, 0))
    slots = propose_slots(asked, timedelta(minutes=30), [], ctx(), CONFIG)
    assert starts(slots) == [berlin(2, 15), berlin(2, 15, 30), berlin(2, 16)]


def test_a_busy_asked_for_time_yields_the_next_free_ones() -> None:
    asked = RequestedTime(date(2026, 12, 2), time(15, 0))
    busy = [Interval(start=berlin(2, 15), end=berlin(2, 16))]
    slots = propose_slots(asked, timedelta(minutes=30), busy, ctx(), CONFIG)
    assert starts(slots) == [berlin(2, 16), berlin(2, 16, 30), berlin(3, 9)]


def test_working_hours_follow_the_users_zone() -> None:
    tokyo = ctx(timezone="Asia/Tokyo")
    slots = propose_slots(RequestedTime(date(2026, 12, 3)), timedelta(minutes=30), [], tokyo, CONFIG)
    assert slots[0].start == datetime(2026, 12, 3, 9, 0, tzinfo=tokyo.zone)
    assert slots[0].start.astimezone(UTC).hour == 0


def test_working_hours_hold_across_a_dst_change() -> None:
    # Europe/Berlin leaves summer time on Sunday 25 October 2026; Monday is UTC+1.
    now = datetime(2026, 10, 23, 8, 0, tzinfo=UTC)
    slots = propose_slots(RequestedTime(date(2026, 10, 26)), timedelta(minutes=30), [], ctx(now), CONFIG)
    assert slots[0].start.hour == 9
    assert slots[0].start.utcoffset() == timedelta(hours=1)


def test_weekend_request_starts_on_monday() -> None:
    assert search_days(date(2026, 12, 5), CONFIG)[0] == date(2026, 12, 7)


def test_meeting_avoids_every_attendees_bookings_through_run_calls() -> None:
    people = sample_people()
    calendar = MemoryCalendar(
        [
            Booking(
                id="b-1",
                title="Busy",
                organizer="other",
                attendees=("kinshuok@example.com",),
                start=berlin(3, 9),
                end=berlin(3, 10),
            ),
            Booking(
                id="b-2",
                title="Busy",
                organizer="other",
                attendees=("PRIYA@example.com",),
                start=berlin(3, 10),
                end=berlin(3, 11),
            ),
        ]
    )
    ports = ToolPorts(MemoryDirectory(people), calendar, MemoryDraftStore())
    (outcome,) = run_calls(
        [("propose_meeting", {"attendees": ["Kinshuok", "Priya"], "title": "Sync", "when": "Thursday"})],
        ctx(),
        ports,
    )
    assert outcome.ok, outcome.body
    payload = outcome.body
    assert [s["start"] for s in payload["slots"]] == [
        "2026-12-03T11:00:00+01:00",
        "2026-12-03T11:30:00+01:00",
        "2026-12-03T12:00:00+01:00",
    ]
    assert payload["durationMinutes"] == 30
    assert payload["timezone"] == BERLIN
    assert payload["requested"] == "Thursday"
    assert calendar.reads == 1


def test_no_free_time_is_a_clear_error() -> None:
    people = sample_people()
    week = Booking(
        id="b-week",
        title="Offsite",
        organizer="other",
        attendees=("kinshuok@example.com",),
        start=berlin(3, 0),
        end=berlin(3, 0) + timedelta(days=14),
    )
    ports = ToolPorts(MemoryDirectory(people), MemoryCalendar([week]), MemoryDraftStore())
    (outcome,) = run_calls(
        [("propose_meeting", {"attendees": ["Kinshuok"], "title": "Sync", "when": "Thursday"})], ctx(), ports
    )
    assert outcome.status == 422
    assert outcome.body["error"]["code"] == "no_free_slot"


def test_the_requesters_own_bookings_count_as_busy_in_the_same_read() -> None:
    people = sample_people()
    mine = Booking(
        id="b-mine",
        title="1:1",
        organizer="me@example.com",
        attendees=("me@example.com",),
        start=berlin(3, 10),
        end=berlin(3, 12),
    )
    calendar = MemoryCalendar([mine])
    ports = ToolPorts(MemoryDirectory(people), calendar, MemoryDraftStore())
    requester = ToolContext(
        owner="user-1", session_id="s-2", now=NOW, timezone=BERLIN, requester_email="ME@example.com"
    )
    call = ("propose_meeting", {"attendees": ["Priya"], "title": "Sync", "when": "Thursday"})

    (anonymous,) = run_calls([call], ctx(), ports)
    (outcome,) = run_calls([call], requester, ports)

    assert anonymous.body["slots"][0]["start"] == "2026-12-03T10:00:00+01:00"  # Priya's 9:00 in London
    assert [s["start"] for s in outcome.body["slots"]] == [
        "2026-12-03T12:00:00+01:00",
        "2026-12-03T12:30:00+01:00",
        "2026-12-03T13:00:00+01:00",
    ]
    # The requester is not added to the card's attendees, and the busy read stays one read.
    assert [a["query"] for a in outcome.body["attendees"]] == ["Priya"]
    assert calendar.reads == 2


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ({"userEmail": 42}, "must be a string"),
        ({"userEmail": "not an address"}, "must be an email address"),
        ({"userEmail": "a@" + "b" * 320 + ".com"}, "must be an email address"),
    ],
)
def test_a_bad_user_email_attribute_is_a_clear_error(attributes: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInput, match=message) as raised:
        ToolContext.from_session("s-1", {"userId": "user-1", **attributes})
    assert raised.value.field == "sessionAttributes.userEmail"


def test_user_email_attribute_is_optional() -> None:
    assert ToolContext.from_session("s-1", {"userId": "user-1"}).requester_email is None
    assert ToolContext.from_session("s-1", {"userId": "user-1", "userEmail": ""}).requester_email is None
    context = ToolContext.from_session("s-1", {"userId": "user-1", "userEmail": "me@example.com"})
    assert context.requester_email == "me@example.com"


def propose_for(when: str, **extra: object) -> dict[str, object]:
    """A meeting with an address outside the directory (no zone, so only the user's hours count)."""
    ports = ToolPorts(MemoryDirectory(sample_people()), MemoryCalendar(), MemoryDraftStore())
    arguments = {"attendees": ["guest@partner.org"], "title": "Sync", "when": when, **extra}
    (outcome,) = run_calls([("propose_meeting", arguments)], ctx(), ports)
    assert outcome.ok, outcome.body
    return outcome.body


@pytest.mark.parametrize(
    ("when", "first", "last_end"),
    [
        ("Friday morning", berlin(4, 9), berlin(4, 12)),
        ("Friday afternoon", berlin(4, 13), berlin(4, 17)),
        ("Friday lunchtime", berlin(4, 12), berlin(4, 14)),
        ("Friday end of day", berlin(4, 16), berlin(4, 18)),
        ("Friday evening", berlin(4, 17), berlin(4, 19)),
        ("this afternoon", berlin(1, 13), berlin(1, 17)),
    ],
)
def test_a_part_of_the_day_narrows_the_slots_to_its_hours(
    when: str, first: datetime, last_end: datetime
) -> None:

    payload = propose_for(when, durationMinutes=30)
    slots = [(datetime.fromisoformat(s["start"]), datetime.fromisoformat(s["end"])) for s in payload["slots"]]
    assert slots[0][0] == first
    assert all(first <= start and end <= last_end for start, end in slots)


def test_friday_morning_says_how_it_was_read() -> None:
    payload = propose_for("Friday morning")
    assert payload["slots"][0]["start"] == "2026-12-04T09:00:00+01:00"
    assert payload["notes"] == [
        "'Friday' read as Fri 4 Dec (the coming one).",
        "'morning' read as 09:00-12:00.",
        "No length was asked for: 30 minutes.",
    ]


def test_a_part_of_the_day_outside_working_hours_says_so() -> None:
    payload = propose_for("Friday evening", durationMinutes=60)
    assert "The evening reaches outside working hours (09:00-17:00)." in payload["notes"]
    assert not any("No length" in note for note in payload["notes"])


def test_no_time_asked_says_working_hours_were_applied() -> None:
    payload = propose_for("Thursday", durationMinutes=30)
    assert payload["notes"] == [
        "'Thursday' read as Thu 3 Dec (the coming one).",
        "No time was asked for: the slots are the earliest free times within working hours (09:00-17:00).",
    ]


def test_a_full_part_of_the_day_moves_to_the_same_hours_of_the_next_working_day() -> None:
    ports = ToolPorts(
        MemoryDirectory(sample_people()),
        MemoryCalendar(
            [
                Booking(
                    id="b",
                    title="Busy",
                    organizer="o",
                    attendees=("guest@partner.org",),
                    start=berlin(4, 9),
                    end=berlin(4, 12),
                )
            ]
        ),
        MemoryDraftStore(),
    )
    arguments = {"attendees": ["guest@partner.org"], "title": "Sync", "when": "Friday morning"}
    (outcome,) = run_calls([("propose_meeting", arguments)], ctx(), ports)
    assert outcome.body["slots"][0]["start"] == "2026-12-07T09:00:00+01:00"  # Monday morning


def test_an_impossible_time_is_a_422_on_when_through_run_calls() -> None:
    ports = ToolPorts(MemoryDirectory(sample_people()), MemoryCalendar(), MemoryDraftStore())
    arguments = {"attendees": ["guest@partner.org"], "title": "Sync", "when": "Friday at 25:00"}
    (outcome,) = run_calls([("propose_meeting", arguments)], ctx(), ports)
    assert outcome.status == 422
    assert outcome.body["error"]["field"] == "when"
    assert "25:00" in outcome.body["error"]["message"]


def test_an_outside_attendee_has_no_made_up_time_zone() -> None:
    tool_ports = ToolPorts(MemoryDirectory(sample_people()), MemoryCalendar([]), MemoryDraftStore())
    (outcome,) = run_calls(
        [("propose_meeting", {"attendees": ["bob@external.com"], "title": "Sync", "when": "Thursday"})],
        ctx(),
        tool_ports,
        CONFIG,
    )
    (bob,) = outcome.body["attendees"]
    assert bob["status"] == "resolved"
    assert bob["person"]["timezone"] == ""  # not "UTC": the page shows no local time for them
