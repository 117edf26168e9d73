"""Bookings across zones and DST changes against the local Google stand-in (hypothesis).

Given meetings booked at any local time in any zone (the repeated hour when clocks go back, the
days around a change, times that straddle midnight), a retried confirm is one read and nothing
more, the re-check refuses an overlapping booking for the same attendee, and free/busy over a
window that straddles days shows the booked instants unchanged.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import urllib3
from hypothesis import given, settings
from hypothesis import strategies as st
from multitool.local.sandbox.embedded import load_seed
from multitool.local.standins.google_server import FakeGoogle, sandbox_token, start_fake_google
from multitool.ports.calendar import Booking, Interval, SlotTaken
from multitool.ports.google.tokens import FixedTokenSource
from multitool.ports.google.workspace import build_suite
from multitool.ports.suites import Suite
from multitool.ports.tokens import Account

SEED = load_seed()
ORGANIZER = SEED.people[0]
ZONES = ("America/New_York", "Europe/London", "Australia/Sydney", "Australia/Lord_Howe", "Asia/Kolkata")
_ids = itertools.count()
moments = st.datetimes(
    min_value=datetime(2027, 3, 1),
    max_value=datetime(2027, 11, 30),
    timezones=st.sampled_from([ZoneInfo(z) for z in ZONES]),
    allow_imaginary=False,
)


@pytest.fixture(scope="module")
def google() -> Iterator[FakeGoogle]:
    # The seeded week is in 2026: the 2027 calendars hold only what these tests book.
    with start_fake_google(people=SEED.people, week_of=date(2026, 12, 7)) as server:
        yield server


@pytest.fixture(scope="module")
def suite(google: FakeGoogle) -> Suite:
    tokens = FixedTokenSource({p.email: sandbox_token(p.email) for p in SEED.people})
    return build_suite(
        Account(user_id=ORGANIZER.id, email=ORGANIZER.email),
        tokens,
        http=urllib3.PoolManager(),
        base_url=google.url,
    )


@settings(max_examples=40, deadline=None)
@given(start=moments, minutes=st.integers(min_value=15, max_value=8 * 60), zone=st.sampled_from(ZONES))
def test_a_booking_in_any_zone_is_found_again_and_guards_its_time(
    google: FakeGoogle, suite: Suite, start: datetime, minutes: int, zone: str
) -> None:
    attendee = SEED.people[1].email
    begins = start.replace(second=0, microsecond=0)
    booking = Booking(
        id=f"tz-{next(_ids)}",
        title="Across zones",
        organizer=ORGANIZER.email,
        attendees=(ORGANIZER.email, attendee),
        start=begins,
        # Minutes that pass, not minutes on the wall clock: "01:45, the second time" + 10 minutes is
        # not "01:55", which came first.
        end=(begins.astimezone(UTC) + timedelta(minutes=minutes)).astimezone(begins.tzinfo),
        timezone=zone,
    )
    suite.calendar.book(booking)
    try:
        sent = len(google.requests)
        suite.calendar.book(booking)  # a retried confirm: it reads the event and stops
        assert [r[0] for r in google.requests[sent:]] == ["GET"]

        day_before = booking.start.astimezone(UTC) - timedelta(days=1)
        busy = suite.calendar.busy([attendee], day_before, booking.end + timedelta(days=1))
        assert (
            Interval(start=booking.start.astimezone(UTC), end=booking.end.astimezone(UTC)) in busy[attendee]
        )

        overlapping = booking.model_copy(
            update={
                "id": booking.id + "-other",
                "start": booking.end - timedelta(minutes=5),
                "attendees": (attendee,),
            }
        )
        overlapping = overlapping.model_copy(update={"end": overlapping.start + timedelta(minutes=30)})
        with pytest.raises(SlotTaken) as taken:
            suite.calendar.book(overlapping)
        assert list(taken.value.busy) == [attendee]
    finally:
        suite.calendar.release(booking.id)
    assert suite.calendar.busy([attendee], booking.start, booking.end)[attendee] == []


def test_free_busy_over_the_repeated_hour_compares_instants_not_wall_clocks(
    google: FakeGoogle, suite: Suite
) -> None:
    """Lord Howe goes back 30 minutes at 02:00 on 4 Apr 2027: 01:45 the second time is after 01:55
    the first time, though its wall clock reads earlier."""
    zone = ZoneInfo("Australia/Lord_Howe")
    first_0155 = datetime(2027, 4, 4, 1, 55, tzinfo=zone)
    second_0145 = datetime(2027, 4, 4, 1, 45, fold=1, tzinfo=zone)
    assert second_0145.astimezone(UTC) > first_0155.astimezone(UTC)
    attendee = SEED.people[1].email
    sent = len(google.requests)
    # Over [01:45 the second time, 01:55 the first time): no time at all, so nothing is asked.
    assert suite.calendar.busy([attendee], second_0145, first_0155) == {attendee: []}
    assert len(google.requests) == sent
    # Over [01:55 the first time, 01:45 the second time): 20 minutes, asked for in UTC.
    assert suite.calendar.busy([attendee], first_0155, second_0145) == {attendee: []}
    assert len(google.requests) == sent + 1
