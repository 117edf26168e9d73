"""A repeating meeting's rule: what the model passes, the card says, every calendar books.

One value, :class:`Recurrence` (how often, every how many, on which weekdays, until a day or for a
count), read four ways:

- :func:`occurrences`: its meetings, expanded by python-dateutil's ``rrule`` (RFC 5545 semantics)
  on the wall clock of the meeting's zone, so "every Monday at 11" stays at 11:00 across a change of
  daylight saving time (an aware ``dtstart`` keeps its ``tzinfo`` and replaces the wall-clock fields);
- :func:`rrule_line`: the iCalendar ``RRULE`` (RFC 5545 3.3.10) an invitation and Google Calendar's
  ``recurrence`` carry; its ``UNTIL`` is in UTC, as 3.3.10 requires when ``DTSTART`` has a ``TZID``
  ("If the DTSTART property is specified as a date with local time, then the UNTIL rule part MUST
  also be specified as a date with local time ... with UTC time"): the end of the last day, in the
  meeting's zone;
- :func:`graph_recurrence`: Microsoft Graph's ``patternedRecurrence`` (``pattern`` + ``range``:
  https://learn.microsoft.com/graph/api/resources/patternedrecurrence; a weekly pattern needs
  ``daysOfWeek``, an ``endDate`` range ``startDate`` and ``endDate``, a ``numbered`` one
  ``numberOfOccurrences``: https://learn.microsoft.com/graph/api/resources/recurrencerange);
- :func:`rule_words`: the rule in words for the card and the page ("Every other Friday,
  10:00-10:30, until 5 Mar 2027").

"Every working day" is weekly on Monday to Friday (Graph has no daily pattern that skips weekends);
a monthly rule repeats on the first meeting's day of the month.
"""

from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import Field, model_validator

from multitool.wire import WireModel

WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
"""RFC 5545's weekday codes, Monday first (``date.weekday()`` order)."""
_DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_GRAPH_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_FREQUENCIES = {"daily": "DAILY", "weekly": "WEEKLY", "monthly": "MONTHLY"}
_EVERY = {2: "other", 3: "third", 4: "fourth"}
MAX_INTERVAL = 12
MAX_COUNT = 366
MAX_DAYS = 2 * 366
"""How far a series may run: an ``until`` more than two years after its first meeting is refused."""
CHECKED_OCCURRENCES = 6
"""How many of a series' first meetings a proposal checks against everyone's calendar."""

Weekday = Literal["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


class Recurrence(WireModel):
    """How a meeting repeats: the model's structured reading of "every other Friday until March"."""

    frequency: Literal["daily", "weekly", "monthly"] = Field(
        description="daily, weekly or monthly ('every working day' is weekly on MO-FR)"
    )
    interval: int = Field(
        default=1, ge=1, le=MAX_INTERVAL, description="Every how many: 2 for 'every other week'"
    )
    weekdays: tuple[Weekday, ...] = Field(
        default=(),
        max_length=7,
        description=(
            "For weekly: the days it meets on (MO, TU, WE, TH, FR, SA, SU); none: the first meeting's day"
        ),
    )
    until: date | None = Field(
        default=None, description="The last day it may meet on, YYYY-MM-DD ('until March': 2027-02-28)"
    )
    count: int | None = Field(
        default=None, ge=1, le=MAX_COUNT, description="How many meetings in all ('for 6 weeks': 6)"
    )

    @model_validator(mode="after")
    def _one_end(self) -> "Recurrence":
        if self.until is not None and self.count is not None:
            raise ValueError("pass until or count, not both")
        if self.weekdays and self.frequency != "weekly":
            raise ValueError("weekdays go with a weekly frequency only")
        if len(set(self.weekdays)) != len(self.weekdays):
            raise ValueError("each weekday once")
        return self

    def days_for(self, first: date) -> tuple[Weekday, ...]:
        """The weekdays a weekly rule meets on: as passed, else the first meeting's, Monday first."""
        if self.frequency != "weekly":
            return ()
        days = self.weekdays or (WEEKDAYS[first.weekday()],)
        return tuple(sorted(days, key=WEEKDAYS.index))  # type: ignore[arg-type]


class RecurrenceProblem(ValueError):
    """A rule no calendar can hold with this first meeting (an end before it, a day it skips)."""


def check(rule: Recurrence, start: datetime, zone: ZoneInfo) -> None:
    """Refuse a rule the series cannot hold from ``start``, in words a model can act on: the first
    meeting on a day a weekly rule skips, an end before the first meeting, an end too far ahead."""
    first = start.astimezone(zone).date()
    if rule.frequency == "weekly" and rule.weekdays and WEEKDAYS[first.weekday()] not in rule.weekdays:
        days = ", ".join(_DAY_NAMES[WEEKDAYS.index(d)] for d in rule.days_for(first))
        raise RecurrenceProblem(
            f"The first meeting, {_label(first)}, is not on a day the series meets ({days}): "
            "pass a first time on one of those days."
        )
    if rule.until is not None:
        if rule.until < first:
            raise RecurrenceProblem(
                f"The series would end on {_label(rule.until)}, before its first meeting on {_label(first)}: "
                "pass a later until, or none."
            )
        if rule.until > first + timedelta(days=MAX_DAYS):
            raise RecurrenceProblem(
                f"The series would run until {_label(rule.until)}, more than two years: "
                "pass an earlier until."
            )


def _rrule(rule: Recurrence, start: datetime, zone: ZoneInfo) -> Any:
    from dateutil import rrule as rr  # only a repeating meeting pays for dateutil's rrule

    local = start.astimezone(zone)
    kwargs: dict[str, Any] = {"dtstart": local, "interval": rule.interval}
    if rule.frequency == "weekly":
        kwargs["byweekday"] = [getattr(rr, day) for day in rule.days_for(local.date())]
        kwargs["wkst"] = rr.MO
    if rule.until is not None:
        kwargs["until"] = _last_moment(rule.until, zone)
    if rule.count is not None:
        kwargs["count"] = rule.count
    return rr.rrule(getattr(rr, _FREQUENCIES[rule.frequency]), **kwargs)


def _last_moment(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(23, 59, 59), tzinfo=zone)


def occurrences(
    rule: Recurrence, start: datetime, end: datetime, zone: ZoneInfo, *, after: datetime | None = None
) -> Iterator[tuple[datetime, datetime]]:
    """The series' meetings as (start, end), first first, each at the first one's wall-clock time in
    ``zone`` (``end - start`` long); from the one ending after ``after`` on, when given."""
    length = end - start
    for moment in _rrule(rule, start, zone):
        occurrence = datetime.fromtimestamp(moment.timestamp(), zone)  # the wall time, resolved
        if after is not None and occurrence + length <= after:
            continue
        yield occurrence, occurrence + length


def first_occurrences(
    rule: Recurrence, start: datetime, end: datetime, zone: ZoneInfo, limit: int = CHECKED_OCCURRENCES
) -> list[tuple[datetime, datetime]]:
    found: list[tuple[datetime, datetime]] = []
    for each in occurrences(rule, start, end, zone):
        found.append(each)
        if len(found) == limit:
            break
    return found


def between(
    rule: Recurrence, start: datetime, end: datetime, zone: ZoneInfo, window: tuple[datetime, datetime]
) -> list[tuple[datetime, datetime]]:
    """The series' meetings overlapping ``window`` [from, to)."""
    found: list[tuple[datetime, datetime]] = []
    for begins, ends in occurrences(rule, start, end, zone, after=window[0]):
        if begins >= window[1]:
            break
        found.append((begins, ends))
    return found


def rrule_line(rule: Recurrence, start: datetime, zone: ZoneInfo) -> str:
    """``FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;UNTIL=20270306T045959Z`` (without the ``RRULE:`` name)."""
    parts = [f"FREQ={_FREQUENCIES[rule.frequency]}"]
    if rule.interval != 1:
        parts.append(f"INTERVAL={rule.interval}")
    if rule.frequency == "weekly":
        parts.append(f"BYDAY={','.join(rule.days_for(start.astimezone(zone).date()))}")
    if rule.until is not None:
        parts.append(f"UNTIL={_last_moment(rule.until, zone).astimezone(UTC):%Y%m%dT%H%M%SZ}")
    if rule.count is not None:
        parts.append(f"COUNT={rule.count}")
    return ";".join(parts)


def graph_recurrence(rule: Recurrence, start: datetime, zone: ZoneInfo) -> dict[str, Any]:
    """Graph's ``patternedRecurrence`` for the series (its dates are the meeting's zone's, as the
    event's start is sent in that zone)."""
    first = start.astimezone(zone).date()
    pattern: dict[str, Any] = {"interval": rule.interval}
    if rule.frequency == "daily":
        pattern["type"] = "daily"
    elif rule.frequency == "weekly":
        pattern["type"] = "weekly"
        pattern["daysOfWeek"] = [_GRAPH_DAYS[WEEKDAYS.index(d)] for d in rule.days_for(first)]
        pattern["firstDayOfWeek"] = "monday"
    else:
        pattern["type"] = "absoluteMonthly"
        pattern["dayOfMonth"] = first.day
    range_: dict[str, Any] = {"startDate": first.isoformat()}
    if rule.until is not None:
        range_.update(type="endDate", endDate=rule.until.isoformat())
    elif rule.count is not None:
        range_.update(type="numbered", numberOfOccurrences=rule.count)
    else:
        range_["type"] = "noEnd"
    return {"pattern": pattern, "range": range_}


def rule_words(rule: Recurrence, start: datetime, end: datetime, zone: ZoneInfo) -> str:
    """'Every other Friday, 10:00-10:30, until 5 Mar 2027'; 'Every weekday, 09:30-09:45, 10 times'."""
    local, local_end = start.astimezone(zone), end.astimezone(zone)
    every = "Every" if rule.interval == 1 else f"Every {_EVERY.get(rule.interval, f'{rule.interval}th')}"
    if rule.frequency == "daily":
        what = "Every day" if rule.interval == 1 else f"Every {rule.interval} days"
    elif rule.frequency == "monthly":
        what = (
            f"{every} month on day {local.day}"
            if rule.interval in _EVERY or rule.interval == 1
            else (f"Every {rule.interval} months on day {local.day}")
        )
    else:
        days = rule.days_for(local.date())
        if days == ("MO", "TU", "WE", "TH", "FR"):
            names = "weekday"
        else:
            named = [_DAY_NAMES[WEEKDAYS.index(d)] for d in days]
            names = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        what = (
            f"{every} {names}"
            if rule.interval in _EVERY or rule.interval == 1
            else (f"Every {rule.interval} weeks on {names}")
        )
    text = f"{what}, {local:%H:%M}-{local_end:%H:%M}"
    if rule.until is not None:
        text += f", until {_label(rule.until)}"
    elif rule.count is not None:
        text += f", {rule.count} times"
    return text


def _label(day: date) -> str:
    return f"{day.day} {day:%b %Y}"
