"""Calendar port: busy times, and bookings made by confirmed meetings.

The DynamoDB adapter reads bookings confirmed through this system; a Google or
Microsoft calendar adapter can implement the same interface.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Protocol

from pydantic import Field

from multitool.wire import WireModel


class Interval(WireModel):
    start: datetime
    end: datetime


class Booking(WireModel):
    id: str = Field(min_length=1)
    title: str
    organizer: str
    attendees: tuple[str, ...] = Field(description="Attendee email addresses")
    start: datetime
    end: datetime
    timezone: str = "UTC"


class Calendar(Protocol):
    def busy(self, emails: Sequence[str], start: datetime, end: datetime) -> Mapping[str, Sequence[Interval]]:
        """Busy intervals per email address overlapping [start, end), in one read."""
        ...

    def book(self, booking: Booking) -> None:
        """Store a confirmed meeting so its time counts as busy."""
        ...
