"""A day or time as people say it -> a concrete day (and maybe a time) in the user's zone.

ISO 8601 goes through :func:`datetime.fromisoformat` (then ``dateutil``'s
``isoparse`` for the basic format); everything else through ``parsedatetime``,
relative to ``ctx.now`` in the user's time zone. Conventions (parsedatetime's):

- a weekday name is its next occurrence after today ("Thursday" said on a
  Thursday is next week's); "today" is today;
- "next Tuesday" is the coming Tuesday; "tomorrow at 3pm" carries a time;
- a day before today, or a time already past, is rejected, as is anything
  more than a year ahead or text that names no date;
- a time that cannot exist ("25:00", "13pm", "9:75") is rejected, never dropped;
- a part of the day narrows the search to hours (:data:`PARTS_OF_DAY`): first
  thing 09:00-10:00, morning and before lunch 09:00-12:00, lunchtime 12:00-14:00,
  afternoon and after lunch 13:00-17:00, end of day 16:00-18:00, evening and
  tonight 17:00-19:00, each early, mid or late in it its first, middle or last
  hours ("late afternoon" 15:00-17:00); noon and midday are 12:00; a span of hours
  ("2-3pm", "between 2 and 4"), a latest end ("by 3pm", "before noon", "by
  midnight": from 09:00) and an earliest start ("after 3pm", "4pm onwards": to
  18:00, or the hour after it in the evening) narrow it the same way;
- an hour without am/pm from 1 to 7 ("at 3", "2:30", "around 3", "3ish") is read
  as the afternoon;
- what parsedatetime misreads is rewritten first: shortened weekdays ("thurs"),
  dotted times ("9.30"), a weekday of a week ("Friday next week", "Monday week":
  a week after the coming Monday), a day of the month ("the 15th"), a numeric
  date that can only be day/month ("15/12"), the day after tomorrow; a weekday
  said that is not the weekday of the day read is noted, never trusted.

Every such reading is said in :attr:`RequestedTime.notes`, so the card shows it.
"""

from __future__ import annotations

import calendar
import contextvars
import functools
import re
import time as _clock
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any, cast
from zoneinfo import ZoneInfo

import msgspec
from msgspec.structs import replace

from multitool.tools.base import DateInPast, ToolContext, UnparseableDate
from multitool.zones import DateOrder, date_order

if TYPE_CHECKING:
    from collections.abc import Iterator

    import parsedatetime


class _LazyPattern:
    """A regular expression compiled on its first use. Every function that serves the meeting tool
    imports this module, the review function too, which never reads a phrase: compiling this module's
    patterns at import cost it 5-12 ms of CPU (Python 3.13) on every cold start.

    ``needles``: text one of which every match holds (casefolded). A phrase without any cannot match,
    so the pattern is neither compiled nor run for it: the first phrase a container reads compiles only
    the patterns it could use ("Thursday at 3pm" compiles none of those for spans of days, lengths or
    earliest starts). ``tests/unit/test_tools_when.py`` reads every phrase of its tables and a random
    corpus with and without the needles, and holds the readings equal."""

    def __init__(self, pattern: str, flags: int, needles: tuple[str, ...]) -> None:
        self.source = (pattern, flags)
        self.needles = needles

    @functools.cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(*self.source)

    def absent(self, text: str) -> bool:
        """Whether ``text`` holds none of the needles: the pattern cannot match it."""
        if not self.needles:
            return False
        folded = text.casefold()
        return not any(needle in folded for needle in self.needles)

    def sub(self, repl: Any, string: str, count: int = 0) -> str:
        return string if self.absent(string) else self.compiled.sub(repl, string, count)

    def search(self, string: str, *span: int) -> re.Match[str] | None:
        return None if self.absent(string) else self.compiled.search(string, *span)

    def match(self, string: str, *span: int) -> re.Match[str] | None:
        return None if self.absent(string) else self.compiled.match(string, *span)

    def finditer(self, string: str) -> Iterator[re.Match[str]]:
        return iter(()) if self.absent(string) else self.compiled.finditer(string)

    def split(self, string: str) -> list[str]:
        return [string] if self.absent(string) else self.compiled.split(string)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled, name)


LAZY_PATTERNS: list[_LazyPattern] = []
"""This module's patterns, each compiled when first used."""


def _lazy(pattern: str, flags: int = 0, needles: tuple[str, ...] = ()) -> re.Pattern[str]:
    lazy = _LazyPattern(pattern, flags, needles)
    LAZY_PATTERNS.append(lazy)
    return cast("re.Pattern[str]", lazy)


_DIGITS = tuple("0123456789")
_WEEKDAY_STEMS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_MONTH_STEMS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


MAX_DAYS_AHEAD = 366
_Clock = time  # ``RequestedTime.time`` shadows the type inside the class body
FIELD = "when"


class RequestedTime(msgspec.Struct, frozen=True):
    """When the user asked to meet, as read from their words: a day, perhaps a time or a part of it."""

    day: date
    time: time | None = None
    window: tuple[_Clock, _Clock] | None = None
    """Local hours a part of the day ("morning") narrows each searched day to."""
    part: str | None = None
    """The part of the day as said, when one was."""
    notes: tuple[str, ...] = ()
    """Every guess made reading the text, in words for the card."""
    last_day: date | None = None
    """The last day of a span of days ("next week"); None for one day."""
    zone: ZoneInfo | None = None
    """The zone the day and times are wall-clock values in; None for the user's zone."""

    def zone_of(self, ctx: ToolContext) -> ZoneInfo:
        return self.zone if self.zone is not None else ctx.zone

    def start(self, ctx: ToolContext) -> datetime | None:
        """The asked-for moment as an aware datetime in its zone, if a time was given."""
        if self.time is None:
            return None
        return datetime.combine(self.day, self.time, tzinfo=self.zone_of(ctx))

    @property
    def days(self) -> list[date]:
        """Every day asked for: one, or each day of a span."""
        last = self.last_day or self.day
        return [self.day + timedelta(days=n) for n in range((last - self.day).days + 1)]

    def admits(self, given: RequestedTime) -> bool:
        """Whether an option passed for this one, as read from the phrase, says the same: the same day
        or days, and the time said (or a window from it: "at 3pm", 15:00-16:00) or a time or hours
        within the hours said ("Thursday afternoon", 14:00; "after 3pm", 15:00-17:00). A day said alone
        admits no time."""
        if (given.day, given.last_day or given.day) != (self.day, self.last_day or self.day):
            return False
        if self.time is not None:
            return given.time == self.time or (given.window is not None and given.window[0] == self.time)
        if self.window is not None:
            opens, closes = self.window
            if given.time is not None:
                return opens <= given.time < closes
            return given.window is not None and opens <= given.window[0] < given.window[1] <= closes
        return given.time is None and given.window is None

    def value(self) -> str:
        """The option as the contract writes it: '2026-12-03', '2026-12-03T16:00',
        '2026-12-03T09:00/12:00' or '2026-12-03/2026-12-07'."""
        text = self.day.isoformat()
        if self.time is not None:
            return f"{text}T{_hhmm(self.time)}"
        if self.window is not None:
            return f"{text}T{_hhmm(self.window[0])}/{_hhmm(self.window[1])}"
        if self.last_day is not None and self.last_day != self.day:
            return f"{text}/{self.last_day.isoformat()}"
        return text


class TimeRequest(msgspec.Struct, frozen=True):
    """What a meeting call asks for: alternatives in order, days not to offer, notes on the reading."""

    options: tuple[RequestedTime, ...]
    excluded: frozenset[date] = frozenset()
    notes: tuple[str, ...] = ()

    @property
    def first(self) -> RequestedTime:
        return self.options[0]


def as_request(requested: RequestedTime | TimeRequest) -> TimeRequest:
    return (
        requested if isinstance(requested, TimeRequest) else TimeRequest((requested,), notes=requested.notes)
    )


PARTS_OF_DAY: dict[str, tuple[time, time]] = {
    "first thing": (time(9), time(10)),
    "morning": (time(9), time(12)),
    "before lunch": (time(9), time(12)),
    "lunchtime": (time(12), time(14)),
    "after lunch": (time(13), time(17)),
    "afternoon": (time(13), time(17)),
    "end of day": (time(16), time(18)),
    "evening": (time(17), time(19)),
    "tonight": (time(17), time(19)),
    "am": (time(9), time(12)),
    "pm": (time(13), time(17)),
    "early morning": (time(9), time(10, 30)),
    "mid morning": (time(10), time(11, 30)),
    "late morning": (time(10, 30), time(12)),
    "early afternoon": (time(13), time(15)),
    "mid afternoon": (time(14), time(16)),
    "late afternoon": (time(15), time(17)),
    "early evening": (time(17), time(18)),
    "mid evening": (time(17, 30), time(18, 30)),
    "late evening": (time(18), time(19)),
    "breakfast": (time(8), time(10)),
    "after work": (time(17), time(19)),
    "dinner": (time(18), time(20)),
}
"""Part of the day -> local [start, end) hours the slots must lie in."""

_LEAD = r"(?:\b(?:in|at|by|around|during|before|on|for|this|over)\s+)?(?:\bthe\s+)?"
_PARTS = [
    (
        "end of day",
        _lazy(
            _LEAD + r"\b(?:end\s+of\s+(?:the\s+)?(?:day|business)|eod|cob|close\s+of\s+business)\b",
            re.I,
            ("end", "eod", "cob", "close"),
        ),
    ),
    ("first thing", _lazy(r"\bfirst\s+thing(?:\s+in\s+the\s+morning)?\b", re.I, ("first",))),
    ("after work", _lazy(r"\bafter\s+work\b", re.I, ("work",))),
    ("breakfast", _lazy(_LEAD + r"\bbreakfast(?:\s*time)?\b", re.I, ("breakfast",))),
    ("dinner", _lazy(_LEAD + r"\bdinner(?:\s*time)?\b", re.I, ("dinner",))),
    ("before lunch", _lazy(r"\bbefore\s+lunch(?:\s*time)?\b", re.I, ("lunch",))),
    ("after lunch", _lazy(r"\bafter\s+lunch(?:\s*time)?\b", re.I, ("lunch",))),
    ("lunchtime", _lazy(_LEAD + r"\blunch(?:\s*time)?\b", re.I, ("lunch",))),
    ("morning", _lazy(_LEAD + r"\bmornings?\b", re.I, ("morning",))),
    ("afternoon", _lazy(_LEAD + r"\b(?:afternoons?|aft|arvo)\b", re.I, ("afternoon", "aft", "arvo"))),
    ("evening", _lazy(_LEAD + r"\bevenings?\b", re.I, ("evening",))),
    ("tonight", _lazy(_LEAD + r"\btonight\b", re.I, ("tonight",))),
    # "tmrw am", "fri pm": am or pm with no hour before it
    ("am", _lazy(r"(?<![\d:.])(?<![\d:.]\s)\b(?:a\.m\.|am)(?![\w.])", re.I, ("am", "a.m."))),
    ("pm", _lazy(r"(?<![\d:.])(?<![\d:.]\s)\b(?:p\.m\.|pm)(?![\w.])", re.I, ("pm", "p.m."))),
]
# "late afternoon", "mid-morning", "early evening": the part's first, middle or last hours.
_SHADED_PART = _lazy(
    _LEAD + r"\b(?P<shade>early|mid|late)[\s-]*(?P<part>morning|afternoon|evening)s?\b",
    re.I,
    needles=("early", "mid", "late"),
)
_NOON = _lazy(r"\b(?:noon|midday)(?:\s*-?\s*ish)?\b", re.I, needles=("noon", "midday"))
# "4pm", "4:30 p.m.", "9.30am" and "930am"; "14:30" and "9.30" (not "30.11.2026" nor "2026.12.10").
_MERIDIEM = _lazy(r"\b(\d{1,2})(?:[:.](\d{1,2})|(\d{2}))?\s*([ap])\.?\s?m\b\.?", re.I, needles=_DIGITS)
_CLOCK = _lazy(
    r"(?<![\d.:/])\b(\d{1,2})[:.](\d{2})\b(?!\s*[ap]\.?\s?m\b)(?![.:/]\d)", re.I, needles=(":", ".")
)
_HOUR_WORDS = {
    word: number
    for number, word in enumerate(
        ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"), 1
    )
}
_SPELLED = "|".join(_HOUR_WORDS)
"""The hours spelled out, as one alternation."""
_CLOCK_WORDS = _lazy(
    r"\b(?P<how>half(?:\s+past)?|(?:a\s+)?quarter\s+past|(?:a\s+)?quarter\s+to"
    # "ten past nine", "twenty to 4", "5 past 3", "20 after 2" ("10 to 11" in digits is a span of hours)
    r"|(?P<minutes>five|ten|twenty(?:[\s-]five)?|\d{1,2}(?=\s+(?:minutes?\s+(?:past|to|after)|past|after)\b))"
    r"\s+(?:minutes?\s+)?(?P<way>past|to|after))\s+"
    rf"(?P<hour>\d{{1,2}}|{_SPELLED})\b",
    re.I,
    needles=("half", "quarter", "past", " to ", "after"),
)
_MINUTE_WORDS = {"five": 5, "ten": 10, "twenty": 20, "twenty five": 25}
# A span of hours: "2-3pm", "from 2 to 4", "between 14:00 and 15:30", "11am-1pm".
_ENDPOINT = (
    r"(?:(?P<{0}_noon>noon|midday)|(?P<{0}_hour>\d{{1,2}})(?:[:.](?P<{0}_minute>\d{{2}}))?"
    r"\s*(?P<{0}_half>[ap]\.?\s?m\b\.?)?)"
)
_RANGE = _lazy(
    r"(?<![\d/.:-])\b(?P<lead>from\s+|between\s+)?"
    + _ENDPOINT.format("first")
    + r"\s*(?P<sep>-|\u2013|\u2014|\bto\b|\buntil\b|\btill\b|\band\b)\s*"
    + _ENDPOINT.format("second")
    + r"(?![\d/.:-])(?!\s*(?:days?|weeks?|months?|hours?|hrs?|h\b|mins?|minutes?|people|of\b))",
    re.I,
    needles=("-", "\u2013", "\u2014", "to", "until", "till", "and"),
)
# What may follow a number that makes it no hour: "after 2 weeks", "around 3 days", "by the 15th".
_NOT_AN_HOUR = (
    r"(?!\s*(?:days?|weeks?|months?|years?|hours?|hrs?|h\b|mins?|minutes?|people|st\b|nd\b|rd\b|th\b))"
)
# A latest end: "before 11", "by 3pm", "until 5", "no later than noon", "by midnight" (the day's first
# hours up to it).
_BEFORE = _lazy(
    r"\b(?:before|by|until|till|up\s+to|no\s+later\s+than)\s+(?:(?P<midnight>midnight)|"
    + _ENDPOINT.format("by")
    + r")(?![\d:./-])"
    + _NOT_AN_HOUR,
    re.I,
    needles=("before", "by", "until", "till", "up", "later"),
)
# An earliest start: "after 3pm", "any time after 2", "no earlier than 10", "4pm onwards", "from 3 on".
_AFTER = _lazy(
    r"\b(?:(?:(?:any\s*time|anytime|some\s*time|sometime)\s+)?(?:after|no\s+earlier\s+than|not\s+before)\s+"
    + _ENDPOINT.format("after")
    + r"(?:\s+onwards?\b)?|(?:from\s+)?"
    + _ENDPOINT.format("from")
    + r"\s*(?:onwards?|on(?=\s*$)|or\s+later|and\s+later)\b)(?![\d:./-])"
    + _NOT_AN_HOUR,
    re.I,
    needles=("after", "earlier", "before", "on", "later"),
)
_DAY_STARTS = time(9)
_DAY_ENDS = time(18)
"""Where an earliest start's hours end ("after 3pm": 15:00-18:00), as the end of day does."""
_LAST_MINUTE = time(23, 59)
# "from 3pm" with no end or "onwards", once written 15:00: the time it starts (parsedatetime reads
# "tomorrow from 15:00" as 09:00).
_FROM_CLOCK = _lazy(r"\bfrom\s+(?=\d{2}:\d{2}\b)", re.I, needles=("from",))
# "17h", "9h30": the 24-hour clock as much of Europe writes it ("2h" alone is a length, not a time).
_H_CLOCK = _lazy(
    r"\b(?:(?P<lead>at|from|by|before|after|until|till|around)\s+)?(?P<hour>\d{1,2})h(?P<minute>\d{2})?\b",
    re.I,
    needles=tuple(f"{digit}h" for digit in _DIGITS),
)
# "1500hrs", "15:00h", "0930 hrs": the 24-hour clock with its suffix ("2 hours" is a length, not this).
_HRS_CLOCK = _lazy(
    r"\b(?P<hour>\d{1,2}):?(?P<minute>\d{2})\s*(?:hrs?|h)\b",
    re.I,
    needles=tuple(f"{digit}h" for digit in _DIGITS) + tuple(f"{digit} h" for digit in _DIGITS),
)
# "5 o'clock", "four o'clock": that hour, read as "at" reads it.
_OCLOCK = _lazy(r"(?:\bat\s+)?\b(?P<hour>\d{1,2}|[a-z]+)\s*o['\u2019]?\s*clock\b", re.I, needles=("clock",))
# An hour spelled out after a word that makes it one: "at four", "between two and four".
_SPELLED_HOUR = _lazy(
    r"(?P<lead>\b(?:at|from|around|about|by|before|after|until|till|between)\s+"
    r"|(?:(?<=\d)|(?<=[ap]m))\s*(?:to|and|until|till|-)\s*)"
    rf"(?P<hour>{_SPELLED})\b"
    r"(?!\s*(?:days?|weeks?|months?|hours?|hrs?|mins?|minutes?|people|of|others|more|times)\b)",
    re.I,
    needles=tuple(_HOUR_WORDS),
)
# How long, not when ("for 2 hours", "30 min", "an hour"): the meeting's length is a field of its own,
# and parsedatetime reads a length as that long from now ("Thursday for an hour": Thursday 17:00 at 16:00).
# "in 3 hours" is a time.
_LENGTH = _lazy(
    r"(?<!\bin\s)(?<!\bwithin\s)\b(?:for\s+)?(?:(?:about|around|roughly)\s+)?"
    r"(?:\d{1,3}(?:\.\d+)?\s*(?:minutes?|mins?|hours?|hrs?|h)\b|(?:an?|one)\s+hour(?:\s+and\s+a\s+half)?\b"
    r"|half\s+an?\s+hour\b|an?\s+half[\s-]hour\b|(?:a|one|three)\s+quarters?\s+of\s+an\s+hour\b)(?:\s+long\b)?",
    re.I,
    needles=("hour", "min", "hr", *(f"{digit}{gap}h" for digit in _DIGITS for gap in ("", " "))),
)
# "around 3", "about 10", "3ish", "2:30-ish": the hour said, read as "at" reads it.
_ISH = _lazy(r"\b(\d{1,2}(?:[:.]\d{2})?(?:\s*[ap]\.?\s?m\b\.?)?)\s*-?\s*ish\b", re.I, needles=("ish",))
_BARE_HOUR = _lazy(
    r"\b(?:at|from|around|about|roughly|approximately|approx\.?)\s+(\d{1,3})\b"
    r"(?!\s*(?::|[ap]\.?\s?m\b|h\b|st\b|nd\b|rd\b|th\b))" + _NOT_AN_HOUR,
    re.I,
    needles=("at", "from", "around", "about", "roughly", "approx"),
)
_WEEKDAY = _lazy(
    r"\b(?:(next|this|coming)\s+)?(mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\b",
    re.I,
    needles=_WEEKDAY_STEMS,
)
_FILLER = _lazy(r"^(?:(?:in|at|by|around|during|before|on|for|this|the|later)\s*)*$", re.I)
# What is left of "any time except Thursday" once the day ruled out is taken away.
_ANY_DAY = _lazy(
    r"^(?:(?:at|on|for|the)\s+)*(?:any\s*(?:time|day|week\s*day)|whenever)(?:\s+works)?$",
    re.I,
    needles=("any", "whenever"),
)
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


_AFTERNOON_HOURS = range(1, 8)  # "at 3" at work means 15:00, not 03:00
_EVENING_HOURS = range(1, 12)  # "tonight at 8" means 20:00, not 08:00
_EVENING_PARTS = frozenset(
    {"tonight", "evening", "early evening", "mid evening", "late evening", "dinner", "after work"}
)
"""Parts of the day in which an hour without am/pm from 1 to 11 is in the evening."""


def _hhmm(moment: time) -> str:
    return moment.strftime("%H:%M")


def _impossible(cleaned: str, said: str) -> UnparseableDate:
    """A time that cannot exist, named, with why (the user reads it: the scheduler shows it as said)."""
    return UnparseableDate(
        f"'{said}' in '{cleaned}' is not a time of day: hours run from 00:00 to 23:59, or 1 to 12 "
        "with am or pm. Say e.g. '3pm', '15:00' or 'morning'.",
        field=FIELD,
    )


def example_time(ctx: ToolContext) -> str:
    """A time to show as an example in a message: tomorrow at 15:00 for this user, never a past one."""
    return f"{(ctx.local_now.date() + timedelta(days=1)).isoformat()}T15:00"


class _Reading(msgspec.Struct):
    """What the pre-reading found: the text left for parsedatetime, a part of the day, notes."""

    text: str
    part: str | None = None
    notes: list[str] | None = None
    window: tuple[time, time] | None = None
    """A span of hours said as one ("2-3pm", "between 2 and 4")."""


def _span(match: re.Match[str], cleaned: str, pm_hours: range = _AFTERNOON_HOURS) -> tuple[time, time] | None:
    """The hours a span names, its halves of the day shared ("2-3pm": both pm; "11-1pm": 11am to 1pm);
    without am or pm, 1 to 7 is the afternoon (1 to 11 in the evening: "tonight 8-9"), as for one hour.
    None when "and" is not a span."""
    if match["sep"].casefold() == "and" and (match["lead"] or "").strip().casefold() != "between":
        return None  # "at 2 and 4" is two times, not a span
    ends: list[list[int]] = []
    for side in ("first", "second"):
        if match[f"{side}_noon"]:
            ends.append([12, 0])
            continue
        hour, minute = int(match[f"{side}_hour"]), int(match[f"{side}_minute"] or 0)
        if hour > 23 or minute > 59:
            raise _impossible(cleaned, match[0].strip())
        ends.append([hour, minute])
    halves = [
        "p" if match[f"{side}_noon"] else (match[f"{side}_half"] or "")[:1].casefold()
        for side in ("first", "second")
    ]
    for (hour, _), half in zip(ends, halves, strict=True):
        if half and not 1 <= hour <= 12:
            raise _impossible(cleaned, match[0].strip())
    second_half = halves[1] or halves[0]
    first_half = halves[0] or second_half
    if second_half:
        ends[1][0] = ends[1][0] % 12 + (12 if second_half == "p" else 0)
    if first_half:
        ends[0][0] = ends[0][0] % 12 + (12 if first_half == "p" else 0)
        if (
            not halves[0]
            and ends[0] >= ends[1]
            and first_half == "p"
            and ends[0][0] - 12 not in _AFTERNOON_HOURS
        ):
            ends[0][0] -= 12  # "11-1pm": 11 in the morning
    else:  # no am/pm: the working day's reading of 1 to 7 (of 1 to 11 in the evening)
        for clock in ends:
            if clock[0] in pm_hours:
                clock[0] += 12
    opens, closes = (time(hour, minute) for hour, minute in ends)
    if closes <= opens:
        raise UnparseableDate(
            f"'{match[0].strip()}' in '{cleaned}' ends before it starts. Say e.g. '2-3pm' or '14:00-15:30'.",
            field=FIELD,
        )
    return opens, closes


def _one_clock(match: re.Match[str], side: str, cleaned: str, pm_hours: range = _AFTERNOON_HOURS) -> time:
    """The time one end of a match names (groups ``{side}_noon``, ``_hour``, ``_minute``, ``_half``);
    without am or pm, 1 to 7 is the afternoon (1 to 11 in the evening)."""
    if match[f"{side}_noon"]:
        return time(12)
    hour, minute, half = int(match[f"{side}_hour"]), int(match[f"{side}_minute"] or 0), match[f"{side}_half"]
    if hour > 23 or minute > 59 or (half and not 1 <= hour <= 12):
        raise _impossible(cleaned, match[0].strip())
    if half:
        hour = hour % 12 + (12 if half[:1].casefold() == "p" else 0)
    elif hour in pm_hours:
        hour += 12
    return time(hour, minute)


def _hours_in_digits(text: str) -> str:
    """Hours written other ways, in digits: "17h30" -> "17:30", "5 o'clock" -> "at 5", "at four" -> "at 4"."""

    def h_clock(match: re.Match[str]) -> str:
        hour, minute = int(match["hour"]), int(match["minute"] or 0)
        if match["lead"] is None and match["minute"] is None and hour < 10:
            return match[0]  # "2h": a length
        if hour > 23 or minute > 59:
            raise _impossible(text, match[0])
        return f" {match['lead'] or ''} {hour:02d}:{minute:02d} "

    def hrs_clock(match: re.Match[str]) -> str:
        hour, minute = int(match["hour"]), int(match["minute"])
        if hour > 23 or minute > 59:
            raise _impossible(text, match[0])
        return f"{hour:02d}:{minute:02d}"  # the match lies between word boundaries

    def oclock(match: re.Match[str]) -> str:
        said = match["hour"].casefold()
        hour = _HOUR_WORDS.get(said) or (int(said) if said.isdigit() else 0)
        return f" at {hour} " if 1 <= hour <= 12 else match[0]

    text = _OCLOCK.sub(oclock, _H_CLOCK.sub(h_clock, _HRS_CLOCK.sub(hrs_clock, text)))
    for _ in range(2):  # again for the end of a span: "between two and four" -> "between 2 and 4"
        text = _SPELLED_HOUR.sub(lambda m: f"{m['lead']}{_HOUR_WORDS[m['hour'].casefold()]}", text)
    return text


def _hour_after(moment: time) -> time:
    return _LAST_MINUTE if moment.hour == 23 else time(moment.hour + 1, moment.minute)


def _read_times(cleaned: str) -> _Reading:
    """Parts of the day out, clock times checked and written as HH:MM for parsedatetime."""
    notes: list[str] = []
    text = cleaned
    part: str | None = None
    window: tuple[time, time] | None = None
    opened = False  # the window is an earliest start's ("after 3pm"): a latest end said too closes it
    shaded = _SHADED_PART.search(text)
    if shaded is not None:
        part = f"{shaded['shade']} {shaded['part']}".casefold()
        text = f"{text[: shaded.start()]} {text[shaded.end() :]}"
    for name, pattern in _PARTS:
        if pattern.search(text):
            part = part or name
            text = pattern.sub(" today " if name == "tonight" else " ", text)
    # "tonight at 8", "this evening at 9:30": an hour of the evening, not of the morning
    pm_hours = _EVENING_HOURS if part in _EVENING_PARTS else _AFTERNOON_HOURS

    def span(match: re.Match[str]) -> str:
        nonlocal window
        if _MONTH_BEFORE.search(match.string, 0, match.start()) or _MONTH_AFTER.match(
            match.string, match.end()
        ):
            return match[0]  # "Jan 5-7", "14-16 Dec": days of a month, not hours
        hours = _span(match, cleaned, pm_hours)
        if hours is None or window is not None:
            return match[0]
        window = hours
        notes.append(f"'{match[0].strip()}' read as {_hhmm(hours[0])}-{_hhmm(hours[1])}.")
        return " "

    def spoken(match: re.Match[str]) -> str:
        said = match["hour"].casefold()
        hour = _HOUR_WORDS.get(said) or int(said)
        if not 1 <= hour <= 12:
            raise _impossible(cleaned, match[0])
        how = match["how"].casefold()
        if match["minutes"]:
            said_minutes = " ".join(match["minutes"].casefold().replace("-", " ").split())
            minutes = _MINUTE_WORDS.get(said_minutes) or int(said_minutes)
            if not 1 <= minutes <= 59:
                raise _impossible(cleaned, match[0])
            before = match["way"].casefold() == "to"
            minute = 60 - minutes if before else minutes
        else:
            minute = 30 if how.startswith("half") else 15 if how.endswith("past") else 45
            before = how.endswith(" to")
        if before:
            hour = hour - 1 or 12
        if hour in pm_hours:
            morning = f"{hour}:{minute:02d}am"
            notes.append(
                f"'{match[0]}' read as {hour + 12:02d}:{minute:02d} (say '{morning}' for the morning)."
            )
            hour += 12
        return f" {hour:02d}:{minute:02d} "

    def meridiem(match: re.Match[str]) -> str:
        hour, minute = int(match[1]), int(match[2] or match[3] or 0)
        if not 1 <= hour <= 12 or minute > 59:
            raise _impossible(cleaned, match[0].strip())
        hour = hour % 12 + (12 if match[4].lower() == "p" else 0)
        return f" {hour:02d}:{minute:02d} "

    def clock(match: re.Match[str]) -> str:
        hour, minute = int(match[1]), int(match[2])
        if hour > 23 or minute > 59:
            raise _impossible(cleaned, match[0])
        if hour in pm_hours and not match[1].startswith("0"):
            notes.append(
                f"'{match[0]}' read as {hour + 12:02d}:{minute:02d} (say '{match[0]}am' for the morning)."
            )
            hour += 12
        return f" {hour:02d}:{minute:02d} "

    def bare(match: re.Match[str]) -> str:
        hour = int(match[1])
        if hour > 23:
            raise _impossible(cleaned, match[0])
        if hour in pm_hours:
            notes.append(f"'{match[0]}' read as {hour + 12:02d}:00 (say '{match[1]}am' for the morning).")
            hour += 12
        return f" at {hour:02d}:00 "

    def after(match: re.Match[str]) -> str:
        nonlocal window, opened
        if window is not None:
            return match[0]
        side = "after" if match["after_hour"] or match["after_noon"] else "from"
        starts = _one_clock(match, side, cleaned, pm_hours)
        # In the evening, past the end of day: the hour after it (a note says so).
        window, opened = (starts, _DAY_ENDS if starts < _DAY_ENDS else _hour_after(starts)), True
        notes.append(f"'{match[0].strip()}' read as {_hhmm(window[0])}-{_hhmm(window[1])}.")
        return " "

    def before(match: re.Match[str]) -> str:
        nonlocal window
        if window is not None and not opened:
            return match[0]
        ends = _LAST_MINUTE if match["midnight"] else _one_clock(match, "by", cleaned, pm_hours)
        if ends == time(0):
            raise _impossible(cleaned, match[0].strip())
        if window is not None:  # "after 2 but before 4": from the one to the other
            if ends <= window[0]:
                raise UnparseableDate(
                    f"'{match[0].strip()}' in '{cleaned}' ends before {_hhmm(window[0])}, the start said. "
                    "Say e.g. 'after 2pm and before 4pm'.",
                    field=FIELD,
                )
            window = (window[0], ends)
            notes.append(f"'{match[0].strip()}' read as ending the hours at {_hhmm(ends)}.")
            return " "
        # "before 9am", before the working day: the hour before it, outside working hours (a note says so)
        starts = (
            _DAY_STARTS
            if ends > _DAY_STARTS
            else time(max(ends.hour - 1, 0), ends.minute if ends.hour else 0)
        )
        window = (starts, ends)
        notes.append(f"'{match[0].strip()}' read as {_hhmm(window[0])}-{_hhmm(window[1])}.")
        return " "

    # A time in words first: "20 after 3" is 15:20, not an earliest start; "between half past two and
    # four" leaves "14:30 and four", whose hour is then in digits.
    text = _CLOCK_WORDS.sub(spoken, text)
    text = _hours_in_digits(text)
    text = _LENGTH.sub(" ", text)
    text = _ISH.sub(lambda m: f" around {m[1]} ", text)
    text = _RANGE.sub(span, text)
    text = _AFTER.sub(after, text)
    text = _BEFORE.sub(before, text)
    text = _NOON.sub(" 12:00 ", text)
    text = _MERIDIEM.sub(meridiem, text)
    text = _CLOCK.sub(clock, text)
    text = _BARE_HOUR.sub(bare, text)
    text = _FROM_CLOCK.sub(" ", text)
    return _Reading(" ".join(text.split()), part, notes, window)


_DATE_ORDER: contextvars.ContextVar[DateOrder | None] = contextvars.ContextVar("date_order", default=None)
"""The order of day and month in the user's numeric dates, while one of their phrases is read (the
phrase may be read in another zone, "3/1 at 2pm London time": the order stays the user's)."""
_DATE_NOTES: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("date_notes", default=None)
"""The notes on how numeric dates were read, while a phrase is read (:attr:`PhraseReading.date_notes`)."""

_PHRASE_NOW: contextvars.ContextVar[_clock.struct_time | None] = contextvars.ContextVar(
    "phrase_now", default=None
)
"""The now of the phrase parsedatetime is reading (local wall clock), while it reads it."""


class _PhraseClock:
    """The ``time`` module as parsedatetime sees it. parsedatetime 2.6 falls back to ``time.localtime()``,
    the process's clock in the process's zone (UTC in Lambda), in several places even when it is given
    ``sourceTime`` (its ``__init__``: a date it finds invalid, a modifier with no base: "from midnight",
    "14 january next"). While a phrase is read, that fallback is the phrase's own now in the user's
    zone, so a reading depends on the request's time alone."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_clock, name)

    def localtime(self, secs: float | None = None) -> _clock.struct_time:
        pinned = _PHRASE_NOW.get()
        return pinned if secs is None and pinned is not None else _clock.localtime(secs)


@functools.cache
def _calendar() -> parsedatetime.Calendar:
    # Imported on first use: keeps handler cold starts lean for the tools that never parse dates.
    import parsedatetime

    parsedatetime.time = _PhraseClock()
    return parsedatetime.Calendar(parsedatetime.Constants(usePyICU=False))


def _iso(text: str, ctx: ToolContext) -> RequestedTime | None:
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        if not text[:1].isdigit():
            return None
        from dateutil.parser import isoparse

        try:
            parsed = isoparse(text)
        except (ValueError, OverflowError):
            return None
    if parsed.tzinfo is not None:
        try:
            parsed = parsed.astimezone(ctx.zone)
        except OverflowError:  # an offset that moves the moment out of the calendar (year 1 or 9999)
            raise UnparseableDate(
                f"'{text}' is not a day within the next year; ask for one.", field=FIELD
            ) from None
    only_date = len(text) <= 10 and "T" not in text.upper() and ":" not in text
    return RequestedTime(parsed.date(), None if only_date else parsed.time().replace(tzinfo=None))


_UNREAD_FILLER = frozenset(
    (
        *("on", "at", "in", "by", "around", "during", "before", "for", "this", "the", "a", "an", "of"),
        *("from", "some", "sometime", "time", "any", "day", "please", "maybe", "ish", "or", "and"),
        *("between", "works", "suits", "suit", "would", "be", "good", "okay", "ok", "if", "possible"),
        *("later", "about", "roughly", "approximately", "but", "coming", "ideally", "preferably", "anytime"),
    )
)
_WORD = _lazy(r"[^\W\d_][\w'\u2019-]*|\d+")


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_NAMES = {name: index for index, name in enumerate(_WEEKDAYS)} | {
    name[:3]: index for index, name in enumerate(_WEEKDAYS)
}
"""A weekday's name and its first three letters -> its index (Monday 0)."""
_PLAIN_DAYS: dict[str, int | None] = {**_DAY_NAMES, "today": None, "tomorrow": None}
"""The words that name a day by themselves, read here as parsedatetime reads them (weekday -> its index)."""


def _plain_day(text: str, ctx: ToolContext) -> RequestedTime | None:
    """A day named by one word ("Thursday", "thu", "today", "tomorrow"), read without parsedatetime,
    by its conventions: a weekday is its next occurrence after today. Most meeting requests name a day
    this way, and parsedatetime's import and first reading cost about 6 ms of a cold start;
    ``tests/unit/test_tools_when.py`` holds every such word to parsedatetime's own reading, on every
    weekday."""
    word = text.strip().casefold()
    if word not in _PLAIN_DAYS:
        return None
    today = ctx.local_now.date()
    weekday = _PLAIN_DAYS[word]
    if weekday is None:
        return RequestedTime(today + timedelta(days=1 if word == "tomorrow" else 0))
    return RequestedTime(today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1))


def _natural(text: str, ctx: ToolContext) -> tuple[RequestedTime | None, list[str]]:
    """parsedatetime's reading of ``text`` and the words it did not use."""
    plain = _plain_day(text, ctx)
    if plain is not None:
        return plain, []
    local_now = ctx.local_now.replace(tzinfo=None, microsecond=0)
    pinned = _PHRASE_NOW.set(local_now.timetuple())
    try:
        return _parsed(text, local_now)
    finally:
        _PHRASE_NOW.reset(pinned)


def _parsed(text: str, local_now: datetime) -> tuple[RequestedTime | None, list[str]]:
    found = _calendar().nlp(text, sourceTime=local_now)
    if not found:
        return None, [w for w in _WORD.findall(text) if w.casefold() not in _UNREAD_FILLER]
    used = [False] * len(text)
    for _, _, begin, finish, _ in found:
        used[begin:finish] = [True] * (finish - begin)
    left = "".join(" " if used[i] else ch for i, ch in enumerate(text))
    unread = [w for w in _WORD.findall(left) if w.casefold() not in _UNREAD_FILLER]
    parsed, status = _calendar().parseDT(text, sourceTime=local_now)
    if not status:
        return None, unread
    has_time = status in (2, 3)
    at = parsed.time().replace(second=0, microsecond=0) if has_time else None
    return RequestedTime(parsed.date(), at), unread


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
# "this time tomorrow", "same time next week": the time it is now (to five minutes), that day.
_SAME_TIME = _lazy(
    r"\b(?:at\s+)?(?:this|the\s+same|same)\s+time(?P<week>\s+next\s+week)?\b", re.I, needles=("time",)
)
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


_WEEK_SPAN = _lazy(
    r"^(?:(?:in|during|for|sometime|some\s+time|any\s*time|any\s*day|any\s*week\s*day|a\s+week\s*day|week\s*day"
    r"|any|by|at|on)\s+)*(?:the\s+)?"
    r"(?:(?P<part>early|late|later|mid|(?:the\s+)?middle\s+of|(?:the\s+)?end\s+of|(?:the\s+)?start\s+of"
    r"|(?:the\s+)?beginning\s+of)[\s-]*(?:in\s+)?)?"
    r"(?:the\s+)?(?:(?P<which>next|this|the)\s+)?week(?P<after_next>\s+after\s+next)?$",
    re.I,
    needles=("week",),
)
# A weekday as written out or shortened to three letters ("Friday", "fri"; "thurs" is spelled out first).
_WEEKDAY_WORD = r"(?:mon|tue|wed|thu|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?"
_WEEKDAY_OF_WEEK = _lazy(
    rf"\b(?:on\s+)?(?:(?P<day>{_WEEKDAY_WORD})\s+(?:of\s+)?(?P<which>next|this)\s+week"
    rf"|(?P<which2>next|this)\s+week(?:'s)?\s+(?:on\s+)?(?P<day2>{_WEEKDAY_WORD}))\b",
    re.I,
    needles=("week",),
)
# Hours said before the day they are for: "between 2 and 4 on Thursday", "afternoon on Friday".
_LEADING_HOURS = _lazy(
    r"^\s*(?:(?:in|at|on|from|between|during|any\s*time|over)\s+)?(?:the\s+)?"
    r"(?:\d|noon|midday|(?:(?:early|mid|late)[\s-]*)?(?:morning|afternoon|evening|arvo)|lunch|first\s+thing"
    r"|before\s+lunch|after\s+lunch|after\s+\d|after\s+work|breakfast|dinner|"
    r"end\s+of\s+(?:the\s+)?(?:day|business)|eod|cob)",
    re.I,
)
_NUMERIC_DATE = _lazy(
    r"(?<![\d/])\b(?P<first>\d{1,2})/(?P<second>\d{1,2})(?:/(?P<year>\d{2}|\d{4}))?\b(?!/)", needles=("/",)
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH_WORD = rf"(?:{'|'.join(_MONTHS)})"
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


def check_option(option: RequestedTime, ctx: ToolContext, said: str, field: str = FIELD) -> RequestedTime:
    """``option`` when it can be offered: not in the past, not more than a year ahead."""
    zone = option.zone_of(ctx)
    local_now = ctx.now.astimezone(zone)
    today = local_now.date()
    where = "" if option.zone is None else f" in {zone.key}"
    last = option.last_day or option.day
    if last < today:
        raise DateInPast(
            f"'{said}' is {option.day.isoformat()}, which is in the past (today is {today.isoformat()}"
            f" in {zone.key}). Ask for a day from today on.",
            field=field,
        )
    start = option.start(ctx)
    if start is not None and start < ctx.now - timedelta(minutes=1):
        raise DateInPast(
            f"'{said}' is {start.isoformat(timespec='minutes')}, which has already passed "
            f"(it is now {local_now.isoformat(timespec='minutes')}{where}). Ask for a later time.",
            field=field,
        )
    window = option.window
    if (
        window is not None
        and option.time is None
        and option.last_day in (None, option.day)
        and datetime.combine(option.day, window[1], tzinfo=zone) <= ctx.now
    ):
        raise DateInPast(
            f"'{said}' is {'today' if option.day == today else option.day.isoformat()} "
            f"{_hhmm(window[0])}-{_hhmm(window[1])}, which has already passed "
            f"(it is now {local_now.strftime('%H:%M')}{where}). Ask for a later time.",
            field=field,
        )
    if option.day > today + timedelta(days=MAX_DAYS_AHEAD):
        raise UnparseableDate(
            f"'{said}' is more than a year ahead; ask for a day within the next year.", field=field
        )
    if option.day < today:  # a span that began before today: from today on
        return RequestedTime(
            today, option.time, option.window, option.part, option.notes, option.last_day, option.zone
        )
    return option


def resolve_when(text: str, ctx: ToolContext) -> RequestedTime:
    """The day (and time, if one was said) ``text`` means for this user, now; guesses in ``notes``."""
    cleaned = _spelled_weekdays(" ".join(text.split()))
    requested = _iso(cleaned, ctx)
    if requested is None:
        order = _DATE_ORDER.set(_DATE_ORDER.get() or date_order(ctx.locale, ctx.timezone))
        try:
            requested, _ = _natural_reading(cleaned, ctx)
        finally:
            _DATE_ORDER.reset(order)
    if requested is None:
        raise UnparseableDate(
            f"Could not tell which day '{cleaned}' means. Say e.g. 'Thursday', 'tomorrow at 3pm', "
            f"'Friday morning', 'next Tuesday' or an ISO 8601 date like {example_time(ctx)}.",
            field=FIELD,
        )
    return check_option(requested, ctx, cleaned)


_AT_CLOCK = _lazy(r"(?:\b(?:from|around)\s+)?(?:\bat\s+)?\b(?P<clock>\d{2}:\d{2})\b", needles=(":",))
_WEEK_OF_MONTH = _lazy(
    r"^(?:(?:in|during|for|sometime|some\s+time|any\s*time|on)\s+)*(?:the\s+)?"
    rf"(?P<nth>first|1st|second|2nd|third|3rd|fourth|4th|last)\s+week\s+(?:of|in)\s+(?P<month>{_MONTH_WORD})[a-z]*\.?$",
    re.I,
    needles=("week",),
)
_NTH = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3, "last": -1}


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
_MONTH_BEFORE = _lazy(rf"\b{_MONTH_WORD}[a-z]*\.?\s+(?:the\s+)?$", re.I, needles=_MONTH_STEMS)
_MONTH_AFTER = _lazy(rf"(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_WORD}", re.I, needles=_MONTH_STEMS)
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


def _span_of_days(said: str, first: date, last: date, why: str = "") -> RequestedTime:
    """The span of days ``said`` was read as, and a note saying so ("'mon-wed' read as Mon 7 Dec to
    Wed 9 Dec.")."""
    days = _label(first) if first == last else f"{_label(first)} to {_label(last)}"
    return RequestedTime(first, notes=(f"'{said.strip()}' read as {days}{why}.",), last_day=last)


def _month_after(year: int, month: int) -> tuple[int, int]:
    """(year, month) of the month after ``month`` of ``year``."""
    return (year + 1, 1) if month == 12 else (year, month + 1)


def _label(day: date) -> str:
    return f"{day.strftime('%a')} {day.day} {day.strftime('%b')}"


def _days_of(span: RequestedTime) -> list[date]:
    """The days a time or hours said on a span of days hold for: each day of a week or less ("this
    weekend at 3pm" too), each working day of a longer one ("next month at 3pm")."""
    days = span.days
    return days if len(days) <= 7 else [day for day in days if day.weekday() < 5]


def _each_day(span: RequestedTime) -> str:
    return "each day" if len(span.days) <= 7 else "each working day"


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


# -- the phrase as a whole: a zone named, days not wanted, alternatives ------------------------

# Abbreviations people write after a time, and the zone each is read as (said in a note):
# the region's zone, so "4pm PST" in July is still Pacific time, as its writer meant.
ZONE_ABBREVIATIONS: dict[str, str] = {
    "UTC": "UTC",
    "GMT": "UTC",
    "Z": "UTC",
    "BST": "Europe/London",
    "WET": "Europe/Lisbon",
    "CET": "Europe/Paris",
    "CEST": "Europe/Paris",
    "EET": "Europe/Athens",
    "IST": "Asia/Kolkata",
    "SGT": "Asia/Singapore",
    "JST": "Asia/Tokyo",
    "KST": "Asia/Seoul",
    "AEST": "Australia/Sydney",
    "AEDT": "Australia/Sydney",
    "NZST": "Pacific/Auckland",
    "NZDT": "Pacific/Auckland",
    "EST": "America/New_York",
    "EDT": "America/New_York",
    "ET": "America/New_York",
    "CST": "America/Chicago",
    "CDT": "America/Chicago",
    "CT": "America/Chicago",
    "MST": "America/Denver",
    "MDT": "America/Denver",
    "PST": "America/Los_Angeles",
    "PDT": "America/Los_Angeles",
    "PT": "America/Los_Angeles",
}
_ABBREVIATION = _lazy(
    r"(?:\s*\(\s*|\s+)(?:in\s+)?(?P<abbr>"
    + "|".join(sorted(ZONE_ABBREVIATIONS, key=len, reverse=True))
    + r")\b\)?",
    needles=tuple(abbreviation.casefold() for abbreviation in ZONE_ABBREVIATIONS),
)
_IANA_NAME = _lazy(
    r"\s*\(?\s*\b(?:in\s+)?(?P<zone>[A-Z][A-Za-z_]+(?:/[A-Za-z_+\-0-9]+){1,2})\b\)?", needles=("/",)
)
_CITY_TIME = _lazy(
    r"\s*\(?\b(?:in\s+)?(?P<city>[A-Za-z][A-Za-z .'-]{1,30}?)\s+(?:local\s+)?time\b(?:\s+zone)?\)?",
    re.I,
    needles=("time",),
)
_PERSON_TIME = _lazy(
    r"\s*\(?\b(?:in\s+|on\s+)?(?P<who>her|his|their|my|our|[^\W\d_][\w.'-]*(?:\s+[^\W\d_][\w.'-]*)?(?:'s|\u2019s))"
    r"\s+(?:local\s+)?time(?:\s*zone)?\b\)?",
    re.I,
    needles=("time",),
)
# A place or region right after a clock time, without "time": "11am Pacific", "16:00 London",
# "at 3 Eastern" (a bare hour after "at", as "at 3" alone is read).
_PLACE_AFTER_CLOCK = _lazy(
    r"\b(?:\d{1,2}(?::\d{2})?\s*[ap]\.?m\b\.?|\d{1,2}:\d{2}|(?<=\bat\s)\d{1,2}(?![\d:.]))\s+(?:in\s+)?"
    r"(?P<place>[A-Za-z][A-Za-z'-]*(?:\s+[A-Za-z][A-Za-z'-]*){0,2})",
    re.I,
    needles=_DIGITS,
)
_NEGATED = _lazy(
    # ("Tuesday, if not Wednesday" is a fallback, not a day ruled out)
    r"(?:,\s*)?\b(?:(?:but\s+)?(?<!\bif\s)not|no|never|avoid(?:ing)?|except|excluding|other\s+than|apart\s+from"
    r"|any\s*(?:day|time)\s+but)"
    r"\s+(?:on\s+)?"
    r"(?P<day>today|tomorrow|(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?)\b",
    re.I,
    needles=("not", "no", "never", "avoid", "except", "excluding", "other than", "apart from", "but"),
)
_ALTERNATIVE = _lazy(
    # "or", and a fallback: "Tuesday, or else Wednesday", "Tuesday, failing that Wednesday"
    r"\s*,?\s+\b(?:or(?:\s+(?:else|otherwise))?|else|otherwise|failing\s+that|if\s+not)\b(?:\s*,?\s*then\b)?\s*,?\s+"
    r"|\s*/\s*(?=[A-Za-z])"
    # a list of days: "Monday, Tuesday or Wednesday", "Thursday 10am and Friday 2pm"
    r"|(?:\s*,|\s*,?\s+and\b)\s*(?=(?:on\s+)?(?:(?:next|this)\s+)?(?:mon|tue|wed|thu|fri|sat|sun|today|tomorrow)[a-z]*\b)"
    # ... and of days of the month: "the 9th, 10th or 11th"
    r"|\s*,\s*(?=(?:on\s+)?(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b)",
    re.I,
    needles=("or", "/", ",", "and", "else", "otherwise", "failing", "if not"),
)
# What two alternatives share, said once: "3 or 4pm" (the half of the day), "at 10 or 11" (an hour),
# "December 9 or 10" / "9 or 10 December" (the month).
_OR_HALF = _lazy(
    r"\b(?P<first>\d{1,2}(?:[:.]\d{2})?)\s+or\s+(?P<second>\d{1,2}(?:[:.]\d{2})?)\s*(?P<half>[ap]\.?\s?m\b\.?)",
    re.I,
    needles=(" or ",),
)
_OR_HOUR = _lazy(
    r"\b(?P<lead>at|around|from)\s+(?P<first>\d{1,2}(?:[:.]\d{2})?|noon|midday)\s+or\s+(?P<second>\d{1,2})\b"
    r"(?!\s*(?:[:./]\d|[ap]\.?\s?m\b|st\b|nd\b|rd\b|th\b|days?\b|weeks?\b|months?\b|hours?\b|mins?\b|minutes?\b))",
    re.I,
    needles=(" or ",),
)
_OR_MONTH = _lazy(
    rf"\b(?P<month>{_MONTH_WORD}[a-z]*\.?)\s+(?P<first>\d{{1,2}}(?:st|nd|rd|th)?)\s+or\s+(?P<second>\d{{1,2}}(?:st|nd|rd|th)?)\b"
    rf"|\b(?P<first2>\d{{1,2}}(?:st|nd|rd|th)?)\s+or\s+(?P<second2>\d{{1,2}}(?:st|nd|rd|th)?)\s+(?P<of>of\s+)?"
    rf"(?P<month2>{_MONTH_WORD}[a-z]*\.?)(?=\W|$)",
    re.I,
    needles=(" or ",),
)


# "Tuesday or Wednesday next week": the week said once, for each day.
_DAYS_OF_A_WEEK = _lazy(
    rf"\b(?P<days>{_WEEKDAY_WORD}(?:\s*(?:,|\bor\b|\band\b|/)\s*{_WEEKDAY_WORD})+)\s+"
    r"(?P<week>(?:of\s+)?(?:next|this)\s+week)\b",
    re.I,
    needles=("week",),
)
_A_WEEKDAY = _lazy(_WEEKDAY_WORD, re.I)


def _shared_by_alternatives(text: str) -> str:
    """Each alternative with what the two share written out: "3 or 4pm" -> "3pm or 4pm"."""
    text = _DAYS_OF_A_WEEK.sub(lambda m: _A_WEEKDAY.sub(lambda day: f"{day[0]} {m['week']}", m["days"]), text)
    text = _OR_HALF.sub(lambda m: f"{m['first']}{m['half']} or {m['second']}{m['half']}", text)
    text = _OR_HOUR.sub(lambda m: f"{m['lead']} {m['first']} or {m['lead']} {m['second']}", text)

    def month(match: re.Match[str]) -> str:
        if match["month"]:
            return f"{match['month']} {match['first']} or {match['month']} {match['second']}"
        of = match["of"] or ""
        return f"{match['first2']} {of}{match['month2']} or {match['second2']} {of}{match['month2']}"

    return _OR_MONTH.sub(month, text)


# "between Monday and Wednesday": a span of days, not two alternatives.
_BETWEEN_DAYS = _lazy(
    rf"\bbetween\s+(?P<first>{_WEEKDAY_WORD})\s+and\s+(?=(?:{_WEEKDAY_WORD})\b)", re.I, needles=("between",)
)
# A meeting that repeats ("every Tuesday at 10", "weekly on Mondays", "daily at 9:30"): the reading is
# its first occurrence, and the note says that only that one is proposed.
_REPEATING = _lazy(
    r"\b(?:(?<=\bof\s)every\s+(?P<month>month)\b"
    r"|(?:every|each)\s+(?:(?:other|second|\d{1,2}|two|three|four|six)\s+)?"
    r"(?:(?P<each>(?:working\s+|week)?day|morning|afternoon|evening)\b|(?:weeks?|months?|fortnight)\b(?:\s+on\b)?"
    r"|(?=(?P<what>\w+)))"
    r"|(?:(?:bi-?)?weekly|fortnightly|daily|monthly|weekdays)\b(?:\s+on\b)?"
    r"|(?P<plural>mon|tues|wednes|thurs|fri|satur|sun)days\b)",
    re.I,
    needles=("every", "each", "weekly", "fortnightly", "daily", "monthly", "days"),
)
_PART_WORDS = frozenset({"morning", "afternoon", "evening"})
_NEXT_WORD = re.compile(r"\s*(?:the\s+)?\w+")


def _repeat_said(text: str) -> tuple[str, str | None, bool]:
    """(the text with the words that make a meeting repeat out, those words as said, whether it repeats
    every working day): "every Tuesday at 10" -> ("Tuesday at 10", "every Tuesday", False)."""
    said: list[tuple[int, int]] = []
    daily = False

    def drop(match: re.Match[str]) -> str:
        nonlocal daily
        # the day it repeats on is quoted with it: "every Tuesday", "weekly on Mondays"
        follows = _NEXT_WORD.match(text, match.end()) if match["what"] or match[0].endswith("on") else None
        said.append((match.start(), follows.end() if follows else match.end()))
        if match["month"]:
            return "the month"  # "the first Monday of every month": the first one
        if match["plural"]:
            return f"{match['plural']}day"
        each = " ".join((match["each"] or "").casefold().split())
        word = match[0].split()[0].casefold()
        daily = daily or bool(each) or word in ("daily", "weekdays")
        return f" {each} " if each in _PART_WORDS else " "

    rest = _REPEATING.sub(drop, text)
    if not said:
        return text, None, False
    return rest, " ".join(text[said[0][0] : said[-1][1]].split()), daily


_PRONOUNS = frozenset({"her", "his", "their"})
_OWN = frozenset({"my", "our"})
"""'my time', 'in our time zone': the user's own zone, said outright."""


@functools.cache
def _cities() -> dict[str, str]:
    """'london' -> 'Europe/London', 'new york' -> 'America/New_York': the zone database's cities."""
    from zoneinfo import available_timezones

    cities: dict[str, str] = {}
    for key in sorted(available_timezones()):
        if "/" in key and not key.startswith(("Etc/", "SystemV/", "US/", "posix/", "right/")):
            cities.setdefault(key.rsplit("/", 1)[1].replace("_", " ").casefold(), key)
    cities.update({"uk": "Europe/London", "pacific": "America/Los_Angeles", "eastern": "America/New_York"})
    cities.update({"central": "America/Chicago", "mountain": "America/Denver"})
    cities.update({"central european": "Europe/Paris", "india": "Asia/Kolkata", "japan": "Asia/Tokyo"})
    cities.update({"sf": "America/Los_Angeles", "san francisco": "America/Los_Angeles"})
    cities.update({"bangalore": "Asia/Kolkata", "mumbai": "Asia/Kolkata", "delhi": "Asia/Kolkata"})
    cities.update({"munich": "Europe/Berlin", "frankfurt": "Europe/Berlin", "boston": "America/New_York"})
    cities.update({"seattle": "America/Los_Angeles", "nyc": "America/New_York", "beijing": "Asia/Shanghai"})
    return cities


_REGIONS = frozenset({"pacific", "eastern", "central", "mountain", "uk"})
"""Region words read as a zone after a time in any case ("11am pacific"); a city must be capitalised."""


def place_zone(words: str) -> tuple[str, str] | None:
    """(IANA zone, the words that named it) for the place the first one to three ``words`` name
    ("Pacific", "New York", "London on Friday" -> London); None when they name none, or when a
    capitalised word follows, so that the place is part of a longer name ("Central Park")."""
    said = words.split()
    for end in range(min(len(said), 3), 0, -1):
        place = " ".join(said[:end])
        zone = _cities().get(place.casefold())
        longer = end < len(said) and said[end][:1].isupper()
        if zone is not None and not longer and (place[:1].isupper() or place.casefold() in _REGIONS):
            return zone, place
    return None


class PhraseReading(msgspec.Struct, frozen=True):
    """What a phrase says: its alternatives, the zone it names, days it rules out, what went unread."""

    request: TimeRequest | None
    """None when no day could be read at all."""
    zone: str | None = None
    """An IANA zone the phrase names ('London time', 'PST', 'Europe/London')."""
    zone_of: str | None = None
    """Someone whose zone the phrase names ('in Priya's time zone'); 'her'/'his'/'their' as said."""
    zone_words: str | None = None
    unread: tuple[str, ...] = ()
    repeats: str | None = None
    """For a meeting that repeats ("every Tuesday"): the note that only the first is proposed (it is also
    the first option's)."""
    date_notes: tuple[str, ...] = ()
    """How each numeric date whose day and month could be swapped was read ("3/1"): the card says it
    even when a model passed the times (they are also the options' notes)."""


def _zone_named(text: str) -> tuple[str, str | None, str | None, str | None]:
    """(text without the zone, IANA zone, person, the words said)."""
    from multitool.zones import iana_zone

    for match in _IANA_NAME.finditer(text):
        if iana_zone(match["zone"]) is not None:
            return text[: match.start()] + text[match.end() :], match["zone"], None, match[0].strip(" ()")
    person = _PERSON_TIME.search(text)
    if person is not None:
        who = re.sub(r"['\u2019]s$", "", person["who"])
        who = who.casefold() if who.casefold() in _PRONOUNS | _OWN else who
        return text[: person.start()] + text[person.end() :], None, who, person[0].strip(" ()")
    for match in _CITY_TIME.finditer(text):
        words = match["city"].split()
        for first in range(len(words)):  # "at 4pm London time": the city is the last words
            city = " ".join(words[first:]).casefold()
            if city in _cities():
                head = match.start() + match[0].find(words[first]) if first else match.start()
                cut = text[:head] if first else text[: match.start()]
                return cut + text[match.end() :], _cities()[city], None, f"{' '.join(words[first:])} time"
    short = _ABBREVIATION.search(text)
    if short is not None:
        zone = ZONE_ABBREVIATIONS[short["abbr"]]
        return text[: short.start()] + text[short.end() :], zone, None, short["abbr"]
    for match in _PLACE_AFTER_CLOCK.finditer(text):
        found = place_zone(match["place"])
        if found is not None:
            head = match.start("place")
            tail = head + match["place"].find(found[1]) + len(found[1])
            return text[:head] + text[tail:], found[0], None, found[1]
    return text, None, None, None


# Words a misspelling of which is read as the word ("Wednsday", "tommorow", "Firday"), with a note.
_SPELLED_RIGHT = (
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "tomorrow",
    "january",
    "february",
    "march",
    "april",
    "august",
    "september",
    "october",
    "november",
    "december",
    "morning",
    "afternoon",
    "evening",
)


def read_phrase(text: str, ctx: ToolContext, zone: ZoneInfo | None = None) -> PhraseReading:
    """Everything ``text`` says about when, read in ``zone`` (else the zone it names, else the user's).

    A word left unread that is a misspelling of a day, a month or a part of the day ("Wednsday at 3"
    read today at 15:00) is read as that word, and the first option's notes say so.

    Raises :class:`UnparseableDate` for a time that cannot exist ("25:00"), as :func:`resolve_when`.
    """
    order = _DATE_ORDER.set(_DATE_ORDER.get() or date_order(ctx.locale, ctx.timezone))
    said = _DATE_NOTES.set([])
    try:
        reading = _read_phrase_fixed(text, ctx, zone)
        date_notes = tuple(dict.fromkeys(_DATE_NOTES.get() or ()))
        return replace(reading, date_notes=date_notes) if date_notes else reading
    finally:
        _DATE_NOTES.reset(said)
        _DATE_ORDER.reset(order)


def _read_phrase_fixed(text: str, ctx: ToolContext, zone: ZoneInfo | None) -> PhraseReading:
    """The phrase as read, read again with its misspellings fixed when that reads more of it."""
    reading = _read_phrase(text, ctx, zone)
    if not reading.unread:
        return reading
    fixed, fixes = _misspellings_fixed(text, reading.unread)
    if not fixes:
        return reading
    again = _read_phrase(fixed, ctx, zone)
    if again.request is None or len(again.unread) >= len(reading.unread):
        return reading
    first, *others = again.request.options
    first = replace(first, notes=(*fixes, *first.notes))
    return replace(again, request=replace(again.request, options=(first, *others)))


def _misspellings_fixed(text: str, unread: tuple[str, ...]) -> tuple[str, list[str]]:
    """``text`` with each unread word that is a misspelling of one of ``_SPELLED_RIGHT`` (difflib's
    closeness of 0.8 or more, the same first letter) written right, and a note for each."""
    import difflib  # only for a phrase with words left unread: most phrases never load it

    fixes: dict[str, str] = {}
    for word in unread:
        folded = word.casefold()
        if len(folded) < 5 or not folded.isalpha():
            continue
        close = difflib.get_close_matches(folded, _SPELLED_RIGHT, n=1, cutoff=0.8)
        if close and close[0][0] == folded[0] and folded.rstrip("s") != close[0]:
            fixes[word] = close[0].capitalize() if word[:1].isupper() else close[0]
    if not fixes:
        return text, []
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(word) for word in fixes) + r")\b")
    fixed = pattern.sub(lambda match: fixes[match[0]], text)
    return fixed, [f"'{word}' read as '{right}'." for word, right in fixes.items()]


def _read_phrase(text: str, ctx: ToolContext, zone: ZoneInfo | None) -> PhraseReading:
    import unicodedata

    cleaned = _spelled_weekdays(" ".join(unicodedata.normalize("NFC", text).split()))
    # One word that names a day ("Thursday", "tomorrow", most requests) names no zone, rules out no
    # day and offers no alternative: its reading skips the patterns that look for those.
    plain = cleaned.casefold() in _PLAIN_DAYS
    rest, named, zone_of, zone_words = (cleaned, None, None, None) if plain else _zone_named(cleaned)
    rest = rest.replace("(", " ").replace(")", " ")  # "Thursday (or Friday)": the zone's own are read
    if zone_of in _OWN:
        named, zone_of = ctx.timezone, None
    read_in = zone
    if read_in is None and named is not None:
        read_in = ZoneInfo(named)
    local = ctx if read_in is None else _in_zone(ctx, read_in.key)
    excluded: set[date] = set()
    ruled_out: dict[
        date, int
    ] = {}  # a weekday said -> its weekday: "next week except Wednesday" is that week's
    unread: list[str] = []
    if not plain:
        for match in _NEGATED.finditer(rest):
            said = match["day"]
            day, _ = _natural(said.rstrip("s") if said.casefold().endswith("days") else said, local)
            if day is not None:
                excluded.add(day.day)
                if said[:3].casefold() in _DAY_NAMES:
                    ruled_out[day.day] = day.day.weekday()
        rest = _NEGATED.sub(" ", rest)
    repeat, daily = None, False
    if not plain:
        rest, repeat, daily = _repeat_said(rest)
    options: list[RequestedTime] = []
    undated: list[int] = []  # the first options, times said before any day
    leading: RequestedTime | None = None
    if not plain:
        rest = _BETWEEN_DAYS.sub(lambda m: f"{m['first']} to ", rest)
    if not plain:
        rest = _shared_by_alternatives(rest)  # each of its patterns skips a phrase without its words
    parts = [rest] if plain else ([p for p in _ALTERNATIVE.split(rest) if p.strip()] or [""])
    for part in parts:
        iso = _iso(part.strip(), local)
        option: RequestedTime | None
        left: list[str]
        if iso is not None:
            option, left = iso, []
        elif (_FILLER.match(part.strip()) or _ANY_DAY.match(part.strip())) and excluded:
            option, left = RequestedTime(local.local_now.date()), []  # "not on Thursday": from today on
        else:
            option, left = _natural_reading(" ".join(part.split()), local)
        unread += left
        if option is None:
            continue
        dated = option.time is None or option.last_day is not None or _names_a_day(part, option, local)
        if options and not dated:
            # "Thursday at 4pm or 5pm": a time alone keeps the day before it.
            option = RequestedTime(options[-1].day, option.time, notes=option.notes)
            if len(undated) == len(options):
                undated.append(len(options))
        elif not options and not dated:
            undated.append(0)  # "3pm or 4pm on Thursday": the day said after them holds for them
        elif not options and option.window is not None and _LEADING_HOURS.match(part):
            leading = option  # "between 2 and 4 on Thursday or Friday": the hours come first
        elif (
            leading is not None
            and leading.window is not None
            and option.time is None
            and option.window is None
            and option.last_day is None
        ):  # ... and hold for each day after them
            hours = f"{_hhmm(leading.window[0])}-{_hhmm(leading.window[1])}"
            notes = (*option.notes, f"'{part.strip()}' read with the hours said first, {hours}.")
            option = RequestedTime(option.day, None, leading.window, leading.part, notes)
        if read_in is not None:
            option = RequestedTime(
                option.day, option.time, option.window, option.part, option.notes, option.last_day, read_in
            )
        if (option.window is not None or option.time is not None) and option.last_day is not None:
            # Hours or a time on a span of days, as the contract writes them: one option a day, in order.
            notes = option.notes
            for each_day in _days_of(option):
                options.append(
                    RequestedTime(each_day, option.time, option.window, option.part, notes, zone=option.zone)
                )
                notes = ()
            continue
        if dated and undated:
            for index in undated:
                earlier = options[index]
                options[index] = RequestedTime(
                    option.day, earlier.time, notes=earlier.notes, zone=option.zone
                )
            undated.clear()
        options.append(option)
    asked = {day for option in options for day in option.days}
    for coming, weekday in ruled_out.items():
        within = {day for day in asked if day.weekday() == weekday}
        if within and coming not in asked:
            excluded.discard(coming)
        excluded |= within
    while options and options[0].day in excluded and options[0].last_day is None and options[0].time is None:
        options[0] = RequestedTime(options[0].day + timedelta(days=1), zone=options[0].zone)
    repeats = None
    if repeat is not None:
        options[:1] = [_first_occurrence(options[0] if options else None, repeat, daily, local, read_in)]
        repeats = options[0].notes[-1]
    request = TimeRequest(tuple(options), frozenset(excluded)) if options else None
    return PhraseReading(request, named, zone_of, zone_words, tuple(dict.fromkeys(unread)), repeats)


def _first_occurrence(
    option: RequestedTime | None, repeat: str, daily: bool, ctx: ToolContext, zone: ZoneInfo | None
) -> RequestedTime:
    """The first meeting of a repeating one, with a note saying only it is proposed: a daily one
    ("daily at 9:30", "every morning") is on the first working day whose hours have not passed."""
    today = ctx.local_now.date()
    first = option or RequestedTime(today, zone=zone)
    if daily and first.last_day is None and first.day == today:
        ends = first.time or (first.window[1] if first.window is not None else None)
        passed = ends is not None and datetime.combine(today, ends, tzinfo=ctx.zone) <= ctx.local_now
        day = today + timedelta(days=1) if passed else today
        while day.weekday() >= 5:
            day += timedelta(days=1)
        first = replace(first, day=day)
    note = (
        f"'{repeat}' asks for a repeating meeting: this proposes the first, {_label(first.day)}; "
        "make it repeat in the calendar once it is booked."
    )
    return replace(first, notes=(*first.notes, note))


def _names_a_day(part: str, option: RequestedTime, ctx: ToolContext) -> bool:
    """Whether the alternative says a day of its own, not only a time."""
    reading = _read_times(" ".join(part.split()))
    rest = re.sub(r"\b\d{2}:\d{2}\b", " ", reading.text)
    if not _WORD.findall(rest.replace("at", " ")):
        return False
    days, _ = _relative_days(rest, ctx)  # "11th at 2": the 11th, which parsedatetime alone does not read
    return _natural(days, ctx)[0] is not None


def _in_zone(ctx: ToolContext, timezone: str) -> ToolContext:
    return ToolContext(
        owner=ctx.owner, session_id=ctx.session_id, now=ctx.now, timezone=timezone, locale=ctx.locale
    )


# -- the structured values a model passes ----------------------------------------------------

TIMES_FORMAT = (
    "each a local wall-clock value in the meeting's time zone: '2026-12-03' (that day), "
    "'2026-12-03T16:00' (a start), '2026-12-03T09:00/12:00' (a window of that day) or "
    "'2026-12-07/2026-12-11' (a span of days)"
)
_TIME_VALUE = _lazy(
    r"^(?P<day>\d{4}-\d{2}-\d{2})(?:T(?P<start>\d{2}:\d{2})(?:/(?P<end>\d{2}:\d{2}))?|/(?P<last>\d{4}-\d{2}-\d{2}))?$"
)
MAX_SPAN_DAYS = 31


def _bad_value(value: str, index: int, why: str) -> UnparseableDate:
    return UnparseableDate(f"times[{index}] '{value}' {why}. Pass {TIMES_FORMAT}.", field=f"times[{index}]")


def time_option(value: str, index: int, zone: ZoneInfo | None) -> RequestedTime:
    """One structured value as an option, or an :class:`UnparseableDate` naming ``times[index]``."""
    match = _TIME_VALUE.match(value.strip())
    if match is None:
        raise _bad_value(value, index, "is not one of the forms below")
    try:
        day = date.fromisoformat(match["day"])
        last = date.fromisoformat(match["last"]) if match["last"] else None
    except ValueError:
        raise _bad_value(value, index, "is not a day of the calendar") from None
    try:
        start = time.fromisoformat(match["start"]) if match["start"] else None
        end = time.fromisoformat(match["end"]) if match["end"] else None
    except ValueError:
        raise _bad_value(value, index, "is not a time of day (00:00 to 23:59)") from None
    if last is not None and not day <= last <= day + timedelta(days=MAX_SPAN_DAYS):
        raise _bad_value(value, index, f"is not a span of 1 to {MAX_SPAN_DAYS} days, first day first")
    if start is not None and end is not None:
        if end <= start:
            raise _bad_value(value, index, "ends before it starts")
        return RequestedTime(day, None, (start, end), zone=zone)
    return RequestedTime(day, start, last_day=last, zone=zone)


def structured_request(
    values: list[str], excluded: list[date], zone: ZoneInfo | None, ctx: ToolContext, phrase: str = ""
) -> TimeRequest:
    """The model's values checked: real days and times, none in the past, within a year.

    A refusal quotes the phrase as said when there is one value (the user's words), else the value.
    """
    options = []
    for index, value in enumerate(values):
        option = time_option(value, index, zone)
        said = " ".join(phrase.split()) if phrase and len(values) == 1 else value
        options.append(check_option(option, ctx, said, field=f"times[{index}]"))
    return TimeRequest(tuple(options), frozenset(excluded))


def describe(option: RequestedTime) -> str:
    """'Thu 3 Dec 16:00', 'Thu 3 Dec 09:00-12:00', 'Mon 7 Dec to Fri 11 Dec', 'Thu 3 Dec'."""
    text = _label(option.day)
    if option.time is not None:
        return f"{text} {_hhmm(option.time)}"
    if option.window is not None:
        return f"{text} {_hhmm(option.window[0])}-{_hhmm(option.window[1])}"
    if option.last_day is not None and option.last_day != option.day:
        return f"{text} to {_label(option.last_day)}"
    return text
