"""The directory, calendar and mail ports on Microsoft 365 (Microsoft Graph v1.0), for one user.

:func:`build_suite` makes the three adapters for an :class:`Account` over one
:class:`multitool.ports.microsoft365.graph_http.GraphHttp` (its token source, the function's ``PoolManager``,
its deadline); every request is one of the paths of ``multitool/local/standins/graph_openapi.json``.

**Directory: ``GET /users`` with ``$filter``, not ``/me/people``.** ``/me/people`` ranks the people
the signed-in user communicates with (contacts and outside addresses too) by relevance, only for
a delegated token, and leaves out colleagues the user has not yet worked with
(https://learn.microsoft.com/graph/people-insights-overview); the scheduler needs what the
built-in directory gives: everyone in the organization, by name. ``/users`` is the organization's
directory, readable with the least-privileged ``User.ReadBasic.All`` (delegated or application),
and ``startswith`` on ``displayName``, ``givenName``, ``surname``, ``mail`` and
``userPrincipalName`` is a default query (no ``ConsistencyLevel: eventual``, which ``$search``
needs) (https://learn.microsoft.com/graph/aad-advanced-queries). One request per name; the
answers are then matched as the DynamoDB directory matches (a whole name, first or last name or
address, case-insensitive), so "Pri" finds no one and "Priya" is resolved, ambiguous or unknown
exactly as there. Users without a mailbox (no ``mail``) cannot be invited and are left out.

**Busy: ``POST /users/{organizer}/calendar/getSchedule``,** ``Prefer: outlook.timezone="UTC"`` so
every ``scheduleItem`` comes back in UTC (https://learn.microsoft.com/graph/api/calendar-getschedule).
Every status but ``free`` is busy (tentative and out-of-office too), and so is the time outside
the attendee's ``workingHours`` (in the attendee's own zone, DST included). The addresses go
:data:`MAX_SCHEDULES` per request and the window :data:`MAX_WINDOW` at a time; a longer window or
more people is several requests, one logical read.

**Booking: ``POST /users/{organizer}/events`` with the attendees,** so Exchange sends the
invitations; ``transactionId`` (a UUID derived from the booking id) makes Graph answer a POST
sent twice with the event it already made (https://learn.microsoft.com/graph/api/user-post-events).
The client itself never sends it twice: a POST left without an answer is outcome unknown
(:mod:`multitool.ports.retry`), and a confirm again finds the event by its booking id first.
To find the booking again (no-op, move, release) the event carries a single-value extended
property holding the booking id: Graph documents ``$filter`` on extended properties
(``singleValueExtendedProperties/Any(ep: ep/id eq ... and ep/value eq ...)``,
https://learn.microsoft.com/graph/api/singlevaluelegacyextendedproperty-get), while
``transactionId`` is not documented as filterable and ``iCalUId`` is Exchange's own. A move is a
``PATCH`` (Exchange sends the update), a release a ``DELETE`` (Exchange sends the cancellation).

**Mail: ``POST /users/{sender}/sendMail``** with ``SaveToSentItems``: the mail leaves from the
user's own mailbox and stays in their Sent Items (https://learn.microsoft.com/graph/api/user-sendmail).
"""

from __future__ import annotations

import importlib.util
import re
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import parse_qsl, quote, urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from multitool.observability import logger
from multitool.people import NameResolution, Person, Resolution
from multitool.ports.calendar import (
    Booking,
    CalendarEvent,
    EventAttendee,
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
from multitool.ports.mail import Mail, MailRejected, MailUnavailable, SentMail
from multitool.ports.microsoft365.graph_http import (
    PROVIDER,
    GraphAnswer,
    GraphHttp,
    recipient,
    user_path,
    values,
)
from multitool.ports.recurrence import graph_recurrence
from multitool.ports.suites import Suite
from multitool.ports.tokens import (
    Account,
    ProviderError,
    ProviderRefused,
    ProviderThrottled,
    ProviderUnavailable,
    TokenSource,
)
from multitool.text import multi_line, single_line

if TYPE_CHECKING:
    import urllib3

# Delegated permissions, least privileged for each call (the pages above name them).
DIRECTORY_SCOPES = ("User.ReadBasic.All",)
CALENDAR_SCOPES = ("Calendars.ReadWrite",)
MAIL_SCOPES = ("Mail.Send",)

# getSchedule's page names no limit on the schedules or the window; Exchange's availability
# service answers at most 42 days per request
# (https://learn.microsoft.com/dotnet/api/exchangewebservices.freebusyviewoptionstype.timewindow).
# Windows of 31 days and 20 addresses per request stay well inside both.
MAX_SCHEDULES = 20
MAX_WINDOW = timedelta(days=31)
AVAILABILITY_INTERVAL_MINUTES = 15  # 5..1440 (getSchedule's page); unused: we read scheduleItems
UTC_PREFERENCE = {"Prefer": 'outlook.timezone="UTC"'}
DIRECTORY_PAGE = 25
MAX_NAME_CHARS = 200

# The event's own marker: a string MAPI property in a namespace of ours, holding the booking id.
BOOKING_PROPERTY = "String {6d2c3f0e-5b7a-4f61-9a0e-3c8f1d2b7a45} Name multitoolBookingId"
_TRANSACTION_NAMESPACE = uuid.UUID("0b6f6a61-90c4-4b53-9a57-2f6c0d9c1e11")
_FRACTION = re.compile(r"(\.\d{6})\d+")
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

# Windows time zone names Exchange reports (in workingHours, and as a mailbox's zone by default), as
# IANA names: CLDR's windowsZones (territory "001") as icalendar ships it, generated from CLDR and
# pinned with icalendar in the layer (icalendar/timezone/windows_to_olson.py; the data:
# https://github.com/unicode-org/cldr/blob/main/common/supplemental/windowsZones.xml). That module
# is data only; it is read on the first Windows name, without importing the icalendar package (a
# tenth of a second a cold start that sends no invitation does not pay). A name already IANA is used
# as it is; one neither knows leaves working hours unapplied.
_WINDOWS_TABLE = ("icalendar", "timezone", "windows_to_olson.py")
# Windows retired this name (Mexico City is "Central Standard Time (Mexico)"), and CLDR with it; a
# mailbox set up before may still report it.
_RETIRED_WINDOWS_ZONES = {"Mexico Standard Time": "America/Mexico_City"}


@cache
def windows_zones() -> Mapping[str, str]:
    """CLDR's Windows zone name -> IANA name table ({} when icalendar is not installed)."""
    found = importlib.util.find_spec(_WINDOWS_TABLE[0])
    if found is None or not found.submodule_search_locations:
        return {}
    path = Path(next(iter(found.submodule_search_locations)), *_WINDOWS_TABLE[1:])
    spec = importlib.util.spec_from_file_location("multitool_windows_zones", path)
    if spec is None or spec.loader is None:
        return {}
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table: Mapping[str, str] = module.WINDOWS_TO_OLSON
    return table


def build_suite(
    account: Account,
    tokens: TokenSource,
    *,
    http: urllib3.PoolManager,
    base_url: str | None = None,
    deadline: Callable[[], float] | None = None,
) -> Suite:
    """The user's Microsoft 365 directory, calendar and mailbox."""
    from multitool.ports.microsoft365.graph_mailbox import GraphMailbox

    graph = GraphHttp(account, tokens, http=http, base_url=base_url, deadline=deadline)
    return Suite(
        directory=GraphDirectory(graph),
        calendar=GraphCalendar(graph),
        mailer=GraphMailer(graph),
        mailbox=GraphMailbox(graph),
    )


def _own_address(graph: GraphHttp, what: str) -> str:
    if not graph.account.email:
        raise ProviderRefused(
            PROVIDER, f"Microsoft 365 needs your verified email address for {what}; sign in again."
        )
    return graph.account.email


# -- directory -------------------------------------------------------------------------------


class GraphDirectory:
    """:class:`multitool.ports.directory.Directory` on the organization's users."""

    def __init__(self, graph: GraphHttp) -> None:
        self._graph = graph

    def resolve(self, names: Sequence[str]) -> Mapping[str, NameResolution]:
        found: dict[str, list[Person]] = {}
        result: dict[str, NameResolution] = {}
        for name in names:
            key = normalize_name(name)
            if not key or len(key) > MAX_NAME_CHARS:
                result[name] = NameResolution(query=name, status=Resolution.UNKNOWN)
                continue
            if key not in found:
                found[key] = [p for p in self._users_starting(name.strip()) if key in name_keys(p)]
            result[name] = resolution_for(name, found[key])
        return result

    def _users_starting(self, name: str) -> list[Person]:
        literal = single_line(name).replace("'", "''")  # an OData string literal doubles its quotes
        clauses = " or ".join(
            f"startswith({field},'{literal}')"
            for field in ("displayName", "givenName", "surname", "mail", "userPrincipalName")
        )
        answer = self._graph.send(
            "GET",
            "/users",
            scopes=DIRECTORY_SCOPES,
            query={
                "$filter": clauses,
                "$select": "id,displayName,givenName,surname,mail,userPrincipalName",
                "$top": str(DIRECTORY_PAGE),
            },
            what="looking people up",
        )
        people = []
        for user in values(answer.body):
            mail, display = user.get("mail"), user.get("displayName")
            if not mail or not display or not user.get("id"):
                continue  # no mailbox: nobody to invite or mail
            # No zone: a person's own is their mailbox setting, and a user's delegated token reads
            # only the user's own mailboxSettings (another's answers 403 ErrorAccessDenied:
            # https://github.com/microsoftgraph/msgraph-sdk-powershell/issues/2966).
            # Unknown ("") is not a made-up UTC: the scheduler then keeps to the working hours
            # getSchedule reports in the person's own zone, and the card shows no local time.
            people.append(Person(id=str(user["id"]), display_name=str(display), email=str(mail), timezone=""))
        return people


# -- calendar --------------------------------------------------------------------------------


class GraphCalendar:
    """:class:`multitool.ports.calendar.Calendar` on the organizer's Exchange Online calendar."""

    sends_invitations: ClassVar[bool] = True
    cancellation_message: ClassVar[bool] = True
    proposes_new_times: ClassVar[bool] = True

    def __init__(self, graph: GraphHttp) -> None:
        self._graph = graph

    def busy(self, emails: Sequence[str], start: datetime, end: datetime) -> Mapping[str, Sequence[Interval]]:
        raw = self._schedule(emails, start, end)
        return {email: _merged(raw.get(email.casefold(), [])) for email in emails}

    def book(self, booking: Booking) -> None:
        organizer = _own_address(self._graph, "booking a meeting")
        stored = self._find(booking.id)
        guests = _guests(booking, organizer)
        if stored is not None and _same_event(stored, booking, guests):
            return  # booked before: a retried confirmation
        raw = self._schedule(booking.attendees, booking.start, booking.end)
        held = _event_interval(stored) if stored is not None else None
        taken: dict[str, list[Interval]] = {}
        for email in booking.attendees:
            clashes = [
                i
                for i in raw.get(email.casefold(), [])
                if overlaps(i, booking.start, booking.end) and i != held  # the booking's own time moves
            ]
            if clashes:
                taken[email] = _merged(clashes)
        if taken:
            raise SlotTaken(taken)
        event = _event_body(booking, guests)
        path = f"{user_path(organizer)}/events"
        if stored is None:
            # Not retried after a send without an answer (outcome unknown): a confirm again finds
            # the event by its booking id (``_find``) before creating one.
            self._graph.send(
                "POST",
                path,
                scopes=CALENDAR_SCOPES,
                body=event,
                what="booking the meeting",
                check="your Outlook calendar",
            )
            return
        moved: dict[str, Any] = {
            k: event[k] for k in ("subject", "start", "end", "attendees", "recurrence") if k in event
        }
        self._graph.send(
            "PATCH",
            f"{path}/{stored['id']}",
            scopes=CALENDAR_SCOPES,
            body=moved,
            what="moving the meeting",
            check="your Outlook calendar",
        )

    def release(self, booking_id: str) -> None:
        stored = self._find(booking_id)
        if stored is None:
            return
        organizer = _own_address(self._graph, "cancelling a meeting")
        try:
            self._graph.send(
                "DELETE",
                f"{user_path(organizer)}/events/{stored['id']}",
                scopes=CALENDAR_SCOPES,
                what="cancelling the meeting",
            )
        except ProviderRefused as refused:
            if "no longer exists" not in str(refused):
                raise  # gone already (ErrorItemNotFound) is what a release wants

    def events(self, email: str, start: datetime, end: datetime) -> Sequence[CalendarEvent]:
        """``GET /users/{me}/calendarView``: every single event, occurrence and exception of the
        signed-in user's calendar in the window, organized or invited to, in UTC (the Prefer header);
        startDateTime/endDateTime are required, the result pages by ``@odata.nextLink``
        (https://learn.microsoft.com/graph/api/user-list-calendarview)."""
        own = self._own(email, "reading your calendar")
        query: dict[str, str] | None = {
            "startDateTime": _z(start),
            "endDateTime": _z(end),
            "$select": EVENT_FIELDS,
            "$orderby": "start/dateTime",
            "$top": str(CALENDAR_VIEW_PAGE),
        }
        path = f"{user_path(own)}/calendarView"
        found: list[CalendarEvent] = []
        for _ in range(MAX_VIEW_PAGES):
            assert query is not None
            answer = self._graph.send(
                "GET",
                path,
                scopes=CALENDAR_SCOPES,
                query=query,
                headers=UTC_PREFERENCE,
                what="reading your calendar",
            )
            found.extend(e for v in values(answer.body) if (e := graph_event(v)) is not None)
            query = _next_page(answer)
            if query is None:
                break
        return sorted(found, key=lambda e: e.start)

    def event(self, email: str, event_id: str) -> CalendarEvent | None:
        """``GET /users/{me}/events/{id}``: the event as it stands; None when it is gone."""
        own = self._own(email, "reading the meeting")
        answer = self._graph.get_item(
            f"{user_path(own)}/events/{quote(event_id, safe='')}",
            scopes=CALENDAR_SCOPES,
            query={"$select": EVENT_FIELDS},
            headers=UTC_PREFERENCE,
            what="reading the meeting",
        )
        return graph_event(answer.body) if answer is not None and isinstance(answer.body, dict) else None

    def move(
        self, email: str, shown: CalendarEvent, start: datetime, end: datetime, scope: Scope = "series"
    ) -> CalendarEvent:
        """Re-read, then ``PATCH /users/{me}/events/{id}``: Exchange sends the update
        (https://learn.microsoft.com/graph/api/event-update). The re-read is the only check: Graph
        documents no If-Match on an event's PATCH (event-update lists Authorization and Content-Type;
        msgraph-metadata declares If-Match on ``users.DeleteEvents`` only), so a change between the
        read and the write is not caught here (Google's writes carry the etag). An occurrence's id
        moves that meeting only; the series moves on its ``seriesMasterId`` by as much."""
        own = self._own(email, "moving the meeting")
        current = self.event(email, shown.id)
        if already_at(current, start, end):
            assert current is not None
            return current
        target = move_target(current, shown, start, end, scope, lambda event_id: self.event(email, event_id))
        answer = self._graph.send(
            "PATCH",
            f"{user_path(own)}/events/{quote(target.id, safe='')}",
            scopes=CALENDAR_SCOPES,
            body={"start": _graph_time(target.start), "end": _graph_time(target.end)},
            headers=UTC_PREFERENCE,
            what="moving the meeting",
            check="your Outlook calendar",
        )
        moved = graph_event(answer.body) if isinstance(answer.body, dict) else None
        return moved or self.event(email, target.id) or shown

    def cancel(self, email: str, shown: CalendarEvent, message: str, scope: Scope = "series") -> None:
        """Re-read, then ``POST /users/{me}/events/{id}/cancel`` with the message as its Comment: the
        organizer's cancellation, mailed by Exchange (https://learn.microsoft.com/graph/api/event-cancel).
        An occurrence of a series is an event of its own in calendarView: cancelling its id cancels
        that meeting only ("The organizer can also cancel an occurrence of a recurring meeting by
        providing the occurrence event ID", ibid.); the series is cancelled on its ``seriesMasterId``.
        The occurrence the card showed is what is re-read and checked, either way."""
        own = self._own(email, "cancelling the meeting")
        target = cancel_target(self.event(email, shown.id), shown, scope)
        self._graph.send(
            "POST",
            f"{user_path(own)}/events/{quote(target, safe='')}/cancel",
            scopes=CALENDAR_SCOPES,
            body={"Comment": multi_line(message)} if message else {},
            what="cancelling the meeting",
            idempotent=False,
            check="your Outlook calendar",
        )

    def respond(
        self,
        email: str,
        shown: CalendarEvent,
        response: Response,
        message: str,
        proposed: Interval | None = None,
    ) -> CalendarEvent:
        """``POST .../accept | tentativelyAccept | decline`` with SendResponse, the message as Comment
        and, for tentative or decline, ProposedNewTime (https://learn.microsoft.com/graph/api/event-tentativelyaccept)."""
        own = self._own(email, "answering the invitation")
        current = self.event(email, shown.id)
        if current is not None and current.response is response and proposed is None:
            return current
        checked_as(current, shown, "attendee")
        action = {
            Response.ACCEPTED: "accept",
            Response.TENTATIVE: "tentativelyAccept",
            Response.DECLINED: "decline",
        }[response]
        body: dict[str, Any] = {"SendResponse": True}
        if message:
            body["Comment"] = multi_line(message)
        if proposed is not None and response is not Response.ACCEPTED:
            body["ProposedNewTime"] = {"start": _graph_time(proposed.start), "end": _graph_time(proposed.end)}
        self._graph.send(
            "POST",
            f"{user_path(own)}/events/{quote(shown.id, safe='')}/{action}",
            scopes=CALENDAR_SCOPES,
            body=body,
            what="answering the invitation",
            idempotent=False,
            check="your Outlook calendar",
        )
        return self.event(email, shown.id) or shown

    def _own(self, email: str, what: str) -> str:
        """The signed-in address: a provider calendar reads its own account's events, nobody else's."""
        own = _own_address(self._graph, what)
        if email.casefold() != own.casefold():
            raise ProviderRefused(PROVIDER, "Microsoft 365 reads only your own calendar.")
        return own

    def _find(self, booking_id: str) -> dict[str, Any] | None:
        organizer = _own_address(self._graph, "finding a meeting")
        value = booking_id.replace("'", "''")
        answer = self._graph.send(
            "GET",
            f"{user_path(organizer)}/events",
            scopes=CALENDAR_SCOPES,
            query={
                "$filter": f"singleValueExtendedProperties/Any(ep: ep/id eq '{BOOKING_PROPERTY}' "
                f"and ep/value eq '{value}')",
                "$select": "id,subject,start,end,attendees",
                "$top": "1",
            },
            headers=UTC_PREFERENCE,
            what="finding the meeting",
        )
        found = values(answer.body)
        return found[0] if found else None

    def _schedule(self, emails: Sequence[str], start: datetime, end: datetime) -> dict[str, list[Interval]]:
        """Busy intervals per casefolded address (unmerged), from getSchedule in chunks."""
        start, end = start.astimezone(UTC), end.astimezone(UTC)  # instants: see GoogleCalendar.busy
        addresses = list(dict.fromkeys(e.casefold() for e in emails if e))
        result: dict[str, list[Interval]] = {a: [] for a in addresses}
        if not addresses or end <= start:
            return result
        organizer = _own_address(self._graph, "reading free/busy")
        for offset in range(0, len(addresses), MAX_SCHEDULES):
            chunk = addresses[offset : offset + MAX_SCHEDULES]
            for window_start, window_end in _windows(start, end):
                answer = self._graph.send(
                    "POST",
                    f"{user_path(organizer)}/calendar/getSchedule",
                    scopes=CALENDAR_SCOPES,
                    body={
                        "Schedules": chunk,
                        "StartTime": _graph_time(window_start),
                        "EndTime": _graph_time(window_end),
                        "AvailabilityViewInterval": AVAILABILITY_INTERVAL_MINUTES,
                    },
                    headers=UTC_PREFERENCE,
                    what="reading free/busy",
                    idempotent=True,  # a read, though a POST
                )
                for info in values(answer.body):
                    address = str(info.get("scheduleId", "")).casefold()
                    if address not in result:
                        continue
                    error = info.get("error")
                    if error:
                        raise ProviderRefused(
                            PROVIDER,
                            f"Microsoft 365 has no free/busy for {address}: "
                            f"{str(error.get('message') or error.get('responseCode') or 'unknown')[:200]}.",
                        )
                    for item in info.get("scheduleItems") or ():
                        if str(item.get("status", "")).casefold() == "free":
                            continue
                        interval = Interval(start=_parse_time(item["start"]), end=_parse_time(item["end"]))
                        if overlaps(interval, window_start, window_end):
                            result[address].append(interval)
                    result[address].extend(off_hours(info.get("workingHours"), window_start, window_end))
        return result


EVENT_FIELDS = (
    "id,subject,start,end,originalStartTimeZone,organizer,attendees,isOrganizer,isCancelled,"
    "responseStatus,changeKey,type,seriesMasterId"
)
CALENDAR_VIEW_PAGE = 100
MAX_VIEW_PAGES = 10
# Graph's responseType (none, organizer, tentativelyAccepted, accepted, declined, notResponded).
_RESPONSES = {
    "organizer": Response.ORGANIZER,
    "accepted": Response.ACCEPTED,
    "tentativelyaccepted": Response.TENTATIVE,
    "declined": Response.DECLINED,
}


def _z(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _next_page(answer: GraphAnswer) -> dict[str, str] | None:
    """The query of ``@odata.nextLink`` (the same path, a ``$skip`` or ``$skiptoken`` more), or None."""
    link = answer.body.get("@odata.nextLink") if isinstance(answer.body, dict) else None
    return dict(parse_qsl(urlsplit(str(link)).query)) if link else None


def _response(value: Any) -> Response:
    word = str((value or {}).get("response") or "").casefold() if isinstance(value, dict) else ""
    return _RESPONSES.get(word, Response.NONE)


def graph_event(value: Mapping[str, Any]) -> CalendarEvent | None:
    """A Graph event as the calendar port shows it; None for a cancelled one or one without times."""
    if value.get("isCancelled") or not value.get("start") or not value.get("end") or not value.get("id"):
        return None
    organizer = (value.get("organizer") or {}).get("emailAddress") or {}
    zone = zone_of(str(value.get("originalStartTimeZone") or "UTC"))
    attendees = tuple(
        EventAttendee(
            email=str(a["emailAddress"]["address"]),
            name=(a["emailAddress"].get("name") or None),
            response=_response(a.get("status")),
        )
        for a in value.get("attendees") or ()
        if (a.get("emailAddress") or {}).get("address")
    )
    role = "organizer" if value.get("isOrganizer") else "attendee"
    return CalendarEvent(
        id=str(value["id"]),
        title=str(value.get("subject") or ""),
        start=_parse_time(value["start"]),
        end=_parse_time(value["end"]),
        timezone=getattr(zone, "key", None) or "UTC",
        organizer=str(organizer.get("address") or ""),
        organizer_name=organizer.get("name") or None,
        attendees=attendees,
        role=role,
        response=Response.ORGANIZER if role == "organizer" else _response(value.get("responseStatus")),
        version=str(value.get("changeKey") or value.get("@odata.etag") or ""),
        recurring=value.get("type") in ("occurrence", "exception"),
        series_id=value.get("seriesMasterId") or None,
    )


def _windows(start: datetime, end: datetime) -> Iterator[tuple[datetime, datetime]]:
    at = start
    while at < end:
        yield at, min(end, at + MAX_WINDOW)
        at += MAX_WINDOW


def _graph_time(moment: datetime) -> dict[str, str]:
    """A ``dateTimeTimeZone`` in UTC (Graph takes the wall time and the zone separately)."""
    return {"dateTime": moment.astimezone(UTC).replace(tzinfo=None).isoformat(), "timeZone": "UTC"}


def _parse_time(value: Mapping[str, Any]) -> datetime:
    """A ``dateTimeTimeZone`` Graph answered (7 fractional digits allowed) as an aware datetime."""
    wall = datetime.fromisoformat(_FRACTION.sub(r"\1", str(value["dateTime"])).removesuffix("Z"))
    zone = zone_of(str(value.get("timeZone") or "UTC")) or UTC
    return wall.replace(tzinfo=zone).astimezone(UTC) if wall.tzinfo is None else wall.astimezone(UTC)


def zone_of(name: str) -> tzinfo | None:
    """A Graph or Exchange time zone name (IANA or Windows) as a zone; None when neither knows it."""
    if name in ("UTC", "tzone://Microsoft/Utc"):
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        pass
    iana = windows_zones().get(name) or _RETIRED_WINDOWS_ZONES.get(name)
    try:
        return ZoneInfo(iana) if iana else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _working_zone(value: Mapping[str, Any] | None) -> tzinfo | None:
    if not value:
        return None
    zone = zone_of(str(value.get("name") or ""))
    if zone is None and isinstance(value.get("bias"), int):
        # A custom zone: its standard bias (minutes west of UTC); its DST rule is not applied.
        zone = timezone(-timedelta(minutes=value["bias"]))
    return zone


def off_hours(working: Mapping[str, Any] | None, start: datetime, end: datetime) -> list[Interval]:
    """The time in [start, end) outside ``workingHours``, in the attendee's zone (DST included)."""
    if not working:
        return []
    zone = _working_zone(working.get("timeZone"))
    try:
        opens = time.fromisoformat(_FRACTION.sub(r"\1", str(working["startTime"])))
        closes = time.fromisoformat(_FRACTION.sub(r"\1", str(working["endTime"])))
    except (KeyError, ValueError):
        zone = None
    if zone is None:
        logger.warning("Working hours not applied: unknown time zone", extra={"provider": PROVIDER})
        return []
    days = {str(d).casefold() for d in working.get("daysOfWeek") or ()}
    blocks: list[Interval] = []
    day: date = start.astimezone(zone).date()
    last = end.astimezone(zone).date()
    while day <= last:
        midnight = _local(day, time(0), zone)
        next_midnight = _local(day + timedelta(days=1), time(0), zone)
        if _DAYS[day.weekday()] not in days:
            blocks.append(Interval(start=midnight, end=next_midnight))
        else:
            if opens > time(0):
                blocks.append(Interval(start=midnight, end=_local(day, opens, zone)))
            if closes != time(0):  # 00:00 as the end: working until midnight
                blocks.append(Interval(start=_local(day, closes, zone), end=next_midnight))
        day += timedelta(days=1)
    clipped = []
    for block in blocks:
        lo, hi = max(block.start, start), min(block.end, end)
        if lo < hi:
            clipped.append(Interval(start=lo.astimezone(UTC), end=hi.astimezone(UTC)))
    return clipped


def _local(day: date, at: time, zone: tzinfo) -> datetime:
    """A wall time in ``zone`` as UTC; a wall time a DST change skips is read as after the jump."""
    wall = datetime.combine(day, at, tzinfo=zone)
    moment = wall.astimezone(UTC)
    if moment.astimezone(zone).replace(tzinfo=None) != wall.replace(tzinfo=None):
        moment = wall.replace(fold=1).astimezone(UTC)
    return moment


def _merged(intervals: Sequence[Interval]) -> list[Interval]:
    merged: list[Interval] = []
    for interval in sorted(intervals, key=lambda i: (i.start, i.end)):
        if merged and interval.start <= merged[-1].end:
            if interval.end > merged[-1].end:
                merged[-1] = Interval(start=merged[-1].start, end=interval.end)
        else:
            merged.append(interval)
    return merged


def _guests(booking: Booking, organizer: str) -> list[dict[str, Any]]:
    """Everyone invited but the organizer, named: the event's ``attendees``."""
    named = {g.email.casefold(): g for g in booking.guests}
    emails = [g.email for g in booking.guests] or list(booking.attendees)
    guests: list[dict[str, Any]] = []
    seen = {organizer.casefold()}
    for email in emails:
        if email.casefold() in seen:
            continue
        seen.add(email.casefold())
        guest = named.get(email.casefold())
        address: dict[str, Any] = {"address": email}
        if guest is not None and guest.name:
            address["name"] = single_line(guest.name)
        guests.append({"emailAddress": address, "type": "required"})
    return guests


def _event_body(booking: Booking, guests: list[dict[str, Any]]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "subject": single_line(booking.title),
        "body": {"contentType": "text", "content": multi_line(booking.description)},
        "start": _graph_time(booking.start),
        "end": _graph_time(booking.end),
        "attendees": guests,
        "transactionId": str(uuid.uuid5(_TRANSACTION_NAMESPACE, booking.id)),
        "singleValueExtendedProperties": [{"id": BOOKING_PROPERTY, "value": booking.id}],
    }
    if booking.recurrence is not None:
        # A series repeats in its start's zone (Exchange expands the pattern there): the start and
        # end go in the meeting's own zone, so "every Monday at 11" stays at 11 across daylight
        # saving time, as Windows names it (what every create accepts; an IANA name only from
        # Graph's list of additional zones: https://learn.microsoft.com/graph/api/resources/datetimetimezone).
        zone = ZoneInfo(booking.timezone)
        name = windows_zone_name(booking.timezone)
        body["start"] = _graph_time_in(booking.start.astimezone(zone), name)
        body["end"] = _graph_time_in(booking.end.astimezone(zone), name)
        body["recurrence"] = graph_recurrence(booking.recurrence, booking.start, zone)
    return body


def windows_zone_name(iana: str) -> str:
    """The Windows name of an IANA zone (CLDR's table, inverted); the IANA name when it has none."""
    for windows, olson in windows_zones().items():
        if olson == iana:
            return windows
    return iana


def _graph_time_in(local: datetime, zone_name: str) -> dict[str, str]:
    return {"dateTime": local.replace(tzinfo=None).isoformat(), "timeZone": zone_name}


def _event_interval(event: Mapping[str, Any]) -> Interval:
    return Interval(start=_parse_time(event["start"]), end=_parse_time(event["end"]))


def _same_event(event: Mapping[str, Any], booking: Booking, guests: list[dict[str, Any]]) -> bool:
    stored = {
        str(a.get("emailAddress", {}).get("address", "")).casefold() for a in event.get("attendees") or ()
    }
    wanted = {g["emailAddress"]["address"].casefold() for g in guests}
    interval = _event_interval(event)
    return (interval.start, interval.end, stored) == (booking.start, booking.end, wanted)


# -- mail ------------------------------------------------------------------------------------


class GraphMailer:
    """:class:`multitool.ports.mail.Mailer` from the user's own mailbox (kept in Sent Items)."""

    def __init__(self, graph: GraphHttp) -> None:
        self._graph = graph

    def send(self, mail: Mail) -> SentMail:
        if mail.invitation is not None:
            # The calendar sends its own invitations (GraphCalendar.sends_invitations).
            raise MailRejected(
                "Microsoft 365 sends meeting invitations itself; no invitation mail is sent.",
                code="mail_rejected",
            )
        sender = _own_address(self._graph, "sending mail")
        message: dict[str, Any] = {
            "subject": single_line(mail.subject),
            "body": {"contentType": "text", "content": multi_line(mail.text)},
            "toRecipients": [recipient(a) for a in mail.to],
        }
        if mail.cc:
            message["ccRecipients"] = [recipient(a) for a in mail.cc]
        reply_to = [a for a in mail.reply_to if a.casefold() != sender.casefold()]
        if reply_to:
            message["replyTo"] = [recipient(a) for a in reply_to]
        try:
            answer = self._graph.send(
                "POST",
                f"{user_path(sender)}/sendMail",
                scopes=MAIL_SCOPES,
                body={"Message": message, "SaveToSentItems": True},
                what="sending the mail",
                check="your Sent Items",
            )
        except (ProviderThrottled, ProviderUnavailable) as error:
            raise MailUnavailable(str(error), code="mail_unavailable") from error
        except ProviderRefused as error:
            raise MailRejected(str(error), code="mail_rejected") from error
        except ProviderError:
            # Not connected: the user reconnects, the draft stays confirmable. Outcome unknown: the
            # mail may have gone out; the card says so (provider_outcome_unknown).
            raise
        # sendMail answers 202 with no body; Graph's request id is what traces the message.
        headers = {k.lower(): v for k, v in answer.headers.items()}
        return SentMail(
            message_id=headers.get("request-id") or headers.get("client-request-id") or "sendMail"
        )
