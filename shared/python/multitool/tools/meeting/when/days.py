"""Days parsedatetime misreads, written as dates it reads: shortened weekdays, numeric dates in the
user's order, days of the month, named days ("Christmas"), a weekday of a week ("Friday next week",
"Monday week"), "in 3 days' time"; each guess noted."""

from __future__ import annotations

import calendar
import contextvars
import re
from datetime import date, timedelta

from multitool.toolkit.context import ToolContext
from multitool.toolkit.errors import UnparseableDate
from multitool.tools.meeting.when.natural import _DAY_NAMES
from multitool.tools.meeting.when.patterns import (
    _DIGITS,
    _MONTH_STEMS,
    _MONTH_WORD,
    _MONTHS,
    _WEEKDAY_WORD,
    _lazy,
)
from multitool.tools.meeting.when.request import FIELD, _label
from multitool.zones import DateOrder, date_order

# Days as people shorten them that parsedatetime does not know ("tues", "weds", "thurs", "tmrw").
_SHORT_WEEKDAY = _lazy(
    r"\b(?:(?P<tue>tues)|(?P<wed>weds|wednes)|(?P<thu>thurs?)|(?P<tomorrow>tmrw|tmrow|tmr|tomoz|2moro|2morrow))\b\.?",
    re.I,
    needles=("tues", "weds", "wednes", "thur", "tm", "tomoz", "2mo"),
)
_SPELLED_WEEKDAY = {"tue": "Tuesday", "wed": "Wednesday", "thu": "Thursday", "tomorrow": "tomorrow"}


def _spelled_weekdays(text: str) -> str:
    """``text`` with each shortened day written out: "thurs 2pm" -> "Thursday 2pm", "tmrw" -> "tomorrow"."""
    return _SHORT_WEEKDAY.sub(  # most phrases hold none of its needles: nothing compiled on a cold start
        lambda m: _SPELLED_WEEKDAY[next(k for k, v in m.groupdict().items() if v)], text
    )


_DATE_ORDER: contextvars.ContextVar[DateOrder | None] = contextvars.ContextVar("date_order", default=None)
"""The order of day and month in the user's numeric dates, while one of their phrases is read (the
phrase may be read in another zone, "3/1 at 2pm London time": the order stays the user's)."""
_DATE_NOTES: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("date_notes", default=None)
"""The notes on how numeric dates were read, while a phrase is read (:attr:`PhraseReading.date_notes`)."""


_DAY_AFTER_TOMORROW = _lazy(r"\b(?:the\s+)?day\s+after\s+tomorrow\b", re.I, needles=("tomorrow",))
# "in a fortnight", "a fortnight from today", "fortnight today": two weeks from today.
_FORTNIGHT = _lazy(
    r"\b(?:in\s+)?(?:a\s+)?fortnight(?:\s+(?:from\s+)?(?:today|now))?\b", re.I, needles=("fortnight",)
)
# "in 3 days' time", "two weeks from now": that day (parsedatetime gives "from now" the time of now).
_IN_DAYS = _lazy(
    r"\b(?:in\s+)?(?P<n>\d{1,2}|two|three|four|five|six)\s+(?P<unit>days?|weeks?)\s+(?:from\s+(?:now|today)|time)\b",
    re.I,
    needles=("day", "week"),
)
# "tomorrow week" (as "Monday week"): a week after tomorrow.
_TOMORROW_WEEK = _lazy(r"\b(?:tomorrow|tmrw)\s+week\b", re.I, needles=("week",))
_END_OF_MONTH = _lazy(r"\b(?:the\s+)?end\s+of\s+(?:the\s+)?month\b", re.I, needles=("month",))
# Days people name rather than date: this year's, or next year's once it has passed.
_NAMED_DAYS = {
    "christmas eve": (12, 24),
    "christmas day": (12, 25),
    "christmas": (12, 25),
    "boxing day": (12, 26),
    "new year's eve": (12, 31),
    "new years eve": (12, 31),
    "new year's day": (1, 1),
    "new years day": (1, 1),
    "new year's": (1, 1),
    "new year": (1, 1),
}
_NAMED_DAY_WORD = (
    r"(?:christmas(?:\s+(?:eve|day))?|boxing\s+day|new\s+year(?:['\u2019]?s)?(?:\s+(?:eve|day))?)"
)
_NAMED_DAY = _lazy(rf"\b(?:the\s+)?{_NAMED_DAY_WORD}\b", re.I, needles=("christmas", "boxing", "new year"))


# "may" as a verb, not the month: "Thursday at 3 may work".
_MAY_AS_VERB = _lazy(
    r"\b(?:may|might|could|would|should)\s+(?:work|suit|be\s+\w+|do|fit)\b",
    re.I,
    needles=("may", "might", "could", "would", "should"),
)
_SMALL_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _days(said: str) -> int:
    """How many days "in three days" or "in 3 days" says."""
    return _SMALL_NUMBERS.get(said.casefold()) or int(said)


_WEEKDAY_OF_WEEK = _lazy(
    rf"\b(?:on\s+)?(?:(?P<day>{_WEEKDAY_WORD})\s+(?:of\s+)?(?P<which>next|this)\s+week"
    rf"|(?P<which2>next|this)\s+week(?:'s)?\s+(?:on\s+)?(?P<day2>{_WEEKDAY_WORD}))\b",
    re.I,
    needles=("week",),
)


_NUMERIC_DATE = _lazy(
    r"(?<![\d/])\b(?P<first>\d{1,2})/(?P<second>\d{1,2})(?:/(?P<year>\d{2}|\d{4}))?\b(?!/)", needles=("/",)
)


_ORDINAL_OF_MONTH = _lazy(
    r"\b(?:the\s+)?(?P<day>\d{1,2})(?:st|nd|rd|th)\s+(?:of\s+)?"
    rf"(?P<month>{_MONTH_WORD}[a-z]*\.?)(?=\W|$)",
    re.I,
    needles=_MONTH_STEMS,
)
# A month named with a day of it: "Feb 30", "February 30th", "30 Feb", "the 31st of April" (checked
# for a day the month has: parsedatetime reads an impossible one as no day, or as today).
_MONTH_DAY = _lazy(
    rf"\b(?P<month>{_MONTH_WORD}[a-z]*)\.?\s+(?:the\s+)?(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b"
    r"(?!\s*(?:[ap]\.?\s?m\b|[:.]\d|h\b|hrs?\b|-|\u2013))"
    rf"|(?<![\d:./])\b(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month2>{_MONTH_WORD}[a-z]*)\b",
    re.I,
    needles=_MONTH_STEMS,
)
_MONTH_NAMES = {
    name: number
    for number, full in enumerate(calendar.month_name)
    if number
    for name in (full.casefold(), full[:3].casefold(), *(("sept",) if number == 9 else ()))
}
"""A month's name and its usual shortenings -> its number ("jan" 1, "sept" 9)."""


def _day_of_month_checked(text: str, today: date) -> None:
    """:class:`UnparseableDate` naming the first day ``text`` gives a month that the month does not
    have ("Feb 30", "31 April", "Feb 29" when the coming February has 28 days)."""
    for match in _MONTH_DAY.finditer(text):
        said_month = (match["month"] or match["month2"]).casefold()
        month = _MONTH_NAMES.get(said_month)
        if month is None:
            continue  # "marketing 30": no month
        number = int(match["day"] or match["day2"])
        year = today.year if (month, min(number, 28)) >= (today.month, today.day) else today.year + 1
        length = calendar.monthrange(year, month)[1]
        if not 1 <= number <= length:
            raise _no_such_day(match[0].strip(), month, year, length)


def _no_such_day(said: str, month: int, year: int, length: int) -> UnparseableDate:
    name = calendar.month_name[month]
    following = calendar.month_name[month % 12 + 1]
    return UnparseableDate(
        f"'{said}' is not a day of the calendar: {name} {year} has {length} days. "
        f"Say another day, e.g. '{name} {length}' or '{following} 1'.",
        field=FIELD,
    )


# "this Friday": the coming Friday, or today on a Friday (parsedatetime reads it as this week's, past
# by the weekend).
_THIS_WEEKDAY = _lazy(rf"\bthis\s+(?P<day>{_WEEKDAY_WORD})\b(?!\s+week)", re.I, needles=("this",))
# "Monday week", "a week on Friday", "a week from Tuesday", "the Monday after next": a week after the
# coming one.
_WEEKDAY_WEEK = _lazy(
    rf"\b(?:a\s+week\s+(?:on|from|after)\s+(?P<day>{_WEEKDAY_WORD})|(?P<day2>{_WEEKDAY_WORD})\s+week\b(?!')"
    rf"|(?:the\s+)?(?P<day3>{_WEEKDAY_WORD})\s+after\s+next)\b",
    re.I,
    needles=("week", "after next"),
)
# "the first Monday of January", "the last Friday in February".
_NTH_WEEKDAY = _lazy(
    rf"\b(?:the\s+)?(?P<nth>first|1st|second|2nd|third|3rd|fourth|4th|last)\s+(?P<day>{_WEEKDAY_WORD})\s+"
    rf"(?:of|in)\s+(?:(?P<month>{_MONTH_WORD})[a-z]*\.?|(?P<which>the|this|next)\s+month)(?=\W|$)",
    re.I,
    needles=("first", "1st", "second", "2nd", "third", "3rd", "fourth", "4th", "last"),
)
_ORDINAL_DAY = _lazy(
    r"(?P<before>\b(?!the\b)[A-Za-z]+\s+)?\b(?P<the>the\s+)?(?P<day>\d{1,2})(?:st|nd|rd|th)\b"
    rf"(?!\s+(?:of\s+)?{_MONTH_WORD})",
    re.I,
    needles=tuple(f"{digit}{suffix}" for digit in _DIGITS for suffix in ("st", "nd", "rd", "th")),
)


_NTH = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3, "last": -1}


def _month_after(year: int, month: int) -> tuple[int, int]:
    """(year, month) of the month after ``month`` of ``year``."""
    return (year + 1, 1) if month == 12 else (year, month + 1)


def _relative_days(text: str, ctx: ToolContext) -> tuple[str, list[str]]:
    """Days parsedatetime misreads, written as dates it reads ("the day after tomorrow", "Friday next
    week", "the 15th"), and a note for each that is a guess."""
    today = ctx.local_now.date()
    notes: list[str] = []

    def date_words(day: date) -> str:
        return f" {day.month:02d}/{day.day:02d}/{day.year} "

    def of_week(match: re.Match[str]) -> str:
        weekday = _DAY_NAMES[(match["day"] or match["day2"])[:3].casefold()]
        monday = today - timedelta(days=today.weekday())
        if (match["which"] or match["which2"]).casefold() == "next":
            monday += timedelta(days=7)
        return date_words(monday + timedelta(days=weekday))

    def ordinal(match: re.Match[str]) -> str:
        before = (match["before"] or "").strip().casefold()
        if before[:3] in _MONTHS:  # "December 15th": parsedatetime reads a month and its day
            return match[0]
        number = int(match["day"])
        if not 1 <= number <= 31:
            raise UnparseableDate(f"'{match[0].strip()}' is not a day of the month.", field=FIELD)
        year, month = today.year, today.month
        if number < today.day:
            year, month = _month_after(year, month)
        for _ in range(3):  # the 31st of a month of 30 days is the next month that has one
            try:
                day = date(year, month, number)
                break
            except ValueError:
                year, month = _month_after(year, month)
        notes.append(f"'{match[0][len(match['before'] or '') :].strip()}' read as {_label(day)}.")
        return (match["before"] or "") + date_words(day)

    def this_weekday(match: re.Match[str]) -> str:
        weekday = _DAY_NAMES[match["day"][:3].casefold()]
        return date_words(today + timedelta(days=(weekday - today.weekday()) % 7))

    def week_after(match: re.Match[str]) -> str:
        weekday = _DAY_NAMES[(match["day"] or match["day2"] or match["day3"])[:3].casefold()]
        return date_words(today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 8))

    def numeric(match: re.Match[str]) -> str:
        """A numeric date ("3/1", "15/12", "12/10/2027"), day and month in the user's order where both
        could be either (:func:`multitool.zones.date_order`: their locale's, else their zone's country's;
        month/day, with a note saying the order is not known, where neither says)."""
        first, second = int(match["first"]), int(match["second"])
        said = match[0]
        if first > 12 and second > 12:
            raise UnparseableDate(
                f"'{said}' is not a date: neither number is a month. Write e.g. {today + timedelta(days=1)}.",
                field=FIELD,
            )
        order = _DATE_ORDER.get() or date_order(ctx.locale, ctx.timezone)
        swappable = first <= 12 and second <= 12 and first != second
        day_first = first > 12 or (second <= 12 and order.day_first is True)
        number, month = (first, second) if day_first else (second, first)
        if match["year"]:
            year = int(match["year"]) + (2000 if len(match["year"]) == 2 else 0)
        else:
            year = today.year if (month, min(number, 28)) >= (today.month, today.day) else today.year + 1
        try:
            day = date(year, month, number)
        except ValueError:
            raise _no_such_day(said, month, year, calendar.monthrange(year, month)[1]) from None
        read = "day/month" if day_first else "month/day"
        if not swappable:
            if first > 12:
                notes.append(f"'{said}' read as day/month, {_label(day)}.")
        elif order.day_first is None:
            notes.append(
                f"'{said}' read as month/day, {_label(day)}: which comes first in your dates is not known "
                f"({order.why}). Write {day.isoformat()} to be sure."
            )
        else:
            notes.append(f"'{said}' read as {read}, {_label(day)}, as dates are written in {order.why}.")
        said_notes = _DATE_NOTES.get()
        if said_notes is not None and swappable:
            said_notes.append(notes[-1])
        return date_words(day)

    def nth_weekday(match: re.Match[str]) -> str:
        weekday = _DAY_NAMES[match["day"][:3].casefold()]
        nth = _NTH[match["nth"].casefold()]

        def in_month(year: int, month: int) -> date:
            first = date(year, month, 1)
            days = [first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * n) for n in range(5)]
            return [d for d in days if d.month == month][nth]

        which = (match["which"] or "").casefold()
        if which == "this":  # this month's, even when it has passed (then refused as past, not moved)
            return date_words(in_month(today.year, today.month))
        if which == "next":
            return date_words(in_month(*_month_after(today.year, today.month)))
        if which == "the":  # "the first Monday of the month": this month's, or next month's once passed
            day = in_month(today.year, today.month)
            if day < today:
                day = in_month(*_month_after(today.year, today.month))
                notes.append(f"'{match[0].strip()}' read as {_label(day)} (this month's has passed).")
            return date_words(day)
        month = _MONTHS.index(match["month"][:3].casefold()) + 1
        for year in (today.year, today.year + 1):
            day = in_month(year, month)
            if day >= today:
                return date_words(day)
        return match[0]

    def named_day(match: re.Match[str]) -> str:
        said = " ".join(match[0].casefold().replace("\u2019", "'").split())
        said = said.removeprefix("the ")
        month, number = _NAMED_DAYS[said]
        day = date(today.year, month, number)
        if day < today:
            day = date(today.year + 1, month, number)
        notes.append(f"'{match[0].strip()}' read as {_label(day)}.")
        return date_words(day)

    def tomorrow_week(match: re.Match[str]) -> str:
        day = today + timedelta(days=8)
        notes.append(f"'{match[0]}' read as {_label(day)}, a week after tomorrow.")
        return date_words(day)

    text = _MAY_AS_VERB.sub(" ", text)
    _day_of_month_checked(text, today)
    # The user's numeric dates first: each rewriting below writes its day as month/day/year, which is
    # parsedatetime's order, not necessarily the user's.
    text = _NUMERIC_DATE.sub(numeric, text)
    text = _NAMED_DAY.sub(named_day, text)
    text = _NTH_WEEKDAY.sub(nth_weekday, text)
    text = _THIS_WEEKDAY.sub(this_weekday, text)
    text = _WEEKDAY_WEEK.sub(week_after, text)
    text = _DAY_AFTER_TOMORROW.sub(lambda _: date_words(today + timedelta(days=2)), text)
    text = _TOMORROW_WEEK.sub(tomorrow_week, text)
    text = _WEEKDAY_OF_WEEK.sub(of_week, text)
    text = _ORDINAL_OF_MONTH.sub(lambda m: f" {m['month'].rstrip('.')} {int(m['day'])} ", text)
    text = _ORDINAL_DAY.sub(ordinal, text)
    text = _IN_DAYS.sub(
        lambda m: date_words(today + timedelta(days=_days(m["n"]) * (7 if m["unit"][0] in "wW" else 1))), text
    )
    text = _END_OF_MONTH.sub(
        lambda _: date_words(today.replace(day=calendar.monthrange(today.year, today.month)[1])), text
    )
    text = _FORTNIGHT.sub(lambda _: date_words(today + timedelta(days=14)), text)
    return text, notes
