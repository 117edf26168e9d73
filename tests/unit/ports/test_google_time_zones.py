"""Time zones through the Google adapters (hypothesis): attendees across zones and DST changes,
busy blocks that straddle days and the free/busy windows.

Google's free/busy speaks UTC instants (the request asks ``timeZone=UTC``); a booking's event
carries the instant in UTC and the organizer's zone by name. Whatever the zones and however the
clocks change, the instants must survive the round trip unchanged.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st
from multitool.ports.calendar import Booking, Interval
from multitool.ports.google.http import GoogleApi
from multitool.ports.google.workspace import FREEBUSY_WINDOW, GoogleCalendar

from tests.support.google_api import FixedTokens, ScriptedGoogle
from tests.unit.ports.test_google_workspace import ACCOUNT, freebusy

# Zones with DST both ways, a half-hour DST (Lord Howe), none (Kolkata), and a date-line zone.
ZONES = (
    "America/New_York",
    "Europe/London",
    "Europe/Berlin",
    "Australia/Sydney",
    "Australia/Lord_Howe",
    "Asia/Kolkata",
    "Pacific/Auckland",
    "America/Sao_Paulo",
    "UTC",
)
# Around the 2026 and 2027 DST changes of the northern and southern hemispheres.
moments = st.datetimes(
    min_value=datetime(2026, 3, 1),
    max_value=datetime(2027, 4, 30),
    timezones=st.sampled_from([ZoneInfo(z) for z in ZONES]),
    allow_imaginary=False,
)


def calendar(google: ScriptedGoogle) -> GoogleCalendar:
    api = GoogleApi(
        ACCOUNT, FixedTokens(), http=google.http, base_url="http://127.0.0.1:9", deadline=lambda: 30.0
    )
    return GoogleCalendar(api)


@settings(max_examples=60, deadline=None)
@given(
    start=moments,
    hours=st.integers(min_value=1, max_value=24 * 9),
    blocks=st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=24 * 60 * 9), st.integers(min_value=5, max_value=36 * 60)
        ),
        max_size=6,
    ),
)
def test_busy_reads_the_same_instants_whatever_the_zones(
    start: datetime, hours: int, blocks: list[tuple[int, int]]
) -> None:
    end = start + timedelta(hours=hours)
    utc_start = start.astimezone(UTC)
    # Given busy blocks (minutes after the window start, some crossing midnight in every zone):
    given_blocks = [
        (utc_start + timedelta(minutes=m), utc_start + timedelta(minutes=m + n)) for m, n in blocks
    ]
    inside = [(s, e) for s, e in given_blocks if s < end and start < e]
    google = ScriptedGoogle()
    google.answer("calendar.freebusy.query", freebusy({"alex@example.com": inside}))

    busy = calendar(google).busy(["alex@example.com"], start, end)

    (sent,) = google.sent
    assert datetime.fromisoformat(sent.body["timeMin"]) == utc_start
    assert datetime.fromisoformat(sent.body["timeMax"]) == end.astimezone(UTC)
    expected = _union([Interval(start=s, end=e) for s, e in inside])
    assert busy["alex@example.com"] == expected


@settings(max_examples=30, deadline=None)
@given(start=moments, straddle=st.integers(min_value=1, max_value=600))
def test_a_block_across_a_free_busy_window_boundary_comes_back_whole(start: datetime, straddle: int) -> None:
    start = start.astimezone(UTC)  # the instant; its zone is the first test's concern
    end = start + FREEBUSY_WINDOW + timedelta(days=3)
    boundary = start + FREEBUSY_WINDOW
    block = (boundary - timedelta(minutes=straddle), boundary + timedelta(minutes=straddle))
    google = ScriptedGoogle()
    # Google answers each window with the block clipped to it.
    google.answer("calendar.freebusy.query", freebusy({"alex@example.com": [(block[0], boundary)]}))
    google.answer("calendar.freebusy.query", freebusy({"alex@example.com": [(boundary, block[1])]}))

    busy = calendar(google).busy(["alex@example.com"], start, end)

    assert [datetime.fromisoformat(s.body["timeMin"]) for s in google.sent] == [start, boundary]
    assert busy["alex@example.com"] == [Interval(start=block[0], end=block[1])]


@settings(max_examples=60, deadline=None)
@given(start=moments, minutes=st.integers(min_value=15, max_value=600), zone=st.sampled_from(ZONES))
def test_an_event_carries_the_booking_instant_in_utc_and_the_organizers_zone(
    start: datetime, minutes: int, zone: str
) -> None:
    booking = Booking(
        id="b-1",
        title="Sync",
        organizer="alex@example.com",
        attendees=("alex@example.com",),
        start=start,
        end=(start.astimezone(UTC) + timedelta(minutes=minutes)).astimezone(
            start.tzinfo
        ),  # minutes that pass
        timezone=zone,
    )
    google = ScriptedGoogle()
    google.error("calendar.events.get", 404, "notFound")
    google.answer("calendar.freebusy.query", freebusy({"alex@example.com": []}))
    google.answer("calendar.events.insert", {"kind": "calendar#event", "id": "x", "status": "confirmed"})

    calendar(google).book(booking)

    body = google.sent[-1].body
    assert body["start"]["timeZone"] == zone
    assert body["start"]["dateTime"].endswith("Z")
    # In UTC: an ambiguous local time never equals a time in another zone (PEP 495).
    assert datetime.fromisoformat(body["start"]["dateTime"]) == start.astimezone(UTC).replace(microsecond=0)
    # The end instant as booked: an aware datetime's arithmetic is wall-clock time in its zone, so
    # across a DST change the elapsed time differs from the minutes added; the instant must not.
    assert datetime.fromisoformat(body["end"]["dateTime"]) == booking.end.astimezone(UTC).replace(
        microsecond=0
    )


def _union(intervals: list[Interval]) -> list[Interval]:
    merged: list[Interval] = []
    for interval in sorted(intervals, key=lambda i: (i.start, i.end)):
        if merged and interval.start <= merged[-1].end:
            merged[-1] = Interval(start=merged[-1].start, end=max(merged[-1].end, interval.end))
        else:
            merged.append(interval)
    return merged
