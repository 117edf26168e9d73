"""The directory, calendar and mail ports on a user's own Google Workspace.

**People: the People API's ``people.searchDirectoryPeople``**, not the Admin SDK's
``users.list``. Both search the Workspace directory by name, but ``users.list`` is an
administrator's API (a non-administrator must pass ``viewType=domain_public`` and the domain,
and sees only the public fields), and its least scope, ``admin.directory.user.readonly``, is an
admin scope; ``searchDirectoryPeople`` answers as the signed-in user sees the directory (the
admin's directory sharing settings apply, as in Gmail's address completion) with
``directory.readonly``: https://developers.google.com/people/api/rest/v1/people/searchDirectoryPeople .
Its ``query`` is a prefix match over many fields, so the answers are filtered to people who
answer to the name exactly (full name, first or last name, address), as the built-in directory
matches. Neither API searches several names in one request: one request per distinct name.
The People API carries no time zone, so a person's is not known here (``""``, never a made-up
UTC): the scheduler does not hold them to working hours it cannot place, and the card shows no
local time for them (the meeting's zone is the organizer's, as said in the request). Calendar's
``settings.get timezone`` is the signed-in user's own only.

**Busy: Calendar ``freebusy.query``**, every address in one logical read, chunked at 50
calendars a request (``calendarExpansionMax``'s maximum in the discovery document) and, for a
long window, into windows of :data:`FREEBUSY_WINDOW` (Google publishes no maximum; it answers
"The requested time range is too long." past about 90 days, as integrators report:
https://github.com/calcom/cal.com/pull/11962); a calendar Google answers with an error
(``notFound``: the address has no calendar the user may see) is a :class:`ProviderRefused`
naming it, never a silent "free".

**Booking: ``events.insert`` on the organizer's primary calendar with ``sendUpdates=all``**, so
Google itself sends the invitations (:attr:`GoogleCalendar.sends_invitations`). The event id is
derived from the booking id (:func:`event_id`: base32hex, the alphabet and length Google
requires of an id a client chooses, https://developers.google.com/workspace/calendar/api/v3/reference/events/insert),
so a retried confirm finds its event instead of making a second one: :meth:`GoogleCalendar.book`
reads the event first (same time and guests: nothing to do), re-reads every tracked attendee's
free/busy, raises :class:`SlotTaken` if the slot is gone, then inserts, or patches an event that
exists at another time (a deleted event keeps its id, as ``cancelled``: it is patched back).
An insert answered ``409`` (a concurrent retry made it first) is read and settled the same way.
Google has no conditional insert across calendars, so unlike the DynamoDB calendar's
transaction, two confirms of *different* meetings for one person's time in the same second can
both pass the re-check (the window is the time between the free/busy read and the insert);
free/busy merges blocks, so a post-insert re-read cannot tell the other meeting from this one.

**Mail: Gmail ``users.messages.send``** from the user's own mailbox: an RFC 5322 message built
with the standard library's ``email`` package (headers RFC 2047-encoded by its SMTP policy, the
text policy of :mod:`multitool.text` applied to the subject, names and body), base64url in
``raw``. Gmail answers 400 for a message it will not send: :class:`MailRejected`.

Scopes (least privilege, from each method's ``scopes`` in its discovery document):
:data:`DIRECTORY_SCOPES`, :data:`FREEBUSY_SCOPES`, :data:`EVENT_SCOPES`, :data:`MAIL_SCOPES`.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar
from zoneinfo import ZoneInfo

import urllib3

from multitool.people import NameResolution, Person
from multitool.ports.calendar import (
    Booking,
    CalendarEvent,
    EventAttendee,
    EventChanged,
    Interval,
    Response,
    Scope,
    SlotTaken,
    already_at,
    cancel_target,
    checked_as,
    move_target,
    overlaps,
)
from multitool.ports.directory import name_keys, normalize_name, resolution_for
from multitool.ports.google.http import GoogleApi, error_reasons, path
from multitool.ports.mail import Mail, MailRejected, SentMail
from multitool.ports.recurrence import rrule_line
from multitool.ports.suites import Suite
from multitool.ports.tokens import Account, ProviderRefused, ProviderUnavailable, TokenSource
from multitool.text import multi_line, single_line

if TYPE_CHECKING:
    from email.headerregistry import Address

DIRECTORY_SCOPES = ("https://www.googleapis.com/auth/directory.readonly",)
FREEBUSY_SCOPES = ("https://www.googleapis.com/auth/calendar.events.freebusy",)
EVENT_SCOPES = ("https://www.googleapis.com/auth/calendar.events.owned",)
MAIL_SCOPES = ("https://www.googleapis.com/auth/gmail.send",)
# events.list and events.get take calendar.events.owned (their ``scopes`` in the discovery document):
# reading the user's own calendar needs no scope beyond the one booking already asks for.
READ_SCOPES = EVENT_SCOPES
MAILBOX_SCOPES = (
    "https://www.googleapis.com/auth/gmail.readonly",
    "https://www.googleapis.com/auth/gmail.compose",
)
"""Reading the user's mail and answering it through a draft (:mod:`multitool.ports.google.gmail_mailbox`)."""
SCOPES = DIRECTORY_SCOPES + FREEBUSY_SCOPES + EVENT_SCOPES + MAIL_SCOPES + MAILBOX_SCOPES
"""Every scope the suite asks for: what an administrator grants (docs/deploy.md)."""

FREEBUSY_CALENDARS = 50  # FreeBusyRequest.calendarExpansionMax: "Maximum value is 50."
FREEBUSY_WINDOW = timedelta(days=60)  # well inside the ~90 days Google is seen to accept
DIRECTORY_PAGE = 50
DIRECTORY_SOURCE = "DIRECTORY_SOURCE_TYPE_DOMAIN_PROFILE"
CALENDAR = "primary"
BOOKING_PROPERTY = "multitoolBookingId"
_EVENT_ID_PREFIX = "mt"


def event_id(booking_id: str) -> str:
    """The Calendar event id of a booking: ``mt`` + base32hex of its SHA-256, lowercase, 54 chars.

    Google's rule for an id a client chooses: base32hex characters (a-v, 0-9), 5 to 1024 long,
    unique per calendar. A hash keeps any booking id (any length, any characters) inside it.
    """
    digest = hashlib.sha256(booking_id.encode()).digest()
    return _EVENT_ID_PREFIX + base64.b32hexencode(digest).decode("ascii").rstrip("=").lower()


class GoogleDirectory:
    """:class:`~multitool.ports.directory.Directory` on the People API's directory search."""

    def __init__(self, api: GoogleApi) -> None:
        self._api = api

    def resolve(self, names: Sequence[str]) -> Mapping[str, NameResolution]:
        keys = {name: normalize_name(name) for name in names}
        found = {key: self._search(key) for key in sorted({k for k in keys.values() if k})}
        return {name: resolution_for(name, found.get(key, ())) for name, key in keys.items()}

    def _search(self, key: str) -> list[Person]:
        answer = self._api.call(
            "GET",
            "people",
            "/people:searchDirectoryPeople",
            scopes=DIRECTORY_SCOPES,
            query=[
                ("query", key),
                ("readMask", "names,emailAddresses"),
                ("sources", DIRECTORY_SOURCE),
                ("pageSize", str(DIRECTORY_PAGE)),
            ],
        )
        people = [person_from(entry) for entry in (answer.body or {}).get("people") or ()]
        return [p for p in people if p is not None and key in name_keys(p)]


def _primary(values: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    for value in values:
        if (value.get("metadata") or {}).get("primary"):
            return value
    return values[0] if values else None


def person_from(entry: Mapping[str, Any]) -> Person | None:
    """A directory entry as a :class:`Person` (None without a name and an address)."""
    emails = [e for e in entry.get("emailAddresses") or () if e.get("value")]
    name = _primary([n for n in entry.get("names") or () if n.get("displayName")])
    email = _primary(emails)
    if name is None or email is None or not entry.get("resourceName"):
        return None
    display = single_line(str(name["displayName"]))
    address = str(email["value"]).strip()
    if not display or len(address) < 3:
        return None
    others = tuple(str(e["value"]).strip() for e in emails if e is not email)
    return Person(
        id=str(entry["resourceName"])[:128],
        display_name=display[:200],
        email=address,
        timezone="",  # not known: see the module's note
        aliases=others,
    )


class GoogleCalendar:
    """:class:`~multitool.ports.calendar.Calendar` on Google Calendar (the organizer's primary calendar)."""

    sends_invitations: ClassVar[bool] = True
    cancellation_message: ClassVar[bool] = False
    proposes_new_times: ClassVar[bool] = False
    """Google Calendar's API has no "propose a new time" (EventAttendee has responseStatus and
    comment only: the discovery document); the web app's proposals are not in the API."""

    def __init__(self, api: GoogleApi) -> None:
        self._api = api

    def busy(self, emails: Sequence[str], start: datetime, end: datetime) -> Mapping[str, Sequence[Interval]]:
        # In UTC: two times of one zone compare by their wall clocks, which the hour repeated when
        # clocks go back puts out of order ("01:45, the second time" is after "01:55, the first").
        start, end = start.astimezone(UTC), end.astimezone(UTC)
        result: dict[str, list[Interval]] = {e: [] for e in emails}
        addresses = sorted({e.casefold() for e in emails if e})
        if not addresses or end <= start:
            return result
        by_address: dict[str, list[Interval]] = {a: [] for a in addresses}
        window_start = start
        while window_start < end:
            window_end = min(end, window_start + FREEBUSY_WINDOW)
            for offset in range(0, len(addresses), FREEBUSY_CALENDARS):
                chunk = addresses[offset : offset + FREEBUSY_CALENDARS]
                for address, intervals in self._freebusy(chunk, window_start, window_end).items():
                    by_address[address].extend(intervals)
            window_start = window_end
        for email in emails:
            result[email] = _merged(by_address.get(email.casefold(), []))
        return result

    def _freebusy(
        self, addresses: Sequence[str], start: datetime, end: datetime
    ) -> dict[str, list[Interval]]:
        answer = self._api.call(
            "POST",
            "calendar",
            "/freeBusy",
            scopes=FREEBUSY_SCOPES,
            body={
                "timeMin": _rfc3339(start),
                "timeMax": _rfc3339(end),
                "timeZone": "UTC",
                "calendarExpansionMax": min(FREEBUSY_CALENDARS, len(addresses)),
                "items": [{"id": a} for a in addresses],
            },
        )
        calendars = {str(k).casefold(): v for k, v in ((answer.body or {}).get("calendars") or {}).items()}
        found: dict[str, list[Interval]] = {}
        for address in addresses:
            entry = calendars.get(address)
            if entry is None:
                raise ProviderRefused("google", f"Google Calendar answered nothing for {address}.")
            reasons = {str(e.get("reason")) for e in entry.get("errors") or ()}
            if reasons:
                if reasons <= {"notFound", "groupTooBig", "tooManyCalendarsRequested"}:
                    raise ProviderRefused(
                        "google",
                        f"Google Calendar cannot show when {address} is free ({', '.join(sorted(reasons))}).",
                    )
                raise ProviderUnavailable(
                    "google",
                    f"Google Calendar could not read {address}'s free/busy ({', '.join(sorted(reasons))}).",
                )
            intervals = [
                Interval(start=datetime.fromisoformat(b["start"]), end=datetime.fromisoformat(b["end"]))
                for b in entry.get("busy") or ()
            ]
            found[address] = [i for i in intervals if overlaps(i, start, end)]
        return found

    def book(self, booking: Booking) -> None:
        eid = event_id(booking.id)
        existing = self._get(eid)
        if (
            existing is not None
            and _live(existing)
            and _same_event(existing, booking, self._organizer(booking))
        ):
            return  # booked before: a retried confirmation
        self._check_free(booking, existing)
        if existing is None:
            answer = self._api.call(
                "POST",
                "calendar",
                path("calendars", CALENDAR, "events"),
                scopes=EVENT_SCOPES,
                query=[("sendUpdates", "all")],
                body=self._event(booking, eid),
                # Google mails the invitations: sent without an answer, it is not inserted again
                # here (outcome unknown); a confirm again reads the event by its id first.
                idempotent=False,
                check="your Google Calendar",
                accept=(200, 409),
            )
            if answer.status == 200:
                return
            # 409 duplicate: another confirm of this booking inserted it since the read above.
            # (Read back None: the id belongs to an event deleted for good; the patch revives it.)
            existing = self._get(eid)
            if (
                existing is not None
                and _live(existing)
                and _same_event(existing, booking, self._organizer(booking))
            ):
                return
        self._api.call(
            "PATCH",
            "calendar",
            path("calendars", CALENDAR, "events", eid),
            scopes=EVENT_SCOPES,
            query=[("sendUpdates", "all")],
            body={k: v for k, v in self._event(booking, eid).items() if k != "id"} | {"status": "confirmed"},
            idempotent=False,  # mails the updates
            check="your Google Calendar",
        )

    def release(self, booking_id: str) -> None:
        self._api.call(
            "DELETE",
            "calendar",
            path("calendars", CALENDAR, "events", event_id(booking_id)),
            scopes=EVENT_SCOPES,
            query=[("sendUpdates", "all")],
            accept=(200, 204, 404, 410),  # none, or deleted before: nothing to remove
        )

    def events(self, email: str, start: datetime, end: datetime) -> Sequence[CalendarEvent]:
        """``events.list`` on the primary calendar: the user's own events and the ones they are
        invited to (an invitation is on the invitee's calendar too), ``singleEvents=true`` so a
        repeating meeting comes as its occurrences, by start time; pages by ``nextPageToken``
        (https://developers.google.com/workspace/calendar/api/v3/reference/events/list)."""
        self._own(email)
        query: list[tuple[str, str]] = [
            ("timeMin", _rfc3339(start)),
            ("timeMax", _rfc3339(end)),
            ("singleEvents", "true"),
            ("orderBy", "startTime"),
            ("maxResults", str(EVENTS_PAGE)),
        ]
        found: list[CalendarEvent] = []
        token: str | None = None
        for _ in range(MAX_EVENT_PAGES):
            answer = self._api.call(
                "GET",
                "calendar",
                path("calendars", CALENDAR, "events"),
                scopes=READ_SCOPES,
                query=[*query, *((("pageToken", token),) if token else ())],
            )
            body = answer.body or {}
            found.extend(e for v in body.get("items") or () if (e := google_event(v)) is not None)
            token = body.get("nextPageToken")
            if not token:
                break
        return sorted(found, key=lambda e: e.start)

    def event(self, email: str, event_id: str) -> CalendarEvent | None:
        """``events.get``: the event as it stands; None when it is gone or cancelled."""
        self._own(email)
        found = self._get(event_id, scopes=READ_SCOPES)
        return google_event(found) if found is not None else None

    def move(
        self, email: str, shown: CalendarEvent, start: datetime, end: datetime, scope: Scope = "series"
    ) -> CalendarEvent:
        """Re-read, then ``events.patch`` of start and end with ``sendUpdates=all``: Google mails the
        guests the update and raises the event's sequence
        (https://developers.google.com/workspace/calendar/api/v3/reference/events/patch). An
        instance's own id moves that meeting only (Google keeps it as an exception); the series
        moves on its ``recurringEventId``, its first meeting moved by as much as this one
        (https://developers.google.com/workspace/calendar/api/guides/recurringevents). The patch
        carries the etag read (``If-Match``: the meeting's, or the series' own for the series): a
        change between the read and the write is a 412, :class:`EventChanged`, nothing written."""
        self._own(email)
        raw = self._get(shown.id, scopes=READ_SCOPES)
        current = google_event(raw) if raw is not None else None
        if already_at(current, start, end):
            assert current is not None
            return current
        target = move_target(current, shown, start, end, scope, lambda event_id: self.event(email, event_id))
        zone = (raw or {}).get("start", {}).get("timeZone") or shown.timezone
        answer = self._api.call(
            "PATCH",
            "calendar",
            path("calendars", CALENDAR, "events", target.id),
            scopes=EVENT_SCOPES,
            query=[("sendUpdates", "all")],
            body={
                "start": {"dateTime": _rfc3339(_whole_seconds(target.start)), "timeZone": zone},
                "end": {"dateTime": _rfc3339(_whole_seconds(target.end)), "timeZone": zone},
            },
            idempotent=False,  # mails the update
            check="your Google Calendar",
            accept=(200, PRECONDITION_FAILED),
            if_match=(target.series.version or None) if target.series is not None else _etag(raw),
        )
        _unchanged(answer.status)
        moved = google_event(answer.body) if isinstance(answer.body, dict) else None
        return moved or shown

    def cancel(self, email: str, shown: CalendarEvent, message: str, scope: Scope = "series") -> None:
        """Re-read, then ``events.delete`` with ``sendUpdates=all``: Google mails the guests the
        cancellation. The method takes no message (its parameters in the discovery document): the
        confirm mails the message itself, from the user's own Gmail. An instance of a recurring
        event (``events.list`` with ``singleEvents``) has an id of its own: deleting it cancels that
        meeting only; deleting the ``recurringEventId`` cancels every instance ("Modifying or
        deleting individual instances",
        https://developers.google.com/workspace/calendar/api/guides/recurringevents). The delete of
        one meeting carries the etag read (``If-Match``): a change since is a 412,
        :class:`EventChanged`, nothing deleted."""
        self._own(email)
        raw = self._get(shown.id, scopes=READ_SCOPES)
        target = cancel_target(google_event(raw) if raw is not None else None, shown, scope)
        answer = self._api.call(
            "DELETE",
            "calendar",
            path("calendars", CALENDAR, "events", target),
            scopes=EVENT_SCOPES,
            query=[("sendUpdates", "all")],
            idempotent=False,  # mails the cancellation
            check="your Google Calendar",
            accept=(200, 204, PRECONDITION_FAILED),
            if_match=_etag(raw) if target == shown.id else None,  # the series' etag was not read
        )
        _unchanged(answer.status)

    def respond(
        self,
        email: str,
        shown: CalendarEvent,
        response: Response,
        message: str,
        proposed: Interval | None = None,
    ) -> CalendarEvent:
        """``events.patch`` of the invitee's own copy: their attendee entry's ``responseStatus`` and
        ``comment`` (the whole ``attendees`` list, as a patch replaces arrays), ``sendUpdates=all`` so
        the organizer hears (https://developers.google.com/workspace/calendar/api/guides/sharing)."""
        own = self._own(email)
        raw = self._get(shown.id, scopes=READ_SCOPES)
        current = google_event(raw) if raw is not None else None
        if current is not None and current.response is response:
            return current
        checked_as(current, shown, "attendee")
        status = {
            Response.ACCEPTED: "accepted",
            Response.TENTATIVE: "tentative",
            Response.DECLINED: "declined",
        }
        attendees = []
        for attendee in (raw or {}).get("attendees") or ():
            entry = {k: v for k, v in attendee.items() if k in _ATTENDEE_FIELDS}
            if attendee.get("self") or str(attendee.get("email", "")).casefold() == own.casefold():
                entry["responseStatus"] = status[response]
                if message:
                    entry["comment"] = single_line(message)
            attendees.append(entry)
        answer = self._api.call(
            "PATCH",
            "calendar",
            path("calendars", CALENDAR, "events", shown.id),
            scopes=EVENT_SCOPES,
            query=[("sendUpdates", "all")],
            body={"attendees": attendees},
            idempotent=True,  # the same answer twice is the same answer
            check="your Google Calendar",
            accept=(200, PRECONDITION_FAILED),
            if_match=_etag(raw),
        )
        if answer.status == PRECONDITION_FAILED:
            # Changed since the read: by this very answer when a retry resent it (then it stands).
            again = self._get(shown.id, scopes=READ_SCOPES)
            now = google_event(again) if again is not None else None
            if now is not None and now.response is response:
                return now
            _unchanged(answer.status)
        answered = google_event(answer.body) if isinstance(answer.body, dict) else None
        return answered or shown

    def _own(self, email: str) -> str:
        """The signed-in address: a provider calendar reads its own account's events, nobody else's."""
        own = self._api.account.email
        if not own or email.casefold() != own.casefold():
            raise ProviderRefused("google", "Google Calendar reads only your own calendar.")
        return own

    def _get(self, eid: str, *, scopes: Sequence[str] = EVENT_SCOPES) -> dict[str, Any] | None:
        answer = self._api.call(
            "GET",
            "calendar",
            path("calendars", CALENDAR, "events", eid),
            scopes=scopes,
            accept=(200, 404, 410),
        )
        return answer.body if answer.status == 200 and isinstance(answer.body, dict) else None

    def _check_free(self, booking: Booking, existing: Mapping[str, Any] | None) -> None:
        tracked = list(dict.fromkeys(a for a in booking.attendees if a))
        busy = self.busy(tracked, booking.start, booking.end)
        own = _event_interval(existing) if existing is not None and _live(existing) else None
        mine = (_event_attendees(existing) if existing is not None else set()) | {self._organizer(booking)}
        taken: dict[str, list[Interval]] = {}
        for email in tracked:
            intervals = busy.get(email, ())
            if own is not None and email.casefold() in mine:
                # The event being moved is in its attendees' free/busy: its old time is not a clash.
                intervals = _without(intervals, own)
            clashing = [i for i in intervals if overlaps(i, booking.start, booking.end)]
            if clashing:
                taken[email] = clashing
        if taken:
            raise SlotTaken(taken)

    def _organizer(self, booking: Booking) -> str:
        return (self._api.account.email or booking.organizer).casefold()

    def _event(self, booking: Booking, eid: str) -> dict[str, Any]:
        organizer = self._organizer(booking)
        names = {g.email.casefold(): g.name for g in booking.guests}
        invited = [*(g.email for g in booking.guests), *booking.attendees]
        attendees: list[dict[str, Any]] = []
        seen: set[str] = set()
        for address in invited:
            key = address.casefold()
            if not address or key in seen:
                continue
            seen.add(key)
            attendee: dict[str, Any] = {"email": address}
            if key == organizer:  # Google marks the organizer itself (``organizer`` is read-only)
                attendee["responseStatus"] = "accepted"
            name = names.get(key)
            if name:
                attendee["displayName"] = single_line(name)
            attendees.append(attendee)
        event: dict[str, Any] = {
            "id": eid,
            "summary": single_line(booking.title),
            "start": {"dateTime": _rfc3339(_whole_seconds(booking.start)), "timeZone": booking.timezone},
            "end": {"dateTime": _rfc3339(_whole_seconds(booking.end)), "timeZone": booking.timezone},
            "attendees": attendees,
            "extendedProperties": {"private": {BOOKING_PROPERTY: booking.id}},
        }
        if booking.description:
            event["description"] = multi_line(booking.description)
        if booking.recurrence is not None:
            # RFC 5545 lines, no DTSTART (the start is the first instance); the start's and end's
            # ``timeZone`` (sent above) is required for a recurring event and is where Google
            # expands the rule (the discovery document's Event.recurrence and EventDateTime.timeZone).
            zone = ZoneInfo(booking.timezone)
            event["recurrence"] = [f"RRULE:{rrule_line(booking.recurrence, booking.start, zone)}"]
        return event


# What a client may write of an attendee (the rest, such as ``self`` and ``organizer``, is read-only).
_ATTENDEE_FIELDS = frozenset(
    {"email", "displayName", "optional", "responseStatus", "comment", "additionalGuests", "resource"}
)
EVENTS_PAGE = 250  # events.list maxResults: "The default is 250 events" (the discovery document)
MAX_EVENT_PAGES = 10
# EventAttendee.responseStatus: needsAction, declined, tentative, accepted.
_RESPONSES = {"accepted": Response.ACCEPTED, "tentative": Response.TENTATIVE, "declined": Response.DECLINED}


PRECONDITION_FAILED = 412


def _etag(raw: Mapping[str, Any] | None) -> str | None:
    """The etag of the event as read: the precondition of the write that follows the read."""
    etag = (raw or {}).get("etag")
    return etag if isinstance(etag, str) and etag else None


def _unchanged(status: int) -> None:
    """A 412 to a write with ``If-Match``: the event changed between the read and the write."""
    if status == PRECONDITION_FAILED:
        raise EventChanged(gone=False)


def google_event(value: Mapping[str, Any]) -> CalendarEvent | None:
    """A Calendar event as the calendar port shows it; None for a cancelled or an all-day one."""
    if not _live(value) or not value.get("id"):
        return None
    interval = _event_interval(value)
    if interval is None:
        return None  # all day (``date``, no ``dateTime``): not a meeting with a time to move
    organizer = value.get("organizer") or {}
    own_address = str(organizer.get("email") or "")
    attendees = [a for a in value.get("attendees") or () if a.get("email") and not a.get("resource")]
    mine = next((a for a in attendees if a.get("self")), None)
    role = "organizer" if organizer.get("self") else "attendee"
    return CalendarEvent(
        id=str(value["id"]),
        title=str(value.get("summary") or ""),
        start=interval.start,
        end=interval.end,
        timezone=str((value.get("start") or {}).get("timeZone") or "UTC"),
        organizer=own_address,
        organizer_name=organizer.get("displayName") or None,
        attendees=tuple(
            EventAttendee(
                email=str(a["email"]),
                name=a.get("displayName") or None,
                response=_RESPONSES.get(str(a.get("responseStatus")), Response.NONE),
            )
            for a in attendees
            if str(a["email"]).casefold() != own_address.casefold()
        ),
        role=role,
        response=Response.ORGANIZER
        if role == "organizer"
        else _RESPONSES.get(str((mine or {}).get("responseStatus")), Response.NONE),
        version=str(value.get("etag") or value.get("updated") or ""),
        sequence=int(value.get("sequence") or 0),
        recurring=bool(value.get("recurringEventId")),
        series_id=value.get("recurringEventId") or None,
    )


def _rfc3339(moment: datetime) -> str:
    """An instant as RFC 3339 in UTC, with its fraction of a second when it has one."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _whole_seconds(moment: datetime) -> datetime:
    """What an event's time is compared at: the adapter books whole seconds (slots are whole minutes).

    In UTC: Python never finds an ambiguous local time (the repeated hour when clocks go back)
    equal to a time in another zone (PEP 495), so a retried confirm would look like a move.
    """
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).replace(microsecond=0)


def _live(event: Mapping[str, Any]) -> bool:
    return event.get("status") != "cancelled"


def _event_interval(event: Mapping[str, Any]) -> Interval | None:
    try:
        return Interval(
            start=datetime.fromisoformat(event["start"]["dateTime"]),
            end=datetime.fromisoformat(event["end"]["dateTime"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


def _event_attendees(event: Mapping[str, Any]) -> set[str]:
    return {str(a.get("email", "")).casefold() for a in event.get("attendees") or () if a.get("email")}


def _same_event(event: Mapping[str, Any], booking: Booking, organizer: str) -> bool:
    interval = _event_interval(event)
    if interval is None or (_whole_seconds(interval.start), _whole_seconds(interval.end)) != (
        _whole_seconds(booking.start),
        _whole_seconds(booking.end),
    ):
        return False
    wanted = {a.casefold() for a in (*booking.attendees, *(g.email for g in booking.guests)) if a}
    return _event_attendees(event) - {organizer} == wanted - {organizer}


def _without(intervals: Sequence[Interval], removed: Interval) -> list[Interval]:
    """``intervals`` with ``removed`` cut out of them."""
    kept: list[Interval] = []
    for interval in intervals:
        if not overlaps(interval, removed.start, removed.end):
            kept.append(interval)
            continue
        if interval.start < removed.start:
            kept.append(Interval(start=interval.start, end=removed.start))
        if removed.end < interval.end:
            kept.append(Interval(start=removed.end, end=interval.end))
    return kept


def _merged(intervals: Sequence[Interval]) -> list[Interval]:
    """Sorted, with the pieces a window boundary split joined again."""
    merged: list[Interval] = []
    for interval in sorted(intervals, key=lambda i: (i.start, i.end)):
        if merged and interval.start <= merged[-1].end:
            if interval.end > merged[-1].end:
                merged[-1] = Interval(start=merged[-1].start, end=interval.end)
            continue
        merged.append(interval)
    return merged


class GmailMailer:
    """:class:`~multitool.ports.mail.Mailer` on Gmail: sent from, and saved in, the user's own mailbox."""

    def __init__(self, api: GoogleApi) -> None:
        self._api = api

    def send(self, mail: Mail) -> SentMail:
        raw = base64.urlsafe_b64encode(rfc5322(mail, self._api.account.email)).decode("ascii")
        answer = self._api.call(
            "POST",
            "gmail",
            path("users", "me", "messages", "send"),
            scopes=MAIL_SCOPES,
            body={"raw": raw},
            idempotent=False,  # a send Gmail failed on may still have gone out: never sent twice
            check="your Gmail Sent folder",
            accept=(200, 400),
        )
        if answer.status == 400:
            _, message = error_reasons(answer.body)
            said = f": {message}" if message else ""
            raise MailRejected(f"Gmail refused the message{said}", code="mail_rejected")
        message_id = (answer.body or {}).get("id")
        if not message_id:
            raise ProviderUnavailable(
                "google", "Gmail answered without a message id; check Sent before sending again."
            )
        return SentMail(message_id=str(message_id))


def _addresses(values: Sequence[str]) -> list[Address]:
    from email.headerregistry import Address

    try:
        return [Address(addr_spec=single_line(v)) for v in values]
    except (ValueError, IndexError) as error:
        raise MailRejected(f"Not an email address: {error}", code="mail_rejected") from error


def rfc5322(mail: Mail, sender: str | None) -> bytes:
    """The message Gmail sends: text (and an iCalendar REQUEST part when the mail has one).

    The email package is imported here, by the function that sends (the review), not by those
    that only resolve names and read free/busy.
    """
    from email.headerregistry import Address
    from email.message import EmailMessage
    from email.policy import SMTP
    from email.utils import formatdate

    message = EmailMessage(policy=SMTP)
    if sender:
        (address,) = _addresses([sender])
        message["From"] = Address(display_name=mail.from_name or "", addr_spec=address.addr_spec)
    message["To"] = _addresses(mail.to)
    if mail.cc:
        message["Cc"] = _addresses(mail.cc)
    if mail.reply_to:
        message["Reply-To"] = _addresses(mail.reply_to)
    message["Subject"] = single_line(mail.subject)
    message["Date"] = formatdate(usegmt=True)
    message.set_content(multi_line(mail.text))
    if mail.invitation is not None:
        message.add_alternative(
            mail.invitation.decode("utf-8"), subtype="calendar", params={"method": "REQUEST"}
        )
        message.add_attachment(mail.invitation, maintype="application", subtype="ics", filename="invite.ics")
    return message.as_bytes()


def build_suite(
    account: Account,
    tokens: TokenSource,
    *,
    http: urllib3.PoolManager,
    base_url: str | None = None,
    deadline: Callable[[], float] | None = None,
) -> Suite:
    """The user's Google Workspace as a suite (``base_url`` None: Google's own endpoints)."""
    api = GoogleApi(account, tokens, http=http, base_url=base_url, deadline=deadline)
    from multitool.ports.google.gmail_mailbox import GmailMailbox

    return Suite(
        directory=GoogleDirectory(api),
        calendar=GoogleCalendar(api),
        mailer=GmailMailer(api),
        mailbox=GmailMailbox(api),
    )
