"""One alternative of a phrase read as an option: a day or a span of days, and a time or hours on it.

The spans whose day is itself a phrase ("by Friday", "from Thursday on", "the week of the 14th") and
the week said alone, which tries them, are read here: reading their day reads an alternative."""

from __future__ import annotations

import re
from datetime import date, time, timedelta

from msgspec.structs import replace

from multitool.toolkit.context import ToolContext
from multitool.toolkit.errors import UnparseableDate
from multitool.tools.meeting.when.clock import PARTS_OF_DAY, _read_times, _Reading
from multitool.tools.meeting.when.days import _NAMED_DAY_WORD, _relative_days
from multitool.tools.meeting.when.natural import _DAY_NAMES, _natural, _plain_day
from multitool.tools.meeting.when.patterns import _MONTH_WORD, _WEEKDAY_STEMS, _WEEKDAY_WORD, _lazy
from multitool.tools.meeting.when.request import FIELD, RequestedTime, _hhmm, _label
from multitool.tools.meeting.when.spans import (
    _days_of_month,
    _each_day,
    _month_part,
    _next_days,
    _soon,
    _span_of_days,
    _week_of_month,
    _weekdays,
    _weekend,
    _whole_month,
)

_WEEKDAY = _lazy(
    r"\b(?:(next|this|coming)\s+)?(mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\b",
    re.I,
    needles=_WEEKDAY_STEMS,
)
_FILLER = _lazy(r"^(?:(?:in|at|by|around|during|before|on|for|this|the|later)\s*)*$", re.I)


# "this time tomorrow", "same time next week": the time it is now (to five minutes), that day.
_SAME_TIME = _lazy(
    r"\b(?:at\s+)?(?:this|the\s+same|same)\s+time(?P<week>\s+next\s+week)?\b", re.I, needles=("time",)
)


_WEEK_SPAN = _lazy(
    r"^(?:(?:in|during|for|sometime|some\s+time|any\s*time|any\s*day|any\s*week\s*day|a\s+week\s*day|week\s*day"
    r"|any|by|at|on)\s+)*(?:the\s+)?"
    r"(?:(?P<part>early|late|later|mid|(?:the\s+)?middle\s+of|(?:the\s+)?end\s+of|(?:the\s+)?start\s+of"
    r"|(?:the\s+)?beginning\s+of)[\s-]*(?:in\s+)?)?"
    r"(?:the\s+)?(?:(?P<which>next|this|the)\s+)?week(?P<after_next>\s+after\s+next)?$",
    re.I,
    needles=("week",),
)


_AT_CLOCK = _lazy(r"(?:\b(?:from|around)\s+)?(?:\bat\s+)?\b(?P<clock>\d{2}:\d{2})\b", needles=(":",))


# "by Friday", "before Thursday", "no later than the 10th", "after Wednesday": the days up to it (or
# after it).
_A_DAY = (  # a day a deadline or an earliest day names
    rf"(?:(?:next|this|coming)\s+)?{_WEEKDAY_WORD}|tomorrow|(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)"
    rf"|{_MONTH_WORD}[a-z]*\.?\s+\d{{1,2}}(?:st|nd|rd|th)?|(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_WORD}[a-z]*"
    rf"|(?:the\s+)?{_NAMED_DAY_WORD}"
)
_DEADLINE_DAY = _lazy(
    r"^(?:(?:any\s*time|anytime|sometime|some\s+time)\s+)?(?P<how>before|by|until|till|no\s+later\s+than|after)\s+"
    rf"(?P<day>{_A_DAY}|(?:the\s+)?end\s+of\s+(?:the\s+)?(?:week|month))$",
    re.I,
    needles=("before", "by", "until", "till", "later", "after"),
)
# "from Thursday on", "starting Monday", "not until the 10th", "Thursday at the earliest": that day
# and the six after it (the search starts there).
_FROM_DAY = _lazy(
    r"^(?:(?:any\s*time|anytime|sometime|some\s+time)\s+)?"
    r"(?:(?:from|starting(?:\s+(?:from|on))?|beginning|no\s+earlier\s+than|not\s+(?:until|till|before))\s+"
    rf"(?P<day>{_A_DAY})(?:\s+(?:on(?:wards?)?|or\s+later|and\s+later|at\s+the\s+earliest))?"
    rf"|(?P<day2>{_A_DAY})\s+(?:on(?:wards?)?|or\s+later|and\s+later|at\s+the\s+earliest))$",
    re.I,
    needles=(
        "from",
        "starting",
        "beginning",
        "earlier",
        "until",
        "till",
        "before",
        "onward",
        "later",
        "earliest",
        " on",
    ),
)


def _deadline(text: str, ctx: ToolContext) -> RequestedTime | None:
    """'by Friday': today to that Friday; 'before Thursday': to the day before; 'after Wednesday': the
    week after it."""
    match = _DEADLINE_DAY.match(text.strip())
    if match is None:
        return None
    said_day, _ = _natural_reading(match["day"], ctx)
    if said_day is None:
        return None
    today = ctx.local_now.date()
    how = " ".join(match["how"].casefold().split())
    if how == "after":
        first = (said_day.last_day or said_day.day) + timedelta(days=1)
        last = first + timedelta(days=6)
    else:
        first, last = (
            today,
            said_day.day - timedelta(days=1) if how == "before" else said_day.last_day or said_day.day,
        )
    if last < first:
        return None
    return _span_of_days(match[0], first, last)


# "the week of the 14th", "the week of December 14": that day's week, Monday to Friday.
_WEEK_OF = _lazy(r"^(?:(?:in|during)\s+)?(?:the\s+)?week\s+of\s+(?P<day>.+)$", re.I, needles=("week of",))


def _week_of(text: str, ctx: ToolContext) -> RequestedTime | None:
    match = _WEEK_OF.match(text.strip())
    if match is None:
        return None
    said, left = _natural_reading(match["day"], ctx)
    if said is None or left or said.last_day is not None or said.time is not None or said.window is not None:
        return None  # a time said with the day is read with the week ("the week of the 14th at 3pm")
    monday = said.day - timedelta(days=said.day.weekday())
    first, last = max(monday, ctx.local_now.date()), monday + timedelta(days=4)
    return _span_of_days(match[0], first, last) if first <= last else None


def _from_day(text: str, ctx: ToolContext) -> RequestedTime | None:
    match = _FROM_DAY.match(text.strip())
    if match is None:
        return None
    said_day, left = _natural_reading(match["day"] or match["day2"], ctx)
    if said_day is None or left:
        return None
    return _span_of_days(match[0], said_day.day, (said_day.last_day or said_day.day) + timedelta(days=6))


def _week_span(text: str, ctx: ToolContext) -> RequestedTime | None:
    """A week said alone, as its working days: 'next week' Monday to Friday, 'this week' today to
    Friday; 'early next week' its Monday and Tuesday, 'midweek' and 'the middle of next week' Tuesday to
    Thursday, 'the end of the week' Thursday and Friday, 'later this week' tomorrow to Friday."""
    match = _WEEK_SPAN.match(text.strip())
    if match is None:
        return (
            _week_of_month(text, ctx)
            or _weekdays(text, ctx)
            or _days_of_month(text, ctx)
            or _deadline(text, ctx)
            or _from_day(text, ctx)
            or _month_part(text, ctx)
            or _whole_month(text, ctx)
            or _week_of(text, ctx)
            or _next_days(text, ctx)
            or _weekend(text, ctx)
            or _soon(text, ctx)
        )
    if match is None or (match["which"] is None and match["part"] is None and match["after_next"] is None):
        return None
    today = ctx.local_now.date()
    monday = today - timedelta(days=today.weekday())
    weekend = today.weekday() >= 5 and (match["which"] or "this").casefold() != "next"
    if match["after_next"]:  # "the week after next"
        monday += timedelta(days=14)
    elif (match["which"] or "").casefold() == "next" or weekend:
        monday += timedelta(days=7)  # at the weekend, "this week" is the one about to start
    part = " ".join((match["part"] or "").casefold().split()).removeprefix("the ")

    def days_of(monday: date) -> tuple[date, date]:
        first, last = max(monday, today), monday + timedelta(days=4)
        if part in ("early", "start of", "beginning of"):
            last = monday + timedelta(days=1)
        elif part in ("mid", "middle of"):
            first, last = max(monday + timedelta(days=1), today), monday + timedelta(days=3)
        elif part == "end of":
            first = max(monday + timedelta(days=3), today)
        elif part in ("late", "later"):
            first = (
                max(monday + timedelta(days=3), today + timedelta(days=1))
                if part == "late"
                else max(monday, today + timedelta(days=1))
            )
        return first, last

    first, last = days_of(monday)
    why = ", the week about to start" if weekend else ""
    if last < first and (match["which"] or "the").casefold() == "the" and not match["after_next"]:
        first, last = days_of(monday + timedelta(days=7))  # "midweek" on a Friday: next week's
        why = ", next week's (this week's has passed)"
    if last < first:  # "early this week" on a Thursday
        return None
    return _span_of_days(match[0], first, last, why)


def _natural_reading(cleaned: str, ctx: ToolContext) -> tuple[RequestedTime | None, list[str]]:
    """The reading of one alternative, and the words of it that were not read."""
    same = _SAME_TIME.search(cleaned)
    if same is None:
        return _reading_of(cleaned, ctx)
    # "this time tomorrow", "same time next week": the time it is now (to five minutes)
    local_now = ctx.local_now
    at = time(local_now.hour, local_now.minute - local_now.minute % 5)
    week = f" {(local_now.date() + timedelta(days=7)).isoformat()} " if same["week"] else " "
    option, unread = _reading_of(
        " ".join(f"{cleaned[: same.start()]} at {_hhmm(at)}{week}{cleaned[same.end() :]}".split()), ctx
    )
    if option is None:
        return None, unread
    note = f"'{same[0].strip()}' read as {_hhmm(at)}, the time now."
    return replace(option, notes=(note, *option.notes)), unread


def _reading_of(cleaned: str, ctx: ToolContext) -> tuple[RequestedTime | None, list[str]]:
    unread: list[str] = []
    parsed = _plain_day(cleaned, ctx)
    if parsed is not None:  # one word names the day: no span, time, part of the day or relative day
        reading, notes = _Reading(cleaned), []
    else:
        span = _week_span(cleaned, ctx)
        if span is not None:
            return span, []
        reading = _read_times(cleaned)
        notes = list(reading.notes or [])
        hours = reading.window or (PARTS_OF_DAY.get(reading.part) if reading.part else None)
        clock = _AT_CLOCK.search(reading.text) if hours is None else None
        if clock is not None:  # "next week at 3pm": that time, each day of the span
            week = _week_span(f"{reading.text[: clock.start()]} {reading.text[clock.end() :]}", ctx)
            if week is not None and week.last_day is not None:
                at = time.fromisoformat(clock["clock"])
                days = f"{_each_day(week)}, {_label(week.day)} to {_label(week.last_day)}"
                days = f"on {_label(week.day)}" if week.day == week.last_day else days
                each = f"'{cleaned}' read as {_hhmm(at)} {days}."
                return RequestedTime(week.day, at, notes=(*notes, each), last_day=week.last_day), []
        week = _week_span(reading.text, ctx) if hours is not None else None
        if week is not None and hours is not None and week.last_day is not None:
            # "next week in the afternoon": those hours, each day of the span
            days = f"{_label(week.day)} to {_label(week.last_day)}"
            each = f"'{cleaned}' read as {_hhmm(hours[0])}-{_hhmm(hours[1])} {_each_day(week)}, {days}."
            if week.day == week.last_day:
                each = f"'{cleaned}' read as {_hhmm(hours[0])}-{_hhmm(hours[1])} on {_label(week.day)}."
            part = reading.part if reading.window is None else None
            return RequestedTime(week.day, None, hours, part, (each,), week.last_day), []
        rest, guessed = _relative_days(reading.text, ctx)
        notes += guessed
        if _FILLER.match(rest):  # only a part of the day ("this afternoon", "tonight"): today
            rest = "today"
        parsed, unread = _natural(rest, ctx)
        if parsed is None:
            return None, unread
        said_time = bool(re.search(r"\d{2}:\d{2}", rest))
        if said_time and parsed.time is None:
            raise UnparseableDate(
                f"Could not read the time in '{cleaned}'. Say e.g. '3pm' or '15:00'.", field=FIELD
            )
    for match in _WEEKDAY.finditer(cleaned):
        label = _label(parsed.day)
        if parsed.day.weekday() != _DAY_NAMES[match[2][:3].casefold()] and parsed.last_day is None:
            notes.insert(0, f"'{match[0]}' is not the weekday of {label}, the day read: check the day.")
            break
        today = ctx.local_now.date()
        coming = (parsed.day.weekday() - today.weekday() - 1) % 7 + 1  # days to the next such weekday
        ahead = (parsed.day - today).days
        if ahead == 0:
            which = "today"
        elif ahead == coming:
            which = "next week's, since today is that day" if coming == 7 else "the coming one"
        elif ahead == coming + 7:
            which = "a week after the coming one"
        else:
            which = f"{ahead} days ahead"
        notes.insert(0, f"'{match[0]}' read as {label} ({which}).")
        break
    window = reading.window or (PARTS_OF_DAY.get(reading.part) if reading.part else None)
    if reading.window is None and window is not None and reading.part is not None:
        notes.append(f"'{reading.part}' read as {_hhmm(window[0])}-{_hhmm(window[1])}.")
    part = reading.part if reading.window is None else None
    return RequestedTime(parsed.day, parsed.time, window, part, tuple(notes)), unread
