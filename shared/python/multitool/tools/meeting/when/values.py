"""The structured values a model passes ('2026-12-03T16:00', '2026-12-07/2026-12-11'), checked as
options."""

from __future__ import annotations

from datetime import date, time, timedelta
from zoneinfo import ZoneInfo

from multitool.toolkit.context import ToolContext
from multitool.toolkit.errors import UnparseableDate
from multitool.tools.meeting.when.patterns import _lazy
from multitool.tools.meeting.when.request import RequestedTime, TimeRequest, check_option

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
