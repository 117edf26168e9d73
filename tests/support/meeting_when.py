"""What the phrase reader's tests share: a fixed now and the user it is for, and a corpus of words."""

from __future__ import annotations

from datetime import UTC, datetime

from multitool.toolkit.context import ToolContext
from multitool.toolkit.errors import DateInPast, UnparseableDate
from multitool.tools.meeting.when import RequestedTime, read_phrase

# Tuesday 1 December 2026, 10:00 in Berlin (09:00 UTC).
TUESDAY_10_BERLIN = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def ctx(now: datetime = TUESDAY_10_BERLIN, timezone: str = "Europe/Berlin") -> ToolContext:
    return ToolContext(owner="user-1", session_id="s-1", now=now, timezone=timezone)


FRI = "read as Fri 4 Dec (the coming one)."


def read_fully(text: str, now: ToolContext | None = None) -> tuple[RequestedTime, ...]:
    """The options ``text`` reads as, every word of it read."""
    reading = read_phrase(text, now or ctx())
    assert reading.request is not None
    assert reading.unread == ()
    return reading.request.options


TOKEN_TEXT = (
    "by before no later than midnight 9am Thursday thurs weds tues Fri next this week the 15th 31st 3rd of "
    "January may 2-3pm 9.30 930am 11-1pm between and to until noon midday half past quarter three 10 at "
    "on or not except any time whenever after lunch first thing early end later London time PST 4pm "
    "16:00 14.45 "
    "12/10 10/12 15/12 2026-12-10 tomorrow today day in 3 days morning afternoon evening , / - 25:00 0 "
    "12am 13pm onwards ish 3ish around about mid late midweek a from 7pm or later no earlier than 17h 9h30 "
    "2h o'clock four two fortnight last first for an hour 2 hours 45 minutes jan 5-7 dec 14 16 within couple "
    "monday friday through mon-wed Priya's her weekend month weeks now asap am pm p.m. ideally "
    "every each other weekly biweekly daily Mondays fridays my Christmas eve new year's same january half "
    "past ten twenty after 1500hrs 15:00h breakfast dinner work over arvo noonish"
)


TOKENS = TOKEN_TEXT.split(" ")


def readings(phrases: list[str]) -> list[object]:
    out: list[object] = []
    for phrase in phrases:
        try:
            reading = read_phrase(phrase, ctx())
        except (UnparseableDate, DateInPast) as error:
            out.append(("refused", str(error)))
            continue
        request = reading.request
        options = [] if request is None else [(o.value(), o.notes, o.zone) for o in request.options]
        excluded = None if request is None else sorted(request.excluded)
        out.append((options, excluded, reading.unread, reading.zone))
    return out


# Monday 7 December 2026, 10:00 in New York, 15:00 in London.
MONDAY = datetime(2026, 12, 7, 15, 0, tzinfo=UTC)


def monday(timezone: str = "America/New_York", now: datetime = MONDAY) -> ToolContext:
    return ToolContext(owner="user-1", session_id="s-1", now=now, timezone=timezone)


def in_locale(timezone: str, locale: str | None) -> ToolContext:
    return ToolContext(owner="user-1", session_id="s-1", now=MONDAY, timezone=timezone, locale=locale)
