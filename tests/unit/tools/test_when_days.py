"""Days parsedatetime misreads, numeric dates in the user's order included
(:mod:`multitool.tools.meeting.when.days`)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from multitool.toolkit.context import ToolContext
from multitool.toolkit.errors import DateInPast, UnparseableDate
from multitool.tools.meeting.when import read_phrase, resolve_when

from tests.support.meeting_when import TUESDAY_10_BERLIN, ctx, in_locale, monday, read_fully


def test_a_day_of_the_month_already_past_is_next_months() -> None:
    late_in_december = ctx(datetime(2026, 12, 20, 9, tzinfo=UTC))
    assert read_phrase("the 5th", late_in_december).request.first.day == date(2027, 1, 5)  # type: ignore[union-attr]
    assert read_phrase("the 20th", late_in_december).request.first.day == date(2026, 12, 20)  # type: ignore[union-attr]
    # The 31st of a month without one is the next month that has it.
    november = ctx(datetime(2026, 11, 2, 9, tzinfo=UTC))
    assert read_phrase("the 31st", november).request.first.day == date(2026, 12, 31)  # type: ignore[union-attr]


def test_this_weekday_is_the_coming_one_even_at_the_weekend() -> None:
    sunday = ctx(datetime(2026, 12, 6, 10, tzinfo=UTC))
    assert read_phrase("this Friday", sunday).request.first.day == date(2026, 12, 11)  # type: ignore[union-attr]
    assert read_phrase("this Sunday", sunday).request.first.day == date(2026, 12, 6)  # type: ignore[union-attr]
    friday = ctx(datetime(2026, 12, 4, 9, tzinfo=UTC))
    assert read_phrase("this Friday at 3pm", friday).request.first.value() == "2026-12-04T15:00"  # type: ignore[union-attr]


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
        read_phrase(text, monday())
    assert said in refused.value.message
    assert why in refused.value.message
    assert "2026-12-03" not in refused.value.message


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
    reading = read_phrase("3/1 at 2pm", in_locale(timezone, locale))
    assert reading.request is not None
    (option,) = reading.request.options
    assert option.value() == value
    assert any(why in note for note in option.notes), option.notes
    assert reading.date_notes == tuple(n for n in option.notes if "'3/1' read as" in n)


def test_the_order_is_the_users_even_when_the_phrase_names_another_zone() -> None:
    reading = read_phrase("12/10 at 10am New York time", in_locale("Europe/London", None))
    assert reading.request is not None
    assert [o.value() for o in reading.request.options] == ["2027-10-12T10:00"]


@pytest.mark.parametrize(
    ("text", "value"),
    [("15/12", "2026-12-15"), ("12/15", "2026-12-15"), ("3/3", "2027-03-03"), ("12/10/2027", "2027-10-12")],
)
def test_a_date_only_one_order_can_read_is_read_so_whatever_the_locale(text: str, value: str) -> None:
    reading = read_phrase(text, in_locale("Europe/London", None))
    assert reading.request is not None
    assert [o.value() for o in reading.request.options] == [value]


def test_a_numeric_date_the_calendar_does_not_have_is_refused_naming_it() -> None:
    with pytest.raises(
        UnparseableDate, match="'2/30' is not a day of the calendar: February 2027 has 28 days"
    ):
        read_phrase("2/30", in_locale("America/New_York", None))
    with pytest.raises(UnparseableDate, match="'30/2' is not a day of the calendar"):
        read_phrase("30/2", in_locale("Europe/London", None))


def test_a_locale_that_is_no_language_tag_is_refused_by_the_context() -> None:
    with pytest.raises(Exception, match="BCP 47"):
        in_locale("UTC", "not a locale!")
    assert ToolContext.from_session("s", {"userId": "u", "locale": "en-GB"}).locale == "en-GB"
