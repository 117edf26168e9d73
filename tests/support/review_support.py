"""Drafts, people and recording fakes shared by the review tests."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from multitool.drafts import Draft, new_draft
from multitool.people import NameResolution, Person, Resolution
from multitool.ports.jira import CreatedIssue, IssueRequest, JiraError
from multitool.ports.mail import Mail, MailError, SentMail

NOW = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
BERLIN = ZoneInfo("Europe/Berlin")
OWNER = "user-1"
SENDER = "assistant@example.com"
FIXTURE_TTL_SECONDS = 20 * 365 * 24 * 3600

KINSHUOK = Person(id="p-kinshuok", display_name="Kinshuok Sen", email="kinshuok@example.com")
KIN_LEE = Person(id="p-kinlee", display_name="Kin Lee", email="kin.lee@example.com")
PRIYA = Person(id="p-priya", display_name="Priya Raman", email="priya@example.com", timezone="Europe/Berlin")

SLOTS = [
    (datetime(2026, 12, 3, 9, 0, tzinfo=BERLIN), datetime(2026, 12, 3, 9, 30, tzinfo=BERLIN)),
    (datetime(2026, 12, 3, 10, 0, tzinfo=BERLIN), datetime(2026, 12, 3, 10, 30, tzinfo=BERLIN)),
]


def resolved(query: str, person: Person) -> dict[str, Any]:
    return NameResolution(query=query, status=Resolution.RESOLVED, person=person).to_wire()


def ambiguous(query: str, *people: Person) -> dict[str, Any]:
    return NameResolution(query=query, status=Resolution.AMBIGUOUS, candidates=people).to_wire()


def unknown(query: str) -> dict[str, Any]:
    return NameResolution(query=query, status=Resolution.UNKNOWN).to_wire()


def _draft(action: str, payload: dict[str, Any], owner: str, session: str) -> Draft:
    return new_draft(
        owner=owner,
        session_id=session,
        action=action,
        arguments=payload,
        payload={"action": action, **payload},
        now=NOW - timedelta(minutes=5),
        # Functional tests confirm on the wall clock, and an expired draft is not found:
        # the fixtures' drafts must not expire a week after the pinned NOW.
        ttl_seconds=FIXTURE_TTL_SECONDS,
    )


def email_draft(
    *, to: list[dict[str, Any]] | None = None, owner: str = OWNER, session: str = "s-1", **fields: Any
) -> Draft:
    payload = {
        "to": to if to is not None else [resolved("Kinshuok", KINSHUOK)],
        "cc": [],
        "subject": "The doc",
        "body": "Here is the doc we talked about.",
        **fields,
    }
    return _draft("show_new_email_draft", payload, owner, session)


def meeting_draft(
    *,
    attendees: list[dict[str, Any]] | None = None,
    slots: list[tuple[datetime, datetime]] | None = None,
    owner: str = OWNER,
    session: str = "s-1",
    **extra: Any,
) -> Draft:
    payload = {
        **extra,
        "title": "Sync",
        "attendees": attendees if attendees is not None else [resolved("Kinshuok", KINSHUOK)],
        "requested": "Thursday",
        "durationMinutes": 30,
        "timezone": "Europe/Berlin",
        "slots": [{"start": s.isoformat(), "end": e.isoformat()} for s, e in (slots or SLOTS)],
    }
    return _draft("show_meeting_scheduler", payload, owner, session)


def jira_draft(
    *, assignee: dict[str, Any] | None = None, owner: str = OWNER, session: str = "s-1", **fields: Any
) -> Draft:
    payload = {
        "project": "WEB",
        "issueType": "Bug",
        "summary": "Checkout button does nothing",
        "description": "Steps:\n1. add to cart\n2. click checkout",
        "priority": "High",
        "assignee": assignee,
        **fields,
    }
    return _draft("show_jira_ticket_draft", payload, owner, session)


class RecordingMailer:
    """A :class:`~multitool.ports.mail.Mailer` that keeps what it sent; ``fail_with`` scripts a failure."""

    def __init__(self) -> None:
        self.sent: list[Mail] = []
        self.fail_with: MailError | None = None
        self._lock = threading.Lock()

    def send(self, mail: Mail) -> SentMail:
        with self._lock:
            if self.fail_with is not None:
                error, self.fail_with = self.fail_with, None
                raise error
            self.sent.append(mail)
            return SentMail(message_id=f"msg-{len(self.sent)}")


class RecordingJira:
    """A :class:`~multitool.ports.jira.JiraClient` that keeps what it created."""

    def __init__(self) -> None:
        self.created: list[IssueRequest] = []
        self.fail_with: JiraError | None = None

    def create_issue(self, issue: IssueRequest) -> CreatedIssue:
        if self.fail_with is not None:
            error, self.fail_with = self.fail_with, None
            raise error
        self.created.append(issue)
        key = f"{issue.project}-{len(self.created)}"
        return CreatedIssue(
            id=str(10000 + len(self.created)), key=key, url=f"https://jira.example/browse/{key}"
        )
