"""Spans of days said as such ("the last week of December", "mon-wed", "Jan 5-7", "early January",
"next month", "the next 3 days", "the weekend", "asap"): each read as its first and last day, with a
note saying so."""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

from multitool.toolkit.context import ToolContext
from multitool.toolkit.errors import UnparseableDate
from multitool.tools.meeting.when.days import _NTH, _days, _month_after
from multitool.tools.meeting.when.natural import _DAY_NAMES
from multitool.tools.meeting.when.patterns import _MONTH_STEMS, _MONTH_WORD, _MONTHS, _WEEKDAY_WORD, _lazy
from multitool.tools.meeting.when.request import FIELD, RequestedTime, _label

_WEEK_OF_MONTH = _lazy(
    r"^(?:(?:in|during|for|sometime|some\s+time|any\s*time|on)\s+)*(?:the\s+)?"
    rf"(?P<nth>first|1st|second|2nd|third|3rd|fourth|4th|last)\s+week\s+(?:of|in)\s+(?P<month>{_MONTH_WORD})[a-z]*\.?$",
    re.I,
    needles=("week",),
)


def _week_of_month(text: str, ctx: ToolContext) -> RequestedTime | None:
    """'the last week of December', 'the first week of January': the working days of that week (the
    month's weeks are the Monday-to-Friday weeks whose Thursday is in it), within the month; this
    year's, or next year's once it has passed."""
    match = _WEEK_OF_MONTH.match(text.strip())
    if match is None:
        return None
    today = ctx.local_now.date()
    month = _MONTHS.index(match["month"][:3].casefold()) + 1
    for year in (today.year, today.year + 1):
        first_of_month = date(year, month, 1)
        first_thursday = first_of_month + timedelta(days=(3 - first_of_month.weekday()) % 7)
        thursdays = [first_thursday + timedelta(weeks=n) for n in range(5)]
        thursdays = [t for t in thursdays if t.month == month]
        thursday = (
            thursdays[_NTH[match["nth"].casefold()]]
            if _NTH[match["nth"].casefold()] < len(thursdays)
            else None
        )
        if thursday is None:
            return None
        first = max(thursday - timedelta(days=3), first_of_month, today)
        last = min(thursday + timedelta(days=1), date(year, month, calendar.monthrange(year, month)[1]))
        if first <= last:
            return _span_of_days(match[0], first, last)
    return None


_WEEKDAYS_SPAN = _lazy(
    rf"^(?:(?:on|from|any\s*time|any\s*day)\s+)*(?P<first>{_WEEKDAY_WORD})\s*"
    rf"(?:-|\u2013|\bto\b|\bthrough\b|\bthru\b|\buntil\b|\btill\b)\s*(?P<last>{_WEEKDAY_WORD})$",
    re.I,
    needles=("-", "\u2013", "to", "through", "thru", "until", "till"),
)


_RANGE_WORD = r"\s*(?:-|\u2013|\bto\b|\bthrough\b|\bthru\b|\buntil\b|\btill\b|\band\b)\s*"
_DAY_OF_MONTH = r"(?:the\s+)?(?P<{0}>\d{{1,2}})(?:st|nd|rd|th)?"
_DAYS_OF_MONTH = _lazy(
    r"^(?:(?:on|from|between|any\s*time|sometime|some\s+time)\s+)*(?:"
    rf"(?P<month>{_MONTH_WORD})[a-z]*\.?\s+{_DAY_OF_MONTH.format('first')}{_RANGE_WORD}{_DAY_OF_MONTH.format('last')}"
    rf"|{_DAY_OF_MONTH.format('first2')}{_RANGE_WORD}{_DAY_OF_MONTH.format('last2')}\s+(?:of\s+)?"
    rf"(?P<month2>{_MONTH_WORD})[a-z]*\.?)$",
    re.I,
    needles=_MONTH_STEMS,
)


# "in the next 3 days", "within the next couple of days": today to that many days ahead.
_NEXT_DAYS = _lazy(
    r"^(?:(?:with)?in\s+|over\s+)?(?:the\s+)?next\s+(?P<n>\d{1,2}|two|three|four|five|six|couple(?:\s+of)?|few)"
    r"\s+(?:working\s+|business\s+)?days$",
    re.I,
    needles=("next",),
)


def _days_of_month(text: str, ctx: ToolContext) -> RequestedTime | None:
    """'Jan 5-7', '14-16 December', 'December 14th to 16th': those days, this year's or next."""
    match = _DAYS_OF_MONTH.match(text.strip())
    if match is None:
        return None
    said = match[0].strip()
    month = _MONTHS.index((match["month"] or match["month2"])[:3].casefold()) + 1
    first_day, last_day = int(match["first"] or match["first2"]), int(match["last"] or match["last2"])
    today = ctx.local_now.date()
    for year in (today.year, today.year + 1):
        try:
            first, last = date(year, month, first_day), date(year, month, last_day)
        except ValueError:
            raise UnparseableDate(f"'{said}' is not a span of days of the calendar.", field=FIELD) from None
        if last < first:
            raise UnparseableDate(f"'{said}' ends before it starts. Say e.g. 'Jan 5-7'.", field=FIELD)
        if last >= today:
            return _span_of_days(said, first, last)
    return None


# "early January", "mid-February", "the end of March", "late next month": a part of a month, as days.
_MONTH_PART = _lazy(
    r"^(?:(?:in|during|by|around|for)\s+)?(?:the\s+)?"
    r"(?P<part>early|mid|late|end\s+of|beginning\s+of|start\s+of|middle\s+of|first\s+half\s+of|second\s+half\s+of)"
    rf"[\s-]*(?:(?P<month>{_MONTH_WORD})[a-z]*\.?|(?P<which>this|next)\s+month)$",
    re.I,
    needles=("early", "mid", "late", "end", "beginning", "start", "half"),
)
_MONTH_PARTS = {  # the part's first and last day of the month (a negative day counts from its end)
    "early": (1, 10),
    "beginning of": (1, 7),
    "start of": (1, 7),
    "first half of": (1, 15),
    "mid": (11, 20),
    "middle of": (11, 20),
    "second half of": (16, -1),
    "late": (21, -1),
    "end of": (-7, -1),
}


def _month_part(text: str, ctx: ToolContext) -> RequestedTime | None:
    """'early January' the 1st to the 10th, 'mid' the 11th to the 20th, 'late' the 21st to its end, 'the
    end of' its last seven days, 'the beginning of' its first seven: this year's, or next year's once
    the part has passed, from today on."""
    match = _MONTH_PART.match(text.strip())
    if match is None:
        return None
    today = ctx.local_now.date()
    if match["month"]:
        month, year = _MONTHS.index(match["month"][:3].casefold()) + 1, today.year
    else:
        month, year = today.month, today.year
        if match["which"].casefold() == "next":
            year, month = _month_after(year, month)
    part = " ".join(match["part"].casefold().split())

    def days(year: int) -> tuple[date, date]:
        length = calendar.monthrange(year, month)[1]
        first, last = (n if n > 0 else length + 1 + n for n in _MONTH_PARTS[part])
        return date(year, month, first), date(year, month, last)

    first, last = days(year)
    if last < today and match["month"]:
        first, last = days(year + 1)
    return _span_of_days(match[0], max(first, today), last) if last >= today else None


# "next month", "sometime this month": its days (this month's from today on).
_WHOLE_MONTH = _lazy(
    r"^(?:(?:in|during|for|sometime|some\s+time|any\s*time|any\s*day)\s+)*(?:the\s+)?"
    r"(?:(?P<which>this|next|coming)\s+month|month\s+after\s+next)$",
    re.I,
    needles=("month",),
)


def _whole_month(text: str, ctx: ToolContext) -> RequestedTime | None:
    match = _WHOLE_MONTH.match(text.strip())
    if match is None:
        return None
    today = ctx.local_now.date()
    year, month = today.year, today.month
    ahead = 2 if match["which"] is None else 0 if match["which"].casefold() == "this" else 1
    for _ in range(ahead):
        year, month = _month_after(year, month)
    first = max(date(year, month, 1), today)
    return _span_of_days(match[0], first, date(year, month, calendar.monthrange(year, month)[1]))


def _next_days(text: str, ctx: ToolContext) -> RequestedTime | None:
    match = _NEXT_DAYS.match(text.strip())
    if match is None:
        return None
    said = match["n"].casefold()
    days = 2 if said.startswith("couple") else 3 if said == "few" else _days(said)
    today = ctx.local_now.date()
    return _span_of_days(match[0], today, today + timedelta(days=days))


_WEEKEND = _lazy(
    r"^(?:(?:on|at|over|during|for)\s+)?(?:(?P<which>the|this|next|coming)\s+)?weekend$",
    re.I,
    needles=("weekend",),
)


_SOON = _lazy(
    r"^(?:(?:as\s+)?soon\s+as\s+(?:possible|we\s+can|you\s+can)|asap|a\.s\.a\.p\.?|soonest|(?:right\s+)?now"
    r"|right\s+away|immediately|(?:at\s+the\s+)?earliest(?:\s+possible)?|first\s+available)$",
    re.I,
    needles=("soon", "asap", "a.s.a.p", "now", "right", "immediately", "earliest", "first"),
)


def _soon(text: str, ctx: ToolContext) -> RequestedTime | None:
    """'asap', 'as soon as possible', 'first available': today, from now on (the search goes on to the
    next working days)."""
    match = _SOON.match(text.strip())
    if match is None:
        return None
    note = f"'{match[0].strip()}' read as the earliest free times from now."
    return RequestedTime(ctx.local_now.date(), notes=(note,))


def _weekend(text: str, ctx: ToolContext) -> RequestedTime | None:
    """'this weekend', 'the weekend': the coming Saturday and Sunday (today on a weekend day);
    'next weekend' the one after this week's."""
    match = _WEEKEND.match(text.strip())
    if match is None:
        return None
    today = ctx.local_now.date()
    saturday = today + timedelta(days=(5 - today.weekday()) % 7)
    if today.weekday() == 6:  # on a Sunday, this weekend is today
        saturday = today - timedelta(days=1)
    if (match["which"] or "").casefold() == "next":
        saturday += timedelta(days=7)
    first = max(saturday, today)
    last = saturday + timedelta(days=1)
    return _span_of_days(match[0], first, last)


def _weekdays(text: str, ctx: ToolContext) -> RequestedTime | None:
    """'Monday to Wednesday', 'mon-wed', 'between Monday and Wednesday': the coming first day (as the
    day alone reads) to the next last day after it."""
    match = _WEEKDAYS_SPAN.match(text.strip())
    if match is None:
        return None
    today = ctx.local_now.date()
    weekday, last_weekday = (_DAY_NAMES[match[name][:3].casefold()] for name in ("first", "last"))
    first = today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)
    last = first + timedelta(days=(last_weekday - weekday) % 7)
    return _span_of_days(match[0], first, last)


def _span_of_days(said: str, first: date, last: date, why: str = "") -> RequestedTime:
    """The span of days ``said`` was read as, and a note saying so ("'mon-wed' read as Mon 7 Dec to
    Wed 9 Dec.")."""
    days = _label(first) if first == last else f"{_label(first)} to {_label(last)}"
    return RequestedTime(first, notes=(f"'{said.strip()}' read as {days}{why}.",), last_day=last)


def _days_of(span: RequestedTime) -> list[date]:
    """The days a time or hours said on a span of days hold for: each day of a week or less ("this
    weekend at 3pm" too), each working day of a longer one ("next month at 3pm")."""
    days = span.days
    return days if len(days) <= 7 else [day for day in days if day.weekday() < 5]


def _each_day(span: RequestedTime) -> str:
    return "each day" if len(span.days) <= 7 else "each working day"
