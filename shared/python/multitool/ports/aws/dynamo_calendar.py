"""The calendar port on DynamoDB: bookings confirmed through this system.

Table layout (``multitool.ports.tables.BOOKINGS``, keys ``pk``/``sk``, TTL ``expiresAt``):

- ``pk="BOOKING#<id>"``, ``sk="BOOKING"``: the booking, with a ``version``.
- ``pk="BUSY#<email>"``, ``sk="<UTC date>"``: one item per attendee and UTC day,
  ``intervals`` = [{bookingId, start, end}] and a ``version``. Busy times of N
  people over D days are one ``BatchGetItem`` of N x D keys.

No double booking: :meth:`DynamoCalendar.book` reads the attendee-days it
touches, refuses (:class:`SlotTaken`) when another booking overlaps, and
writes every attendee-day and the booking in ONE transaction in which each
item is conditioned on the ``version`` it was read at (optimistic locking).
Of two confirms racing for one person's time, both may read the day free,
but only the first transaction commits: the second's condition fails, it
reads again, sees the first booking and is refused. A condition on the
interval itself cannot be written (DynamoDB conditions cannot test overlap
within a list), and a lock item per attendee and time cell would need a grain
(5 minutes: up to 96 items per attendee in a transaction of at most 100);
the version of the attendee-day item the busy read already uses costs
nothing extra to read and keeps one item per attendee and day.

A repeating meeting cannot be held day by day (a weekly series without an end has no last day,
and a year of one for three people is more attendee-days than a transaction holds), so a series
is held once per attendee: ``pk="BUSY#<email>"``, ``sk="SERIES"``, ``series`` = [{bookingId,
start, end, timezone, rule}] (the first meeting and its :class:`multitool.ports.recurrence.Recurrence`
as JSON) and a ``version``. Every read that checks a person's time reads that item in the same
``BatchGetItem`` and expands its meetings in the window (:func:`multitool.ports.recurrence.between`),
so a later proposal and a later booking see every meeting of the series. A booking's transaction
conditions on the versions of everything its check read, written or not (``ConditionCheck``): a
single meeting and a series racing for one person's time cannot both commit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec
from botocore.exceptions import ClientError

from multitool.ports.aws.dynamo_series import Series, SeriesEntry, instants, series_from_item, version_of
from multitool.ports.calendar import (
    Booking,
    BookingContention,
    CalendarEvent,
    EventChanged,
    Guest,
    Interval,
    NotOrganizer,
    Response,
    Scope,
    SlotTaken,
    already_at,
    booking_event,
    moved_occurrence_id,
    overlaps,
    utc_days,
)
from multitool.ports.recurrence import Recurrence
from multitool.ports.tables import OWNER_ATTRIBUTE

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

BOOKING_PREFIX = "BOOKING#"
BUSY_PREFIX = "BUSY#"
SERIES_SK = "SERIES"
BATCH_GET_LIMIT = 100
TRANSACT_LIMIT = 100
RETAIN_AFTER_END = timedelta(days=30)
_MAX_UNPROCESSED_RETRIES = 5
_MAX_BOOK_ATTEMPTS = 5
_RETRYABLE_REASONS = frozenset({"ConditionalCheckFailed", "TransactionConflict"})


class DynamoCalendar:
    """Bookings confirmed through this system, in DynamoDB."""

    sends_invitations: ClassVar[bool] = False
    cancellation_message: ClassVar[bool] = False
    proposes_new_times: ClassVar[bool] = False

    def __init__(self, table_name: str, client: DynamoDBClient) -> None:
        self._table = table_name
        self._client = client

    def busy(self, emails: Sequence[str], start: datetime, end: datetime) -> Mapping[str, Sequence[Interval]]:
        start, end = start.astimezone(UTC), end.astimezone(UTC)  # instants: see GoogleCalendar.busy
        addresses = sorted({e.casefold() for e in emails if e})
        result: dict[str, list[Interval]] = {e: [] for e in emails}
        if not addresses or end <= start:
            return result
        keys = [
            {"pk": {"S": BUSY_PREFIX + email}, "sk": {"S": day.isoformat()}}
            for email in addresses
            for day in utc_days(start, end)
        ]
        keys += [_series_key(email) for email in addresses]  # the series they are on, same read
        by_address: dict[str, list[Interval]] = {a: [] for a in addresses}
        for offset in range(0, len(keys), BATCH_GET_LIMIT):
            for item in self._batch_get(keys[offset : offset + BATCH_GET_LIMIT]):
                address = item["pk"]["S"].removeprefix(BUSY_PREFIX)
                if item["sk"]["S"] == SERIES_SK:
                    for entry in series_from_item(item).entries:
                        by_address.setdefault(address, []).extend(entry.meetings(start, end))
                    continue
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

    def events(self, email: str, start: datetime, end: datetime) -> Sequence[CalendarEvent]:
        """The bookings ``email`` organizes or is on, overlapping [start, end): their own attendee-days
        (one ``BatchGetItem``, the index the busy read uses: the organizer is tracked on every booking
        they make) give the booking ids, and one more ``BatchGetItem`` the bookings."""
        start, end = start.astimezone(UTC), end.astimezone(UTC)
        address = email.casefold()
        if not address or end <= start:
            return []
        keys = [_day_key(address, day) for day in utc_days(start, end)]
        keys.append(_series_key(address))  # the series they are on: each meeting in the window
        ids: list[str] = []
        meetings: dict[str, list[Interval]] = {}
        for offset in range(0, len(keys), BATCH_GET_LIMIT):
            for item in self._batch_get(keys[offset : offset + BATCH_GET_LIMIT]):
                if item["sk"]["S"] == SERIES_SK:
                    for entry in series_from_item(item).entries:
                        held_then = entry.meetings(start, end)
                        if held_then and entry.booking_id not in ids:
                            ids.append(entry.booking_id)
                            meetings[entry.booking_id] = held_then
                    continue
                for held in _day_from_item(item).intervals:
                    if held.booking_id not in ids and overlaps(
                        Interval(start=held.start, end=held.end), start, end
                    ):
                        ids.append(held.booking_id)
        found: list[CalendarEvent] = []
        bookings = [_booking_key(i) for i in ids]
        for offset in range(0, len(bookings), BATCH_GET_LIMIT):
            for item in self._batch_get(bookings[offset : offset + BATCH_GET_LIMIT]):
                stored = _booking_from_item(item)
                event = booking_event(stored.booking, email, stored.version or 1)
                if event is None:
                    continue
                if stored.booking.id not in meetings:
                    found.append(event)
                    continue
                # A series: one event per meeting in the window, each marked as the series' occurrence.
                found.extend(
                    event.model_copy(
                        update={
                            "start": m.start,
                            "end": m.end,
                            "recurring": True,
                            "series_id": stored.booking.id,
                        }
                    )
                    for m in meetings[stored.booking.id]
                )
        return sorted(found, key=lambda e: e.start)

    def event(self, email: str, event_id: str) -> CalendarEvent | None:
        """The booking as it stands (a consistent read), as ``email`` sees it; None: gone, or not theirs."""
        stored = self.stored(event_id)
        return None if stored is None else booking_event(stored.booking, email, stored.version or 1)

    def stored(self, booking_id: str) -> _StoredBooking | None:
        stored, _days = self._read(booking_id, set())
        return stored

    def _batch_get(self, keys: list[dict[str, Any]], *, consistent: bool = False) -> list[dict[str, Any]]:
        request: dict[str, Any] = {self._table: {"Keys": keys, "ConsistentRead": consistent}}
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
        """Write the booking and what it holds (its attendee-days, or for a series each attendee's
        series item), in one transaction conditioned on the versions read (see the module
        docstring); :class:`SlotTaken` if someone is booked during its (first) meeting."""
        self._write(booking, expected=None)

    def move(
        self, email: str, shown: CalendarEvent, start: datetime, end: datetime, scope: Scope = "series"
    ) -> CalendarEvent:
        """The booking at [start, end), in the same transaction as :meth:`book` (every attendee-day
        and the booking conditioned on the versions read), and only from the version the card
        showed: of two cards moving one meeting, the second's transaction or check fails. A series
        moves every meeting by as much as ``shown`` moves; one meeting of it (``occurrence``) is
        :meth:`_move_occurrence`."""
        stored = self.stored(shown.id)
        if shown.recurring and stored is not None and stored.booking.recurrence is not None:
            if scope == "occurrence":
                return self._move_occurrence(email, shown, stored, start, end)
            first = stored.booking.start + (start - shown.start)
            start, end = first, first + (end - start)
        current = None if stored is None else booking_event(stored.booking, email, stored.version or 1)
        if already_at(current, start, end):
            assert current is not None
            return current
        booking = self._own(stored, shown, email, organizer=True)
        self._write(booking.model_copy(update={"start": start, "end": end}), expected=int(shown.version))
        moved = self.event(email, shown.id)
        if moved is None:
            raise EventChanged(gone=True)
        return moved

    def cancel(self, email: str, shown: CalendarEvent, message: str, scope: Scope = "series") -> None:
        """The booking and its busy time gone, only from the version the card showed; for one
        occurrence of a series, the series kept with that meeting taken out of it (an EXDATE), written
        like a move: the booking and each attendee's series item in one transaction over the
        versions read. Confirmed again, the meeting already taken out is nothing to do."""
        stored = self.stored(shown.id)
        if scope == "occurrence" and shown.recurring:
            skipped = shown.start.astimezone(UTC)
            if stored is not None and skipped in {e.astimezone(UTC) for e in stored.booking.exceptions}:
                return
            booking = self._own(stored, shown, email, organizer=True)
            if booking.recurrence is not None:
                taken_out = booking.model_copy(update={"exceptions": (*booking.exceptions, skipped)})
                self._write(taken_out, expected=int(shown.version))
                return
        self._own(stored, shown, email, organizer=True)
        self._release(shown.id, expected=int(shown.version))

    def respond(
        self,
        email: str,
        shown: CalendarEvent,
        response: Response,
        message: str,
        proposed: Interval | None = None,
    ) -> CalendarEvent:
        """The attendee's answer recorded on the booking (its version raised), from the card's version."""
        stored = self.stored(shown.id)
        current = None if stored is None else booking_event(stored.booking, email, stored.version or 1)
        if current is not None and current.response is response:
            return current
        booking = self._own(stored, shown, email, organizer=False)
        answered = {**booking.responses, email.casefold(): response}
        self._write(booking.model_copy(update={"responses": answered}), expected=int(shown.version))
        found = self.event(email, shown.id)
        if found is None:
            raise EventChanged(gone=True)
        return found

    def _move_occurrence(
        self, email: str, shown: CalendarEvent, stored: _StoredBooking, start: datetime, end: datetime
    ) -> CalendarEvent:
        """One meeting of a series moved: first booked on its own (:func:`moved_occurrence_id`,
        created only: a booking already there at another time is a second card's, ``EventChanged``),
        then taken out of the series (an EXDATE, over the version the card showed). Each step is a
        no-op when already done, so a retried confirm completes it once; when the series changed
        since the card, the booking just made is released and nothing stays written."""
        single_id = moved_occurrence_id(shown.id, shown.start)
        series = stored.booking
        skipped = shown.start.astimezone(UTC)
        single = Booking(
            id=single_id,
            title=series.title,
            organizer=series.organizer,
            attendees=series.attendees,
            start=start,
            end=end,
            timezone=series.timezone,
            guests=series.guests,
            description=series.description,
            owner=series.owner,
        )
        already = self.stored(single_id)
        if already is None:
            self._own(stored, shown, email, organizer=True)
            self._write(single, expected=None, create=True)
        elif not _same_booking(already.booking, single):
            raise EventChanged(gone=False)
        if skipped not in {e.astimezone(UTC) for e in series.exceptions}:
            try:
                taken_out = series.model_copy(update={"exceptions": (*series.exceptions, skipped)})
                self._write(taken_out, expected=int(shown.version))
            except EventChanged:
                if already is None:
                    self._release(single_id, expected=None)
                raise
        moved = self.event(email, single_id)
        if moved is None:
            raise EventChanged(gone=True)
        return moved

    @staticmethod
    def _own(stored: _StoredBooking | None, shown: CalendarEvent, email: str, *, organizer: bool) -> Booking:
        """The stored booking when it is still the card's and the caller's part in it is the one asked."""
        if stored is None:
            raise EventChanged(gone=True)
        event = booking_event(stored.booking, email, stored.version or 1)
        if event is None:
            raise EventChanged(gone=True)
        if event.version != shown.version:
            raise EventChanged(gone=False)
        if (event.role == "organizer") is not organizer:
            raise NotOrganizer(shown.id)
        return stored.booking

    def _write(self, booking: Booking, *, expected: int | None, create: bool = False) -> None:
        """:meth:`book`'s transaction; with ``expected``, only from that version of the booking;
        with ``create``, only as a new booking (one there at another time: :class:`EventChanged`)."""
        checked = _days_of(booking)  # a series' first meeting is checked like a single one
        people = _emails(booking.attendees)
        if len(checked) + len(people) + 1 > TRANSACT_LIMIT:
            raise ValueError(f"A booking can span at most {TRANSACT_LIMIT - 1} attendee-days.")
        for _ in range(_MAX_BOOK_ATTEMPTS):
            stored, days = self._read(booking.id, checked)
            if expected is not None and (stored is None or stored.version != expected):
                raise EventChanged(gone=stored is None)  # changed since the card: nothing written
            if stored is not None and _same_booking(stored.booking, booking):
                return  # booked before: a retried confirmation
            if create and stored is not None:
                raise EventChanged(gone=False)  # made meanwhile by another confirm, at another time
            series = self._read_series(people)
            taken = _conflicts(booking, days, checked, series)
            if taken:
                raise SlotTaken(taken)
            wanted_days = set() if booking.recurrence is not None else checked
            wanted_series = people if booking.recurrence is not None else set()
            old_days: set[tuple[str, date]] = set()
            old_series: set[str] = set()
            if stored is not None:  # the same booking at another time or with other people: it moves
                old_days = set() if stored.booking.recurrence is not None else _days_of(stored.booking)
                old_series = _emails(stored.booking.attendees) if stored.booking.recurrence else set()
                days.update(self._read_days(old_days - checked))
                series.update(self._read_series(old_series - people))
            items = [self._booking_put(booking, stored)]
            for key in sorted(wanted_days | old_days):
                day = days.get(key) or _Day(version=None, intervals=())
                kept = [i for i in day.intervals if i.booking_id != booking.id]
                if key in wanted_days:
                    kept.append(_Held(booking.id, booking.start.astimezone(UTC), booking.end.astimezone(UTC)))
                items.append(self._day_write(key, day.version, kept))
            for email in sorted(wanted_series | old_series):
                held = series.get(email) or Series(version=None, entries=())
                entries = [e for e in held.entries if e.booking_id != booking.id]
                if email in wanted_series:
                    entries.append(SeriesEntry.of(booking))
                items.append(self._series_write(email, held.version, entries))
            # What the check read and nothing writes must still be as read when this commits.
            for key in sorted(checked - wanted_days - old_days):
                items.append(self._unchanged(_day_key(*key), days.get(key, _Day(None, ())).version))
            for email in sorted(people - wanted_series - old_series):
                items.append(self._unchanged(_series_key(email), series.get(email, Series(None, ())).version))
            if len(items) > TRANSACT_LIMIT:
                raise ValueError(f"A booking can span at most {TRANSACT_LIMIT - 1} attendee-days.")
            if self._transact(items):
                return
        raise BookingContention("The attendees' calendars kept changing; try again.")

    def release(self, booking_id: str) -> None:
        self._release(booking_id, expected=None)

    def _release(self, booking_id: str, *, expected: int | None) -> None:
        for _ in range(_MAX_BOOK_ATTEMPTS):
            stored, _days = self._read(booking_id, set())
            if expected is not None and (stored is None or stored.version != expected):
                raise EventChanged(gone=stored is None)
            if stored is None:
                return
            keys = set() if stored.booking.recurrence is not None else _days_of(stored.booking)
            held = _emails(stored.booking.attendees) if stored.booking.recurrence is not None else set()
            days = self._read_days(keys)
            series = self._read_series(held)
            items: list[Any] = [
                {
                    "Delete": {
                        "TableName": self._table,
                        "Key": _booking_key(booking_id),
                        **_version_condition(stored.version),
                    }
                }
            ]
            for key in sorted(keys):
                day = days.get(key) or _Day(version=None, intervals=())
                kept = [i for i in day.intervals if i.booking_id != booking_id]
                items.append(self._day_write(key, day.version, kept))
            for email in sorted(held):
                found = series.get(email) or Series(version=None, entries=())
                entries = [e for e in found.entries if e.booking_id != booking_id]
                items.append(self._series_write(email, found.version, entries))
            if self._transact(items):
                return
        raise BookingContention("The attendees' calendars kept changing; try again.")

    # -- reads and writes of the item layout -------------------------------------------------

    def _read(
        self, booking_id: str, keys: set[tuple[str, date]]
    ) -> tuple[_StoredBooking | None, dict[tuple[str, date], _Day]]:
        """The booking (if stored) and the attendee-days ``keys``, in one read."""
        request = [_booking_key(booking_id), *(_day_key(email, day) for email, day in sorted(keys))]
        stored: _StoredBooking | None = None
        days: dict[tuple[str, date], _Day] = {}
        for offset in range(0, len(request), BATCH_GET_LIMIT):
            for item in self._batch_get(request[offset : offset + BATCH_GET_LIMIT], consistent=True):
                pk = item["pk"]["S"]
                if pk.startswith(BOOKING_PREFIX):
                    stored = _booking_from_item(item)
                else:
                    days[(pk.removeprefix(BUSY_PREFIX), date.fromisoformat(item["sk"]["S"]))] = (
                        _day_from_item(item)
                    )
        return stored, days

    def _read_days(self, keys: set[tuple[str, date]]) -> dict[tuple[str, date], _Day]:
        if not keys:
            return {}
        request = [_day_key(email, day) for email, day in sorted(keys)]
        days: dict[tuple[str, date], _Day] = {}
        for offset in range(0, len(request), BATCH_GET_LIMIT):
            for item in self._batch_get(request[offset : offset + BATCH_GET_LIMIT], consistent=True):
                key = (item["pk"]["S"].removeprefix(BUSY_PREFIX), date.fromisoformat(item["sk"]["S"]))
                days[key] = _day_from_item(item)
        return days

    def _read_series(self, emails: set[str]) -> dict[str, Series]:
        """Each address's series item (consistent), by casefolded address; absent: none."""
        found: dict[str, Series] = {}
        keys = [_series_key(email) for email in sorted(emails)]
        for offset in range(0, len(keys), BATCH_GET_LIMIT):
            for item in self._batch_get(keys[offset : offset + BATCH_GET_LIMIT], consistent=True):
                found[item["pk"]["S"].removeprefix(BUSY_PREFIX)] = series_from_item(item)
        return found

    def _series_write(self, email: str, version: int | None, entries: list[SeriesEntry]) -> dict[str, Any]:
        condition = _version_condition(version)
        key = _series_key(email)
        if not entries:
            return {"Delete": {"TableName": self._table, "Key": key, **condition}}
        ends = [e.last_end() for e in entries]
        bounded = [end for end in ends if end is not None]
        expires = {"expiresAt": {"N": str(_expires(max(bounded)))}} if len(bounded) == len(ends) else {}
        return {
            "Put": {
                "TableName": self._table,
                "Item": {
                    **key,
                    "series": {"L": [e.to_item() for e in sorted(entries, key=lambda e: e.start)]},
                    "version": {"N": str((version or 0) + 1)},
                    **expires,
                },
                **condition,
            }
        }

    def _unchanged(self, key: dict[str, Any], version: int | None) -> dict[str, Any]:
        return {"ConditionCheck": {"TableName": self._table, "Key": key, **_version_condition(version)}}

    def _booking_put(self, booking: Booking, stored: _StoredBooking | None) -> dict[str, Any]:
        wire = booking.to_wire()
        version = 1 if stored is None else (stored.version or 0) + 1
        condition = (
            {"ConditionExpression": "attribute_not_exists(pk)"}
            if stored is None
            else _version_condition(stored.version)
        )
        return {
            "Put": {
                "TableName": self._table,
                "Item": {
                    **_booking_key(booking.id),
                    "title": {"S": wire["title"]},
                    "organizer": {"S": wire["organizer"]},
                    "attendees": {"L": [{"S": a} for a in wire["attendees"]]},
                    "start": {"S": wire["start"]},
                    "end": {"S": wire["end"]},
                    "timezone": {"S": wire["timezone"]},
                    "version": {"N": str(version)},
                    **_booking_expiry(booking),
                    **(
                        {"recurrence": {"S": booking.recurrence.model_dump_json(by_alias=True)}}
                        if booking.recurrence is not None
                        else {}
                    ),
                    **({"exceptions": instants(booking.exceptions)} if booking.exceptions else {}),
                    **(
                        {"responses": {"M": {k: {"S": str(v)} for k, v in sorted(booking.responses.items())}}}
                        if booking.responses
                        else {}
                    ),
                    # The guests' names: a card names a meeting's people as the invitation did.
                    **(
                        {
                            "guests": {
                                "L": [
                                    {
                                        "M": {
                                            "email": {"S": g.email},
                                            **({"name": {"S": g.name}} if g.name else {}),
                                        }
                                    }
                                    for g in booking.guests
                                ]
                            }
                        }
                        if booking.guests
                        else {}
                    ),
                    **({OWNER_ATTRIBUTE: {"S": booking.owner}} if booking.owner else {}),
                },
                **condition,
            }
        }

    def _day_write(
        self, key: tuple[str, date], version: int | None, intervals: list[_Held]
    ) -> dict[str, Any]:
        condition = _version_condition(version)
        if not intervals:
            return {"Delete": {"TableName": self._table, "Key": _day_key(*key), **condition}}
        return {
            "Put": {
                "TableName": self._table,
                "Item": {
                    **_day_key(*key),
                    "intervals": {"L": [i.to_item() for i in sorted(intervals, key=lambda i: i.start)]},
                    "version": {"N": str((version or 0) + 1)},
                    "expiresAt": {"N": str(_expires(max(i.end for i in intervals)))},
                },
                **condition,
            }
        }

    def _transact(self, items: list[Any]) -> bool:
        """True once written; False when an item changed since it was read (read again and retry)."""
        try:
            self._client.transact_write_items(TransactItems=items)
        except ClientError as error:
            reasons: list[Any] = error.response.get("CancellationReasons", [])
            if any(r.get("Code") in _RETRYABLE_REASONS for r in reasons):
                return False
            raise
        return True


class _Held(msgspec.Struct, frozen=True):
    """One interval of an attendee-day item: which booking holds [start, end)."""

    booking_id: str
    start: datetime
    end: datetime

    def to_item(self) -> dict[str, Any]:
        return {
            "M": {
                "bookingId": {"S": self.booking_id},
                "start": {"S": self.start.isoformat()},
                "end": {"S": self.end.isoformat()},
            }
        }


class _Day(msgspec.Struct, frozen=True):
    """One attendee-day item as read: the intervals it holds, and the version a write must match."""

    version: int | None  # None: no item yet, or one written before items had versions
    intervals: tuple[_Held, ...]


class _StoredBooking(msgspec.Struct, frozen=True):
    """A booking item as read, with the version its cancellation must match."""

    booking: Booking
    version: int | None


def _emails(addresses: Sequence[str]) -> set[str]:
    return {a.casefold() for a in addresses if a}


def _same_booking(stored: Booking, booking: Booking) -> bool:
    # Instants compared in UTC: Python never finds a time in a repeated hour (fold=1) equal to
    # one in another zone (PEP 495), so a retried confirm then would move the booking onto itself.
    def instants(b: Booking) -> tuple[datetime, datetime]:
        return b.start.astimezone(UTC), b.end.astimezone(UTC)

    def skipped(b: Booking) -> set[datetime]:
        return {e.astimezone(UTC) for e in b.exceptions}

    return (
        instants(stored),
        _emails(stored.attendees),
        stored.responses,
        stored.recurrence,
        skipped(stored),
    ) == (
        instants(booking),
        _emails(booking.attendees),
        booking.responses,
        booking.recurrence,
        skipped(booking),
    )


def _conflicts(
    booking: Booking,
    days: Mapping[tuple[str, date], _Day],
    wanted: set[tuple[str, date]],
    series: Mapping[str, Series],
) -> dict[str, list[Interval]]:
    """Per attendee (as the booking spells them), the other bookings' intervals overlapping its
    (first) meeting: single meetings held on the days, and the meetings of every series they are on."""
    spelled = {a.casefold(): a for a in booking.attendees}
    taken: dict[str, list[Interval]] = {}

    def clash(email: str, interval: Interval) -> None:
        found = taken.setdefault(spelled.get(email, email), [])
        if interval not in found:
            found.append(interval)

    for email, day in sorted(wanted):
        for held in days.get((email, day), _Day(None, ())).intervals:
            interval = Interval(start=held.start, end=held.end)
            if held.booking_id != booking.id and overlaps(interval, booking.start, booking.end):
                clash(email, interval)
    for email, found in sorted(series.items()):
        for entry in found.entries:
            if entry.booking_id != booking.id:
                for interval in entry.meetings(booking.start, booking.end):
                    clash(email, interval)
    return taken


def _days_of(booking: Booking) -> set[tuple[str, date]]:
    """The attendee-days its (first) meeting touches."""
    return {
        (email, day) for email in _emails(booking.attendees) for day in utc_days(booking.start, booking.end)
    }


def _series_key(email: str) -> dict[str, Any]:
    return {"pk": {"S": BUSY_PREFIX + email}, "sk": {"S": SERIES_SK}}


def _booking_expiry(booking: Booking) -> dict[str, Any]:
    """Kept until 30 days after its last meeting; a series without an end is kept."""
    if booking.recurrence is None:
        return {"expiresAt": {"N": str(_expires(booking.end))}}
    last = SeriesEntry.of(booking).last_end()
    return {} if last is None else {"expiresAt": {"N": str(_expires(last))}}


def _booking_key(booking_id: str) -> dict[str, Any]:
    return {"pk": {"S": BOOKING_PREFIX + booking_id}, "sk": {"S": "BOOKING"}}


def _day_key(email: str, day: date) -> dict[str, Any]:
    return {"pk": {"S": BUSY_PREFIX + email}, "sk": {"S": day.isoformat()}}


def _version_condition(version: int | None) -> dict[str, Any]:
    if version is None:
        return {
            "ConditionExpression": "attribute_not_exists(#v)",
            "ExpressionAttributeNames": {"#v": "version"},
        }
    return {
        "ConditionExpression": "#v = :v",
        "ExpressionAttributeNames": {"#v": "version"},
        "ExpressionAttributeValues": {":v": {"N": str(version)}},
    }


def _expires(end: datetime) -> int:
    return int((end + RETAIN_AFTER_END).timestamp())


def _day_from_item(item: Mapping[str, Any]) -> _Day:
    held = tuple(
        _Held(
            booking_id=value["M"]["bookingId"]["S"],
            start=datetime.fromisoformat(value["M"]["start"]["S"]),
            end=datetime.fromisoformat(value["M"]["end"]["S"]),
        )
        for value in item.get("intervals", {}).get("L", [])
    )
    return _Day(version=version_of(item), intervals=held)


def _booking_from_item(item: Mapping[str, Any]) -> _StoredBooking:
    booking = Booking(
        id=item["pk"]["S"].removeprefix(BOOKING_PREFIX),
        title=item["title"]["S"],
        organizer=item["organizer"]["S"],
        attendees=tuple(a["S"] for a in item.get("attendees", {}).get("L", [])),
        start=datetime.fromisoformat(item["start"]["S"]),
        end=datetime.fromisoformat(item["end"]["S"]),
        timezone=item.get("timezone", {}).get("S", "UTC"),
        recurrence=Recurrence.model_validate_json(item["recurrence"]["S"]) if "recurrence" in item else None,
        owner=item.get(OWNER_ATTRIBUTE, {}).get("S"),
        responses={k: Response(v["S"]) for k, v in item.get("responses", {}).get("M", {}).items()},
        exceptions=tuple(datetime.fromisoformat(m["S"]) for m in item.get("exceptions", {}).get("L", [])),
        guests=tuple(
            Guest(email=g["M"]["email"]["S"], name=g["M"].get("name", {}).get("S"))
            for g in item.get("guests", {}).get("L", [])
        ),
    )
    return _StoredBooking(booking=booking, version=version_of(item))
