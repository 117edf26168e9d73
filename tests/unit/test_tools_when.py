"""Days and times as people say them, resolved in the user's zone relative to now."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import pytest
from multitool.tools.base import DateInPast, ToolContext, UnparseableDate
from multitool.tools.when import resolve_when

# Tuesday 1 December 2026, 10:00 in Berlin (09:00 UTC).
TUESDAY_10_BERLIN = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def ctx(now: datetime = TUESDAY_10_BERLIN, timezone: str = "Europe/Berlin") -> ToolContext:
    return ToolContext(owner="user-1", session_id="s-1", now=now, timezone=timezone)


def test_weekday_name_is_the_coming_one() -> None:
    assert resolve_when("Thursday", ctx()).day == date(2026, 12, 3)
    assert resolve_when("Thursday", ctx()).time is None


def test_weekday_named_on_that_weekday_is_next_week() -> None:
    thursday = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
    assert resolve_when("Thursday", ctx(thursday)).day == date(2026, 12, 10)


def test_today_is_today() -> None:
    assert resolve_when("today", ctx()).day == date(2026, 12, 1)


def test_tomorrow_at_3pm_carries_the_time() -> None:
    requested = resolve_when("tomorrow at 3pm", ctx())
    assert (requested.day, requested.time) == (date(2026, 12, 2), time(15, 0))


def test_next_tuesday_is_the_coming_tuesday() -> None:
    assert resolve_when("next Tuesday", ctx()).day == date(2026, 12, 8)


def test_relative_days_use_the_users_zone_not_utc() -> None:
    # 23:30 UTC on Monday is already Tuesday 08:30 in Tokyo: "tomorrow" is Wednesday there.
    late_monday_utc = datetime(2026, 11, 30, 23, 30, tzinfo=UTC)
    assert resolve_when("tomorrow", ctx(late_monday_utc, "Asia/Tokyo")).day == date(2026, 12, 2)
    assert resolve_when("tomorrow", ctx(late_monday_utc, "UTC")).day == date(2026, 12, 1)


@pytest.mark.parametrize(
    ("text", "day", "at"),
    [
        ("2026-12-04", date(2026, 12, 4), None),
        ("2026-12-04T14:30", date(2026, 12, 4), time(14, 30)),
        ("2026-12-04T13:30:00Z", date(2026, 12, 4), time(14, 30)),  # converted into Berlin time
        ("20261204T143000", date(2026, 12, 4), time(14, 30)),
    ],
)
def test_iso_8601(text: str, day: date, at: time | None) -> None:
    requested = resolve_when(text, ctx())
    assert (requested.day, requested.time) == (day, at)


@pytest.mark.parametrize("text", ["yesterday", "2026-11-30", "last Monday"])
def test_days_in_the_past_are_rejected(text: str) -> None:
    with pytest.raises(DateInPast) as raised:
        resolve_when(text, ctx())
    assert raised.value.field == "when"
    assert "past" in raised.value.message


def test_a_time_already_past_today_is_rejected() -> None:
    with pytest.raises(DateInPast, match="already passed"):
        resolve_when("today at 8am", ctx())


@pytest.mark.parametrize("text", ["blorp", "whenever", "???"])
def test_unparseable_text_is_rejected_with_examples(text: str) -> None:
    with pytest.raises(UnparseableDate) as raised:
        resolve_when(text, ctx())
    assert "tomorrow at 3pm" in raised.value.message


def test_more_than_a_year_ahead_is_rejected() -> None:
    with pytest.raises(UnparseableDate, match="year"):
        resolve_when("2029-01-01", ctx())
