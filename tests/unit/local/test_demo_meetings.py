"""The demo's meetings fall on the days its requests name, in the zone the user asks in."""

from __future__ import annotations

from datetime import UTC, date, datetime

from multitool.local.sandbox.demo_meetings import demo_meetings
from multitool.local.sandbox.embedded import load_seed


def by_title(now: datetime) -> dict[str, datetime]:
    return {meeting.title: meeting.start for meeting in demo_meetings(load_seed().people, now=now)}


def test_a_meeting_s_days_count_from_its_organizer_s_today_not_utc_s() -> None:
    # At 01:00 UTC on Tuesday 8 December it is still Monday evening in New York, and Tuesday in Tokyo
    starts = by_title(datetime(2026, 12, 8, 1, 0, tzinfo=UTC))

    # Jordan's (New York) sync is "tomorrow" for Jordan: Tuesday, not Wednesday
    assert starts["Weekly sync"].date() == date(2026, 12, 8)
    assert starts["1:1 Jordan / Alex"].date() == date(2026, 12, 9)
    # Mei's (Tokyo) offsite counts from Tokyo's Tuesday
    assert starts["Offsite planning"].date() == date(2026, 12, 11)
    # Alex Chen's (Los Angeles) retro is the next Friday after Los Angeles's Monday
    assert starts["Sprint retro"].date() == date(2026, 12, 11)


def test_a_given_day_is_every_meeting_s_first_day() -> None:
    meetings = demo_meetings(load_seed().people, date(2026, 12, 7))

    starts = {meeting.title: meeting.start.date() for meeting in meetings}
    assert starts["Weekly sync"] == date(2026, 12, 8)
    assert starts["Offsite planning"] == date(2026, 12, 10)
