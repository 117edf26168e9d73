"""Alternatives, days ruled out and repeats (:mod:`multitool.tools.meeting.when.alternatives`)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from multitool.tools.meeting.when import read_phrase

from tests.support.meeting_when import ctx, read_fully


@pytest.mark.parametrize(
    ("text", "day", "excluded"),
    [
        ("any time except Thursday", date(2026, 12, 1), date(2026, 12, 3)),
        ("whenever, but not Friday", date(2026, 12, 1), date(2026, 12, 4)),
    ],
)
def test_any_time_but_a_day_is_every_day_from_today_but_that_one(
    text: str, day: date, excluded: date
) -> None:
    reading = read_phrase(text, ctx())
    assert reading.request is not None
    assert [o.day for o in reading.request.options] == [day]
    assert reading.request.excluded == {excluded}


@pytest.mark.parametrize(
    ("text", "values"),
    [
        (
            "between 2 and 4 on Thursday or Friday",
            ["2026-12-03T14:00/16:00", "2026-12-04T14:00/16:00"],
        ),
        ("afternoon on Thursday or Friday", ["2026-12-03T13:00/17:00", "2026-12-04T13:00/17:00"]),
        # hours said after the first day are that day's only
        ("Thursday afternoon or Friday", ["2026-12-03T13:00/17:00", "2026-12-04"]),
        ("Monday, Tuesday or Wednesday", ["2026-12-07", "2026-12-08", "2026-12-02"]),
        (
            "2-3pm Monday, Tuesday or Wednesday",
            ["2026-12-07T14:00/15:00", "2026-12-08T14:00/15:00", "2026-12-02T14:00/15:00"],
        ),
        ("Thursday, 4pm", ["2026-12-03T16:00"]),
    ],
)
def test_alternatives_keep_every_day_and_the_hours_said_before_them(text: str, values: list[str]) -> None:
    reading = read_phrase(text, ctx())
    assert reading.request is not None
    assert [option.value() for option in reading.request.options] == values
    assert reading.unread == ()


@pytest.mark.parametrize(
    ("text", "values"),
    [
        # Read as one option, Thursday at 14:00, before "and" between two days split them.
        ("Thursday 10am and Friday 2pm", ["2026-12-03T10:00", "2026-12-04T14:00"]),
        ("Thursday and Friday", ["2026-12-03", "2026-12-04"]),
        # Times said before the day hold for it (the first was today's, refused as past); days of the
        # month in a list are each an alternative (the 9th was lost, and "11th at 2" was the 10th).
        ("3pm or 4pm on Thursday", ["2026-12-03T15:00", "2026-12-03T16:00"]),
        ("10th or 11th at 2", ["2026-12-10", "2026-12-11T14:00"]),
        ("the 9th, 10th or 11th", ["2026-12-09", "2026-12-10", "2026-12-11"]),
        ("Thursday at 4pm or 5pm", ["2026-12-03T16:00", "2026-12-03T17:00"]),
        # What two alternatives share is said once (the first was not read).
        ("Thursday 3 or 4pm", ["2026-12-03T15:00", "2026-12-03T16:00"]),
        ("at 10 or 11 on Friday", ["2026-12-04T10:00", "2026-12-04T11:00"]),
        ("Thursday at noon or 1", ["2026-12-03T12:00", "2026-12-03T13:00"]),
        ("December 9 or 10", ["2026-12-09", "2026-12-10"]),
        ("9 or 10 December", ["2026-12-09", "2026-12-10"]),
        # The hours said first hold for each day; "and" between two hours is no split.
        ("between 2 and 4 on Thursday or Friday", ["2026-12-03T14:00/16:00", "2026-12-04T14:00/16:00"]),
        (
            "between Monday and Wednesday in the afternoon",
            ["2026-12-07T13:00/17:00", "2026-12-08T13:00/17:00", "2026-12-09T13:00/17:00"],
        ),
    ],
)
def test_days_joined_by_and_are_alternatives_and_between_two_days_is_a_span(
    text: str, values: list[str]
) -> None:
    assert [o.value() for o in read_fully(text)] == values


def test_any_day_of_a_week_but_one_is_that_week_without_it() -> None:
    """parsedatetime read "any day next week" as a week from today."""
    reading = read_phrase("any day next week except Wednesday", ctx())
    assert reading.request is not None
    assert [o.value() for o in reading.request.options] == ["2026-12-07/2026-12-11"]
    assert reading.request.excluded == {date(2026, 12, 9)}


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Tuesday or Wednesday next week", ["2026-12-08", "2026-12-09"]),
        ("tue/wed next week", ["2026-12-08", "2026-12-09"]),
        ("Tuesday, Wednesday or Thursday of next week", ["2026-12-08", "2026-12-09", "2026-12-10"]),
        ("Thursday or Friday this week", ["2026-12-03", "2026-12-04"]),
    ],
)
def test_a_week_said_after_several_days_is_each_days_week(text: str, values: list[str]) -> None:
    """Said on a Monday, "Tuesday or Wednesday next week" read Tuesday as tomorrow."""
    monday = ctx(datetime(2026, 11, 30, 9, tzinfo=UTC))
    assert [o.value() for o in read_fully(text, monday)] == values


@pytest.mark.parametrize(
    ("text", "values", "said"),
    [
        # Said Tuesday 1 December, 10:00 Berlin: the first meeting of the series, and a note saying so.
        ("every Tuesday at 10", ["2026-12-08T10:00"], "every Tuesday"),
        ("weekly on Mondays", ["2026-12-07"], "weekly on Mondays"),
        ("Mondays at 10am", ["2026-12-07T10:00"], "Mondays"),
        ("each Thursday afternoon", ["2026-12-03T13:00/17:00"], "each Thursday"),
        ("every other Friday", ["2026-12-04"], "every other Friday"),
        ("every 2 weeks on Friday", ["2026-12-04"], "every 2 weeks on Friday"),
        ("biweekly on Thursday at 2pm", ["2026-12-03T14:00"], "biweekly on Thursday"),
        ("every month on the 15th", ["2026-12-15"], "every month on the 15th"),
        ("the first Monday of every month", ["2026-12-07"], "every month"),
        # A daily one: the first working day whose hours have not passed
        ("daily at 9:30", ["2026-12-02T09:30"], "daily"),
        ("every weekday at 11", ["2026-12-01T11:00"], "every weekday"),
        ("every morning", ["2026-12-01T09:00/12:00"], "every morning"),
    ],
)
def test_a_repeating_meeting_is_read_as_its_first_and_the_card_says_so(
    text: str, values: list[str], said: str
) -> None:
    """'every Tuesday at 10' left 'every' unread; 'Mondays at 10am' read as today at 10:00; 'every 2 weeks
    on Friday' as the Friday two weeks on."""
    options = read_fully(text)
    assert [o.value() for o in options] == values
    first = date.fromisoformat(values[0][:10])
    assert (
        f"'{said}' asks for a repeating meeting: this proposes the first, {first:%a} {first.day} {first:%b}; "
        "make it repeat in the calendar once it is booked."
    ) in options[0].notes


def test_a_daily_meeting_said_on_a_friday_evening_starts_on_monday() -> None:
    friday_evening = ctx(datetime(2026, 12, 4, 17, 0, tzinfo=UTC))
    assert [o.value() for o in read_fully("daily at 9:30", friday_evening)] == ["2026-12-07T09:30"]


def test_hours_said_first_hold_for_each_day_after_them() -> None:
    options = read_fully("after work on Thursday or Friday")
    assert [o.value() for o in options] == ["2026-12-03T17:00/19:00", "2026-12-04T17:00/19:00"]


@pytest.mark.parametrize(
    ("text", "values", "excluded"),
    [
        # Said Tuesday 1 December: a day ruled out is not proposed ("no Mondays" proposed Monday)
        ("no Mondays", ["2026-12-01"], ["2026-12-07"]),
        ("next week, avoid Friday", ["2026-12-07/2026-12-11"], ["2026-12-11"]),
        ("never on Wednesday", ["2026-12-01"], ["2026-12-02"]),
        # A fallback is an alternative (the second day was dropped, or 'if not' ruled it out)
        ("Thursday (or Friday)", ["2026-12-03", "2026-12-04"], []),
        ("Thursday if possible, else Friday", ["2026-12-03", "2026-12-04"], []),
        ("Thursday, failing that Friday", ["2026-12-03", "2026-12-04"], []),
        ("Thursday, otherwise Friday", ["2026-12-03", "2026-12-04"], []),
        ("Thursday if not Friday", ["2026-12-03", "2026-12-04"], []),
        ("Thursday, if not then Friday", ["2026-12-03", "2026-12-04"], []),
        ("Thursday but not Friday", ["2026-12-03"], ["2026-12-04"]),
    ],
)
def test_days_ruled_out_and_fallbacks_are_read(text: str, values: list[str], excluded: list[str]) -> None:
    reading = read_phrase(text, ctx())
    assert reading.unread == ()
    assert reading.request is not None
    assert [o.value() for o in reading.request.options] == values
    assert sorted(d.isoformat() for d in reading.request.excluded) == excluded
