"""A fake Google Workspace on loopback: the sandbox's directory, calendars and Gmail, and the tests' Google.

It serves only what the Google Workspace adapters call (:mod:`multitool.ports.google.workspace`),
on the paths Google's discovery documents give them, under one origin:

- ``GET /v1/people:searchDirectoryPeople``: a prefix search of the seeded people;
- ``POST /calendar/v3/freeBusy``: busy blocks from each person's events (a ``notFound`` error
  for an address with no calendar here, as Google answers);
- ``GET | PATCH | DELETE /calendar/v3/calendars/{calendarId}/events/{eventId}`` (a PATCH or DELETE
  with an ``If-Match`` etag the event no longer has: 412) and
  ``POST /calendar/v3/calendars/{calendarId}/events``: the signed-in user's events (a client
  id must be base32hex; an id used before, deleted or not, is ``409 duplicate``; a deleted
  event stays readable as ``cancelled``); an insert or patch with ``sendUpdates=all`` records
  the invitations Google would send;
- ``POST /gmail/v1/users/{userId}/messages/send``: the raw message, decoded and kept;
- ``GET /``: a page (labelled as a sandbox) of what was booked and sent, and the same as JSON
  (the stand-in's own view, not Google's): ``GET /_local/events`` (the events booked here, not
  the seeded ones), ``/_local/invitations`` (what Google would have sent) and ``/_local/sent``.

Every request is checked against the discovery documents (:mod:`multitool.local.standins.google_discovery`)
when google-api-python-client is installed (a development dependency), and every answer too; a
request Google would refuse is a 400 in Google's error format. Without the documents it serves
unchecked, so ``make demo`` starts with the runtime dependencies only.

A bearer token names its user: :func:`sandbox_token` (``sandbox-google.<address>``) for each
seeded address; :attr:`FakeGoogle.env` hands the functions one per address (``PROVIDER_TOKENS``).
With ``delegated=True`` (``multitool serve --consent``) it takes instead only the tokens the local
AgentCore Identity stand-in issues (``local-google-<id>``, :func:`delegated_token`) and the
functions get none.
Each person starts with a week of real-looking meetings in their own time zone (:func:`seeded_week`).
Failures can be scripted for the next calls of a method:
``fake.fail_next("calendar.freebusy.query", 429, "rateLimitExceeded", retry_after=3)``.
"""

from __future__ import annotations

import base64
import html
import json
import re
import threading
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from email import message_from_bytes
from email.policy import default as default_policy
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from multitool.local.standins.google_discovery import Discovery, DiscoveryMismatch, error_body, load_discovery
from multitool.local.standins.google_events import (
    _changed,
    _guests,
    _instances,
    _merge,
    _now,
    _person_json,
    _seen_by,
    _z,
)
from multitool.local.standins.google_mail import GmailBoxes
from multitool.local.standins.google_seed import demo_events, seeded_week
from multitool.local.standins.recurring import google_problem
from multitool.local.standins.stand_in import ServedStandIn, StandInHandler, StandInServer
from multitool.people import Person
from multitool.ports.agentcore.tokens import slack_vault_user
from multitool.ports.directory import normalize_name

TOKEN_PREFIX = "sandbox-google."  # noqa: S105 - a sandbox token, not a secret
_EVENT_ID = re.compile(r"[a-v0-9]{5,1024}")
_ROUTES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("GET", re.compile(r"^/v1/people:searchDirectoryPeople$"), "people.people.searchDirectoryPeople"),
    ("POST", re.compile(r"^/calendar/v3/freeBusy$"), "calendar.freebusy.query"),
    ("POST", re.compile(r"^/calendar/v3/calendars/(?P<calendarId>[^/]+)/events$"), "calendar.events.insert"),
    ("GET", re.compile(r"^/calendar/v3/calendars/(?P<calendarId>[^/]+)/events$"), "calendar.events.list"),
    (
        "GET",
        re.compile(r"^/calendar/v3/calendars/(?P<calendarId>[^/]+)/events/(?P<eventId>[^/]+)$"),
        "calendar.events.get",
    ),
    (
        "PATCH",
        re.compile(r"^/calendar/v3/calendars/(?P<calendarId>[^/]+)/events/(?P<eventId>[^/]+)$"),
        "calendar.events.patch",
    ),
    (
        "DELETE",
        re.compile(r"^/calendar/v3/calendars/(?P<calendarId>[^/]+)/events/(?P<eventId>[^/]+)$"),
        "calendar.events.delete",
    ),
    ("POST", re.compile(r"^/gmail/v1/users/(?P<userId>[^/]+)/messages/send$"), "gmail.users.messages.send"),
    ("GET", re.compile(r"^/gmail/v1/users/(?P<userId>[^/]+)/messages$"), "gmail.users.messages.list"),
    (
        "GET",
        re.compile(r"^/gmail/v1/users/(?P<userId>[^/]+)/messages/(?P<id>[^/]+)$"),
        "gmail.users.messages.get",
    ),
    (
        "GET",
        re.compile(
            r"^/gmail/v1/users/(?P<userId>[^/]+)/messages/(?P<messageId>[^/]+)/attachments/(?P<id>[^/]+)$"
        ),
        "gmail.users.messages.attachments.get",
    ),
    ("POST", re.compile(r"^/gmail/v1/users/(?P<userId>[^/]+)/drafts/send$"), "gmail.users.drafts.send"),
    ("POST", re.compile(r"^/gmail/v1/users/(?P<userId>[^/]+)/drafts$"), "gmail.users.drafts.create"),
    (
        "GET",
        re.compile(r"^/gmail/v1/users/(?P<userId>[^/]+)/drafts/(?P<id>[^/]+)$"),
        "gmail.users.drafts.get",
    ),
)
_MAIL_REASONS = {400: "invalidArgument", 403: "forbidden", 404: "notFound", 501: "notImplemented"}


def delegated_token(person: Person) -> str:
    """The token the local identity stand-in hands out for ``person``'s Google account."""
    return f"local-google-{person.id}"


def sandbox_token(email: str) -> str:
    """The bearer token the stand-in takes as ``email``'s."""
    return TOKEN_PREFIX + email.casefold()


@dataclass(frozen=True, slots=True)
class ScriptedFailure:
    status: int
    reason: str
    message: str
    retry_after: int | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: Any
    headers: dict[str, str]


class FakeGoogle(ServedStandIn):
    """A fake Google Workspace, bound on ``host:port``, served once started (:func:`start_fake_google`)."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        people: Sequence[Person],
        week_of: date,
        validate: bool = True,
        delegated: bool = False,
        demo: bool = False,
    ) -> None:
        self.people = tuple(people)
        # token -> address: the sandbox tokens, or (delegated) the identity stand-in's per person
        self._tokens = {
            (delegated_token(p) if delegated else sandbox_token(p.email)): p.email.casefold() for p in people
        }
        if delegated:  # and as the Slack app's consent stores it: by the person's vault user id
            self._tokens |= {f"local-google-{slack_vault_user(p.email)}": p.email.casefold() for p in people}
        self.delegated = delegated
        self.discovery: Discovery | None = load_discovery() if validate else None
        self.requests: list[tuple[str, str, int]] = []
        self.sent: list[dict[str, Any]] = []
        self.invitations: list[dict[str, Any]] = []
        self._events: dict[str, dict[str, dict[str, Any]]] = {p.email.casefold(): {} for p in people}
        self._cancelled: set[str] = set()
        """Instances of recurring events deleted one by one (their ids): the rest of the series stays."""
        self._failures: dict[str, deque[ScriptedFailure]] = {}
        self._lock = threading.Lock()
        self._ids = 0
        self.mail = GmailBoxes(lambda address: address in self._events)
        """The mailboxes: messages, threads, attachments, drafts (:mod:`.google_mail`)."""
        for owner, event in seeded_week(self.people, week_of):
            self._events[owner][event["id"]] = event
        if demo:  # the meetings the demo's requests name (multitool.local.sandbox.demo_meetings)
            for owner, event in demo_events(self.people):
                self._events[owner][event["id"]] = event
        self.server = StandInServer(_handler_for(self), host, port, name="google")

    @property
    def env(self) -> dict[str, str]:
        """What the functions need to act in this Workspace: each seeded person's own token."""
        env = {"CALENDAR": "google", "PROVIDER_BASE_URL": self.url}
        if not self.delegated:
            env["PROVIDER_TOKENS"] = json.dumps({p.email: sandbox_token(p.email) for p in self.people})
        return env

    def booked(self) -> list[dict[str, Any]]:
        """The events booked here (every calendar's, the seeded week left out), oldest first."""
        with self._lock:
            return [
                dict(e)
                for events in self._events.values()
                for e in events.values()
                if not str(e["id"]).startswith("seed")
            ]

    def local_view(self, name: str) -> list[dict[str, Any]] | None:
        """``/_local/<name>``'s list (events, invitations, sent), or None for another name."""
        if name == "events":
            return self.booked()
        with self._lock:
            if name == "invitations":
                return [dict(i) for i in self.invitations]
            if name == "sent":
                return [dict(m) for m in self.sent]
        return None

    def fail_next(
        self,
        method_id: str,
        status: int,
        reason: str,
        message: str = "",
        *,
        retry_after: int | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next ``times`` calls of ``method_id`` with Google's error ``status``/``reason``."""
        with self._lock:
            queue = self._failures.setdefault(method_id, deque())
            queue.extend([ScriptedFailure(status, reason, message or reason, retry_after)] * times)

    def events_of(self, email: str) -> list[dict[str, Any]]:
        """The events on ``email``'s primary calendar (seeded ones included)."""
        with self._lock:
            return [dict(e) for e in self._events.get(email.casefold(), {}).values()]

    def event(self, email: str, event_id: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._events.get(email.casefold(), {}).get(event_id)
            return dict(found) if found is not None else None

    # -- request handling (on the server's threads) ---------------------------------------------

    def handle(self, method: str, target: str, headers: Any, body: bytes) -> Answer:
        parts = urlsplit(target)
        route = next(
            ((m, p.match(parts.path), i) for m, p, i in _ROUTES if m == method and p.match(parts.path)), None
        )
        if route is None:
            return Answer(404, error_body(404, "notFound", f"No such method: {method} {parts.path}"), {})
        _, matched, method_id = route
        assert matched is not None
        if self.discovery is not None:
            try:
                self.discovery.check_request(method, target, body or None)
            except DiscoveryMismatch as error:
                return Answer(400, error_body(400, "invalid", str(error)), {})
        user = self._user(headers.get("Authorization"))
        if user is None:
            return Answer(
                401, error_body(401, "authError", "Invalid Credentials"), {"WWW-Authenticate": "Bearer"}
            )
        with self._lock:
            queue = self._failures.get(method_id)
            failure = queue.popleft() if queue else None
        if failure is not None:
            extra = {"Retry-After": str(failure.retry_after)} if failure.retry_after is not None else {}
            return Answer(failure.status, error_body(failure.status, failure.reason, failure.message), extra)
        path = {k: unquote(v) for k, v in matched.groupdict().items()}
        query = dict(parse_qsl(parts.query))
        payload = json.loads(body) if body else None
        with self._lock:
            answer = self._answer(method_id, user, path, query, payload, headers.get("If-Match"))
        if self.discovery is not None:
            self.discovery.check_response(self.discovery.operation(method_id), answer.status, answer.body)
        return answer

    def _user(self, authorization: str | None) -> str | None:
        email = self._tokens.get((authorization or "").removeprefix("Bearer "))
        return email if email in self._events else None

    def _answer(
        self,
        method_id: str,
        user: str,
        path: dict[str, str],
        query: dict[str, str],
        body: Any,
        if_match: str | None = None,
    ) -> Answer:
        if method_id == "people.people.searchDirectoryPeople":
            return Answer(200, self._search(query.get("query", ""), int(query.get("pageSize") or 100)), {})
        if method_id == "calendar.freebusy.query":
            return self._freebusy(body)
        if method_id == "gmail.users.messages.send":
            return self._send_mail(user, path["userId"], body)
        if method_id.startswith("gmail."):
            status, answer = self.mail.answer(method_id, user, path, query, body)
            if status >= 400:
                return Answer(
                    status, error_body(status, _MAIL_REASONS.get(status, "failed"), str(answer)), {}
                )
            if method_id == "gmail.users.drafts.send":
                self._keep_sent(user, answer["id"])
            return Answer(status, answer, {})
        calendar = path["calendarId"].casefold()
        if calendar not in ("primary", user):
            return Answer(404, error_body(404, "notFound", "Not Found"), {})
        events = self._events[user]
        if method_id == "calendar.events.insert":
            return self._insert(user, events, body, query)
        if method_id == "calendar.events.list":
            return self._list(user, query)
        event = events.get(path["eventId"])
        if event is None and (instance := self._instance(events, path["eventId"])) is not None:
            return self._on_instance(user, method_id, instance, query, body, events)
        if event is None:
            invited = self._invited(user, path["eventId"])
            if invited is None:
                return Answer(404, error_body(404, "notFound", "Not Found"), {})
            return _unmet(method_id, if_match, invited) or self._as_attendee(
                user, method_id, invited, body, query
            )
        if method_id == "calendar.events.get":
            return Answer(200, _seen_by(user, event), {})
        unmet = _unmet(method_id, if_match, event)
        if unmet is not None:
            return unmet
        if method_id == "calendar.events.patch":
            if event["status"] == "cancelled" and body.get("status") != "confirmed":
                return Answer(410, error_body(410, "deleted", "Resource has been deleted"), {})
            problem = google_problem({**event, **body})
            if problem is not None:
                return Answer(400, error_body(400, "invalid", problem), {})
            event.update(body)
            _changed(event)
            self._invite(user, event, query)
            return Answer(200, _seen_by(user, event), {})
        if event["status"] == "cancelled":
            return Answer(410, error_body(410, "deleted", "Resource has been deleted"), {})
        event["status"] = "cancelled"
        _changed(event)
        self._invite(user, event, query, cancelled=True)
        return Answer(204, None, {})

    # -- one instance of a recurring event -------------------------------------------------------

    def _instance(self, events: dict[str, dict[str, Any]], event_id: str) -> dict[str, Any] | None:
        """The instance ``{recurringEventId}_{start in UTC, basic format}`` of one of the user's
        recurring events, when the series meets then and it was not deleted (the instance ids
        events.list with ``singleEvents`` answers, as Google's own)."""
        master_id, _, stamp = event_id.rpartition("_")
        master = events.get(master_id)
        if master is None or not master.get("recurrence") or master.get("status") == "cancelled":
            return None
        try:
            begins = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
        except ValueError:
            return None
        window = (begins, begins + timedelta(seconds=1))
        return next(
            (e for e in _instances(master, window, self._cancelled) if e["id"] == event_id),
            None,
        )

    def _on_instance(
        self,
        user: str,
        method_id: str,
        instance: dict[str, Any],
        query: dict[str, str],
        body: Any,
        events: dict[str, dict[str, Any]],
    ) -> Answer:
        """events.get reads the instance; events.delete cancels that meeting only (the guests told
        with ``sendUpdates``), the recurring event and its other instances staying."""
        if method_id == "calendar.events.get":
            return Answer(200, _seen_by(user, instance), {})
        self._cancelled.add(instance["id"])
        if method_id == "calendar.events.patch":
            # Patched, the instance is an exception of its own (its id and recurringEventId kept).
            exception = {**instance, **(body or {})}
            _changed(exception)
            events[instance["id"]] = exception
            self._invite(user, exception, query)
            return Answer(200, _seen_by(user, exception), {})
        self._invite(user, instance, query, cancelled=True)
        return Answer(204, None, {})

    # -- an invitee's view: the event on their own calendar ----------------------------------

    def _invited(self, user: str, event_id: str) -> dict[str, Any] | None:
        """Another calendar's event ``user`` is invited to (Google puts it on theirs, same id)."""
        for owner, events in self._events.items():
            event = events.get(event_id)
            if owner != user and event is not None and user in _guests(event):
                return event
        return None

    def _as_attendee(
        self, user: str, method_id: str, event: dict[str, Any], body: Any, query: dict[str, str]
    ) -> Answer:
        """An invitee reads their copy, and may change their own response only (the organizer
        owns the rest: https://developers.google.com/workspace/calendar/api/guides/errors,
        ``forbiddenForNonOrganizer``)."""
        if event["status"] == "cancelled":
            return Answer(410, error_body(410, "deleted", "Resource has been deleted"), {})
        if method_id == "calendar.events.get":
            return Answer(200, _seen_by(user, event), {})
        if method_id != "calendar.events.patch" or set(body) != {"attendees"}:
            return Answer(
                403,
                error_body(
                    403, "forbiddenForNonOrganizer", "The operation can only be performed by the organizer."
                ),
                {},
            )
        answers = {str(a.get("email", "")).casefold(): a for a in body["attendees"]}
        own = answers.get(user)
        for attendee in event.get("attendees") or ():
            if str(attendee.get("email", "")).casefold() == user and own is not None:
                attendee["responseStatus"] = own.get("responseStatus", attendee.get("responseStatus"))
                if own.get("comment"):
                    attendee["comment"] = own["comment"]
        _changed(event, sequence=False)
        if query.get("sendUpdates") in ("all", "externalOnly"):
            self.invitations.append(
                {
                    "to": event["organizer"]["email"],
                    "eventId": event["id"],
                    "summary": event.get("summary", ""),
                    "reply": (own or {}).get("responseStatus"),
                    "comment": (own or {}).get("comment", ""),
                }
            )
        return Answer(200, _seen_by(user, event), {})

    def _list(self, user: str, query: dict[str, str]) -> Answer:
        """events.list: the user's own events and the ones they are invited to, in the window."""
        start = datetime.fromisoformat(query["timeMin"].replace("Z", "+00:00"))
        end = datetime.fromisoformat(query["timeMax"].replace("Z", "+00:00"))
        # singleEvents: a series is its instances, each with recurringEventId and an id of its own
        # (the discovery document's events.list singleEvents and Event.recurringEventId).
        found = [
            e
            for owner, events in self._events.items()
            for master in events.values()
            if (owner == user or user in _guests(master))
            and master.get("status") != "cancelled"
            and "dateTime" in master.get("start", {})
            for e in _instances(master, (start, end), self._cancelled)
            if datetime.fromisoformat(e["start"]["dateTime"]) < end
            and start < datetime.fromisoformat(e["end"]["dateTime"])
        ]
        found.sort(key=lambda e: datetime.fromisoformat(e["start"]["dateTime"]))
        size = int(query.get("maxResults") or 250)
        offset = int(query.get("pageToken") or 0)
        body: dict[str, Any] = {
            "kind": "calendar#events",
            "summary": user,
            "items": [_seen_by(user, e) for e in found[offset : offset + size]],
        }
        if offset + size < len(found):
            body["nextPageToken"] = str(offset + size)
        return Answer(200, body, {})

    def _search(self, query: str, size: int) -> dict[str, Any]:
        wanted = normalize_name(query)
        found = [
            p
            for p in self.people
            if wanted
            and any(
                word.startswith(wanted) or normalize_name(field).startswith(wanted)
                for field in (p.display_name, p.email, *p.aliases)
                for word in normalize_name(field).split(" ")
            )
        ]
        people = [_person_json(p) for p in found[: max(1, min(size, 500))]]
        return {"people": people, "totalSize": len(found)} if people else {}

    def _freebusy(self, body: dict[str, Any]) -> Answer:
        start = datetime.fromisoformat(body["timeMin"])
        end = datetime.fromisoformat(body["timeMax"])
        if end <= start:
            return Answer(400, error_body(400, "timeRangeEmpty", "The specified time range is empty."), {})
        if end - start > timedelta(
            days=90
        ):  # what Google is seen to refuse (google_workspace.FREEBUSY_WINDOW)
            return Answer(
                400, error_body(400, "timeRangeTooLong", "The requested time range is too long."), {}
            )
        items = [str(i.get("id", "")) for i in body.get("items") or ()]
        if len(items) > 50:
            return Answer(
                400, error_body(400, "tooManyCalendarsRequested", "Too many calendars requested."), {}
            )
        calendars: dict[str, Any] = {}
        for item in items:
            events = self._events.get(item.casefold())
            if events is None:
                calendars[item] = {"errors": [{"domain": "global", "reason": "notFound"}], "busy": []}
                continue
            blocks = sorted(
                (max(s, start), min(e, end))
                for s, e in self._busy_blocks(item.casefold(), (start, end))
                if s < end and start < e
            )
            calendars[item] = {"busy": [{"start": _z(s), "end": _z(e)} for s, e in _merge(blocks)]}
        return Answer(
            200,
            {"kind": "calendar#freeBusy", "timeMin": _z(start), "timeMax": _z(end), "calendars": calendars},
            {},
        )

    def _busy_blocks(
        self, email: str, window: tuple[datetime, datetime]
    ) -> Iterable[tuple[datetime, datetime]]:
        for owner_events in self._events.values():
            for event in owner_events.values():
                if event.get("status") == "cancelled" or event.get("transparency") == "transparent":
                    continue
                invited = {str(a.get("email", "")).casefold() for a in event.get("attendees") or ()}
                if email == str(event["organizer"]["email"]).casefold() or email in invited:
                    for instance in _instances(event, window, self._cancelled):
                        begins = datetime.fromisoformat(instance["start"]["dateTime"])
                        ends = datetime.fromisoformat(instance["end"]["dateTime"])
                        yield begins.astimezone(UTC), ends.astimezone(UTC)

    def _insert(
        self, user: str, events: dict[str, Any], body: dict[str, Any], query: dict[str, str]
    ) -> Answer:
        eid = body.get("id")
        if eid is None:
            self._ids += 1
            eid = f"sandbox{self._ids:08d}"
        elif not _EVENT_ID.fullmatch(str(eid)):
            return Answer(400, error_body(400, "invalid", "Invalid resource id value."), {})
        if eid in events:
            return Answer(409, error_body(409, "duplicate", "The requested identifier already exists."), {})
        start, end = body.get("start") or {}, body.get("end") or {}
        if not start.get("dateTime") or not end.get("dateTime"):
            return Answer(400, error_body(400, "required", "Missing end time."), {})
        if datetime.fromisoformat(end["dateTime"]) <= datetime.fromisoformat(start["dateTime"]):
            return Answer(400, error_body(400, "timeRangeEmpty", "The specified time range is empty."), {})
        problem = google_problem(body)
        if problem is not None:
            return Answer(400, error_body(400, "invalid", problem), {})
        now = _now()
        event = {
            "kind": "calendar#event",
            "etag": f'"{len(events) + 1:016d}"',
            "status": "confirmed",
            "htmlLink": f"https://calendar.google.com/calendar/event?eid={eid}",
            "created": now,
            "updated": now,
            "creator": {"email": user, "self": True},
            "organizer": {"email": user, "self": True},
            "iCalUID": f"{eid}@google.com",
            "sequence": 0,
            "reminders": {"useDefault": True},
            "eventType": "default",
            **body,
            "id": eid,
        }
        events[eid] = event
        self._invite(user, event, query)
        return Answer(200, event, {})

    def _invite(
        self, user: str, event: dict[str, Any], query: dict[str, str], *, cancelled: bool = False
    ) -> None:
        if query.get("sendUpdates") not in ("all", "externalOnly"):
            return
        for attendee in event.get("attendees") or ():
            address = str(attendee.get("email", ""))
            if address.casefold() != user:
                notice = {"to": address, "eventId": event["id"], "summary": event.get("summary", "")}
                if cancelled:
                    notice["cancelled"] = True
                self.invitations.append(notice)

    def _send_mail(self, user: str, user_id: str, body: dict[str, Any]) -> Answer:
        if user_id not in ("me", user):
            return Answer(403, error_body(403, "forbidden", "Delegation denied for " + user), {})
        raw = base64.urlsafe_b64decode(body["raw"] + "=" * (-len(body["raw"]) % 4))
        message = message_from_bytes(raw, policy=default_policy)
        if not message.get("To"):
            return Answer(400, error_body(400, "invalidArgument", "Recipient address required"), {})
        self._ids += 1
        mid = f"18c{self._ids:013x}"
        part = message.get_body(("plain",))
        self.sent.append(
            {
                "id": mid,
                "from": user,
                "to": str(message["To"]),
                "cc": str(message.get("Cc") or ""),
                "subject": str(message.get("Subject") or ""),
                "text": part.get_content() if part is not None else "",
            }
        )
        return Answer(200, {"id": mid, "threadId": mid, "labelIds": ["SENT"]}, {})

    def _keep_sent(self, user: str, message_id: str) -> None:
        """A sent draft in the outbox the local page shows, as a sent message is."""
        [sent] = [m for m in self.mail.sent_by(user) if m["id"] == message_id]
        parsed = sent["parsed"]
        part = parsed.get_body(("plain",))
        self.sent.append(
            {
                "id": message_id,
                "from": user,
                "to": str(parsed["To"]),
                "cc": str(parsed.get("Cc") or ""),
                "subject": str(parsed.get("Subject") or ""),
                "text": part.get_content() if part is not None else "",
            }
        )

    def page(self) -> bytes:
        booked = self.booked()
        with self._lock:
            sent = list(self.sent)
        rows = "".join(
            f"<li>{html.escape(str(e.get('summary', '')))}: {html.escape(e['start']['dateTime'])} "
            f"({html.escape(e['status'])}), organizer {html.escape(e['organizer']['email'])}</li>"
            for e in booked
        )
        mails = "".join(
            f"<li>{html.escape(m['subject'])}: to {html.escape(m['to'])}, from {html.escape(m['from'])}</li>"
            for m in sent
        )
        return (
            "<!doctype html><title>Sandbox Google Workspace</title>"
            "<p><strong>Sandbox Google Workspace: not a real calendar or mailbox.</strong></p>"
            f"<h1>Events booked</h1><ul id='events'>{rows}</ul><h1>Mail sent</h1><ul id='mail'>{mails}</ul>"
        ).encode()


def _unmet(method_id: str, if_match: str | None, event: Mapping[str, Any]) -> Answer | None:
    """A write whose ``If-Match`` names an etag the event no longer has: 412, nothing written, as
    Google answers a conditional modification
    (https://developers.google.com/workspace/calendar/api/guides/version-resources)."""
    if method_id == "calendar.events.get" or if_match is None or if_match.strip() in ("*", event.get("etag")):
        return None
    return Answer(412, error_body(412, "conditionNotMet", "Precondition Failed"), {})


def start_fake_google(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    people: Sequence[Person] | None = None,
    week_of: date | None = None,
    validate: bool = True,
    delegated: bool = False,
    demo: bool = False,
) -> FakeGoogle:
    """A fake Google Workspace on ``host:port`` (port 0: any free port), started (a daemon thread).

    ``people``: the directory (the local seed's people by default); ``week_of``: the week the
    seeded meetings fill (this week by default); ``demo``: the demo's meetings too
    (:mod:`multitool.local.sandbox.demo_meetings`).
    """
    if people is None:
        from multitool.local.sandbox.embedded import load_seed  # the local seed; boto3 only in local use

        people = load_seed().people
    return FakeGoogle(
        host,
        port,
        people=people,
        week_of=week_of or datetime.now(UTC).date(),
        validate=validate,
        delegated=delegated,
        demo=demo,
    ).start()


def _handler_for(google: FakeGoogle) -> type[StandInHandler]:
    class Handler(StandInHandler):  # the tests and the demo read ``google.requests``
        server_version = "FakeGoogle/1.0"
        serves_pages = True  # GET /: what was booked and sent, for a person to open

        def _serve(self) -> None:
            where = urlsplit(self.path).path
            if self.command == "GET" and where == "/":
                self.send_body(HTTPStatus.OK, google.page(), "text/html; charset=utf-8")
                return
            if self.command == "GET" and where.startswith("/_local/"):
                view = google.local_view(where.removeprefix("/_local/"))
                if view is not None:
                    self.send_json(HTTPStatus.OK, {"value": view})
                    return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            try:
                answer = google.handle(self.command, self.path, self.headers, body)
            except (ValueError, KeyError, TypeError) as error:
                answer = Answer(400, error_body(400, "invalid", f"Bad request: {type(error).__name__}"), {})
            google.requests.append((self.command, self.path, answer.status))
            self.send_json(
                answer.status, answer.body, answer.headers, content_type="application/json; charset=UTF-8"
            )

        do_GET = do_POST = do_PATCH = do_DELETE = _serve

    return Handler


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m multitool.local.standins.google_server [--port N]``: serve until interrupted."""
    import argparse

    parser = argparse.ArgumentParser(description="A local Google Workspace stand-in on loopback.")
    parser.add_argument("--port", type=int, default=0, help="the port (default: any free one)")
    options = parser.parse_args(argv)
    google = start_fake_google(port=options.port)
    print(
        f"Sandbox Google Workspace on {google.url} (checked against the discovery documents: "
        f"{'yes' if google.discovery is not None else 'no, google-api-python-client is not installed'})"
    )
    for person in google.people:
        print(f"  {person.email}: Bearer {sandbox_token(person.email)}")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        google.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
