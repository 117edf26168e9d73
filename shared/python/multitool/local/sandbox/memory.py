"""In-memory ports and sessions for unit tests, benchmarks and the offline demo.

They live under ``multitool.local``, which the Lambda layer leaves out: nothing deployed uses them.

They behave like the DynamoDB adapters (same matching, same conditional
writes) and count backend round trips, so tests can assert that a batch of
calls made one directory read and one draft write.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from multitool.chat.sessions import ClaimedTurn, History, SessionNotFound, SessionNotOwned
from multitool.drafts import Draft, DraftStatus
from multitool.people import NameResolution, Person
from multitool.ports.calendar import (
    Booking,
    CalendarEvent,
    Interval,
    Response,
    Scope,
    SlotTaken,
    already_at,
    booking_event,
    checked_as,
    meetings_of,
    moved_occurrence_id,
    overlaps,
)
from multitool.ports.directory import name_index, normalize_name, resolution_for
from multitool.ports.drafts import DraftWriteConflict, claimed, next_version, superseded
from multitool.ports.mailbox import (
    Attachment,
    DraftState,
    MailSearch,
    Message,
    Outgoing,
    SentAnswer,
    first_lines,
    newest_first,
)
from multitool.runtimes.carryover import Messages


class MemoryDirectory:
    def __init__(self, people: Iterable[Person] = ()) -> None:
        self.people = list(people)
        self._index = name_index(self.people)
        self.reads = 0

    def resolve(self, names: Sequence[str]) -> Mapping[str, NameResolution]:
        self.reads += 1
        return {name: resolution_for(name, self._index.get(normalize_name(name), ())) for name in names}

    def names(self) -> tuple[str, ...]:
        """Every name the directory answers to, normalized (as DynamoDirectory.names)."""
        return tuple(sorted(self._index))


class MemoryCalendar:
    sends_invitations: ClassVar[bool] = False
    cancellation_message: ClassVar[bool] = False
    proposes_new_times: ClassVar[bool] = False

    def __init__(self, bookings: Iterable[Booking] = ()) -> None:
        self.bookings: dict[str, Booking] = {}
        self.versions: dict[str, int] = {}
        self.reads = 0
        self.writes = 0
        self._lock = threading.RLock()  # move re-enters book
        for booking in bookings:
            self.bookings[booking.id] = booking
            self.versions[booking.id] = 1

    def busy(self, emails: Sequence[str], start: datetime, end: datetime) -> Mapping[str, Sequence[Interval]]:
        self.reads += 1
        result: dict[str, list[Interval]] = {}
        for email in emails:
            wanted = email.casefold()
            intervals = [
                held
                for b in self.bookings.values()
                if wanted in {a.casefold() for a in b.attendees}
                for held in meetings_of(b, start, end)
            ]
            result[email] = sorted((i for i in intervals if overlaps(i, start, end)), key=lambda i: i.start)
        return result

    def book(self, booking: Booking) -> None:
        """As :meth:`DynamoCalendar.book`: refused when an attendee is booked then, idempotent by id."""
        with self._lock:
            emails = {a.casefold() for a in booking.attendees}
            taken: dict[str, list[Interval]] = {}
            for other in self.bookings.values():
                if other.id == booking.id:
                    continue
                for interval in meetings_of(other, booking.start, booking.end):  # a series: its meetings then
                    for attendee in booking.attendees:
                        if attendee.casefold() in {a.casefold() for a in other.attendees} & emails:
                            taken.setdefault(attendee, []).append(interval)
            if taken:
                raise SlotTaken(taken)
            stored = self.bookings.get(booking.id)
            if stored is not None and _same_time(stored, booking):
                return  # booked before: a retried confirmation
            self.writes += 1
            self.bookings[booking.id] = booking
            self.versions[booking.id] = self.versions.get(booking.id, 0) + 1

    def release(self, booking_id: str) -> None:
        with self._lock:
            self.writes += 1
            self.bookings.pop(booking_id, None)
            self.versions.pop(booking_id, None)

    def events(self, email: str, start: datetime, end: datetime) -> Sequence[CalendarEvent]:
        """As :meth:`DynamoCalendar.events`: the bookings ``email`` organizes or is on, in one read."""
        self.reads += 1
        with self._lock:
            found = [
                event.model_copy(
                    update={"start": m.start, "end": m.end, "recurring": True, "series_id": b.id}
                )
                if b.recurrence is not None
                else event
                for b in self.bookings.values()
                if (event := booking_event(b, email, self.versions.get(b.id, 1))) is not None
                for m in meetings_of(b, start, end)
            ]
        return sorted(found, key=lambda e: e.start)

    def event(self, email: str, event_id: str) -> CalendarEvent | None:
        self.reads += 1
        with self._lock:
            return self._event(email, event_id)

    def _event(self, email: str, event_id: str) -> CalendarEvent | None:
        booking = self.bookings.get(event_id)
        return booking_event(booking, email, self.versions.get(event_id, 1)) if booking else None

    def move(
        self, email: str, shown: CalendarEvent, start: datetime, end: datetime, scope: Scope = "series"
    ) -> CalendarEvent:
        """As :meth:`DynamoCalendar.move`: checked and written under one lock (its transaction)."""
        with self._lock:
            series = self.bookings.get(shown.id)
            if shown.recurring and series is not None and series.recurrence is not None:
                if scope == "occurrence":
                    return self._move_occurrence(email, shown, series, start, end)
                first = series.start + (start - shown.start)
                start, end = first, first + (end - start)
            current = self._event(email, shown.id)
            if already_at(current, start, end):
                assert current is not None
                return current
            checked_as(current, shown, "organizer")
            self.book(self.bookings[shown.id].model_copy(update={"start": start, "end": end}))
            found = self._event(email, shown.id)
        assert found is not None
        return found

    def _move_occurrence(
        self, email: str, shown: CalendarEvent, series: Booking, start: datetime, end: datetime
    ) -> CalendarEvent:
        single_id = moved_occurrence_id(shown.id, shown.start)
        if single_id not in self.bookings:
            checked_as(self._event(email, shown.id), shown, "organizer")
            skipped = shown.start.astimezone(UTC)
            self.book(
                series.model_copy(
                    update={"id": single_id, "start": start, "end": end, "recurrence": None, "exceptions": ()}
                )
            )
            self.bookings[shown.id] = series.model_copy(update={"exceptions": (*series.exceptions, skipped)})
            self.versions[shown.id] = self.versions.get(shown.id, 1) + 1
        found = self._event(email, single_id)
        assert found is not None
        return found

    def cancel(self, email: str, shown: CalendarEvent, message: str, scope: Scope = "series") -> None:
        """As :meth:`DynamoCalendar.cancel`: one occurrence taken out of its series, or the booking gone."""
        with self._lock:
            booking = self.bookings.get(shown.id)
            skipped = shown.start.astimezone(UTC)
            one = scope == "occurrence" and shown.recurring and booking is not None and booking.recurrence
            if one and skipped in {e.astimezone(UTC) for e in booking.exceptions}:  # type: ignore[union-attr]
                return  # taken out before: a retried confirmation
            checked_as(self._event(email, shown.id), shown, "organizer")
            self.writes += 1
            if one:
                assert booking is not None
                self.bookings[shown.id] = booking.model_copy(
                    update={"exceptions": (*booking.exceptions, skipped)}
                )
                self.versions[shown.id] = self.versions.get(shown.id, 1) + 1
                return
            self.bookings.pop(shown.id, None)
            self.versions.pop(shown.id, None)

    def respond(
        self,
        email: str,
        shown: CalendarEvent,
        response: Response,
        message: str,
        proposed: Interval | None = None,
    ) -> CalendarEvent:
        with self._lock:
            current = self._event(email, shown.id)
            if current is not None and current.response is response:
                return current
            checked_as(current, shown, "attendee")
            booking = self.bookings[shown.id]
            self.writes += 1
            self.bookings[shown.id] = booking.model_copy(
                update={"responses": {**booking.responses, email.casefold(): response}}
            )
            self.versions[shown.id] = self.versions.get(shown.id, 1) + 1
            found = self._event(email, shown.id)
        assert found is not None
        return found


def _same_time(stored: Booking, booking: Booking) -> bool:
    return (
        stored.start,
        stored.end,
        {a.casefold() for a in stored.attendees},
        stored.responses,
        stored.recurrence,
    ) == (
        booking.start,
        booking.end,
        {a.casefold() for a in booking.attendees},
        booking.responses,
        booking.recurrence,
    )


class MemoryDraftStore:
    def __init__(self) -> None:
        self.drafts: dict[str, Draft] = {}
        self._lock = threading.Lock()
        self.reads = 0
        self.writes = 0

    def create_many(self, drafts: Sequence[Draft]) -> list[Draft]:
        self.writes += 1
        for draft in drafts:
            self.drafts.setdefault(draft.id, draft)
        return [self.drafts[d.id] for d in drafts]

    def get(self, draft_id: str) -> Draft | None:
        self.reads += 1
        return self.drafts.get(draft_id)

    def replace(self, current: Draft, updated: Draft) -> Draft:
        new = next_version(current, updated)
        with self._lock:
            self.writes += 1
            stored = self.drafts.get(current.id)
            if stored is None or (stored.version, stored.status, stored.owner) != (
                current.version,
                current.status,
                current.owner,
            ):
                raise DraftWriteConflict(current.id, stored)
            self.drafts[current.id] = new
        return new

    def claim(self, current: Draft, owner: str) -> Draft:
        new = claimed(current, owner)
        with self._lock:
            self.writes += 1
            stored = self.drafts.get(current.id)
            if stored is None or (stored.version, stored.owner) != (current.version, current.owner):
                raise DraftWriteConflict(current.id, stored)
            self.drafts[current.id] = new
        return new

    def supersede(self, earlier: Draft, revision: Draft) -> Draft:
        marked = superseded(earlier, revision)
        with self._lock:
            self.writes += 1
            stored = self.drafts.get(earlier.id)
            if (
                revision.id in self.drafts
                or stored is None
                or (stored.version, stored.status, stored.owner)
                != (earlier.version, DraftStatus.PROPOSED, earlier.owner)
            ):
                raise DraftWriteConflict(earlier.id, stored)
            self.drafts[revision.id] = revision
            self.drafts[earlier.id] = marked
        return revision


class MemorySessionStore:
    """In-memory sessions for unit tests and benchmarks."""

    def __init__(self) -> None:
        self.owners: dict[str, str] = {}
        self.histories: dict[str, History] = {}
        self.carried: dict[str, Messages] = {}
        self.writes = 0

    def claim(self, session_id: str, user_id: str, now: datetime | None = None) -> History:
        self.writes += 1
        owner = self.owners.setdefault(session_id, user_id)
        if owner != user_id:
            raise SessionNotOwned("This session belongs to another user.")
        return self.histories.get(session_id, ())

    def claim_taking_carry(self, session_id: str, user_id: str, now: datetime | None = None) -> ClaimedTurn:
        history = self.claim(session_id, user_id, now)
        return ClaimedTurn(history, self.carried.pop(session_id, []))

    def read(self, session_id: str, user_id: str) -> History:
        if self.owners.get(session_id) != user_id:
            raise SessionNotFound("No such session for this user.")
        return self.histories.get(session_id, ())

    def remember(self, session_id: str, user_id: str, history: History, now: datetime | None = None) -> None:
        if self.owners.get(session_id) != user_id:
            raise SessionNotOwned("This session belongs to another user.")
        self.writes += 1
        self.histories[session_id] = tuple(history)


class MemoryMailbox:
    """One user's mailbox in memory (:class:`multitool.ports.mailbox.Mailbox`), for unit tests and
    benchmarks: the same search (newest first), drafts and their one send as the builtin's."""

    max_attachment_bytes = 300_000

    def __init__(self, owner: str, messages: Iterable[Message] = ()) -> None:
        self.owner = owner
        self.messages = list(messages)
        self.drafts: dict[str, Outgoing] = {}
        self.sent: dict[str, Outgoing] = {}
        self.searches = 0

    @classmethod
    def seeded(cls, owner: str, mail: Iterable[Mapping[str, Any]], now: datetime) -> MemoryMailbox:
        """``owner``'s messages of a seed's ``mail`` (``seed.json``), received ``hoursAgo`` before ``now``."""
        box = cls(owner)
        for index, seeded in enumerate(mail):
            everyone = [str(seeded["from"]), *seeded.get("to", ()), *seeded.get("cc", ())]
            if owner.casefold() not in {a.casefold() for a in everyone}:
                continue
            files = tuple(
                Attachment(f"a{n}", str(a["name"]), len(str(a.get("text", ""))), str(a.get("contentType")))
                for n, a in enumerate(seeded.get("attachments", ()))
            )
            box.messages.append(
                Message(
                    id=f"m{index}",
                    thread_id=str(seeded.get("thread") or f"m{index}"),
                    sender=str(seeded["from"]),
                    sender_name=str(seeded.get("fromName", "")),
                    subject=str(seeded.get("subject", "")),
                    received=now - timedelta(hours=float(seeded.get("hoursAgo", index + 1))),
                    to=tuple(seeded.get("to", ())),
                    cc=tuple(seeded.get("cc", ())),
                    preview=first_lines(str(seeded.get("body", ""))),
                    attachments=files,
                    has_attachments=bool(files),
                )
            )
        return box

    def search(self, query: MailSearch) -> Sequence[Message]:
        self.searches += 1
        senders = {s.casefold() for s in query.senders}
        found = [
            m
            for m in self.messages
            if (not senders or m.sender.casefold() in senders)
            and (query.since is None or m.received >= query.since)
            and (query.until is None or m.received < query.until)
            and (not query.has_attachments or m.attachments)
        ]
        return newest_first(found)[: query.limit]

    def read(self, message_id: str) -> Message | None:
        return next((m for m in self.messages if m.id == message_id), None)

    def create_draft(self, outgoing: Outgoing) -> str:
        draft_id = outgoing.key or f"draft-{len(self.drafts) + 1}"
        self.drafts.setdefault(draft_id, outgoing)
        return draft_id

    def draft_state(self, draft_id: str) -> DraftState:
        if draft_id in self.sent:
            return DraftState.SENT
        return DraftState.DRAFT if draft_id in self.drafts else DraftState.GONE

    def send_draft(self, draft_id: str) -> SentAnswer:
        self.sent[draft_id] = self.drafts.pop(draft_id)
        return SentAnswer(message_id=f"sent-{draft_id}")
