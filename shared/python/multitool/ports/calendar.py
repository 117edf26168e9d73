"""Calendar port: busy times, and bookings made by confirmed meetings.

The DynamoDB adapter reads bookings confirmed through this system; a Google or
Microsoft calendar adapter can implement the same interface.

Table layout (``multitool.tables.BOOKINGS``, keys ``pk``/``sk``, TTL ``expiresAt``):

- ``pk="BOOKING#<id>"``, ``sk="BOOKING"``: the booking.
- ``pk="BUSY#<email>"``, ``sk="<UTC date>"``: one item per attendee and UTC day,
  ``intervals`` = [{bookingId, start, end}]. Busy times of N people over D days
  are one ``BatchGetItem`` of N x D keys.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from botocore.exceptions import ClientError
from pydantic import Field

from multitool.wire import WireModel

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

BOOKING_PREFIX = "BOOKING#"
BUSY_PREFIX = "BUSY#"
BATCH_GET_LIMIT = 100
TRANSACT_LIMIT = 100
RETAIN_AFTER_END = timedelta(days=30)
_MAX_UNPROCESSED_RETRIES = 5


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


def utc_days(start: datetime, end: datetime) -> Iterator[date]:
    """Every UTC date that [start, end) touches."""
    day = start.astimezone(UTC).date()
    last = (end.astimezone(UTC) - timedelta(microseconds=1)).date()
    while day <= last:
        yield day
        day += timedelta(days=1)


def overlaps(interval: Interval, start: datetime, end: datetime) -> bool:
    return interval.start < end and start < interval.end


class DynamoCalendar:
    """Bookings confirmed through this system, in DynamoDB."""

    def __init__(self, table_name: str, client: DynamoDBClient) -> None:
        self._table = table_name
        self._client = client

    def busy(self, emails: Sequence[str], start: datetime, end: datetime) -> Mapping[str, Sequence[Interval]]:
        addresses = sorted({e.casefold() for e in emails if e})
        result: dict[str, list[Interval]] = {e: [] for e in emails}
        if not addresses or end <= start:
            return result
        keys = [
            {"pk": {"S": BUSY_PREFIX + email}, "sk": {"S": day.isoformat()}}
            for email in addresses
            for day in utc_days(start, end)
        ]
        by_address: dict[str, list[Interval]] = {a: [] for a in addresses}
        for offset in range(0, len(keys), BATCH_GET_LIMIT):
            for item in self._batch_get(keys[offset : offset + BATCH_GET_LIMIT]):
                address = item["pk"]["S"].removeprefix(BUSY_PREFIX)
                for value in item.get("intervals", {}).get("L", []):
                    data = value["M"]
                    interval = Interval(
                        start=datetime.fromisoformat(data["start"]["S"]),
                        end=datetime.fromisoformat(data["end"]["S"]),
                    )
                    if overlaps(interval, start, end):
                        by_address.setdefault(address, []).append(interval)
        for email in emails:
            result[email] = sorted(by_address.get(email.casefold(), []), key=lambda i: i.start)
        return result

    def _batch_get(self, keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
        request: dict[str, Any] = {self._table: {"Keys": keys}}
        items: list[dict[str, Any]] = []
        for _ in range(_MAX_UNPROCESSED_RETRIES):
            response = self._client.batch_get_item(RequestItems=request)
            items.extend(response.get("Responses", {}).get(self._table, []))
            unprocessed = response.get("UnprocessedKeys") or {}
            if not unprocessed:
                return items
            request = dict(unprocessed)
        raise RuntimeError("The bookings table kept returning unprocessed keys; try again.")

    def book(self, booking: Booking) -> None:
        """Write the booking and every attendee's busy interval in one transaction.

        Booking the same id twice is a no-op (the booking item is written conditionally).
        """
        expires = int((booking.end + RETAIN_AFTER_END).timestamp())
        interval = {
            "M": {
                "bookingId": {"S": booking.id},
                "start": {"S": booking.start.astimezone(UTC).isoformat()},
                "end": {"S": booking.end.astimezone(UTC).isoformat()},
            }
        }
        wire = booking.to_wire()
        items: list[Any] = [
            {
                "Put": {
                    "TableName": self._table,
                    "Item": {
                        "pk": {"S": BOOKING_PREFIX + booking.id},
                        "sk": {"S": "BOOKING"},
                        "title": {"S": wire["title"]},
                        "organizer": {"S": wire["organizer"]},
                        "attendees": {"L": [{"S": a} for a in wire["attendees"]]},
                        "start": {"S": wire["start"]},
                        "end": {"S": wire["end"]},
                        "timezone": {"S": wire["timezone"]},
                        "expiresAt": {"N": str(expires)},
                    },
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            }
        ]
        for email in sorted({a.casefold() for a in booking.attendees}):
            for day in utc_days(booking.start, booking.end):
                items.append(
                    {
                        "Update": {
                            "TableName": self._table,
                            "Key": {"pk": {"S": BUSY_PREFIX + email}, "sk": {"S": day.isoformat()}},
                            "UpdateExpression": (
                                "SET intervals = list_append(if_not_exists(intervals, :empty), :new), "
                                "expiresAt = :expires"
                            ),
                            "ExpressionAttributeValues": {
                                ":empty": {"L": []},
                                ":new": {"L": [interval]},
                                ":expires": {"N": str(expires)},
                            },
                        }
                    }
                )
        if len(items) > TRANSACT_LIMIT:
            raise ValueError("A booking can span at most 99 attendee-days.")
        try:
            self._client.transact_write_items(TransactItems=items)
        except ClientError as error:
            reasons: list[Any] = error.response.get("CancellationReasons", [])
            if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
                return  # booked before: a retried confirmation
            raise
