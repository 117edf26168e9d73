"""The built-in calendar's series items: one per attendee, listing the repeating meetings they are
on (:mod:`multitool.ports.aws.dynamo_calendar`'s ``BUSY#<email>``/``SERIES``), and the EXDATEs a
series keeps (the meetings taken out of it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import msgspec

from multitool.ports.calendar import Booking, Interval
from multitool.ports.recurrence import Recurrence, between, occurrences


class SeriesEntry(msgspec.Struct, frozen=True):
    """One repeating meeting an attendee is on: its first meeting, zone and rule."""

    booking_id: str
    start: datetime
    end: datetime
    timezone: str
    rule: Recurrence
    skipped: tuple[datetime, ...] = ()
    """The meetings taken out of the series (EXDATE), by their UTC start."""

    @classmethod
    def of(cls, booking: Booking) -> SeriesEntry:
        assert booking.recurrence is not None
        return cls(
            booking.id,
            booking.start.astimezone(UTC),
            booking.end.astimezone(UTC),
            booking.timezone,
            booking.recurrence,
            tuple(e.astimezone(UTC) for e in booking.exceptions),
        )

    def meetings(self, start: datetime, end: datetime) -> list[Interval]:
        """Its meetings overlapping [start, end)."""
        zone = ZoneInfo(self.timezone)
        skipped = {moment.timestamp() for moment in self.skipped}
        return [
            Interval(start=s.astimezone(UTC), end=e.astimezone(UTC))
            for s, e in between(self.rule, self.start, self.end, zone, (start, end))
            if s.timestamp() not in skipped
        ]

    def last_end(self) -> datetime | None:
        """When its last meeting ends; None for a series without an end."""
        if self.rule.until is None and self.rule.count is None:
            return None
        last = None
        for _start, ends in occurrences(self.rule, self.start, self.end, ZoneInfo(self.timezone)):
            last = ends
        return last

    def to_item(self) -> dict[str, Any]:
        return {
            "M": {
                "bookingId": {"S": self.booking_id},
                "start": {"S": self.start.isoformat()},
                "end": {"S": self.end.isoformat()},
                "timezone": {"S": self.timezone},
                "rule": {"S": self.rule.model_dump_json(by_alias=True)},
                **({"skipped": instants(self.skipped)} if self.skipped else {}),
            }
        }


class Series(msgspec.Struct, frozen=True):
    """An attendee's series item as read: the series they are on, and its version."""

    version: int | None
    entries: tuple[SeriesEntry, ...]


def series_from_item(item: Mapping[str, Any]) -> Series:
    entries = tuple(
        SeriesEntry(
            booking_id=value["M"]["bookingId"]["S"],
            start=datetime.fromisoformat(value["M"]["start"]["S"]),
            end=datetime.fromisoformat(value["M"]["end"]["S"]),
            timezone=value["M"]["timezone"]["S"],
            rule=Recurrence.model_validate_json(value["M"]["rule"]["S"]),
            skipped=tuple(datetime.fromisoformat(m["S"]) for m in value["M"].get("skipped", {}).get("L", [])),
        )
        for value in item.get("series", {}).get("L", [])
    )
    return Series(version=version_of(item), entries=entries)


def instants(moments: Sequence[datetime]) -> dict[str, Any]:
    return {"L": [{"S": m.astimezone(UTC).isoformat()} for m in moments]}


def version_of(item: Mapping[str, Any]) -> int | None:
    value = item.get("version", {}).get("N")
    return int(value) if value is not None else None
