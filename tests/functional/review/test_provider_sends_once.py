"""Every provider's sending call, its answer lost after the request went out: sent once, outcome unknown.

The fault is injected below the real client code, in urllib3 itself: a connection that sends the
request to the stand-in (which acts on it: the mail is sent, the event made, the issue created),
reads the answer, then fails as a read timeout would (a ``TimeoutError`` out of ``getresponse``,
which urllib3 turns into ``ReadTimeoutError``). The confirm goes through the reviewer as the
review API's does; the card shows ``provider_outcome_unknown`` / ``jira_outcome_unknown``, the
draft is ``failed`` with where to check, the audit says ``unknown``, and exactly one request of
the sending kind left the function.
"""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Any, ClassVar

import pytest
import urllib3
from multitool.drafts import Draft, DraftStatus
from multitool.local.standins.google_server import sandbox_token, start_fake_google
from multitool.local.standins.graph_server import LOCAL_TOKEN, start_graph_stand_in
from multitool.local.standins.jira_server import CLOUD_ID, start_fake_jira
from multitool.people import Person
from multitool.ports.atlassian.jira_cloud import JiraCloudClient
from multitool.ports.atlassian.jira_user import AtlassianJiraClient, CloudIds
from multitool.ports.audit import AuditEntry
from multitool.ports.aws.ses_mail import SesMailer, ses_client
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.google import workspace as google_workspace
from multitool.ports.google.tokens import FixedTokenSource as GoogleTokens
from multitool.ports.jira import (
    SANDBOX_CREDENTIALS_EMAIL,
    SANDBOX_CREDENTIALS_TOKEN,
    IssueRequest,
    JiraOutcomeUnknown,
)
from multitool.ports.microsoft365 import graph as microsoft365
from multitool.ports.microsoft365.tokens import FixedTokenSource as GraphTokens
from multitool.ports.tokens import Account, Provider
from multitool.review import Caller, ReviewConfig, SideEffectFailed
from multitool.review.reviewer import Reviewer

from tests.support.provider_review import NoBuiltinCalendar, provider_reviewer
from tests.support.review_support import (
    NOW,
    OWNER,
    PRIYA,
    SENDER,
    SLOTS,
    RecordingMailer,
    email_draft,
    jira_draft,
    meeting_draft,
    resolved,
)

ALEX = Person(
    id="p-alex", display_name="Alex Müller", email="alex.mueller@example.com", timezone="Europe/Berlin"
)
CALLER = Caller(user_id=OWNER, email=ALEX.email, name=ALEX.display_name)
FIRST = {"start": SLOTS[0][0].isoformat(), "end": SLOTS[0][1].isoformat()}
PEOPLE = (ALEX, PRIYA)
QUIET_WEEK = date(2026, 11, 16)  # the Google stand-in's seeded meetings: before the card's slots


@dataclass
class LostAnswers:
    """Which requests lose their answer (``lose(method, path)``), and every request that went out."""

    lose: Callable[[str, str], bool]
    sent: list[tuple[str, str]] = field(default_factory=list)
    lost: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def pool(self) -> urllib3.PoolManager:
        """A real ``PoolManager`` whose connections are :meth:`connection`'s."""
        connection = self.connection()

        class LosingPool(urllib3.HTTPConnectionPool):
            ConnectionCls = connection

        http = urllib3.PoolManager()
        http.pool_classes_by_scheme = {"http": LosingPool}  # type: ignore[assignment]
        return http

    def connection(self) -> type[urllib3.connection.HTTPConnection]:
        faults = self

        class AnswerLost(urllib3.connection.HTTPConnection):
            sending: ClassVar[tuple[str, str] | None] = None

            def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> None:
                self._sending = (method, url.split("?")[0])
                with faults.lock:
                    faults.sent.append(self._sending)
                super().request(method, url, *args, **kwargs)

            def getresponse(self) -> urllib3.response.HTTPResponse:
                response = super().getresponse()
                if faults.lose(*self._sending):
                    response.read()  # the provider acted and answered; the answer never arrives
                    with faults.lock:
                        faults.lost.append(self._sending)
                    raise TimeoutError("timed out")
                return response

        return AnswerLost

    def count(self, method: str, path_end: str) -> int:
        return sum(1 for m, p in self.sent if m == method and p.endswith(path_end))


def losing_posts_to(path_end: str) -> LostAnswers:
    """Every POST to a path ending in ``path_end`` loses its answer; every other request is answered."""
    return LostAnswers(lambda method, path: method == "POST" and path.endswith(path_end))


class RecordingAudit:
    def __init__(self) -> None:
        self.entries: list[AuditEntry] = []

    def record(self, entry: AuditEntry) -> None:
        self.entries.append(entry)


def with_audit(review: Reviewer) -> RecordingAudit:
    audit = RecordingAudit()
    review.audit = audit
    return audit


def assert_outcome_unknown(
    failed: SideEffectFailed, code: str, check: str, drafts: DynamoDraftStore
) -> Draft:
    assert failed.code == code
    assert failed.status == 502  # a refusal to retry as it is: the user checks first
    assert check in failed.message
    stored = drafts.get(failed.draft.id)
    assert stored is not None
    assert stored.status is DraftStatus.FAILED
    assert stored.error is not None
    assert check in stored.error
    return stored


def confirm_whose_answer_is_lost(
    review: Reviewer,
    drafts: DynamoDraftStore,
    draft: Draft,
    choices: dict[str, Any],
    faults: LostAnswers,
    posted_to: str,
    check: str,
    code: str = "provider_outcome_unknown",
) -> None:
    """Confirm ``draft`` while the answer to its POST to ``posted_to`` is lost: the POST went out once
    (never retried), and the draft stands failed with its outcome unknown, saying where to ``check``."""
    with pytest.raises(SideEffectFailed) as failed:
        review.confirm(CALLER, draft.id, choices)

    assert faults.count("POST", posted_to) == 1
    assert_outcome_unknown(failed.value, code, check, drafts)


# -- Microsoft 365 ---------------------------------------------------------------------------------


@pytest.fixture
def graph() -> Iterator[Any]:
    server = start_graph_stand_in(PEOPLE)
    yield server
    server.stop()


def graph_reviewer(drafts: DynamoDraftStore, graph: Any, faults: LostAnswers) -> Reviewer:
    review, _ = provider_reviewer(
        drafts,
        microsoft365.build_suite,
        GraphTokens(LOCAL_TOKEN),
        http=faults.pool(),
        base_url=f"{graph.url}/v1.0",
        deadline=lambda: 20.0,
    )
    return review


def test_graph_send_mail_whose_answer_is_lost_is_sent_once_and_outcome_unknown(
    drafts: DynamoDraftStore, graph: Any
) -> None:
    faults = losing_posts_to("/sendMail")
    review = graph_reviewer(drafts, graph, faults)
    audit = with_audit(review)
    [draft] = drafts.create_many([email_draft(to=[resolved("Priya", PRIYA)])])

    confirm_whose_answer_is_lost(review, drafts, draft, {}, faults, "/sendMail", "your Sent Items")
    assert len(graph.state.sent) == 1  # Graph sent it once: it is not sent again
    assert [e.outcome for e in audit.entries] == ["unknown"]


def test_graph_event_create_whose_answer_is_lost_is_sent_once_and_outcome_unknown(
    drafts: DynamoDraftStore, graph: Any
) -> None:
    faults = losing_posts_to("/events")
    review = graph_reviewer(drafts, graph, faults)
    [draft] = drafts.create_many([meeting_draft(attendees=[resolved("Priya", PRIYA)])])
    before = len(graph.state.events)

    confirm_whose_answer_is_lost(
        review, drafts, draft, {"slot": FIRST}, faults, "/events", "your Outlook calendar"
    )
    assert len(graph.state.events) == before + 1
    # Confirming again finds the event by its booking id: still one, nothing more is sent.
    faults.lose = lambda method, path: False
    assert review.confirm(CALLER, draft.id, {"slot": FIRST}).status is DraftStatus.DONE
    assert faults.count("POST", "/events") == 1
    assert len(graph.state.events) == before + 1


# -- Google Workspace ------------------------------------------------------------------------------


@pytest.fixture
def google() -> Iterator[Any]:
    with start_fake_google(people=PEOPLE, week_of=QUIET_WEEK) as server:
        yield server


def google_reviewer(drafts: DynamoDraftStore, google: Any, faults: LostAnswers) -> Reviewer:
    review, _ = provider_reviewer(
        drafts,
        google_workspace.build_suite,
        GoogleTokens({p.email: sandbox_token(p.email) for p in PEOPLE}),
        http=faults.pool(),
        base_url=google.url,
        deadline=lambda: 20.0,
    )
    return review


def test_gmail_send_whose_answer_is_lost_is_sent_once_and_outcome_unknown(
    drafts: DynamoDraftStore, google: Any
) -> None:
    faults = losing_posts_to("/messages/send")
    review = google_reviewer(drafts, google, faults)
    audit = with_audit(review)
    [draft] = drafts.create_many([email_draft(to=[resolved("Priya", PRIYA)])])

    confirm_whose_answer_is_lost(
        review, drafts, draft, {}, faults, "/messages/send", "your Gmail Sent folder"
    )
    assert len(google.sent) == 1
    assert [e.outcome for e in audit.entries] == ["unknown"]


def test_calendar_insert_whose_answer_is_lost_is_sent_once_and_outcome_unknown(
    drafts: DynamoDraftStore, google: Any
) -> None:
    faults = losing_posts_to("/calendars/primary/events")
    review = google_reviewer(drafts, google, faults)
    [draft] = drafts.create_many([meeting_draft(attendees=[resolved("Priya", PRIYA)])])

    confirm_whose_answer_is_lost(
        review, drafts, draft, {"slot": FIRST}, faults, "/calendars/primary/events", "your Google Calendar"
    )
    assert len(google.invitations) == 1  # Google invited Priya once


# -- Jira --------------------------------------------------------------------------------------------


@pytest.fixture
def jira() -> Iterator[Any]:
    server = start_fake_jira()
    yield server
    server.stop()


def test_jira_create_whose_answer_is_lost_is_sent_once_and_outcome_unknown(
    drafts: DynamoDraftStore, jira: Any
) -> None:
    faults = losing_posts_to("/rest/api/3/issue")
    client = JiraCloudClient(
        jira.url, SANDBOX_CREDENTIALS_EMAIL, SANDBOX_CREDENTIALS_TOKEN, faults.pool(), deadline=lambda: 20.0
    )
    audit = RecordingAudit()
    review = Reviewer(
        drafts,
        mailer=RecordingMailer(),
        calendar=NoBuiltinCalendar(),
        jira=client,
        config=ReviewConfig(sender_email=SENDER),
        clock=lambda: NOW,
        audit=audit,
    )
    [draft] = drafts.create_many([jira_draft()])
    before = len(jira.issues)

    confirm_whose_answer_is_lost(
        review,
        drafts,
        draft,
        {},
        faults,
        "/rest/api/3/issue",
        "Check Jira before confirming again",
        code="jira_outcome_unknown",
    )
    assert len(jira.issues) == before + 1
    assert [e.outcome for e in audit.entries] == ["unknown"]


class UserTokens:
    def access_token(self, provider: Provider, account: Account, scopes: Any) -> str:
        return f"local-{provider}-{account.user_id}"


def test_jira_create_as_the_user_whose_answer_is_lost_is_sent_once_and_outcome_unknown(jira: Any) -> None:
    faults = losing_posts_to("/rest/api/3/issue")
    cloud_ids = CloudIds()
    cloud_ids.put("user-1", CLOUD_ID)
    client = AtlassianJiraClient(
        Account(user_id="user-1", email=ALEX.email),
        UserTokens(),
        site_url=jira.url,
        http=faults.pool(),
        cloud_ids=cloud_ids,
        api_base=jira.url,
        deadline=lambda: 20.0,
    )
    before = len(jira.issues)

    with pytest.raises(JiraOutcomeUnknown, match="Check Jira before confirming again"):
        client.create_issue(IssueRequest(project="WEB", issue_type="Bug", summary="Checkout does nothing"))

    assert faults.count("POST", "/rest/api/3/issue") == 1
    assert len(jira.issues) == before + 1


# -- Amazon SES (the builtin mailer) ---------------------------------------------------------------


class _DropsTheAnswer(socketserver.StreamRequestHandler):
    """Reads one SES ``SendEmail`` whole (SES would have accepted it), then closes without an answer."""

    def handle(self) -> None:
        length = 0
        while (line := self.rfile.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
            elif not self.server.requests or line.startswith(b"POST"):  # type: ignore[attr-defined]
                self.server.requests.append(line.decode("latin-1").strip())  # type: ignore[attr-defined]
        self.rfile.read(length)


@pytest.fixture
def silent_ses(monkeypatch: pytest.MonkeyPatch) -> Iterator[socketserver.ThreadingTCPServer]:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _DropsTheAnswer)
    server.requests = []  # type: ignore[attr-defined]
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("AWS_ENDPOINT_URL_SESV2", f"http://127.0.0.1:{server.server_address[1]}")
    yield server
    server.shutdown()
    server.server_close()


def test_ses_send_whose_answer_is_lost_is_sent_once_and_outcome_unknown(
    drafts: DynamoDraftStore, silent_ses: Any
) -> None:
    # The review API's own SES client (botocore alone would send it up to five times)
    review = Reviewer(
        drafts,
        mailer=SesMailer(ses_client(), SENDER),
        calendar=NoBuiltinCalendar(),
        jira=None,
        config=ReviewConfig(sender_email=SENDER),
        clock=lambda: NOW,
    )
    audit = with_audit(review)
    [draft] = drafts.create_many([email_draft(to=[resolved("Priya", PRIYA)])])

    with pytest.raises(SideEffectFailed) as failed:
        review.confirm(CALLER, draft.id, {})

    assert silent_ses.requests == ["POST /v2/email/outbound-emails HTTP/1.1"]
    assert failed.value.code == "mail_outcome_unknown"
    assert failed.value.status == 502
    stored = drafts.get(draft.id)
    assert stored is not None
    assert stored.status is DraftStatus.FAILED
    assert "may have gone out" in (stored.error or "")
    assert [e.outcome for e in audit.entries] == ["unknown"]
