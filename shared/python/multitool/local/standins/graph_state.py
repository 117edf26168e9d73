"""An in-memory Microsoft Graph: the paths the Microsoft 365 adapter calls, checked against its description.

:class:`GraphState` answers ``handle(method, url, headers, body)`` as Graph would for the
organization it holds (users with working hours, events, sent mail), after checking the request
with :mod:`multitool.local.standins.graph_contract` (a request the description does not allow is a 400
``BadRequest`` naming the violation, and is recorded in :attr:`GraphState.violations`); every
answer it makes is checked against the description too. The tests drive the adapters through
:class:`GraphPool` (a ``urllib3.PoolManager`` stand-in over a state), and the local stand-in
(:mod:`multitool.local.standins.graph_server`) serves a state over HTTP.

:meth:`GraphState.fail_next` queues an error answer (429 with ``Retry-After``, 401, 404, 5xx)
shaped as Graph's ``ODataError``, for the error paths.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from multitool.local.standins.graph_contract import ContractViolation, GraphContract, graph_contract
from multitool.local.standins.graph_mail import GraphMail
from multitool.local.standins.recurring import graph_meetings, graph_problem
from multitool.ports.microsoft365.graph import off_hours, zone_of

_STARTSWITH = re.compile(r"startswith\((\w+),'((?:[^']|'')*)'\)")
_EXTENDED = re.compile(
    r"^singleValueExtendedProperties/Any\(ep: ep/id eq '((?:[^']|'')*)' and ep/value eq '((?:[^']|'')*)'\)$"
)
_FRACTION = re.compile(r"(\.\d{6})\d+")


@dataclass
class WorkingHours:
    days: tuple[str, ...] = ("monday", "tuesday", "wednesday", "thursday", "friday")
    start: str = "09:00:00.0000000"
    end: str = "17:00:00.0000000"
    zone: str = "UTC"

    def to_graph(self) -> dict[str, Any]:
        return {
            "daysOfWeek": list(self.days),
            "startTime": self.start,
            "endTime": self.end,
            "timeZone": {"name": self.zone},
        }


@dataclass
class Fault:
    status: int
    code: str
    message: str
    headers: dict[str, str] = field(default_factory=dict)
    after: bool = False
    """Do the request, then answer the error (an answer lost on the way back)."""


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: Any


class GraphState:
    def __init__(self, contract: GraphContract | None = None) -> None:
        self.contract = contract or graph_contract()
        self.users: list[dict[str, Any]] = []
        self.working: dict[str, WorkingHours] = {}
        self.events: list[dict[str, Any]] = []
        self.cancelled: set[str] = set()
        """Occurrences of series cancelled one by one (their ids): the rest of the series stays."""
        self.sent: list[dict[str, Any]] = []
        self.notices: list[dict[str, Any]] = []
        """What Exchange would mail for the event actions: cancellations and answers, with comments."""
        self.requests: list[tuple[str, str, dict[str, Any] | None]] = []
        self.violations: list[str] = []
        self.token_users: dict[str, str] | None = None
        """Delegated tokens (``multitool serve --consent``): each bearer token and the mailbox it signs
        in; any other token is Graph's 401, another mailbox's calendar or mail Graph's 403. None: any
        token acts in any mailbox (an organization-wide app credential)."""
        self._faults: dict[tuple[str, str], list[Fault]] = {}
        self._ids = itertools.count(1)
        self.mail = GraphMail(
            lambda address: address.casefold() in self.working,
            # A sent answer is in the sandbox outbox as a sendMail is.
            on_sent=lambda owner, message: self.sent.append({"from": owner, "Message": dict(message)}),
        )
        """The mailboxes: messages, threads, attachments, drafts (:mod:`.graph_mail`)."""
        self._lock = threading.Lock()

    # -- setting up ------------------------------------------------------------------------

    def add_user(
        self,
        display_name: str,
        mail: str | None,
        *,
        working: WorkingHours | None = None,
        user_id: str | None = None,
    ) -> dict[str, Any]:
        given, _, surname = display_name.partition(" ")
        user = {
            "id": user_id or f"{next(self._ids):08d}-0000-4000-8000-000000000000",
            "displayName": display_name,
            "givenName": given,
            "surname": surname or None,
            "mail": mail,
            "userPrincipalName": mail or f"{given.lower()}@example.onmicrosoft.com",
        }
        self.users.append(user)
        if mail:
            self.working[mail.casefold()] = working or WorkingHours()
        return user

    def add_event(
        self,
        organizer: str,
        subject: str,
        start: datetime,
        end: datetime,
        attendees: Sequence[str] = (),
        *,
        zone: str = "UTC",
    ) -> dict[str, Any]:
        event = {
            "id": f"AAMk{next(self._ids):06d}=",
            "subject": subject,
            "start": _graph_time(start),
            "end": _graph_time(end),
            "originalStartTimeZone": zone,
            "attendees": [
                {"emailAddress": {"address": a}, "type": "required", "status": {"response": "none"}}
                for a in attendees
            ],
            "organizer": {"emailAddress": {"address": organizer}},
            "showAs": "busy",
            "type": "singleInstance",
            "changeKey": f"CK{next(self._ids):06d}",
        }
        self.events.append(event)
        return event

    def fail_next(self, method: str, template: str, fault: Fault, times: int = 1) -> None:
        self._faults.setdefault((method.upper(), template), []).extend([fault] * times)

    # -- answering -------------------------------------------------------------------------

    def handle(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None) -> Answer:
        with self._lock:
            try:
                op = self.contract.check_request(method, url, headers, body)
            except ContractViolation as violation:
                self.violations.append(str(violation))
                return self._error(Fault(400, "BadRequest", str(violation)))
            refused = self._delegation_refused(op.template, op.path_params, headers)
            if refused is not None:
                return refused
            data = json.loads(body) if body else None
            self.requests.append((op.method, op.template, data))
            queued = self._faults.get((op.method, op.template))
            fault = queued.pop(0) if queued else None
            if fault is not None and fault.after:
                self._answer(op.method, op.template, op.path_params, op.query, data, headers)
            if fault is not None:
                answer = self._error(fault)
            else:
                answer = self._answer(op.method, op.template, op.path_params, op.query, data, headers)
            self.contract.check_response(method, url, answer.status, answer.body)
            return answer

    def _delegation_refused(
        self, template: str, params: Mapping[str, str], headers: Mapping[str, str]
    ) -> Answer | None:
        """A delegated token acts as its user only (https://learn.microsoft.com/graph/errors: 401 for
        a token not valid for the resource, 403 for access denied); None when the request may go on."""
        if self.token_users is None:
            return None
        authorization = next((v for k, v in headers.items() if k.lower() == "authorization"), "")
        mailbox = self.token_users.get(authorization.removeprefix("Bearer "))
        if mailbox is None:
            answer = self._error(
                Fault(401, "InvalidAuthenticationToken", "Access token validation failure. Invalid audience.")
            )
            answer.headers["WWW-Authenticate"] = 'Bearer realm="", error="invalid_token"'
            return answer
        target = params.get("user-id")
        if template != "/users" and target is not None and target.casefold() != mailbox.casefold():
            return self._error(
                Fault(403, "ErrorAccessDenied", "Access is denied. Check credentials and try again.")
            )
        return None

    def _answer(
        self,
        method: str,
        template: str,
        params: Mapping[str, str],
        query: Mapping[str, str],
        data: Any,
        headers: Mapping[str, str],
    ) -> Answer:
        mailbox = params.get("user-id", "").casefold()
        if template != "/users" and mailbox not in self.working:
            return self._error(Fault(404, "ResourceNotFound", f"The user {mailbox} was not found."))
        if template == "/users":
            return self._list_users(query)
        if template.endswith("/getSchedule"):
            return self._schedule(data)
        if template == "/users/{user-id}/events" and method == "GET":
            return self._find_events(mailbox, query)
        if template == "/users/{user-id}/events":
            return self._create_event(mailbox, data)
        if template == "/users/{user-id}/calendarView":
            return self._calendar_view(mailbox, query)
        if template == "/users/{user-id}/events/{event-id}" and method == "GET":
            return self._get_event(mailbox, params["event-id"], query)
        if template == "/users/{user-id}/events/{event-id}":
            return self._change_event(mailbox, method, params["event-id"], data, headers)
        if template.startswith("/users/{user-id}/events/{event-id}/"):
            return self._event_action(mailbox, template.rsplit("/", 1)[-1], params["event-id"], data)
        if self.mail.handles(template):
            status, extra, body = self.mail.answer(method, template, params, query, data, headers)
            return Answer(status, extra, body)
        if template == "/users/{user-id}/sendMail":
            self.sent.append({"from": mailbox, **data})
            return Answer(202, {"request-id": f"req-{next(self._ids)}"}, None)
        return self._error(Fault(501, "NotImplemented", f"{method} {template}"))

    def _list_users(self, query: Mapping[str, str]) -> Answer:
        clauses = _STARTSWITH.findall(query.get("$filter", ""))
        found = [
            u
            for u in self.users
            if not clauses
            or any(
                str(u.get(f) or "").casefold().startswith(v.replace("''", "'").casefold()) for f, v in clauses
            )
        ]
        top = int(query.get("$top", "100"))
        fields = query["$select"].split(",") if "$select" in query else None
        value = [{k: u.get(k) for k in fields} if fields else dict(u) for u in found[:top]]
        return Answer(200, {}, {"value": value})

    def _busy_of(self, address: str) -> list[dict[str, Any]]:
        mine = []
        for event in self.events:
            people = {event["organizer"]["emailAddress"]["address"].casefold()}
            people |= {a["emailAddress"]["address"].casefold() for a in event.get("attendees", ())}
            if address in people:
                mine.append(event)
        return mine

    def _schedule(self, data: Mapping[str, Any]) -> Answer:
        start = _parse(data["StartTime"])
        end = _parse(data["EndTime"])
        if end - start > timedelta(days=62):
            return self._error(Fault(400, "ErrorInvalidParameter", "The time window may not exceed 62 days."))
        value = []
        for address in data["Schedules"]:
            key = address.casefold()
            if key not in self.working:
                value.append(
                    {
                        "scheduleId": address,
                        "error": {
                            "message": "The mailbox was not found.",
                            "responseCode": "ErrorMailRecipientNotFound",
                        },
                    }
                )
                continue
            items = []
            for event in self._busy_of(key):
                for held in _occurrences(event, (start, end), self.cancelled):
                    event_start, event_end = _parse(held["start"]), _parse(held["end"])
                    if not (event_start < end and start < event_end):
                        continue
                    items.append(
                        {
                            "isPrivate": False,
                            "status": event.get("showAs", "busy"),
                            "subject": event.get("subject"),
                            "start": _graph_time(event_start, fraction=True),
                            "end": _graph_time(event_end, fraction=True),
                        }
                    )
            working = self.working[key].to_graph()
            value.append(
                {
                    "scheduleId": address,
                    "availabilityView": "",
                    "scheduleItems": items,
                    "workingHours": working,
                }
            )
        return Answer(200, {}, {"value": value})

    def _find_events(self, mailbox: str, query: Mapping[str, str]) -> Answer:
        match = _EXTENDED.match(query.get("$filter", ""))
        if match is None:
            return self._error(
                Fault(400, "ErrorInvalidUrlQueryFilter", "Only the booking-id filter is served here.")
            )
        prop, value = (g.replace("''", "'") for g in match.groups())
        found = [
            e
            for e in self.events
            if e["organizer"]["emailAddress"]["address"].casefold() == mailbox
            and any(
                p["id"] == prop and p["value"] == value for p in e.get("singleValueExtendedProperties", ())
            )
        ]
        fields = query["$select"].split(",") if "$select" in query else None
        shown = [
            {k: e.get(k) for k in fields} if fields else _public(e)
            for e in found[: int(query.get("$top", "10"))]
        ]
        return Answer(200, {}, {"value": shown})

    # -- a mailbox's view of its events (calendarView, GET, the event actions) ----------------

    def _mine(self, mailbox: str, event: Mapping[str, Any]) -> bool:
        people = {event["organizer"]["emailAddress"]["address"].casefold()}
        people |= {a["emailAddress"]["address"].casefold() for a in event.get("attendees", ())}
        return mailbox in people

    def _view(self, mailbox: str, event: Mapping[str, Any], query: Mapping[str, str]) -> dict[str, Any]:
        """The event as ``mailbox`` reads it: isOrganizer and its own responseStatus, the @odata.etag."""
        organizer = event["organizer"]["emailAddress"]["address"].casefold() == mailbox
        own = next(
            (a for a in event.get("attendees", ()) if a["emailAddress"]["address"].casefold() == mailbox),
            None,
        )
        shown = {
            **_public(event),
            "isOrganizer": organizer,
            "isCancelled": False,
            "responseStatus": {"response": "organizer"}
            if organizer
            else dict((own or {}).get("status") or {"response": "notResponded"}),
        }
        if "$select" in query:
            shown = {k: shown.get(k) for k in ("id", *query["$select"].split(",")) if k in shown}
        return {"@odata.etag": f'W/"{event.get("changeKey", "")}"', **shown}

    def _calendar_view(self, mailbox: str, query: Mapping[str, str]) -> Answer:
        start = datetime.fromisoformat(query["startDateTime"].replace("Z", "+00:00"))
        end = datetime.fromisoformat(query["endDateTime"].replace("Z", "+00:00"))
        # A series is its occurrences in the window: type occurrence, its own id, seriesMasterId
        # (https://learn.microsoft.com/graph/api/user-list-calendarview: "the occurrences, exceptions,
        # and single instances of events").
        found = [
            occurrence
            for e in self.events
            if self._mine(mailbox, e)
            for occurrence in _occurrences(e, (start, end), self.cancelled)
            if _parse(occurrence["start"]) < end and start < _parse(occurrence["end"])
        ]
        found.sort(key=lambda e: _parse(e["start"]))
        top = int(query.get("$top", "10"))
        skip = int(query.get("$skip", "0"))
        page = [self._view(mailbox, e, query) for e in found[skip : skip + top]]
        body: dict[str, Any] = {"value": page}
        if skip + top < len(found):
            rest = {**query, "$skip": str(skip + top)}
            body["@odata.nextLink"] = (
                f"https://graph.microsoft.com/v1.0/users/{mailbox}/calendarView?"
                + "&".join(f"{k}={v}" for k, v in rest.items())
            )
        return Answer(200, {}, body)

    def _occurrence(self, mailbox: str, event_id: str) -> Mapping[str, Any] | None:
        """The occurrence ``{seriesMasterId}_{start in UTC}`` of one of ``mailbox``'s series, as
        calendarView lists it, when the series meets then and it was not cancelled."""
        master_id, _, stamp = event_id.rpartition("_")
        try:
            begins = datetime.strptime(stamp, "%Y%m%dT%H%M%S").replace(tzinfo=UTC)
        except ValueError:
            return None
        for event in self.events:
            if event["id"] == master_id and event.get("recurrence") and self._mine(mailbox, event):
                window = (begins, begins + timedelta(seconds=1))
                return next(
                    (o for o in _occurrences(event, window, self.cancelled) if o["id"] == event_id), None
                )
        return None

    def _get_event(self, mailbox: str, event_id: str, query: Mapping[str, str]) -> Answer:
        for event in [*self.events, self._occurrence(mailbox, event_id) or {"id": None}]:
            if event["id"] == event_id and self._mine(mailbox, event):
                return Answer(200, {}, self._view(mailbox, event, query))
        return self._error(
            Fault(404, "ErrorItemNotFound", "The specified object was not found in the store.")
        )

    def _event_action(self, mailbox: str, action: str, event_id: str, data: Mapping[str, Any]) -> Answer:
        """cancel (the organizer's: the event goes, the attendees are told) or an attendee's answer
        (https://learn.microsoft.com/graph/api/event-cancel, event-accept, event-decline)."""
        event = next((e for e in self.events if e["id"] == event_id and self._mine(mailbox, e)), None)
        occurrence = self._occurrence(mailbox, event_id) if event is None else None
        if occurrence is not None and action == "cancel":
            # An occurrence's own id cancels that meeting only (event-cancel: "The organizer can also
            # cancel an occurrence of a recurring meeting by providing the occurrence event ID").
            if occurrence["organizer"]["emailAddress"]["address"].casefold() != mailbox:
                return self._error(
                    Fault(
                        400,
                        "ErrorAccessDenied",
                        "Your request can't be completed. You need to be an organizer.",
                    )
                )
            self.cancelled.add(event_id)
            self.notices.append({"action": "cancel", "eventId": event_id, "from": mailbox, **data})
            return Answer(202, {}, None)
        if event is None:
            return self._error(
                Fault(404, "ErrorItemNotFound", "The specified object was not found in the store.")
            )
        organizer = event["organizer"]["emailAddress"]["address"].casefold() == mailbox
        if action == "cancel":
            if not organizer:
                return self._error(
                    Fault(
                        400,
                        "ErrorAccessDenied",
                        "Your request can't be completed. You need to be an organizer.",
                    )
                )
            self.events.remove(event)
            self.notices.append({"action": "cancel", "eventId": event_id, "from": mailbox, **data})
            return Answer(202, {}, None)
        if organizer:
            return self._error(
                Fault(
                    400,
                    "ErrorInvalidRequest",
                    "Your request can't be completed. You can't respond to your own meeting.",
                )
            )
        words = {"accept": "accepted", "tentativelyAccept": "tentativelyAccepted", "decline": "declined"}
        for attendee in event.get("attendees", ()):
            if attendee["emailAddress"]["address"].casefold() == mailbox:
                attendee["status"] = {
                    "response": words[action],
                    "time": _graph_time(datetime.now(UTC))["dateTime"] + "Z",
                }
        event["changeKey"] = f"CK{next(self._ids):06d}"
        self.notices.append({"action": action, "eventId": event_id, "from": mailbox, **data})
        return Answer(202, {}, None)

    def _create_event(self, mailbox: str, data: Mapping[str, Any]) -> Answer:
        transaction = data.get("transactionId")
        for event in self.events:
            if transaction and event.get("transactionId") == transaction:
                return Answer(201, {}, _public(event))  # a retried POST: the event made before
        problem = graph_problem(data, zone_of)
        if problem is not None:
            return self._error(Fault(400, "ErrorInvalidRequest", problem))
        event = {
            **data,
            "id": f"AAMk{next(self._ids):06d}=",
            "originalStartTimeZone": data["start"].get("timeZone") or "UTC",
            "start": _graph_time(_parse(data["start"])),
            "end": _graph_time(_parse(data["end"])),
            "organizer": {"emailAddress": {"address": mailbox}},
            "showAs": "busy",
            "type": "singleInstance",
            "changeKey": f"CK{next(self._ids):06d}",
        }
        self.events.append(event)
        return Answer(201, {}, _public(event))

    def _change_event(
        self, mailbox: str, method: str, event_id: str, data: Any, headers: Mapping[str, str]
    ) -> Answer:
        occurrence = self._occurrence(mailbox, event_id)
        if occurrence is not None and method == "PATCH" and set(data or {}) <= {"start", "end"}:
            # An occurrence patched becomes an exception of its series: an event of its own, same id
            # (https://learn.microsoft.com/graph/api/resources/event, type "exception").
            if occurrence["organizer"]["emailAddress"]["address"].casefold() != mailbox:
                return self._error(Fault(403, "ErrorAccessDenied", "Access is denied."))
            self.cancelled.add(event_id)
            exception = {**occurrence, "type": "exception", "changeKey": f"CK{next(self._ids):06d}"}
            exception["start"] = _graph_time(_parse(data.get("start", occurrence["start"])))
            exception["end"] = _graph_time(_parse(data.get("end", occurrence["end"])))
            self.events.append(exception)
            self.notices.append({"action": "update", "eventId": event_id, "from": mailbox})
            return Answer(200, {}, self._view(mailbox, exception, {}))
        for event in self.events:
            if (
                event["id"] == event_id
                and event["organizer"]["emailAddress"]["address"].casefold() == mailbox
            ):
                if method == "DELETE" and not _matches(headers, event):
                    return self._error(
                        Fault(
                            412,
                            "ErrorIrresolvableConflict",
                            "The change key passed in the request "
                            "does not match the current change key for the item.",
                        )
                    )
                if method == "DELETE":
                    self.events.remove(event)
                    return Answer(204, {}, None)
                problem = graph_problem({**event, **data}, zone_of)
                if problem is not None:
                    return self._error(Fault(400, "ErrorInvalidRequest", problem))
                if "start" in data:
                    event["originalStartTimeZone"] = data["start"].get("timeZone") or "UTC"
                event.update(data)
                event["start"], event["end"] = (
                    _graph_time(_parse(event["start"])),
                    _graph_time(_parse(event["end"])),
                )
                event["changeKey"] = f"CK{next(self._ids):06d}"
                if data and ("start" in data or "end" in data):
                    self.notices.append({"action": "update", "eventId": event_id, "from": mailbox})
                return Answer(200, {}, self._view(mailbox, event, {}))
        return self._error(
            Fault(404, "ErrorItemNotFound", "The specified object was not found in the store.")
        )

    def _error(self, fault: Fault) -> Answer:
        body = {
            "error": {
                "code": fault.code,
                "message": fault.message,
                "innerError": {"date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S"), "request-id": "0"},
            }
        }
        return Answer(fault.status, dict(fault.headers), body)

    def off_hours(self, address: str, start: datetime, end: datetime) -> list[Any]:
        return off_hours(self.working[address.casefold()].to_graph(), start, end)


def _occurrences(
    event: Mapping[str, Any], window: tuple[datetime, datetime], cancelled: Collection[str] = ()
) -> list[Mapping[str, Any]]:
    """A single event as it is; a series master as its occurrences in ``window`` (but the cancelled)."""
    if event.get("recurrence") is None:
        return [event]
    found = [
        {
            **{k: v for k, v in event.items() if k != "recurrence"},
            "id": f"{event['id']}_{begins.astimezone(UTC):%Y%m%dT%H%M%S}",
            "type": "occurrence",
            "seriesMasterId": event["id"],
            "start": _graph_time(begins),
            "end": _graph_time(ends),
        }
        for begins, ends in graph_meetings(event, window, zone_of, _parse)
    ]
    return [o for o in found if o["id"] not in cancelled]


def _public(event: Mapping[str, Any]) -> dict[str, Any]:
    # Extended properties are returned only when expanded; the rest is the event as Graph shows it.
    return {k: v for k, v in event.items() if k != "singleValueExtendedProperties"}


def _graph_time(moment: datetime, *, fraction: bool = False) -> dict[str, str]:
    wall = moment.astimezone(UTC).replace(tzinfo=None)
    text = wall.strftime("%Y-%m-%dT%H:%M:%S") + (".0000000" if fraction else "")
    return {"dateTime": text, "timeZone": "UTC"}


def _parse(value: Mapping[str, Any]) -> datetime:
    wall = datetime.fromisoformat(_FRACTION.sub(r"\1", value["dateTime"]))
    return wall.replace(tzinfo=zone_of(value.get("timeZone") or "UTC") or UTC).astimezone(UTC)


class _Response:
    def __init__(self, answer: Answer) -> None:
        self.status = answer.status
        self.headers = answer.headers
        self.data = b"" if answer.body is None else json.dumps(answer.body).encode()


class GraphPool:
    """A ``urllib3.PoolManager`` stand-in that answers from a :class:`GraphState`."""

    def __init__(self, state: GraphState) -> None:
        self.state = state

    def request(
        self,
        method: str,
        url: str,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        **_: Any,
    ) -> _Response:
        return _Response(self.state.handle(method, url, dict(headers or {}), body))


def _matches(headers: Mapping[str, str], event: Mapping[str, Any]) -> bool:
    """A DELETE's ``If-Match`` (the one event write whose published description declares it,
    ``users.DeleteEvents`` in msgraph-metadata's OpenAPI; ``users.UpdateEvents`` and the event
    actions declare none): the event's ``@odata.etag`` still, or no precondition."""
    wanted = next((v for k, v in headers.items() if k.lower() == "if-match"), None)
    return wanted is None or wanted.strip() in ("*", f'W/"{event.get("changeKey", "")}"')
