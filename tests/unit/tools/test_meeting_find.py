"""The meeting finder (multitool.tools.meeting.find): a meeting the user named, among their own.

Given the caller's calendar (the in-memory built-in one) with meetings they organize, meetings
they are invited to and other people's, when the batch resolves every meeting reference of a
turn, then the calendar is read once over all their days, each reference finds its meeting (or a
choice, the next upcoming first, or nothing), and another user's meeting is never a candidate.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory
from multitool.ports.calendar import Booking, CalendarEvent
from multitool.toolkit.references import FindContext, ItemRef, Match
from multitool.tools import ToolContext, ToolPorts
from multitool.tools.meeting.find import find_meetings, read_window

from tests.support.bedrock_events import sample_people

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)  # a Monday
ME = "me@example.com"
PRIYA = "priya@example.com"
KIN = "kinshuok@example.com"


def meeting(
    booking_id: str, title: str, organizer: str, *others: str, days: int = 1, hour: int = 10
) -> Booking:
    start = (NOW + timedelta(days=days)).replace(hour=hour)
    return Booking(
        id=booking_id,
        title=title,
        organizer=organizer,
        attendees=(organizer, *others),
        start=start,
        end=start + timedelta(minutes=30),
    )


class CountingCalendar(MemoryCalendar):
    def __init__(self, bookings: Sequence[Booking]) -> None:
        super().__init__(bookings)
        self.windows: list[tuple[datetime, datetime]] = []

    def events(self, email: str, start: datetime, end: datetime) -> Sequence[CalendarEvent]:
        self.windows.append((start, end))
        return super().events(email, start, end)


CALENDAR = [
    meeting("sync-tue", "Weekly sync", ME, PRIYA, days=1),
    meeting("sync-fri", "Weekly sync", ME, PRIYA, days=4),
    meeting("sync-past", "Weekly sync", ME, PRIYA, days=-1, hour=10),
    meeting("one-on-one", "1:1 Kinshuok / me", KIN, ME, days=2),
    meeting("secret", "Secret sync", PRIYA, KIN, days=1, hour=14),  # not mine
    meeting("far", "Weekly sync", ME, PRIYA, days=30),
]


def find(*refs: dict[str, Any], email: str | None = ME) -> tuple[list[Any], CountingCalendar]:
    calendar = CountingCalendar(CALENDAR)
    directory = MemoryDirectory(sample_people())
    references = [ItemRef.model_validate(r) for r in refs]
    names = [n for r in references for n in r.people]
    ctx = ToolContext(owner="u-1", session_id="s-1", now=NOW, timezone="Europe/London", requester_email=email)
    reads = FindContext(
        ctx=ctx,
        ports=ToolPorts(directory, calendar, None),
        people=directory.resolve(names),  # type: ignore[arg-type]
    )
    return find_meetings(references, reads), calendar


def test_a_day_and_a_person_find_the_one_meeting() -> None:
    (found,), _ = find(
        {
            "said": "my sync with Priya tomorrow",
            "people": ["Priya"],
            "fromDay": "2026-12-08",
            "words": ["sync"],
        }
    )

    assert found.status is Match.FOUND
    assert found.item is not None
    assert found.item.id == "sync-tue"
    assert found.item.fields["role"] == "organizer"
    assert found.item.version == "1"
    assert found.item.label == "Weekly sync · Tue 08 Dec 10:00-10:30 · with priya@example.com"


def test_without_a_day_the_next_upcoming_ranks_first_then_the_latest_past() -> None:
    (found,), calendar = find({"said": "the weekly sync", "words": ["sync"]})

    assert found.status is Match.AMBIGUOUS
    assert [c.id for c in found.candidates] == ["sync-tue", "sync-fri", "sync-past"]  # "far" is past 14 days
    assert calendar.windows == [(NOW - timedelta(days=1), NOW + timedelta(days=14))]


def test_every_reference_of_a_turn_is_one_read_over_all_their_days() -> None:
    found, calendar = find(
        {"said": "the 1:1", "words": ["1:1"], "fromDay": "2026-12-09"},
        {"said": "the sync on Friday", "words": ["sync"], "fromDay": "2026-12-11"},
        {"said": "the sync in January", "words": ["sync"], "fromDay": "2027-01-06", "toDay": "2027-01-06"},
    )

    assert [f.item.id if f.item else f.status for f in found] == ["one-on-one", "sync-fri", "far"]
    assert len(calendar.windows) == 1


def test_another_users_meeting_is_never_a_candidate() -> None:
    (found,), _ = find({"said": "the secret sync", "words": ["secret"]})
    (by_people,), _ = find({"said": "Priya and Kinshuok's meeting", "people": ["Priya", "Kinshuok"]})

    assert found.status is Match.NONE
    assert by_people.status is Match.NONE
    assert (found.item, found.candidates) == (None, ())
    assert "Secret sync" not in str(found.to_wire()) + str(by_people.to_wire())


def test_a_name_nobody_answers_to_matches_nothing() -> None:
    (found,), _ = find({"said": "my sync with Zed", "people": ["Zed"], "words": ["sync"]})

    assert found.status is Match.NONE


def test_no_verified_address_reads_no_calendar() -> None:
    (found,), calendar = find({"said": "the sync", "words": ["sync"]}, email=None)

    assert found.status is Match.NONE
    assert calendar.windows == []


def test_the_read_window_is_bounded() -> None:
    refs = [
        ItemRef.model_validate({"said": "a", "fromDay": "2026-12-01"}),
        ItemRef.model_validate({"said": "b", "fromDay": "2027-12-01"}),
    ]
    start, end = read_window(refs, NOW, UTC)

    assert start.date() == date(2026, 12, 1)
    assert end - start == timedelta(days=62)
