"""Clock times and parts of the day, as people say them (:mod:`multitool.tools.meeting.when.clock`)."""

from __future__ import annotations

from datetime import date, time

import pytest
from multitool.toolkit.errors import UnparseableDate
from multitool.tools.meeting.when import read_phrase, resolve_when

from tests.support.meeting_when import FRI, ctx, monday, read_fully

# Phrasings with the fixed now above (Tuesday 1 Dec 2026, 10:00 Berlin): day, time, window, notes.
MORNING = (time(9), time(12))


AFTERNOON = (time(13), time(17))


EVENING = (time(17), time(19))


END_OF_DAY = (time(16), time(18))


LUNCH = (time(12), time(14))


@pytest.mark.parametrize(
    ("text", "day", "at", "window", "notes"),
    [
        (
            "Friday morning",
            date(2026, 12, 4),
            None,
            MORNING,
            [f"'Friday' {FRI}", "'morning' read as 09:00-12:00."],
        ),
        (
            "on Friday in the morning",
            date(2026, 12, 4),
            None,
            MORNING,
            [f"'Friday' {FRI}", "'morning' read as 09:00-12:00."],
        ),
        ("tomorrow afternoon", date(2026, 12, 2), None, AFTERNOON, ["'afternoon' read as 13:00-17:00."]),
        ("this afternoon", date(2026, 12, 1), None, AFTERNOON, ["'afternoon' read as 13:00-17:00."]),
        (
            "Friday evening",
            date(2026, 12, 4),
            None,
            EVENING,
            [f"'Friday' {FRI}", "'evening' read as 17:00-19:00."],
        ),
        ("tonight", date(2026, 12, 1), None, EVENING, ["'tonight' read as 17:00-19:00."]),
        (
            "Friday end of day",
            date(2026, 12, 4),
            None,
            END_OF_DAY,
            [f"'Friday' {FRI}", "'end of day' read as 16:00-18:00."],
        ),
        (
            "Friday EOD",
            date(2026, 12, 4),
            None,
            END_OF_DAY,
            [f"'Friday' {FRI}", "'end of day' read as 16:00-18:00."],
        ),
        (
            "friday by close of business",
            date(2026, 12, 4),
            None,
            END_OF_DAY,
            [f"'friday' {FRI}", "'end of day' read as 16:00-18:00."],
        ),
        (
            "Friday lunchtime",
            date(2026, 12, 4),
            None,
            LUNCH,
            [f"'Friday' {FRI}", "'lunchtime' read as 12:00-14:00."],
        ),
        (
            "Friday at lunch",
            date(2026, 12, 4),
            None,
            LUNCH,
            [f"'Friday' {FRI}", "'lunchtime' read as 12:00-14:00."],
        ),
        ("Friday at noon", date(2026, 12, 4), time(12), None, [f"'Friday' {FRI}"]),
        ("Friday midday", date(2026, 12, 4), time(12), None, [f"'Friday' {FRI}"]),
        ("Friday at 3pm", date(2026, 12, 4), time(15), None, [f"'Friday' {FRI}"]),
        ("Friday 3 pm", date(2026, 12, 4), time(15), None, [f"'Friday' {FRI}"]),
        ("Friday at 9:30am", date(2026, 12, 4), time(9, 30), None, [f"'Friday' {FRI}"]),
        ("Friday at 12am", date(2026, 12, 4), time(0), None, [f"'Friday' {FRI}"]),
        ("Friday 15:00", date(2026, 12, 4), time(15), None, [f"'Friday' {FRI}"]),
        ("Friday at 10", date(2026, 12, 4), time(10), None, [f"'Friday' {FRI}"]),
        (
            "Friday at 3",
            date(2026, 12, 4),
            time(15),
            None,
            [f"'Friday' {FRI}", "'at 3' read as 15:00 (say '3am' for the morning)."],
        ),
        (
            "Friday at 2:30",
            date(2026, 12, 4),
            time(14, 30),
            None,
            [f"'Friday' {FRI}", "'2:30' read as 14:30 (say '2:30am' for the morning)."],
        ),
        ("Friday at 02:30", date(2026, 12, 4), time(2, 30), None, [f"'Friday' {FRI}"]),
        (
            "Friday morning at 10",
            date(2026, 12, 4),
            time(10),
            MORNING,
            [f"'Friday' {FRI}", "'morning' read as 09:00-12:00."],
        ),
        ("Thursday", date(2026, 12, 3), None, None, ["'Thursday' read as Thu 3 Dec (the coming one)."]),
        (
            "Tuesday",
            date(2026, 12, 8),
            None,
            None,
            ["'Tuesday' read as Tue 8 Dec (next week's, since today is that day)."],
        ),
        (
            "next Friday",
            date(2026, 12, 11),
            None,
            None,
            ["'next Friday' read as Fri 11 Dec (a week after the coming one)."],
        ),
        ("tomorrow at 3pm", date(2026, 12, 2), time(15), None, []),
        ("Dec 4 at 10am", date(2026, 12, 4), time(10), None, []),
        ("2026-12-04T14:30", date(2026, 12, 4), time(14, 30), None, []),
    ],
)
def test_phrasings_and_every_guess_said(
    text: str, day: date, at: time | None, window: tuple[time, time] | None, notes: list[str]
) -> None:
    requested = resolve_when(text, ctx())
    assert (requested.day, requested.time, requested.window) == (day, at, window)
    assert list(requested.notes) == notes


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Friday at 25:00", "25:00"),
        ("Friday at 24:00", "24:00"),
        ("Friday at 9:75", "9:75"),
        ("Friday at 13pm", "13pm"),
        ("Friday at 0am", "0am"),
        ("Friday at 10:60am", "10:60am"),
        ("Friday at 31", "at 31"),
    ],
)
def test_an_impossible_time_is_an_error_naming_when_never_dropped(text: str, said: str) -> None:
    with pytest.raises(UnparseableDate) as raised:
        resolve_when(text, ctx())
    assert raised.value.field == "when"
    assert f"'{said}'" in raised.value.message


@pytest.mark.parametrize(
    ("text", "unread"),
    [("Monday at 2 and 4", ("4",)), ("in 2-3 days", ("days",))],
)
def test_and_between_two_hours_without_between_is_not_a_span(text: str, unread: tuple[str, ...]) -> None:
    """'at 2 and 4' may be two times; a count of days is no span of hours: both stay unread (the card
    says so)."""
    reading = read_phrase(text, ctx())
    assert reading.unread == unread
    assert all(o.window is None for o in (reading.request.options if reading.request else ()))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # Said Tuesday 1 December, 10:00 Berlin: minutes past and to the hour, "noonish", "arvo"
        ("ten past nine tomorrow", "2026-12-02T09:10"),
        ("twenty to 4 on Thursday", "2026-12-03T15:40"),
        ("twenty-five past 2 tomorrow", "2026-12-02T14:25"),
        ("5 past 11 tomorrow", "2026-12-02T11:05"),
        ("20 after 3 on Friday", "2026-12-04T15:20"),
        ("ten minutes to twelve tomorrow", "2026-12-02T11:50"),
        ("five to one tomorrow", "2026-12-02T12:55"),
        ("noonish on Friday", "2026-12-04T12:00"),
        ("Thurs arvo", "2026-12-03T13:00/17:00"),
        ("Thursday aft", "2026-12-03T13:00/17:00"),
    ],
)
def test_minutes_past_or_to_the_hour_are_that_time(text: str, value: str) -> None:
    """'ten past nine' and 'twenty past 3' were not read (the day alone was); 'noonish', 'arvo' neither."""
    (option,) = read_fully(text)
    assert option.value() == value


def test_digits_to_digits_stay_a_span_of_hours() -> None:
    # "10 to 11" in digits is 10:00-11:00, as before; "ten to eleven" is 10:50
    (span,) = read_fully("10 to 11 tomorrow")
    assert span.value() == "2026-12-02T10:00/11:00"
    (clock,) = read_fully("ten to eleven tomorrow")
    assert clock.value() == "2026-12-02T10:50"


def test_sixty_minutes_past_the_hour_is_refused() -> None:
    with pytest.raises(UnparseableDate):
        read_phrase("75 past 3 tomorrow", ctx())


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # A time in words is read before the hours around it: the words were left unread, or worse
        ("half 2 to 4 tomorrow", "2026-12-02T14:30/16:00"),  # was 14:00-16:00, 'half' unread
        ("quarter past 2 to 3 tomorrow", "2026-12-02T14:15/15:00"),
        ("Thursday 2 to half 3", "2026-12-03T14:00/15:30"),  # was 15:30, '2 to' unread
        ("after half past 3 tomorrow", "2026-12-02T15:30/18:00"),  # was 15:30 on each of seven days
        ("before quarter to 5 tomorrow", "2026-12-02T09:00/16:45"),  # was today at 16:45
        ("between half past two and four tomorrow", "2026-12-02T14:30/16:00"),  # 'four' was unread
        ("half past two to four tomorrow", "2026-12-02T14:30/16:00"),
    ],
)
def test_a_time_in_words_is_read_before_the_hours_around_it(text: str, value: str) -> None:
    (option,) = read_fully(text)
    assert option.value() == value


@pytest.mark.parametrize(
    ("text", "value", "note"),
    [
        ("Thursday 1500hrs", "2026-12-03T15:00", None),
        ("Thursday 15:00h", "2026-12-03T15:00", None),
        ("Thursday 0930 hrs", "2026-12-03T09:30", None),
        ("Thursday over lunch", "2026-12-03T12:00/14:00", "'lunchtime' read as 12:00-14:00."),
        ("over breakfast on Friday", "2026-12-04T08:00/10:00", "'breakfast' read as 08:00-10:00."),
        ("after work Thursday", "2026-12-03T17:00/19:00", "'after work' read as 17:00-19:00."),
        ("Thursday dinner", "2026-12-03T18:00/20:00", "'dinner' read as 18:00-20:00."),
    ],
)
def test_the_clock_with_its_suffix_and_meals_are_read(text: str, value: str, note: str | None) -> None:
    """'1500hrs' and '15:00h' were not read; 'breakfast' was 08:00 without a word; 'after work' and
    'over' were not read."""
    (option,) = read_fully(text)
    assert option.value() == value
    assert note is None or note in option.notes, option.notes


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
    assert resolve_when(text, monday()).time == at


def test_tonight_at_9_in_london_at_3pm_is_not_refused_as_past() -> None:
    requested = resolve_when("tonight at 9", monday("Europe/London"))
    assert (requested.day.isoformat(), requested.time) == ("2026-12-07", time(21))


def test_an_evening_span_without_am_or_pm_is_in_the_evening() -> None:
    assert resolve_when("tonight 8-9", monday()).window == (time(20), time(21))


def test_an_impossible_hour_is_refused_saying_why() -> None:
    with pytest.raises(UnparseableDate) as refused:
        read_phrase("Thursday at 25:00", monday())
    assert "'25:00'" in refused.value.message
    assert "hours run from 00:00 to 23:59" in refused.value.message
