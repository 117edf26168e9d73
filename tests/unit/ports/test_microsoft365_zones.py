"""Time zones with hypothesis: attendees across zones and DST changes, busy blocks straddling days,
read through getSchedule (the in-memory Graph checks each request against Graph's description)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st
from multitool.local.standins.graph_state import GraphPool, GraphState, WorkingHours
from multitool.ports.calendar import Interval
from multitool.ports.microsoft365.graph import GraphCalendar, _graph_time, _parse_time, off_hours
from multitool.ports.microsoft365.graph_http import GraphHttp
from multitool.ports.microsoft365.tokens import FixedTokenSource
from multitool.ports.tokens import Account

# Zones with DST north and south of the equator, half-hour and 45-minute offsets, and none at all.
ZONES = (
    "Europe/Berlin",
    "America/New_York",
    "Australia/Sydney",
    "Pacific/Auckland",
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "Asia/Kathmandu",
    "Asia/Tokyo",
    "UTC",
)
WINDOWS = {"W. Europe Standard Time": "Europe/Berlin", "Eastern Standard Time": "America/New_York"}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday")
ALWAYS = WorkingHours(
    days=(*WEEKDAYS, "saturday", "sunday"), start="00:00:00.0000000", end="00:00:00.0000000"
)
ORGANIZER = "organizer@example.com"

instants = st.datetimes(
    min_value=datetime(2026, 1, 1), max_value=datetime(2031, 12, 31), timezones=st.just(UTC)
).map(lambda d: d.replace(second=0, microsecond=0))
zones = st.sampled_from(ZONES + tuple(WINDOWS))


def _working(moment: datetime, zone: ZoneInfo, opens: time, closes: time) -> bool:
    local = moment.astimezone(zone)
    return local.strftime("%A").lower() in WEEKDAYS and opens <= local.time() < closes


@settings(max_examples=150, deadline=None)
@given(
    zone_name=zones,
    start=instants,
    hours=st.integers(min_value=1, max_value=24 * 9),
    probe=st.floats(min_value=0, max_value=1, exclude_max=True),
    opens=st.sampled_from((time(7, 0), time(8, 30), time(9, 0))),
    closes=st.sampled_from((time(16, 0), time(17, 0), time(18, 30))),
)
def test_outside_working_hours_is_busy_exactly_in_the_attendees_own_zone_across_dst(
    zone_name: str, start: datetime, hours: int, probe: float, opens: time, closes: time
) -> None:
    end = start + timedelta(hours=hours)
    working = {
        "daysOfWeek": list(WEEKDAYS),
        "startTime": f"{opens.isoformat()}.0000000",
        "endTime": f"{closes.isoformat()}.0000000",
        "timeZone": {"name": zone_name},
    }
    zone = ZoneInfo(WINDOWS.get(zone_name, zone_name))

    blocks = off_hours(working, start, end)

    # Every block is inside the window, in UTC, in order and apart; any minute of the window is
    # busy exactly when it is outside the working day where the attendee is.
    assert all(start <= b.start < b.end <= end and b.start.tzinfo is UTC for b in blocks)
    assert all(a.end <= b.start for a, b in pairwise(blocks))
    moment = min((start + (end - start) * probe).replace(second=0, microsecond=0), end - timedelta(minutes=1))
    busy = any(b.start <= moment < b.end for b in blocks)
    assert busy is not _working(moment, zone, opens, closes)


@settings(max_examples=25, deadline=None)
@given(
    zone_name=st.sampled_from(ZONES),
    start=instants,
    minutes=st.integers(min_value=15, max_value=48 * 60),
    before=st.integers(min_value=0, max_value=36 * 60),
    after=st.integers(min_value=-12 * 60, max_value=36 * 60),
)
def test_a_meeting_straddling_days_is_one_busy_block_in_utc(
    zone_name: str, start: datetime, minutes: int, before: int, after: int
) -> None:
    # Given a meeting made in the attendee's own zone (its wall time there, a DST change maybe inside)
    zone = ZoneInfo(zone_name)
    local_start = start.astimezone(zone)
    # Minutes that pass, not minutes on the wall clock (the repeated hour would end it before it began).
    meeting = Interval(start=local_start, end=(start + timedelta(minutes=minutes)).astimezone(zone))
    graph = GraphState()
    graph.add_user("Organizer", ORGANIZER, working=ALWAYS)
    graph.add_user("Attendee", "attendee@example.com", working=ALWAYS)
    graph.add_event("attendee@example.com", "Offsite", meeting.start, meeting.end)
    window_start = meeting.start - timedelta(minutes=before)
    window_end = max(window_start + timedelta(minutes=1), meeting.end + timedelta(minutes=after))
    calendar = GraphCalendar(
        GraphHttp(
            Account("u", ORGANIZER),
            FixedTokenSource("t"),
            http=GraphPool(graph),  # type: ignore[arg-type]
            base_url="http://graph.local/v1.0",
            sleep=lambda _: None,
        )
    )

    busy = calendar.busy(["attendee@example.com"], window_start, window_end)

    # Then it is one UTC block, the same instants, whole (as the port answers an overlapping
    # booking) whenever it overlaps the window, whichever days and DST changes it spans
    overlapping = meeting.start < window_end and window_start < meeting.end
    expected = (
        [Interval(start=meeting.start.astimezone(UTC), end=meeting.end.astimezone(UTC))]
        if overlapping
        else []
    )
    assert busy["attendee@example.com"] == expected
    assert graph.violations == []


@settings(max_examples=80, deadline=None)
@given(instant=instants, zone_name=st.sampled_from(ZONES), micros=st.integers(min_value=0, max_value=999_999))
def test_a_time_sent_to_graph_is_the_same_instant_read_back(
    instant: datetime, zone_name: str, micros: int
) -> None:
    moment = instant.replace(microsecond=micros).astimezone(ZoneInfo(zone_name))

    sent = _graph_time(moment)

    assert sent["timeZone"] == "UTC"
    assert _parse_time(sent) == moment.astimezone(UTC)
    # Graph answers seven fractional digits: read as the same instant (to the microsecond)
    seven = sent["dateTime"] + ("0" if "." in sent["dateTime"] else ".0000000")
    assert _parse_time({"dateTime": seven, "timeZone": "UTC"}) == moment.astimezone(UTC)
