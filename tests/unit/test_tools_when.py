"""Days and times as people say them, resolved in the user's zone relative to now."""

from __future__ import annotations

import random
import subprocess
import sys
import time as time_module
from datetime import UTC, date, datetime, time, timedelta

import pytest
from multitool.tools.base import DateInPast, ToolContext, UnparseableDate
from multitool.tools.meeting import when
from multitool.tools.meeting.when import resolve_when

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


# Phrasings with the fixed now above (Tuesday 1 Dec 2026, 10:00 Berlin): day, time, window, notes.
MORNING = (time(9), time(12))
AFTERNOON = (time(13), time(17))
EVENING = (time(17), time(19))
END_OF_DAY = (time(16), time(18))
LUNCH = (time(12), time(14))
FRI = "read as Fri 4 Dec (the coming one)."


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


def test_a_part_of_today_that_is_over_is_in_the_past() -> None:
    with pytest.raises(DateInPast) as raised:
        resolve_when("this morning", ctx(datetime(2026, 12, 1, 12, 30, tzinfo=UTC)))  # 13:30 Berlin
    assert raised.value.field == "when"


_ONE_WORD_DAYS = [*when._PLAIN_DAYS, "Thursday", "FRIDAY", " Mon "]


@pytest.mark.parametrize("offset", range(7))
@pytest.mark.parametrize("word", _ONE_WORD_DAYS)
def test_a_day_named_by_one_word_reads_as_parsedatetime_reads_it(word: str, offset: int) -> None:
    # Given each weekday of a week as today, just after midnight in the user's zone (still the day
    # before in UTC)
    today = ctx(datetime(2026, 11, 29, 23, 30, tzinfo=UTC) + timedelta(days=offset))

    # When the word is read without parsedatetime, and by parsedatetime itself
    plain = when._plain_day(word, today)
    parsed, status = when._calendar().parseDT(word, sourceTime=today.local_now.replace(tzinfo=None))

    # Then both name the same day, with no time
    assert status == 1
    assert plain == when.RequestedTime(parsed.date())


@pytest.mark.parametrize("offset", range(7))
@pytest.mark.parametrize("word", _ONE_WORD_DAYS)
def test_a_one_word_phrase_reads_as_the_whole_phrase_reading_reads_it(
    word: str, offset: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given each weekday of a week as today
    today = ctx(datetime(2026, 11, 29, 23, 30, tzinfo=UTC) + timedelta(days=offset))

    # When the phrase is read with its one-word shortcut, and with no word known as a plain day (every
    # pattern for zones, negations, alternatives and times run, then parsedatetime)
    short = when.read_phrase(word, today)
    monkeypatch.setattr(when, "_PLAIN_DAYS", {})
    whole = when.read_phrase(word, today)

    # Then both readings are the same, the note on which weekday was meant included
    assert short == whole
    assert short.request is not None
    assert len(short.request.options) == 1


def test_a_phrase_of_more_than_one_day_word_is_left_to_parsedatetime() -> None:
    assert when._plain_day("next Thursday", ctx()) is None
    assert when._plain_day("Thursday 3pm", ctx()) is None


# Phrases people type that the reader once got wrong without a word, each with what it means now
# (Tuesday 1 Dec 2026, 10:00 Berlin): the option as the contract writes it, and a note it must carry.
@pytest.mark.parametrize(
    ("text", "value", "note"),
    [
        ("Friday next week", "2026-12-11", "'Friday' read as Fri 11 Dec (a week after the coming one)."),
        ("next week Friday at 3pm", "2026-12-11T15:00", "'Friday' read as Fri 11 Dec"),
        ("Monday of next week", "2026-12-07", "'Monday' read as Mon 7 Dec"),
        ("Thursday this week", "2026-12-03", "'Thursday' read as Thu 3 Dec"),
        ("Wednesday 9.30", "2026-12-02T09:30", "'Wednesday' read as Wed 2 Dec"),
        ("Wednesday 9.30am", "2026-12-02T09:30", "'Wednesday' read as Wed 2 Dec"),
        ("Weds 930am", "2026-12-02T09:30", "'Wednesday' read as Wed 2 Dec"),
        ("Friday 14.45", "2026-12-04T14:45", FRI),
        ("thurs 2-3pm", "2026-12-03T14:00/15:00", "'2-3pm' read as 14:00-15:00."),
        ("Thursday between 2 and 4", "2026-12-03T14:00/16:00", "'between 2 and 4' read as 14:00-16:00."),
        ("Monday 11-1pm", "2026-12-07T11:00/13:00", "'11-1pm' read as 11:00-13:00."),
        ("Friday from 9 to 11am", "2026-12-04T09:00/11:00", "'from 9 to 11am' read as 09:00-11:00."),
        ("Friday 14:00-15:30", "2026-12-04T14:00/15:30", "'14:00-15:30' read as 14:00-15:30."),
        ("before lunch on Friday", "2026-12-04T09:00/12:00", "'before lunch' read as 09:00-12:00."),
        ("after lunch tomorrow", "2026-12-02T13:00/17:00", "'after lunch' read as 13:00-17:00."),
        ("first thing Monday", "2026-12-07T09:00/10:00", "'first thing' read as 09:00-10:00."),
        ("half past three tomorrow", "2026-12-02T15:30", "'half past three' read as 15:30"),
        ("quarter to 10 on Friday", "2026-12-04T09:45", FRI),
        ("a quarter past 11 tomorrow", "2026-12-02T11:15", ""),
        ("the 10th", "2026-12-10", "'the 10th' read as Thu 10 Dec."),
        ("on the 15th at 3", "2026-12-15T15:00", "'the 15th' read as Tue 15 Dec."),
        (
            "Monday the 15th",
            "2026-12-15",
            "'Monday' is not the weekday of Tue 15 Dec, the day read: check the day.",
        ),
        ("early next week", "2026-12-07/2026-12-08", "'early next week' read as Mon 7 Dec to Tue 8 Dec."),
        ("end of the week", "2026-12-03/2026-12-04", "'end of the week' read as Thu 3 Dec to Fri 4 Dec."),
        ("later this week", "2026-12-02/2026-12-04", "'later this week' read as Wed 2 Dec to Fri 4 Dec."),
        ("the end of next week", "2026-12-10/2026-12-11", "read as Thu 10 Dec to Fri 11 Dec."),
        (
            "tomorrow from 10 until noon",
            "2026-12-02T10:00/12:00",
            "'from 10 until noon' read as 10:00-12:00.",
        ),
        ("the 3rd of January", "2027-01-03", ""),
        ("tmrw 10am", "2026-12-02T10:00", ""),
        ("Friday before 11", "2026-12-04T09:00/11:00", "'before 11' read as 09:00-11:00."),
        ("by 3pm tomorrow", "2026-12-02T09:00/15:00", "'by 3pm' read as 09:00-15:00."),
        (
            "Thursday no later than noon",
            "2026-12-03T09:00/12:00",
            "'no later than noon' read as 09:00-12:00.",
        ),
        ("before 9am on Friday", "2026-12-04T08:00/09:00", "'before 9am' read as 08:00-09:00."),
        ("Thursday at 3 may work", "2026-12-03T15:00", "'Thursday' read as Thu 3 Dec"),
        (  # in Berlin: day first, as Germany writes dates (tests/unit/test_when_misreads.py: by locale)
            "10/12",
            "2026-12-10",
            "'10/12' read as day/month, Thu 10 Dec, as dates are written in DE, the country of your time "
            "zone Europe/Berlin.",
        ),
        # An earliest start: its hours to the end of the day (18:00), or the hour after it in the evening.
        ("Thursday after 3pm", "2026-12-03T15:00/18:00", "'after 3pm' read as 15:00-18:00."),
        ("any time after 2 tomorrow", "2026-12-02T14:00/18:00", "'any time after 2' read as 14:00-18:00."),
        ("tomorrow from 3pm onwards", "2026-12-02T15:00/18:00", "'from 3pm onwards' read as 15:00-18:00."),
        ("Friday 4pm onward", "2026-12-04T16:00/18:00", "'4pm onward' read as 16:00-18:00."),
        ("not before 10 on Monday", "2026-12-07T10:00/18:00", "'not before 10' read as 10:00-18:00."),
        ("after 7pm tomorrow", "2026-12-02T19:00/20:00", "'after 7pm' read as 19:00-20:00."),
        (
            "Thursday after 2 but before 4",
            "2026-12-03T14:00/16:00",
            "'before 4' read as ending the hours at 16:00.",
        ),
        ("tomorrow by midnight", "2026-12-02T09:00/23:59", "'by midnight' read as 09:00-23:59."),
        ("until 5 tomorrow", "2026-12-02T09:00/17:00", "'until 5' read as 09:00-17:00."),
        # "from" with no end is the start (parsedatetime read "tomorrow from 15:00" as 09:00).
        ("tomorrow from 3pm", "2026-12-02T15:00", ""),
        ("Thursday from 2", "2026-12-03T14:00", "'from 2' read as 14:00 (say '2am' for the morning)."),
        ("late afternoon on Thursday", "2026-12-03T15:00/17:00", "'late afternoon' read as 15:00-17:00."),
        ("mid-morning Friday", "2026-12-04T10:00/11:30", "'mid morning' read as 10:00-11:30."),
        ("Late afternoon on Thursday", "2026-12-03T15:00/17:00", "'late afternoon' read as 15:00-17:00."),
        ("early evening tomorrow", "2026-12-02T17:00/18:00", "'early evening' read as 17:00-18:00."),
        ("around 3 tomorrow", "2026-12-02T15:00", "'around 3' read as 15:00 (say '3am' for the morning)."),
        ("10ish on Friday", "2026-12-04T10:00", ""),
        ("Thursday 3pm-ish", "2026-12-03T15:00", ""),
        ("about 11 tomorrow", "2026-12-02T11:00", ""),
        ("later today", "2026-12-01", ""),
        ("Monday week", "2026-12-14", "'Monday' read as Mon 14 Dec (a week after the coming one)."),
        ("a week on Friday", "2026-12-11", "'Friday' read as Fri 11 Dec (a week after the coming one)."),
        ("mid next week", "2026-12-08/2026-12-10", "'mid next week' read as Tue 8 Dec to Thu 10 Dec."),
        ("midweek", "2026-12-01/2026-12-03", "'midweek' read as Tue 1 Dec to Thu 3 Dec."),
        ("15/12 at 3pm", "2026-12-15T15:00", "'15/12' read as day/month, Tue 15 Dec."),
        ("25/11/2027", "2027-11-25", "'25/11/2027' read as day/month, Thu 25 Nov."),
        # Hours written as much of Europe writes them, o'clock, and spelled out.
        ("Friday at 17h", "2026-12-04T17:00", ""),
        ("Friday 9h30", "2026-12-04T09:30", ""),
        ("Thursday 5 o'clock", "2026-12-03T17:00", "read as 17:00 (say '5am' for the morning)."),
        ("at four tomorrow", "2026-12-02T16:00", "read as 16:00 (say '4am' for the morning)."),
        ("between two and four on Friday", "2026-12-04T14:00/16:00", "read as 14:00-16:00."),
        # A length is not a time (parsedatetime read "Thursday for an hour" as an hour from now).
        ("Thursday for an hour", "2026-12-03", ""),
        ("Thursday for 2 hours", "2026-12-03", ""),
        ("tomorrow 45 minutes", "2026-12-02", ""),
        ("Thursday at 3 for 90 minutes", "2026-12-03T15:00", ""),
        ("in 3 hours", "2026-12-01T13:00", ""),
        ("the Monday after next", "2026-12-14", "'Monday' read as Mon 14 Dec (a week after the coming one)."),
        ("in a fortnight", "2026-12-15", ""),
        ("this coming Monday", "2026-12-07", "read as Mon 7 Dec (the coming one)."),
        (
            "the week after next",
            "2026-12-14/2026-12-18",
            "'the week after next' read as Mon 14 Dec to Fri 18 Dec.",
        ),
        ("the last week of December", "2026-12-28/2026-12-31", "read as Mon 28 Dec to Thu 31 Dec."),
        ("first week of January", "2027-01-04/2027-01-08", "read as Mon 4 Jan to Fri 8 Jan."),
        ("mon-wed", "2026-12-07/2026-12-09", "'mon-wed' read as Mon 7 Dec to Wed 9 Dec."),
        ("Monday through Wednesday", "2026-12-07/2026-12-09", "read as Mon 7 Dec to Wed 9 Dec."),
        ("between Monday and Wednesday", "2026-12-07/2026-12-09", "read as Mon 7 Dec to Wed 9 Dec."),
        ("at half 2 tomorrow", "2026-12-02T14:30", "'half 2' read as 14:30 (say '2:30am' for the morning)."),
        ("half three on Friday", "2026-12-04T15:30", "'half three' read as 15:30"),
        # Days of a month (read as hours, "Jan 5-7" as 1 January 17:00-19:00), and days up to or after one.
        ("Jan 5-7", "2027-01-05/2027-01-07", "'Jan 5-7' read as Tue 5 Jan to Thu 7 Jan."),
        ("dec 14 to 16", "2026-12-14/2026-12-16", "read as Mon 14 Dec to Wed 16 Dec."),
        ("14-16 December", "2026-12-14/2026-12-16", "read as Mon 14 Dec to Wed 16 Dec."),
        ("December 14th-16th", "2026-12-14/2026-12-16", "read as Mon 14 Dec to Wed 16 Dec."),
        ("by Friday", "2026-12-01/2026-12-04", "'by Friday' read as Tue 1 Dec to Fri 4 Dec."),
        ("before Thursday", "2026-12-01/2026-12-02", "'before Thursday' read as Tue 1 Dec to Wed 2 Dec."),
        ("after Wednesday", "2026-12-03/2026-12-09", "'after Wednesday' read as Thu 3 Dec to Wed 9 Dec."),
        ("in the next couple of days", "2026-12-01/2026-12-03", "read as Tue 1 Dec to Thu 3 Dec."),
        ("the first Monday of January", "2027-01-04", "read as Mon 4 Jan"),
        ("the last Friday in February at 3pm", "2027-02-26T15:00", "read as Fri 26 Feb"),
        ("two weeks from now", "2026-12-15", ""),  # a day: parsedatetime gave it the time of now
        ("end of the month", "2026-12-31", ""),
        ("by the end of the month", "2026-12-01/2026-12-31", "read as Tue 1 Dec to Thu 31 Dec."),
        ("this weekend", "2026-12-05/2026-12-06", "'this weekend' read as Sat 5 Dec to Sun 6 Dec."),
        ("asap", "2026-12-01", "'asap' read as the earliest free times from now."),
        ("as soon as possible", "2026-12-01", "read as the earliest free times from now."),
        ("tmrw pm", "2026-12-02T13:00/17:00", "'pm' read as 13:00-17:00."),
        ("Fri am", "2026-12-04T09:00/12:00", "'am' read as 09:00-12:00."),
        ("tomorrow 10 am", "2026-12-02T10:00", ""),
        ("tomorrow, ideally morning", "2026-12-02T09:00/12:00", "'morning' read as 09:00-12:00."),
    ],
)
def test_what_people_type_is_read_as_they_mean_it(text: str, value: str, note: str) -> None:
    reading = when.read_phrase(text, ctx())
    assert reading.request is not None
    (option,) = reading.request.options
    assert option.value() == value
    assert reading.unread == ()
    assert not note or any(note in said for said in option.notes), option.notes


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
    reading = when.read_phrase(text, ctx())
    assert reading.request is not None
    assert [o.day for o in reading.request.options] == [day]
    assert reading.request.excluded == {excluded}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Thursday 4-2pm", "ends before it starts"),
        ("Thursday 3-25", "not a time of day"),
        ("Thursday 13-14pm", "not a time of day"),
        ("the 32nd", "not a day of the month"),
        ("31/11", "not a day of the calendar"),
        ("13/13", "is not a date"),
        ("Thursday after 4 but before 2", "ends before 16:00, the start said"),
        ("after 13pm tomorrow", "not a time of day"),
        ("dec 16-14", "ends before it starts"),
        ("feb 28-30", "not a span of days of the calendar"),
    ],
)
def test_a_span_or_day_that_cannot_be_is_refused_with_why(text: str, message: str) -> None:
    with pytest.raises(UnparseableDate, match=message):
        when.read_phrase(text, ctx())


@pytest.mark.parametrize(
    ("text", "unread"),
    [("Monday at 2 and 4", ("4",)), ("in 2-3 days", ("days",))],
)
def test_and_between_two_hours_without_between_is_not_a_span(text: str, unread: tuple[str, ...]) -> None:
    """'at 2 and 4' may be two times; a count of days is no span of hours: both stay unread (the card
    says so)."""
    reading = when.read_phrase(text, ctx())
    assert reading.unread == unread
    assert all(o.window is None for o in (reading.request.options if reading.request else ()))


def test_a_day_of_the_month_already_past_is_next_months() -> None:
    late_in_december = ctx(datetime(2026, 12, 20, 9, tzinfo=UTC))
    assert when.read_phrase("the 5th", late_in_december).request.first.day == date(2027, 1, 5)  # type: ignore[union-attr]
    assert when.read_phrase("the 20th", late_in_december).request.first.day == date(2026, 12, 20)  # type: ignore[union-attr]
    # The 31st of a month without one is the next month that has it.
    november = ctx(datetime(2026, 11, 2, 9, tzinfo=UTC))
    assert when.read_phrase("the 31st", november).request.first.day == date(2026, 12, 31)  # type: ignore[union-attr]


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
    reading = when.read_phrase(text, ctx())
    assert reading.request is not None
    assert [option.value() for option in reading.request.options] == values
    assert reading.unread == ()


def test_this_weekday_is_the_coming_one_even_at_the_weekend() -> None:
    sunday = ctx(datetime(2026, 12, 6, 10, tzinfo=UTC))
    assert when.read_phrase("this Friday", sunday).request.first.day == date(2026, 12, 11)  # type: ignore[union-attr]
    assert when.read_phrase("this Sunday", sunday).request.first.day == date(2026, 12, 6)  # type: ignore[union-attr]
    friday = ctx(datetime(2026, 12, 4, 9, tzinfo=UTC))
    assert when.read_phrase("this Friday at 3pm", friday).request.first.value() == "2026-12-04T15:00"  # type: ignore[union-attr]


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
    reading = when.read_phrase(text, ctx())
    assert reading.request is not None
    values = [option.value() for option in reading.request.options]
    start = date.fromisoformat(first)
    assert values == [f"{start + timedelta(days=n)}T{window}" for n in range(days)]
    assert reading.unread == ()
    assert "each day" in reading.request.options[0].notes[0]


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
    reading = when.read_phrase(text, sunday)
    assert reading.request is not None
    (option,) = reading.request.options
    assert option.value() == value
    assert any(note in said for said in option.notes), option.notes


def test_what_is_left_of_this_week_on_a_friday_is_that_friday() -> None:
    friday = ctx(datetime(2026, 12, 4, 9, tzinfo=UTC))
    (option,) = when.read_phrase("this week", friday).request.options  # type: ignore[union-attr]
    assert (option.value(), option.notes) == ("2026-12-04", ("'this week' read as Fri 4 Dec.",))


def read_fully(text: str, now: ToolContext | None = None) -> tuple[when.RequestedTime, ...]:
    """The options ``text`` reads as, every word of it read."""
    reading = when.read_phrase(text, now or ctx())
    assert reading.request is not None
    assert reading.unread == ()
    return reading.request.options


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
    reading = when.read_phrase("any day next week except Wednesday", ctx())
    assert reading.request is not None
    assert [o.value() for o in reading.request.options] == ["2026-12-07/2026-12-11"]
    assert reading.request.excluded == {date(2026, 12, 9)}


_TOKEN_TEXT = (
    "by before no later than midnight 9am Thursday thurs weds tues Fri next this week the 15th 31st 3rd of "
    "January may 2-3pm 9.30 930am 11-1pm between and to until noon midday half past quarter three 10 at "
    "on or not except any time whenever after lunch first thing early end later London time PST 4pm "
    "16:00 14.45 "
    "12/10 10/12 15/12 2026-12-10 tomorrow today day in 3 days morning afternoon evening , / - 25:00 0 "
    "12am 13pm onwards ish 3ish around about mid late midweek a from 7pm or later no earlier than 17h 9h30 "
    "2h o'clock four two fortnight last first for an hour 2 hours 45 minutes jan 5-7 dec 14 16 within couple "
    "monday friday through mon-wed Priya's her weekend month weeks now asap am pm p.m. ideally "
    "every each other weekly biweekly daily Mondays fridays my Christmas eve new year's same january half "
    "past ten twenty after 1500hrs 15:00h breakfast dinner work over arvo noonish"
)
_TOKENS = _TOKEN_TEXT.split(" ")


def _readings(phrases: list[str]) -> list[object]:
    out: list[object] = []
    for phrase in phrases:
        try:
            reading = when.read_phrase(phrase, ctx())
        except (UnparseableDate, DateInPast) as error:
            out.append(("refused", str(error)))
            continue
        request = reading.request
        options = [] if request is None else [(o.value(), o.notes, o.zone) for o in request.options]
        excluded = None if request is None else sorted(request.excluded)
        out.append((options, excluded, reading.unread, reading.zone))
    return out


def test_the_words_a_pattern_needs_only_skip_patterns_that_could_not_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each pattern names text every match of it holds, and is skipped (not compiled) for a phrase
    without it: every phrase reads the same as with every pattern run."""
    rng = random.Random(11)
    phrases = [" ".join(rng.choice(_TOKENS) for _ in range(rng.randint(1, 7))) for _ in range(3000)]
    phrases += [
        "Thursday at 3pm",
        "tomorrow from 3pm onwards",
        "Jan 5-7 in the afternoon",
        "next week at 3pm London time",
        "between Monday and Wednesday",
        "any day next week except Wednesday",
        "Thursday 10am and Friday 2pm New York time",
        "the last Friday in February at 3pm",
        "in Priya's time zone on Friday at 4",
        "every 2 weeks on Friday at 3pm",
        "the first Monday of every month",
        "daily at 9:30 except Wednesdays",
        "the week of the 14th at 3pm",
        "before Christmas in the afternoon",
        "same time next week",
        "late January or early February",
    ]
    with_needles = _readings(phrases)
    monkeypatch.setattr(when._LazyPattern, "absent", lambda self, text: False)
    assert _readings(phrases) == with_needles


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


@pytest.mark.parametrize(
    ("text", "values", "now"),
    [
        ("the first Monday of the month", ["2026-12-07"], TUESDAY_10_BERLIN),
        ("the first Tuesday of the month", ["2026-12-01"], TUESDAY_10_BERLIN),
        ("the first Monday of next month", ["2027-01-04"], TUESDAY_10_BERLIN),
        ("the second Wednesday of next month at 3pm", ["2027-01-13T15:00"], TUESDAY_10_BERLIN),
        ("the last Friday of the month", ["2026-12-25"], TUESDAY_10_BERLIN),
        # said after this month's has passed: next month's, and the card says why
        ("the first Monday of the month", ["2027-01-04"], datetime(2026, 12, 10, 9, tzinfo=UTC)),
    ],
)
def test_the_nth_weekday_of_the_month_is_that_day(text: str, values: list[str], now: datetime) -> None:
    """'the first Monday of next month' read as 1 January with 'first' unread."""
    assert [o.value() for o in read_fully(text, ctx(now))] == values


def test_the_nth_weekday_of_this_month_once_passed_is_refused_not_moved() -> None:
    with pytest.raises(DateInPast):
        resolve_when("the first Monday of this month", ctx(datetime(2026, 12, 10, 9, tzinfo=UTC)))


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
        when.read_phrase("75 past 3 tomorrow", ctx())


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
    reading = when.read_phrase(text, ctx())
    assert reading.unread == ()
    assert reading.request is not None
    assert [o.value() for o in reading.request.options] == values
    assert sorted(d.isoformat() for d in reading.request.excluded) == excluded


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


def test_a_time_on_more_than_a_week_of_days_holds_for_each_working_day() -> None:
    options = read_fully("next month at 3pm")
    days = [date.fromisoformat(o.value()[:10]) for o in options]
    assert len(days) == 21
    assert all(day.weekday() < 5 for day in days)
    assert "'next month at 3pm' read as 15:00 each working day, Fri 1 Jan to Sun 31 Jan." in options[0].notes


@pytest.mark.parametrize(
    ("text", "value", "note"),
    [
        # Said Tuesday 1 December, 10:00 Berlin: "Wednsday at 3" was today at 15:00, 'Wednsday' unread
        ("Wednsday at 3", "2026-12-02T15:00", "'Wednsday' read as 'Wednesday'."),
        ("Thrusday", "2026-12-03", "'Thrusday' read as 'Thursday'."),
        ("tommorow at 11", "2026-12-02T11:00", "'tommorow' read as 'tomorrow'."),
        ("Firday afternoon", "2026-12-04T13:00/17:00", "'Firday' read as 'Friday'."),
        ("Decmber 15", "2026-12-15", "'Decmber' read as 'December'."),
        ("tomorrow mornng", "2026-12-02T09:00/12:00", "'mornng' read as 'morning'."),
    ],
)
def test_a_misspelt_day_month_or_part_of_the_day_is_read_as_meant(text: str, value: str, note: str) -> None:
    (option,) = read_fully(text)
    assert option.value() == value
    assert option.notes[0] == note


@pytest.mark.parametrize(
    "text", ["Thursday at 3 in Sydney", "Fridays at 10", "Monday mornings", "Thursday with Mona"]
)
def test_words_spelt_right_or_not_close_are_not_respelt(text: str) -> None:
    reading = when.read_phrase(text, ctx())
    assert reading.request is not None
    assert not any("read as '" in note for o in reading.request.options for note in o.notes)


def test_a_phrase_read_whole_never_loads_difflib() -> None:
    # difflib costs about 6 ms to import on Python 3.13: only a phrase with a word left unread loads it
    probe = (
        "import sys\n"
        "from datetime import datetime, UTC\n"
        "from multitool.tools.base import ToolContext\n"
        "from multitool.tools.meeting.when import read_phrase\n"
        "now = datetime(2026, 12, 1, 9, tzinfo=UTC)\n"
        "ctx = ToolContext(owner='u', session_id='s', now=now, timezone='UTC')\n"
        "read_phrase('Thursday at 3pm', ctx)\n"
        "print('difflib' in sys.modules)\n"
        "read_phrase('Wednsday at 3pm', ctx)\n"
        "print('difflib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


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
    reading = when.read_phrase("early this week", ctx(datetime(2026, 12, 4, 15, tzinfo=UTC)))
    assert "early" in reading.unread


def test_a_reading_depends_on_the_requests_time_alone_not_the_machines_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """parsedatetime falls back to the process's clock in places ("from midnight" was the machine's
    tomorrow, "14 january next" the machine's today): the same phrases at the same request time read
    the same whatever the machine's clock says."""
    rng = random.Random(11)
    phrases = [" ".join(rng.choice(_TOKENS) for _ in range(rng.randint(1, 7))) for _ in range(1500)]
    phrases += ["from midnight", "14 january next"]
    real = time_module.localtime

    def read_at(clock: float) -> list[object]:
        monkeypatch.setattr(time_module, "localtime", lambda secs=None: real(clock if secs is None else secs))
        return _readings(phrases)

    assert read_at(1_577_836_830.0) == read_at(1_907_502_479.0)  # 2020-01-01, 2030-06-12
