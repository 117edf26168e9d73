"""An option is offered only when it can be: not past, not more than a year ahead
(:mod:`multitool.tools.meeting.when.request`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from multitool.toolkit.errors import DateInPast, UnparseableDate
from multitool.tools.meeting.when import resolve_when

from tests.support.meeting_when import ctx


@pytest.mark.parametrize("text", ["yesterday", "2026-11-30", "last Monday"])
def test_days_in_the_past_are_rejected(text: str) -> None:
    with pytest.raises(DateInPast) as raised:
        resolve_when(text, ctx())
    assert raised.value.field == "when"
    assert "past" in raised.value.message


def test_a_time_already_past_today_is_rejected() -> None:
    with pytest.raises(DateInPast, match="already passed"):
        resolve_when("today at 8am", ctx())


def test_more_than_a_year_ahead_is_rejected() -> None:
    with pytest.raises(UnparseableDate, match="year"):
        resolve_when("2029-01-01", ctx())


def test_a_part_of_today_that_is_over_is_in_the_past() -> None:
    with pytest.raises(DateInPast) as raised:
        resolve_when("this morning", ctx(datetime(2026, 12, 1, 12, 30, tzinfo=UTC)))  # 13:30 Berlin
    assert raised.value.field == "when"
