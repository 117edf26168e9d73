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
- a part of the day narrows the search to hours (:data:`PARTS_OF_DAY`): morning
  09:00-12:00, lunchtime 12:00-14:00, afternoon 13:00-17:00, end of day
  16:00-18:00, evening and tonight 17:00-19:00; noon and midday are 12:00;
- an hour without am/pm from 1 to 7 ("at 3", "2:30") is read as the afternoon.

Every such reading is said in :attr:`RequestedTime.notes`, so the card shows it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING

from multitool.tools.base import DateInPast, ToolContext, UnparseableDate

if TYPE_CHECKING:
    import parsedatetime

MAX_DAYS_AHEAD = 366
_Clock = time  # ``RequestedTime.time`` shadows the type inside the class body
FIELD = "when"


@dataclass(frozen=True, slots=True)
class RequestedTime:
    day: date
    time: time | None = None
    window: tuple[_Clock, _Clock] | None = None
    """Local hours a part of the day ("morning") narrows each searched day to."""
    part: str | None = None
    """The part of the day as said, when one was."""
    notes: tuple[str, ...] = ()
    """Every guess made reading the text, in words for the card."""

    def start(self, ctx: ToolContext) -> datetime | None:
        """The asked-for moment as an aware datetime in the user's zone, if a time was given."""
        if self.time is None:
            return None
        return datetime.combine(self.day, self.time, tzinfo=ctx.zone)


PARTS_OF_DAY: dict[str, tuple[time, time]] = {
    "morning": (time(9), time(12)),
    "lunchtime": (time(12), time(14)),
    "afternoon": (time(13), time(17)),
    "end of day": (time(16), time(18)),
    "evening": (time(17), time(19)),
    "tonight": (time(17), time(19)),
}
"""Part of the day -> local [start, end) hours the slots must lie in."""

_LEAD = r"(?:\b(?:in|at|by|around|during|before|on|for|this)\s+)?(?:\bthe\s+)?"
_PARTS = [
    (
        "end of day",
        re.compile(
            _LEAD + r"\b(?:end\s+of\s+(?:the\s+)?(?:day|business)|eod|cob|close\s+of\s+business)\b", re.I
        ),
    ),
    ("lunchtime", re.compile(_LEAD + r"\blunch(?:\s*time)?\b", re.I)),
    ("morning", re.compile(_LEAD + r"\bmorning\b", re.I)),
    ("afternoon", re.compile(_LEAD + r"\bafternoon\b", re.I)),
    ("evening", re.compile(_LEAD + r"\bevening\b", re.I)),
    ("tonight", re.compile(_LEAD + r"\btonight\b", re.I)),
]
_NOON = re.compile(r"\b(?:noon|midday)\b", re.I)
_MERIDIEM = re.compile(r"\b(\d{1,2})(?::(\d{1,2}))?\s*([ap])\.?\s?m\b\.?", re.I)
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{1,2})\b(?!\s*[ap]\.?\s?m\b)", re.I)
_BARE_HOUR = re.compile(r"\bat\s+(\d{1,3})\b(?!\s*(?::|[ap]\.?\s?m\b|h\b|st\b|nd\b|rd\b|th\b))", re.I)
_WEEKDAY = re.compile(
    r"\b(?:(next|this|coming)\s+)?(mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\b", re.I
)
_FILLER = re.compile(r"^(?:(?:in|at|by|around|during|before|on|for|this|the)\s*)*$", re.I)
_AFTERNOON_HOURS = range(1, 8)  # "at 3" at work means 15:00, not 03:00


def _hhmm(moment: time) -> str:
    return moment.strftime("%H:%M")


def _impossible(cleaned: str, said: str) -> UnparseableDate:
    return UnparseableDate(
        f"'{said}' in '{cleaned}' is not a time of day. Say e.g. '3pm', '15:00' or 'morning'.", field=FIELD
    )


@dataclass(slots=True)
class _Reading:
    """What the pre-reading found: the text left for parsedatetime, a part of the day, notes."""

    text: str
    part: str | None = None
    notes: list[str] | None = None


def _read_times(cleaned: str) -> _Reading:
    """Parts of the day out, clock times checked and written as HH:MM for parsedatetime."""
    notes: list[str] = []
    text = cleaned
    part: str | None = None
    for name, pattern in _PARTS:
        if pattern.search(text):
            part = part or name
            text = pattern.sub(" today " if name == "tonight" else " ", text)
    text = _NOON.sub(" 12:00 ", text)

    def meridiem(match: re.Match[str]) -> str:
        hour, minute = int(match[1]), int(match[2] or 0)
        if not 1 <= hour <= 12 or minute > 59:
            raise _impossible(cleaned, match[0].strip())
        hour = hour % 12 + (12 if match[3].lower() == "p" else 0)
        return f" {hour:02d}:{minute:02d} "

    def clock(match: re.Match[str]) -> str:
        hour, minute = int(match[1]), int(match[2])
        if hour > 23 or minute > 59:
            raise _impossible(cleaned, match[0])
        if hour in _AFTERNOON_HOURS and not match[1].startswith("0"):
            notes.append(
                f"'{match[0]}' read as {hour + 12:02d}:{minute:02d} (say '{match[0]}am' for the morning)."
            )
            hour += 12
        return f" {hour:02d}:{minute:02d} "

    def bare(match: re.Match[str]) -> str:
        hour = int(match[1])
        if hour > 23:
            raise _impossible(cleaned, match[0])
        if hour in _AFTERNOON_HOURS:
            notes.append(f"'{match[0]}' read as {hour + 12:02d}:00 (say '{match[1]}am' for the morning).")
            hour += 12
        return f" at {hour:02d}:00 "

    text = _MERIDIEM.sub(meridiem, text)
    text = _CLOCK.sub(clock, text)
    text = _BARE_HOUR.sub(bare, text)
    return _Reading(" ".join(text.split()), part, notes)


@functools.cache
def _calendar() -> parsedatetime.Calendar:
    # Imported on first use: keeps handler cold starts lean for the tools that never parse dates.
    import parsedatetime

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


def _natural(text: str, ctx: ToolContext) -> RequestedTime | None:
    local_now = ctx.local_now.replace(tzinfo=None, microsecond=0)
    parsed, status = _calendar().parseDT(text, sourceTime=local_now)
    if not status:
        return None
    has_time = status in (2, 3)
    return RequestedTime(parsed.date(), parsed.time().replace(second=0, microsecond=0) if has_time else None)


def resolve_when(text: str, ctx: ToolContext) -> RequestedTime:
    """The day (and time, if one was said) ``text`` means for this user, now; guesses in ``notes``."""
    cleaned = " ".join(text.split())
    requested = _iso(cleaned, ctx)
    if requested is None:
        requested = _natural_reading(cleaned, ctx)
    if requested is None:
        raise UnparseableDate(
            f"Could not tell which day '{cleaned}' means. Say e.g. 'Thursday', 'tomorrow at 3pm', "
            "'Friday morning', 'next Tuesday' or an ISO 8601 date like 2026-12-03T15:00.",
            field=FIELD,
        )
    today = ctx.local_now.date()
    if requested.day < today:
        raise DateInPast(
            f"'{cleaned}' is {requested.day.isoformat()}, which is in the past (today is {today.isoformat()}"
            f" in {ctx.timezone}). Ask for a day from today on.",
            field=FIELD,
        )
    start = requested.start(ctx)
    if start is not None and start < ctx.now - timedelta(minutes=1):
        raise DateInPast(
            f"'{cleaned}' is {start.isoformat(timespec='minutes')}, which has already passed "
            f"(it is now {ctx.local_now.isoformat(timespec='minutes')}). Ask for a later time.",
            field=FIELD,
        )
    window = requested.window
    if (
        window is not None
        and requested.time is None
        and datetime.combine(requested.day, window[1], tzinfo=ctx.zone) <= ctx.now
    ):
        raise DateInPast(
            f"'{cleaned}' is today {_hhmm(window[0])}-{_hhmm(window[1])}, which has already passed "
            f"(it is now {ctx.local_now.strftime('%H:%M')}). Ask for a later time.",
            field=FIELD,
        )
    if requested.day > today + timedelta(days=MAX_DAYS_AHEAD):
        raise UnparseableDate(
            f"'{cleaned}' is more than a year ahead; ask for a day within the next year.", field=FIELD
        )
    return requested


def _natural_reading(cleaned: str, ctx: ToolContext) -> RequestedTime | None:
    reading = _read_times(cleaned)
    notes = list(reading.notes or [])
    rest = reading.text
    if _FILLER.match(rest):  # only a part of the day ("this afternoon", "tonight"): today
        rest = "today"
    parsed = _natural(rest, ctx)
    if parsed is None:
        return None
    said_time = bool(re.search(r"\d{2}:\d{2}", rest))
    if said_time and parsed.time is None:
        raise UnparseableDate(
            f"Could not read the time in '{cleaned}'. Say e.g. '3pm' or '15:00'.", field=FIELD
        )
    for match in _WEEKDAY.finditer(cleaned):
        label = f"{parsed.day.strftime('%a')} {parsed.day.day} {parsed.day.strftime('%b')}"
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
    window = PARTS_OF_DAY.get(reading.part) if reading.part else None
    if window is not None and reading.part is not None:
        notes.append(f"'{reading.part}' read as {_hhmm(window[0])}-{_hhmm(window[1])}.")
    return RequestedTime(parsed.day, parsed.time, window, reading.part, tuple(notes))
