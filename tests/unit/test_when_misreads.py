"""Phrases the reader once read wrong without a word: each is read as meant, or refused with why."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest
from multitool.tools.base import ToolContext, UnparseableDate
from multitool.tools.meeting import when
from multitool.tools.meeting.when import resolve_when

# Monday 7 December 2026, 10:00 in New York, 15:00 in London.
MONDAY = datetime(2026, 12, 7, 15, 0, tzinfo=UTC)


def ctx(timezone: str = "America/New_York", now: datetime = MONDAY) -> ToolContext:
    return ToolContext(owner="user-1", session_id="s-1", now=now, timezone=timezone)


@pytest.mark.parametrize(
    ("text", "at"),
    [
        ("tonight at 8", time(20)),
        ("tonight at 9", time(21)),
        ("tonight at 11", time(23)),
        ("tonight at 8:30", time(20, 30)),
        ("this evening at 7", time(19)),
        ("this evening at 9", time(21)),
        ("tomorrow evening at 8", time(20)),
        ("tonight around 9ish", time(21)),
        ("tonight at 10pm", time(22)),
        ("tomorrow at 8", time(8)),  # no evening said: the morning, as before
    ],
)
def test_an_hour_said_for_tonight_or_the_evening_is_in_the_evening(text: str, at: time) -> None:
    assert resolve_when(text, ctx()).time == at


def test_tonight_at_9_in_london_at_3pm_is_not_refused_as_past() -> None:
    requested = resolve_when("tonight at 9", ctx("Europe/London"))
    assert (requested.day.isoformat(), requested.time) == ("2026-12-07", time(21))


def test_an_evening_span_without_am_or_pm_is_in_the_evening() -> None:
    assert resolve_when("tonight 8-9", ctx()).window == (time(20), time(21))


@pytest.mark.parametrize(
    ("text", "said", "why"),
    [
        ("Feb 30", "'Feb 30'", "February 2027 has 28 days"),
        ("Feb 30 at 3pm", "'Feb 30'", "February 2027 has 28 days"),
        ("February 29th", "'February 29th'", "February 2027 has 28 days"),
        ("31 April", "'31 April'", "April 2027 has 30 days"),
        ("the 31st of June at 10am", "'31st of June'", "June 2027 has 30 days"),
    ],
)
def test_a_day_a_month_does_not_have_is_refused_naming_it(text: str, said: str, why: str) -> None:
    with pytest.raises(UnparseableDate) as refused:
        when.read_phrase(text, ctx())
    assert said in refused.value.message
    assert why in refused.value.message
    assert "2026-12-03" not in refused.value.message


def test_an_impossible_hour_is_refused_saying_why() -> None:
    with pytest.raises(UnparseableDate) as refused:
        when.read_phrase("Thursday at 25:00", ctx())
    assert "'25:00'" in refused.value.message
    assert "hours run from 00:00 to 23:59" in refused.value.message


def test_an_unreadable_phrase_gives_an_example_that_is_not_past() -> None:
    with pytest.raises(UnparseableDate) as refused:
        resolve_when("blorp", ctx())
    assert "2026-12-08T15:00" in refused.value.message  # tomorrow, for this user
