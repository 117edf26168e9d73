"""Calendar port: busy times, and bookings made by confirmed meetings.

The DynamoDB adapter (:mod:`multitool.ports.dynamo_calendar`) reads bookings
confirmed through this system; the Microsoft 365 and Google Workspace adapters
read the suite's own free/busy and book events there (their providers then send
the invitations: :attr:`Calendar.sends_invitations`). Only the people a booking
names are tracked:
the review books directory people and the verified organizer, never external
addresses (their calendars are not ours to know), so nothing stops a double
booking of someone outside the directory.
"""

from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import ClassVar, Protocol

from pydantic import Field

from multitool.ports.recurrence import Recurrence
from multitool.wire import WireModel


class Interval(WireModel):
    start: datetime
    end: datetime


class Guest(WireModel):
    email: str
    name: str | None = None


class Booking(WireModel):
    id: str = Field(min_length=1)
    title: str
    organizer: str
    attendees: tuple[str, ...] = Field(description="Attendee email addresses")
    start: datetime
    end: datetime
    timezone: str = "UTC"
    guests: tuple[Guest, ...] = Field(
        default=(),
        description="Everyone invited, with names, outside addresses too: what a calendar that "
        "sends its own invitations puts on the event",
    )
    description: str = ""
    owner: str | None = Field(
        default=None,
        description="The sub of the user who booked it: how an erasure finds the user's bookings",
    )
    recurrence: Recurrence | None = Field(
        default=None,
        description="How the meeting repeats: start and end are then its first meeting's, and the "
        "rule repeats it on the wall clock of ``timezone``",
    )


class Calendar(Protocol):
    sends_invitations: ClassVar[bool]
    """True when :meth:`book` makes an event the provider itself sends to the guests (Graph,
    Google Calendar): the confirm then sends no invitation mail of its own."""

    def busy(self, emails: Sequence[str], start: datetime, end: datetime) -> Mapping[str, Sequence[Interval]]:
        """Busy intervals per email address overlapping [start, end), in one read."""
        ...

    def book(self, booking: Booking) -> None:
        """Store a confirmed meeting so its time counts as busy for its attendees.

        Raises :class:`SlotTaken` when an attendee is busy then with another booking, and
        writes nothing. Booking an id again at the same time with the same attendees is a
        no-op (a retried confirm); at another time or with other attendees it moves.
        """
        ...

    def release(self, booking_id: str) -> None:
        """Remove a booking and its busy time (a no-op when there is none)."""
        ...


class SlotTaken(Exception):
    """The time is no longer free: ``busy`` maps each attendee booked then to the overlapping intervals."""

    def __init__(self, busy: Mapping[str, Sequence[Interval]]) -> None:
        super().__init__(f"{len(busy)} attendee(s) already booked at that time")
        self.busy = dict(busy)


class BookingContention(RuntimeError):
    """The attendee-days kept changing under concurrent bookings; the same booking can be tried again."""


def utc_days(start: datetime, end: datetime) -> Iterator[date]:
    """Every UTC date that [start, end) touches."""
    day = start.astimezone(UTC).date()
    last = (end.astimezone(UTC) - timedelta(microseconds=1)).date()
    while day <= last:
        yield day
        day += timedelta(days=1)


def overlaps(interval: Interval, start: datetime, end: datetime) -> bool:
    return interval.start < end and start < interval.end
