"""What a meeting call asks for, as read: the request types, and what every reading shares (the
checks that an option can be offered, a day and a time in the card's words)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import msgspec

from multitool.toolkit.context import ToolContext
from multitool.toolkit.errors import DateInPast, UnparseableDate

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


def _hhmm(moment: time) -> str:
    return moment.strftime("%H:%M")


def _label(day: date) -> str:
    return f"{day.strftime('%a')} {day.day} {day.strftime('%b')}"


def example_time(ctx: ToolContext) -> str:
    """A time to show as an example in a message: tomorrow at 15:00 for this user, never a past one."""
    return f"{(ctx.local_now.date() + timedelta(days=1)).isoformat()}T15:00"


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
