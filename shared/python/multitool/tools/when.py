"""A day or time as people say it -> a concrete day (and maybe a time) in the user's zone.

ISO 8601 goes through :func:`datetime.fromisoformat` (then ``dateutil``'s
``isoparse`` for the basic format); everything else through ``parsedatetime``,
relative to ``ctx.now`` in the user's time zone. Conventions (parsedatetime's):

- a weekday name is its next occurrence after today ("Thursday" said on a
  Thursday is next week's); "today" is today;
- "next Tuesday" is the coming Tuesday; "tomorrow at 3pm" carries a time;
- a day before today, or a time already past, is rejected, as is anything
  more than a year ahead or text that names no date.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING

from multitool.tools.base import DateInPast, ToolContext, UnparseableDate

if TYPE_CHECKING:
    import parsedatetime

MAX_DAYS_AHEAD = 366
FIELD = "when"


@dataclass(frozen=True, slots=True)
class RequestedTime:
    day: date
    time: time | None = None

    def start(self, ctx: ToolContext) -> datetime | None:
        """The asked-for moment as an aware datetime in the user's zone, if a time was given."""
        if self.time is None:
            return None
        return datetime.combine(self.day, self.time, tzinfo=ctx.zone)


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
    """The day (and time, if one was said) ``text`` means for this user, now."""
    cleaned = " ".join(text.split())
    requested = _iso(cleaned, ctx) or _natural(cleaned, ctx)
    if requested is None:
        raise UnparseableDate(
            f"Could not tell which day '{cleaned}' means. Say e.g. 'Thursday', 'tomorrow at 3pm', "
            "'next Tuesday' or an ISO 8601 date like 2026-12-03T15:00.",
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
    if requested.day > today + timedelta(days=MAX_DAYS_AHEAD):
        raise UnparseableDate(
            f"'{cleaned}' is more than a year ahead; ask for a day within the next year.", field=FIELD
        )
    return requested
