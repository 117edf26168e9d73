"""One alternative as an option: a time or hours on a span of days, and a span from a day said
(:mod:`multitool.tools.meeting.when.option`)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from multitool.tools.meeting.when import read_phrase

from tests.support.meeting_when import ctx, read_fully


@pytest.mark.parametrize(
    ("text", "first", "days", "window"),
    [
        ("next week in the afternoon", "2026-12-07", 5, "13:00/17:00"),
        ("any afternoon next week", "2026-12-07", 5, "13:00/17:00"),
        ("mornings next week", "2026-12-07", 5, "09:00/12:00"),
        ("next week 2-3pm", "2026-12-07", 5, "14:00/15:00"),
        ("early next week in the morning", "2026-12-07", 2, "09:00/12:00"),
        ("this week after lunch", "2026-12-01", 4, "13:00/17:00"),
    ],
)
def test_hours_on_a_week_are_those_hours_on_each_of_its_days(
    text: str, first: str, days: int, window: str
) -> None:
    """As the contract writes them (a window a day), so the model's times agree with the phrase."""
    reading = read_phrase(text, ctx())
    assert reading.request is not None
    values = [option.value() for option in reading.request.options]
    start = date.fromisoformat(first)
    assert values == [f"{start + timedelta(days=n)}T{window}" for n in range(days)]
    assert reading.unread == ()
    assert "each day" in reading.request.options[0].notes[0]


@pytest.mark.parametrize(
    ("text", "values", "note"),
    [
        (
            "next week at 3pm",
            [
                "2026-12-07T15:00",
                "2026-12-08T15:00",
                "2026-12-09T15:00",
                "2026-12-10T15:00",
                "2026-12-11T15:00",
            ],
            "'next week at 3pm' read as 15:00 each day, Mon 7 Dec to Fri 11 Dec.",
        ),
        (
            "the last week of December at 3pm",
            ["2026-12-28T15:00", "2026-12-29T15:00", "2026-12-30T15:00", "2026-12-31T15:00"],
            "read as 15:00 each day, Mon 28 Dec to Thu 31 Dec.",
        ),
        ("early next week at 10am", ["2026-12-07T10:00", "2026-12-08T10:00"], "Mon 7 Dec to Tue 8 Dec."),
        (
            "Jan 5-7 in the afternoon",
            ["2027-01-05T13:00/17:00", "2027-01-06T13:00/17:00", "2027-01-07T13:00/17:00"],
            "read as 13:00-17:00 each day, Tue 5 Jan to Thu 7 Jan.",
        ),
    ],
)
def test_a_time_on_a_span_of_days_is_that_time_each_day(text: str, values: list[str], note: str) -> None:
    """parsedatetime read "next week at 3pm" as a week from today at 15:00, and "the last week of
    December at 3pm" as 1 December."""
    options = read_fully(text)
    assert [o.value() for o in options] == values
    assert any(note in said for said in options[0].notes), options[0].notes


@pytest.mark.parametrize(
    ("text", "values"),
    [
        # Said Tuesday 1 December: an earliest day is that day and the six after it (was a day past,
        # "from Thursday on" said on a Friday; or the words unread)
        ("from Thursday on", ["2026-12-03/2026-12-09"]),
        ("any time from Wednesday", ["2026-12-02/2026-12-08"]),
        ("Thursday onwards", ["2026-12-03/2026-12-09"]),
        ("starting Monday", ["2026-12-07/2026-12-13"]),
        ("no earlier than Thursday", ["2026-12-03/2026-12-09"]),
        ("not until the 10th", ["2026-12-10/2026-12-16"]),
        ("Thursday at the earliest", ["2026-12-03/2026-12-09"]),
        ("from next Tuesday", ["2026-12-08/2026-12-14"]),
    ],
)
def test_an_earliest_day_is_a_week_from_it(text: str, values: list[str]) -> None:
    options = read_fully(text)
    assert [o.value() for o in options] == values
    assert f"'{text}' read as" in options[0].notes[0]


def test_an_earliest_day_said_on_that_weekday_is_the_coming_one_not_a_day_past() -> None:
    friday = ctx(datetime(2026, 12, 4, 15, tzinfo=UTC))
    assert [o.value() for o in read_fully("from Thursday on", friday)] == ["2026-12-10/2026-12-16"]


def test_a_time_on_more_than_a_week_of_days_holds_for_each_working_day() -> None:
    options = read_fully("next month at 3pm")
    days = [date.fromisoformat(o.value()[:10]) for o in options]
    assert len(days) == 21
    assert all(day.weekday() < 5 for day in days)
    assert "'next month at 3pm' read as 15:00 each working day, Fri 1 Jan to Sun 31 Jan." in options[0].notes
