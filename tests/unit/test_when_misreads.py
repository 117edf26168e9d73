"""Phrases the reader once read wrong without a word: each is read as meant, or refused with why."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest
from multitool.local.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.tools import ToolPorts, run_calls
from multitool.tools.base import ToolContext, UnparseableDate
from multitool.tools.meeting import when
from multitool.tools.meeting.when import resolve_when

from tests.support.events import sample_people

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


def in_locale(timezone: str, locale: str | None) -> ToolContext:
    return ToolContext(owner="user-1", session_id="s-1", now=MONDAY, timezone=timezone, locale=locale)


@pytest.mark.parametrize(
    ("timezone", "locale", "value", "why"),
    [
        (
            "Europe/London",
            None,
            "2027-01-03T14:00",
            "day/month, Sun 3 Jan, as dates are written in GB, the country",
        ),
        (
            "America/New_York",
            None,
            "2027-03-01T14:00",
            "month/day, Mon 1 Mar, as dates are written in US, the country",
        ),
        (
            "America/New_York",
            "en-GB",
            "2027-01-03T14:00",
            "day/month, Sun 3 Jan, as dates are written in en-GB",
        ),
        ("Europe/London", "en_US", "2027-03-01T14:00", "month/day, Mon 1 Mar, as dates are written in en_US"),
        ("Asia/Tokyo", None, "2027-03-01T14:00", "month/day, Mon 1 Mar, as dates are written in JP"),
        ("UTC", None, "2027-03-01T14:00", "which comes first in your dates is not known"),
        ("America/Toronto", None, "2027-03-01T14:00", "which comes first in your dates is not known (CA"),
        ("Europe/Berlin", "de", "2027-01-03T14:00", "as dates are written in DE"),  # no region: the zone's
    ],
)
def test_a_date_whose_day_and_month_could_be_swapped_is_read_in_the_users_order_and_said(
    timezone: str, locale: str | None, value: str, why: str
) -> None:
    reading = when.read_phrase("3/1 at 2pm", in_locale(timezone, locale))
    assert reading.request is not None
    (option,) = reading.request.options
    assert option.value() == value
    assert any(why in note for note in option.notes), option.notes
    assert reading.date_notes == tuple(n for n in option.notes if "'3/1' read as" in n)


def test_the_order_is_the_users_even_when_the_phrase_names_another_zone() -> None:
    reading = when.read_phrase("12/10 at 10am New York time", in_locale("Europe/London", None))
    assert reading.request is not None
    assert [o.value() for o in reading.request.options] == ["2027-10-12T10:00"]


@pytest.mark.parametrize(
    ("text", "value"),
    [("15/12", "2026-12-15"), ("12/15", "2026-12-15"), ("3/3", "2027-03-03"), ("12/10/2027", "2027-10-12")],
)
def test_a_date_only_one_order_can_read_is_read_so_whatever_the_locale(text: str, value: str) -> None:
    reading = when.read_phrase(text, in_locale("Europe/London", None))
    assert reading.request is not None
    assert [o.value() for o in reading.request.options] == [value]


def test_a_numeric_date_the_calendar_does_not_have_is_refused_naming_it() -> None:
    with pytest.raises(
        UnparseableDate, match="'2/30' is not a day of the calendar: February 2027 has 28 days"
    ):
        when.read_phrase("2/30", in_locale("America/New_York", None))
    with pytest.raises(UnparseableDate, match="'30/2' is not a day of the calendar"):
        when.read_phrase("30/2", in_locale("Europe/London", None))


def test_a_locale_that_is_no_language_tag_is_refused_by_the_context() -> None:
    with pytest.raises(Exception, match="BCP 47"):
        in_locale("UTC", "not a locale!")
    assert ToolContext.from_session("s", {"userId": "u", "locale": "en-GB"}).locale == "en-GB"


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
        [("propose_meeting", {"attendees": ["Priya"], "title": "Sync", "when": when_said})], ctx(), ports
    )
    message = outcome.body["error"]["message"]
    assert (outcome.status, outcome.body["error"]["code"]) == (422, "unparseable_date")
    assert said in message
    assert "2026-12-03" not in message
    assert "pass times" not in message.casefold()
