"""Spans of days said as such: weeks, parts of a week or a month, whole months
(:mod:`multitool.tools.meeting.when.spans`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from multitool.tools.meeting.when import read_phrase

from tests.support.meeting_when import ctx, read_fully


@pytest.mark.parametrize(
    ("text", "value", "note"),
    [
        (
            "this week",
            "2026-12-07/2026-12-11",
            "'this week' read as Mon 7 Dec to Fri 11 Dec, the week about to start.",
        ),
        ("end of the week", "2026-12-10/2026-12-11", "the week about to start"),
        ("next week", "2026-12-07/2026-12-11", "'next week' read as Mon 7 Dec to Fri 11 Dec."),
    ],
)
def test_this_week_said_at_the_weekend_is_the_week_about_to_start(text: str, value: str, note: str) -> None:
    sunday = ctx(datetime(2026, 12, 6, 10, tzinfo=UTC))
    reading = read_phrase(text, sunday)
    assert reading.request is not None
    (option,) = reading.request.options
    assert option.value() == value
    assert any(note in said for said in option.notes), option.notes


def test_what_is_left_of_this_week_on_a_friday_is_that_friday() -> None:
    friday = ctx(datetime(2026, 12, 4, 9, tzinfo=UTC))
    (option,) = read_phrase("this week", friday).request.options  # type: ignore[union-attr]
    assert (option.value(), option.notes) == ("2026-12-04", ("'this week' read as Fri 4 Dec.",))


@pytest.mark.parametrize(
    ("text", "values", "note"),
    [
        # Said Tuesday 1 December 2026, 10:00 Berlin.
        ("early January", ["2027-01-01/2027-01-10"], "'early January' read as Fri 1 Jan to Sun 10 Jan."),
        ("mid-January", ["2027-01-11/2027-01-20"], "'mid-January' read as Mon 11 Jan to Wed 20 Jan."),
        ("late January", ["2027-01-21/2027-01-31"], "'late January' read as Thu 21 Jan to Sun 31 Jan."),
        (
            "the end of January",
            ["2027-01-25/2027-01-31"],
            "'the end of January' read as Mon 25 Jan to Sun 31 Jan.",
        ),
        (
            "the beginning of next month",
            ["2027-01-01/2027-01-07"],
            "'the beginning of next month' read as Fri 1 Jan to Thu 7 Jan.",
        ),
        ("early December", ["2026-12-01/2026-12-10"], "'early December' read as Tue 1 Dec to Thu 10 Dec."),
        (
            "the week of the 14th",
            ["2026-12-14/2026-12-18"],
            "'the week of the 14th' read as Mon 14 Dec to Fri 18 Dec.",
        ),
        (
            "the week of December 16",
            ["2026-12-14/2026-12-18"],
            "'the week of December 16' read as Mon 14 Dec to Fri 18 Dec.",
        ),
        (
            "before Christmas",
            ["2026-12-01/2026-12-24"],
            "'before Christmas' read as Tue 1 Dec to Thu 24 Dec.",
        ),
        ("by December 18", ["2026-12-01/2026-12-18"], "'by December 18' read as Tue 1 Dec to Fri 18 Dec."),
        (
            "before the 10th of December",
            ["2026-12-01/2026-12-09"],
            "'before the 10th of December' read as Tue 1 Dec to Wed 9 Dec.",
        ),
        ("Christmas Eve", ["2026-12-24"], "'Christmas Eve' read as Thu 24 Dec."),
        ("new year's eve at 10", ["2026-12-31T10:00"], "'new year's eve' read as Thu 31 Dec."),
        ("this time tomorrow", ["2026-12-02T10:00"], "'this time' read as 10:00, the time now."),
        ("same time next week", ["2026-12-08T10:00"], "'same time next week' read as 10:00, the time now."),
        ("tomorrow same time", ["2026-12-02T10:00"], "'same time' read as 10:00, the time now."),
        ("later this afternoon", ["2026-12-01T13:00/17:00"], "'afternoon' read as 13:00-17:00."),
    ],
)
def test_months_weeks_and_named_days_are_read_as_meant(text: str, values: list[str], note: str) -> None:
    """'end of January' read as 1 January without a word; 'before December 25' as 25 December 2025;
    'this time tomorrow' lost the time; 'the week of the 14th', 'early January', 'Christmas Eve' and
    'later this afternoon' were not read."""
    options = read_fully(text)
    assert [o.value() for o in options] == values
    assert note in options[0].notes, options[0].notes


def test_a_part_of_a_month_already_past_is_next_years() -> None:
    late_december = ctx(datetime(2026, 12, 20, 9, tzinfo=UTC))
    assert [o.value() for o in read_fully("early December", late_december)] == ["2027-12-01/2027-12-10"]
    # ... and one under way starts today
    assert [o.value() for o in read_fully("late December", late_december)] == ["2026-12-21/2026-12-31"]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        # Said Tuesday 1 December 2026
        ("next month", ["2027-01-01/2027-01-31"]),  # was 1 January alone, without a word
        ("sometime this month", ["2026-12-01/2026-12-31"]),
        ("the month after next", ["2027-02-01/2027-02-28"]),
        ("tomorrow week", ["2026-12-09"]),  # 'week' was unread: tomorrow
        ("any weekday next week", ["2026-12-07/2026-12-11"]),  # was Friday only, 'weekday' unread
        (
            "weekday mornings next week",  # was Friday's morning only
            [f"2026-12-{day:02d}T09:00/12:00" for day in range(7, 12)],
        ),
        ("the week of the 14th at 3pm", [f"2026-12-{day}T15:00" for day in range(14, 19)]),  # 3pm was lost
        ("this weekend at 3pm", ["2026-12-05T15:00", "2026-12-06T15:00"]),
    ],
)
def test_months_and_weeks_said_whole_are_their_days(text: str, values: list[str]) -> None:
    assert [o.value() for o in read_fully(text)] == values


@pytest.mark.parametrize(
    ("text", "value", "note"),
    [
        # Said on Friday 4 December: this week's part has passed, so it is next week's, and the card says
        # so ('midweek' was unread)
        ("midweek", "2026-12-08/2026-12-10", "'midweek' read as Tue 8 Dec to Thu 10 Dec, next week's"),
        ("the middle of the week", "2026-12-08/2026-12-10", "read as Tue 8 Dec to Thu 10 Dec, next week's"),
        ("early in the week", "2026-12-07/2026-12-08", "'early in the week' read as Mon 7 Dec to Tue 8 Dec"),
    ],
)
def test_a_part_of_the_week_already_past_is_next_weeks(text: str, value: str, note: str) -> None:
    friday = ctx(datetime(2026, 12, 4, 15, tzinfo=UTC))
    (option,) = read_fully(text, friday)
    assert option.value() == value
    assert note in option.notes[0]


def test_a_part_of_this_week_already_past_is_not_moved() -> None:
    # "early this week" said on a Friday: the week said is this one; the word is reported unread
    reading = read_phrase("early this week", ctx(datetime(2026, 12, 4, 15, tzinfo=UTC)))
    assert "early" in reading.unread
