"""The phrase as a whole: what people type, misspellings, and what cannot be read
(:mod:`multitool.tools.meeting.when.reader`)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.toolkit.errors import UnparseableDate
from multitool.tools import ToolPorts, run_calls
from multitool.tools.meeting.when import read_phrase, resolve_when

from tests.support.bedrock_events import sample_people
from tests.support.meeting_when import FRI, ctx, monday, read_fully


@pytest.mark.parametrize("text", ["blorp", "whenever", "???"])
def test_unparseable_text_is_rejected_with_examples(text: str) -> None:
    with pytest.raises(UnparseableDate) as raised:
        resolve_when(text, ctx())
    assert "tomorrow at 3pm" in raised.value.message


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
    reading = read_phrase(text, ctx())
    assert reading.request is not None
    (option,) = reading.request.options
    assert option.value() == value
    assert reading.unread == ()
    assert not note or any(note in said for said in option.notes), option.notes


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
        read_phrase(text, ctx())


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
    reading = read_phrase(text, ctx())
    assert reading.request is not None
    assert not any("read as '" in note for o in reading.request.options for note in o.notes)


def test_a_phrase_read_whole_never_loads_difflib() -> None:
    # difflib costs about 6 ms to import on Python 3.13: only a phrase with a word left unread loads it
    probe = (
        "import sys\n"
        "from datetime import datetime, UTC\n"
        "from multitool.toolkit.context import ToolContext\n"
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


def test_an_unreadable_phrase_gives_an_example_that_is_not_past() -> None:
    with pytest.raises(UnparseableDate) as refused:
        resolve_when("blorp", monday())
    assert "2026-12-08T15:00" in refused.value.message  # tomorrow, for this user


@pytest.mark.parametrize(
    ("when_said", "said"),
    [
        ("Thursday at 25:00", "'25:00' in 'Thursday at 25:00' is not a time of day"),
        ("Feb 30", "'Feb 30' is not a day of the calendar: February 2027 has 28 days"),
        ("on the blue moon", "Could not tell which day 'on the blue moon' means"),
    ],
)
def test_the_meeting_tool_answers_what_it_could_not_read_and_no_past_example(
    when_said: str, said: str
) -> None:
    ports = ToolPorts(MemoryDirectory(sample_people()), MemoryCalendar([]), MemoryDraftStore())
    (outcome,) = run_calls(
        [("propose_meeting", {"attendees": ["Priya"], "title": "Sync", "when": when_said})], monday(), ports
    )
    message = outcome.body["error"]["message"]
    assert (outcome.status, outcome.body["error"]["code"]) == (422, "unparseable_date")
    assert said in message
    assert "2026-12-03" not in message
    assert "pass times" not in message.casefold()
