"""The sandbox outbox: mail the local SES (moto) accepted, issues the fake Jira created.

Nothing here is delivered anywhere: the local demo shows it on the page under
a "sandbox" label. Mail is read from moto's SES backend, either in-process
(:func:`sent_mail`, when moto runs in this process: ``mock_aws``) or from a
moto server's ``/moto-api/data.json`` (:func:`sent_mail_from_server`: the local
server's moto, which runs in a child process).

The outbox is per user: :func:`sent_by` reads what the user's own confirms did
(the SES message ids and Jira issue keys in their done drafts' results), and
:func:`outbox` keeps only those, so each signed-in user sees their mail and issues.
"""

from __future__ import annotations

import email
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import Message
from email.utils import getaddresses
from typing import Any
from zoneinfo import ZoneInfo

import urllib3
from icalendar import Calendar

from multitool.local.standins.jira_server import FakeJira

MailReader = Callable[[], list[dict[str, Any]]]


def sent_mail(*, account_id: str | None = None, region: str = "us-east-1") -> list[dict[str, Any]]:
    """Mail SES accepted in this process, newest first."""
    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.ses.models import ses_backends

    backend = ses_backends[account_id or DEFAULT_ACCOUNT_ID][region]
    return [_entry(_fields(m)) for m in reversed(list(backend.sent_messages))]


def sent_mail_from_server(endpoint_url: str, http: urllib3.PoolManager | None = None) -> list[dict[str, Any]]:
    """Mail a moto server's SES accepted (all accounts and regions), newest first within each kind."""
    response = (http or urllib3.PoolManager()).request(
        "GET", f"{endpoint_url.rstrip('/')}/moto-api/data.json"
    )
    if response.status != 200:
        raise RuntimeError(f"The moto server answered {response.status} for its model data")
    models = json.loads(response.data).get("ses", {})
    messages = [*models.get("Message", []), *models.get("RawMessage", [])]
    return [_entry(m) for m in reversed(messages)]


@dataclass(frozen=True, slots=True)
class Receipts:
    """What one user's confirms did: the mail SES accepted for them and the issues Jira created."""

    message_ids: frozenset[str]
    issue_keys: frozenset[str]


def sent_by(dynamodb: Any, drafts_table: str, user_id: str) -> Receipts:
    """The receipts in ``user_id``'s done drafts (a scan: the sandbox's table is small)."""
    from boto3.dynamodb.types import TypeDeserializer

    plain = TypeDeserializer()
    message_ids: set[str] = set()
    issue_keys: set[str] = set()
    pages = dynamodb.get_paginator("scan").paginate(
        TableName=drafts_table,
        FilterExpression="#owner = :me AND #status = :done",
        ProjectionExpression="#result",
        ExpressionAttributeNames={"#owner": "owner", "#status": "status", "#result": "result"},
        ExpressionAttributeValues={":me": {"S": user_id}, ":done": {"S": "done"}},
    )
    for page in pages:
        for item in page.get("Items", []):
            result = plain.deserialize(item["result"]) if "result" in item else None
            if not isinstance(result, dict):
                continue
            if isinstance(result.get("messageId"), str):
                message_ids.add(result["messageId"])
            if isinstance(result.get("issueKey"), str):
                issue_keys.add(result["issueKey"])
    return Receipts(frozenset(message_ids), frozenset(issue_keys))


def outbox(
    mail: MailReader, jira: FakeJira | None = None, receipts: Receipts | None = None
) -> dict[str, Any]:
    """What ``GET /sandbox/outbox`` answers: ``{"sandbox": true, "emails": [...], "issues": [...]}``.

    With ``receipts``, only the mail and issues they name (one user's); without, everything.
    """
    emails, created = mail(), issues(jira) if jira else []
    if receipts is not None:
        emails = [m for m in emails if m.get("messageId") in receipts.message_ids]
        created = [i for i in created if i.get("key") in receipts.issue_keys]
    return {"sandbox": True, "emails": emails, "issues": created}


def issues(jira: FakeJira) -> list[dict[str, Any]]:
    """Issues the fake Jira created, newest first (not the demo's seeded ones)."""
    return [
        {
            "key": issue["key"],
            "summary": issue["fields"].get("summary", ""),
            "project": issue["fields"].get("project", {}).get("key"),
            "issueType": issue["fields"].get("issuetype", {}).get("name"),
            "url": f"{jira.url}/browse/{issue['key']}",
            "sandbox": True,
        }
        for issue in reversed(list(jira.issues))
        if not issue.get("seeded")
    ]


def _fields(message: Any) -> dict[str, Any]:
    """A moto SES message object as the attribute mapping ``data.json`` also gives."""
    names = ("id", "source", "destinations", "subject", "body", "raw_data")
    return {name: getattr(message, name) for name in names if hasattr(message, name)}


def _entry(data: Mapping[str, Any]) -> dict[str, Any]:
    if "raw_data" in data:
        return _raw_entry(data)
    destinations = data.get("destinations") or {}
    return {
        "messageId": data.get("id"),
        "from": data.get("source"),
        "to": list(destinations.get("ToAddresses", [])),
        "cc": list(destinations.get("CcAddresses", [])),
        "subject": data.get("subject", ""),
        "body": data.get("body", ""),
        "invitation": None,
        "sandbox": True,
    }


def _raw_entry(data: Mapping[str, Any]) -> dict[str, Any]:
    parsed = email.message_from_string(str(data["raw_data"]))
    text = ""
    invitation: dict[str, Any] | None = None
    for part in parsed.walk():
        kind = part.get_content_type()
        if kind == "text/plain" and not text:
            text = _text_of(part)
        elif kind == "text/calendar" and invitation is None:
            invitation = _invitation_of(_text_of(part))
    return {
        "messageId": data.get("id"),
        "from": data.get("source") or parsed.get("From"),
        "to": _addresses(parsed.get_all("To", [])),
        "cc": _addresses(parsed.get_all("Cc", [])),
        "subject": str(parsed.get("Subject", "")),
        "body": text,
        "invitation": invitation,
        "sandbox": True,
    }


def _text_of(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    return payload.decode(part.get_content_charset() or "utf-8", errors="replace").strip()


def _addresses(headers: Sequence[str]) -> list[str]:
    return [address for _, address in getaddresses(list(headers)) if address]


def _invitation_of(ics: str) -> dict[str, Any] | None:
    try:
        calendar = Calendar.from_ical(ics)
    except ValueError:
        return None
    events: Iterable[Any] = calendar.events
    for event in events:
        return {
            "method": str(calendar.get("METHOD", "")),
            "uid": str(event.get("UID", "")),
            "title": str(event.get("SUMMARY", "")),
            "start": event.decoded("DTSTART").isoformat(),
            "end": event.decoded("DTEND").isoformat(),
            "attendees": [str(a).removeprefix("mailto:") for a in event.attendees],
        }
    return None


@dataclass(frozen=True, slots=True)
class ProviderOutbox:
    """``multitool serve --calendar``'s provider stand-in, as one user's outbox: the mail that left
    their own mailbox there and the meetings their confirms booked on their calendar there."""

    name: str  # as users know the provider: "Microsoft 365", "Google Workspace"
    mail: Callable[[str], list[dict[str, Any]]]  # the user's address -> their sent mail, newest first
    events: Callable[[str], list[dict[str, Any]]]  # the user's address -> their booked meetings

    def of(self, address: str) -> dict[str, Any]:
        """The ``provider`` part of ``GET /sandbox/outbox``'s answer for the user at ``address``."""
        return {"name": self.name, "mail": self.mail(address), "events": self.events(address)}


def provider_outbox(stand_in: object) -> ProviderOutbox:
    """The outbox view of a Graph or Google stand-in (their own record, not the provider's API)."""
    from multitool.local.standins.google_server import FakeGoogle
    from multitool.local.standins.graph_server import GraphStandIn

    if isinstance(stand_in, GraphStandIn):
        return _graph_outbox(stand_in)
    if isinstance(stand_in, FakeGoogle):
        return _google_outbox(stand_in)
    raise TypeError(f"No outbox view of {type(stand_in).__name__}")


def _instant(text: str, zone: str = "UTC") -> str:
    """An event time as ISO 8601 with its offset, for the page to show in the user's own zone."""
    moment = datetime.fromisoformat(text)
    return (moment if moment.tzinfo else moment.replace(tzinfo=ZoneInfo(zone))).isoformat()


def _graph_instant(value: Mapping[str, str]) -> str:
    # The stand-in keeps every event time in UTC ({"dateTime", "timeZone": "UTC"}), as Graph answers
    # without a Prefer: outlook.timezone header.
    return _instant(value["dateTime"], value.get("timeZone", "UTC"))


def _same(a: object, b: str) -> bool:
    return isinstance(a, str) and a.casefold() == b.casefold()


def _graph_outbox(graph: Any) -> ProviderOutbox:
    def mail(address: str) -> list[dict[str, Any]]:
        return [
            {
                "subject": m["Message"].get("subject", ""),
                "to": [r["emailAddress"]["address"] for r in m["Message"].get("toRecipients", [])],
                "body": m["Message"].get("body", {}).get("content", ""),
            }
            for m in reversed(list(graph.state.sent))
            if _same(m.get("from"), address)
        ]

    def events(address: str) -> list[dict[str, Any]]:
        # Events a confirm made carry the adapter's transactionId; the seeded week has none.
        return [
            {
                "title": e.get("subject", ""),
                "start": _graph_instant(e["start"]),
                "end": _graph_instant(e["end"]),
                "attendees": [a["emailAddress"]["address"] for a in e.get("attendees", [])],
            }
            for e in reversed(list(graph.state.events))
            if e.get("transactionId") and _same(e["organizer"]["emailAddress"]["address"], address)
        ]

    return ProviderOutbox("Microsoft 365", mail, events)


def _google_outbox(google: Any) -> ProviderOutbox:
    def mail(address: str) -> list[dict[str, Any]]:
        return [
            {
                "subject": m.get("subject", ""),
                "to": _addresses([m.get("to", "")]),
                "body": m.get("text", ""),
            }
            for m in reversed(google.local_view("sent") or [])
            if _same(m.get("from"), address)
        ]

    def events(address: str) -> list[dict[str, Any]]:
        return [
            {
                "title": e.get("summary", ""),
                "start": _instant(e["start"]["dateTime"]),
                "end": _instant(e["end"]["dateTime"]),
                "attendees": [
                    a["email"] for a in e.get("attendees", []) if not _same(a.get("email"), address)
                ],
            }
            for e in reversed(google.booked())
            if e.get("status") == "confirmed" and _same(e.get("organizer", {}).get("email"), address)
        ]

    return ProviderOutbox("Google Workspace", mail, events)
