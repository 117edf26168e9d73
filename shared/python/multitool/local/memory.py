"""In-memory ports and sessions for unit tests, benchmarks and the offline demo.

They live under ``multitool.local``, which the Lambda layer leaves out: nothing deployed uses them.

They behave like the DynamoDB adapters (same matching, same conditional
writes) and count backend round trips, so tests can assert that a batch of
calls made one directory read and one draft write.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, ClassVar

from multitool.chat.sessions import ClaimedTurn, History, SessionNotFound, SessionNotOwned
from multitool.drafts import Draft, DraftStatus
from multitool.people import NameResolution, Person
from multitool.ports.calendar import Booking, Interval, SlotTaken, overlaps
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

    def __init__(self, bookings: Iterable[Booking] = ()) -> None:
        self.bookings: dict[str, Booking] = {}
        self.reads = 0
        self.writes = 0
        self._lock = threading.Lock()
        for booking in bookings:
            self.bookings[booking.id] = booking

    def busy(self, emails: Sequence[str], start: datetime, end: datetime) -> Mapping[str, Sequence[Interval]]:
        self.reads += 1
        result: dict[str, list[Interval]] = {}
        for email in emails:
            wanted = email.casefold()
            intervals = [
                Interval(start=b.start, end=b.end)
                for b in self.bookings.values()
                if wanted in {a.casefold() for a in b.attendees}
            ]
            result[email] = sorted((i for i in intervals if overlaps(i, start, end)), key=lambda i: i.start)
        return result

    def book(self, booking: Booking) -> None:
        """As :meth:`DynamoCalendar.book`: refused when an attendee is booked then, idempotent by id."""
        with self._lock:
            emails = {a.casefold() for a in booking.attendees}
            taken: dict[str, list[Interval]] = {}
            for other in self.bookings.values():
                interval = Interval(start=other.start, end=other.end)
                if other.id == booking.id or not overlaps(interval, booking.start, booking.end):
                    continue
                for attendee in booking.attendees:
                    if attendee.casefold() in {a.casefold() for a in other.attendees} & emails:
                        taken.setdefault(attendee, []).append(interval)
            if taken:
                raise SlotTaken(taken)
            self.writes += 1
            self.bookings[booking.id] = booking

    def release(self, booking_id: str) -> None:
        with self._lock:
            self.writes += 1
            self.bookings.pop(booking_id, None)


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
