"""Repeating events in the Graph and Google stand-ins: what each provider refuses, and the meetings a
series holds in a window (so free/busy and getSchedule see every meeting of a series, as the
providers' own do).

Each reads the provider's own shape with dateutil's own parser, not :mod:`multitool.ports.recurrence`
(which wrote it): a rule the adapter writes wrong is then read wrong here, and a test sees it.

What is refused, from the providers' descriptions:

- Google (discovery document, ``Event.recurrence``: "List of RRULE, EXRULE, RDATE and EXDATE
  lines ... as specified in RFC5545. Note that DTSTART and DTEND lines are not allowed";
  ``EventDateTime.timeZone``: "For recurring events this field is required"): a line of another
  kind, a rule RFC 5545 cannot read, a series whose start or end has no ``timeZone``.
- Graph (https://learn.microsoft.com/graph/api/resources/recurrencepattern and
  .../recurrencerange): a pattern without ``type`` or ``interval``, a weekly one without
  ``daysOfWeek``, a monthly one without ``dayOfMonth``; a range without ``type`` or ``startDate``,
  or a ``startDate`` that is not the event's start date ("Must be the same value as the start
  property of the recurring event"), an ``endDate`` range without an ``endDate`` on or after it, a
  ``numbered`` one without a positive ``numberOfOccurrences``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, datetime, time, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from dateutil import rrule as rr

_KINDS = ("RRULE:", "EXRULE:", "RDATE:", "EXDATE:")
_GRAPH_DAYS = {
    "monday": rr.MO,
    "tuesday": rr.TU,
    "wednesday": rr.WE,
    "thursday": rr.TH,
    "friday": rr.FR,
    "saturday": rr.SA,
    "sunday": rr.SU,
}
_MAX_MEETINGS = 5000


def google_problem(event: Mapping[str, Any]) -> str | None:
    lines = event.get("recurrence")
    if not lines:
        return None
    for line in lines:
        if not str(line).startswith(_KINDS):
            return f"Invalid recurrence rule: {line!r}."
    for part in ("start", "end"):
        if not (event.get(part) or {}).get("timeZone"):
            return f"Missing time zone definition for {part} time."
    try:
        google_rule(event)
    except (ValueError, KeyError) as error:
        return f"Invalid recurrence rule: {error}."
    return None


def google_rule(event: Mapping[str, Any]) -> Any:
    zone = ZoneInfo(event["start"]["timeZone"])
    start = datetime.fromisoformat(event["start"]["dateTime"]).astimezone(zone)
    return rr.rrulestr("\n".join(event["recurrence"]), dtstart=start, forceset=True)


def google_meetings(
    event: Mapping[str, Any], window: tuple[datetime, datetime]
) -> list[tuple[datetime, datetime]]:
    """The series' meetings overlapping ``window`` (the event itself when it does not repeat)."""
    start = datetime.fromisoformat(event["start"]["dateTime"])
    end = datetime.fromisoformat(event["end"]["dateTime"])
    if not event.get("recurrence"):
        return [(start, end)]
    zone = ZoneInfo(event["start"]["timeZone"])
    return _within(google_rule(event), end - start, zone, window)


def graph_problem(event: Mapping[str, Any], zone_of: Callable[[str], tzinfo | None]) -> str | None:
    recurrence = event.get("recurrence")
    if recurrence is None:
        return None
    pattern, range_ = recurrence.get("pattern") or {}, recurrence.get("range") or {}
    kind = pattern.get("type")
    if kind is None or not isinstance(pattern.get("interval"), int) or pattern["interval"] < 1:
        return "The recurrence pattern needs a type and an interval of 1 or more."
    if kind in ("weekly", "relativeMonthly", "relativeYearly") and not pattern.get("daysOfWeek"):
        return f"A {kind} recurrence pattern needs daysOfWeek."
    if kind in ("absoluteMonthly", "absoluteYearly") and not pattern.get("dayOfMonth"):
        return f"An {kind} recurrence pattern needs dayOfMonth."
    if range_.get("type") is None or not range_.get("startDate"):
        return "The recurrence range needs a type and a startDate."
    start = _graph_start(event, zone_of)
    if date.fromisoformat(range_["startDate"]) != start.date():
        return "The recurrence range's startDate must be the date of the event's start."
    if range_["type"] == "endDate" and (
        not range_.get("endDate") or date.fromisoformat(range_["endDate"]) < start.date()
    ):
        return "An endDate recurrence range needs an endDate on or after its startDate."
    if range_["type"] == "numbered" and not (range_.get("numberOfOccurrences") or 0) > 0:
        return "A numbered recurrence range needs numberOfOccurrences of 1 or more."
    return None


def graph_meetings(
    event: Mapping[str, Any],
    window: tuple[datetime, datetime],
    zone_of: Callable[[str], tzinfo | None],
    parse: Callable[[Mapping[str, Any]], datetime],
) -> list[tuple[datetime, datetime]]:
    start, end = parse(event["start"]), parse(event["end"])
    recurrence = event.get("recurrence")
    if recurrence is None:
        return [(start, end)]
    local = _graph_start(event, zone_of)
    zone = local.tzinfo
    assert zone is not None
    pattern, range_ = recurrence["pattern"], recurrence["range"]
    kwargs: dict[str, Any] = {"dtstart": local, "interval": pattern["interval"]}
    frequency: Any = rr.DAILY
    if pattern["type"] == "weekly":
        frequency = rr.WEEKLY
        kwargs["byweekday"] = [_GRAPH_DAYS[d] for d in pattern["daysOfWeek"]]
    elif pattern["type"] == "absoluteMonthly":
        frequency = rr.MONTHLY
        kwargs["bymonthday"] = pattern["dayOfMonth"]
    if range_["type"] == "endDate":
        kwargs["until"] = datetime.combine(
            date.fromisoformat(range_["endDate"]), time(23, 59, 59), tzinfo=zone
        )
    elif range_["type"] == "numbered":
        kwargs["count"] = range_["numberOfOccurrences"]
    return _within(rr.rrule(frequency, **kwargs), end - start, zone, window)


def _graph_start(event: Mapping[str, Any], zone_of: Callable[[str], tzinfo | None]) -> datetime:
    """The event's start on the wall clock of the zone it was set in (``originalStartTimeZone``,
    else its ``start``'s), where Exchange expands its pattern."""
    name = str(event.get("originalStartTimeZone") or event["start"].get("timeZone") or "UTC")
    zone = zone_of(name) or ZoneInfo("UTC")
    given = zone_of(str(event["start"].get("timeZone") or "UTC")) or ZoneInfo("UTC")
    wall = datetime.fromisoformat(str(event["start"]["dateTime"])[:19]).replace(tzinfo=given)
    return wall.astimezone(zone)


def _within(
    rule: Any, length: timedelta, zone: tzinfo, window: tuple[datetime, datetime]
) -> list[tuple[datetime, datetime]]:
    found: list[tuple[datetime, datetime]] = []
    for count, moment in enumerate(rule):
        begins = datetime.fromtimestamp(moment.timestamp(), zone)
        if begins >= window[1] or count > _MAX_MEETINGS:
            break
        if begins + length > window[0]:
            found.append((begins, begins + length))
    return found
