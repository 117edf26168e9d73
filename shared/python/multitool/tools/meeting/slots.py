"""A meeting time: what the scheduler proposes, the card shows and the user confirms, and each
person's side of it (:class:`SlotCheck`)."""

from datetime import datetime

from pydantic.dataclasses import dataclass

from multitool.wire import VALUE_CONFIG, WireModel, WireValue


@dataclass(frozen=True, slots=True, config=VALUE_CONFIG)
class Slot(WireValue):
    start: datetime
    end: datetime


@dataclass(frozen=True, slots=True, config=VALUE_CONFIG)
class SlotCheck(WireValue):
    """One person's side of one slot: their local time, their working hours, their calendar."""

    email: str | None
    """None for the organizer (the signed-in user)."""
    name: str
    timezone: str
    local: str
    """The start in their zone ('06:00'), with the weekday ('Wed 06:00') when not the organizer's day."""
    outside_hours: bool
    busy: bool


class Occurrence(WireModel):
    """One meeting of a repeating one, as the proposal checked it."""

    start: datetime
    end: datetime
    busy: tuple[str, ...] = ()
    """Who is booked then (names; "you" for the organizer)."""


class SeriesCheck(WireModel):
    """A repeating meeting from one slot: its rule in words and as an RRULE, and its first meetings."""

    words: str
    """'Every other Friday, 10:00-10:30, until 5 Mar 2027'."""
    rule: str
    """The iCalendar RRULE ('FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;UNTIL=...')."""
    occurrences: tuple[Occurrence, ...] = ()
