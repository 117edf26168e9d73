"""The parsedatetime bridge: ISO 8601, a day named by one word (read without parsedatetime, by its
conventions), and parsedatetime's reading of the rest, pinned to the request's own now."""

from __future__ import annotations

import contextvars
import functools
import time as _clock
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from multitool.toolkit.context import ToolContext
from multitool.toolkit.errors import UnparseableDate
from multitool.tools.meeting.when.patterns import _lazy
from multitool.tools.meeting.when.request import FIELD, RequestedTime

if TYPE_CHECKING:
    import parsedatetime


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
    ``tests/unit/tools/test_when_natural.py`` holds every such word to parsedatetime's own reading,
    on every weekday."""
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
