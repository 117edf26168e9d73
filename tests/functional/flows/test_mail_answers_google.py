"""Reply and forward against the caller's own Gmail: the message found with users.messages.list ``q``,
the answer made a draft (raw MIME, threadId, In-Reply-To, References, attachments re-attached) and
that draft sent once, against the local Google stand-in over HTTP, which checks every request and
answer against Gmail's discovery document and keeps the mailboxes, threads and attachments."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
import urllib3
from multitool.drafts import DraftStatus
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory
from multitool.local.standins.google_server import FakeGoogle, sandbox_token, start_fake_google
from multitool.people import Person
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.google.tokens import FixedTokenSource
from multitool.ports.google.workspace import build_suite
from multitool.ports.suites import Suite
from multitool.ports.tokens import Account
from multitool.review import Caller
from multitool.tools import ToolContext, ToolPorts, run_calls

from tests.support.provider_review import provider_reviewer
from tests.support.review_support import OWNER

ALEX = Person(
    id="p-alex", display_name="Alex Müller", email="alex.mueller@example.com", timezone="Europe/Berlin"
)
PRIYA = Person(id="p-priya", display_name="Priya Raman", email="priya@example.com", timezone="Europe/London")
KIN = Person(id="p-kin", display_name="Kinshuok Sen", email="kinshuok@example.com", timezone="Asia/Kolkata")
PEOPLE = (ALEX, PRIYA, KIN)
CALLER = Caller(user_id=OWNER, email=ALEX.email, name=ALEX.display_name)
TOKENS = FixedTokenSource({p.email: sandbox_token(p.email) for p in PEOPLE})
NOW = datetime.now(UTC).replace(microsecond=0)
PDF = b"%PDF-1.4 invoice %%EOF"


@pytest.fixture
def google() -> Iterator[FakeGoogle]:
    with start_fake_google(people=PEOPLE, week_of=date(2026, 11, 16)) as server:
        assert server.discovery is not None
        mail = server.mail
        first = mail.add_message(
            ALEX.email,
            PRIYA.email,
            "Q1 budget",
            "The budget draft is in.",
            to=[ALEX.email],
            cc=[KIN.email],
            received=NOW - timedelta(days=2),
            sender_name="Priya Raman",
        )
        mail.add_message(
            ALEX.email,
            PRIYA.email,
            "Re: Q1 budget",
            "Marketing is 8% over.\nThursday?",
            to=[ALEX.email],
            cc=[KIN.email],
            received=NOW - timedelta(hours=5),
            answers=first,
            sender_name="Priya Raman",
        )
        mail.add_message(
            ALEX.email,
            "mei@vendor.example",
            "Invoice INV-7",
            "Attached.",
            to=[ALEX.email],
            received=NOW - timedelta(hours=20),
            attachments=[("INV-7.pdf", "application/pdf", PDF), ("terms.txt", "text/plain", b"Net 30")],
        )
        mail.add_message(KIN.email, PRIYA.email, "Budget secret", "Only for you.", to=[KIN.email])
        yield server


def suites(google: FakeGoogle) -> Callable[[Account], Suite]:
    def of(account: Account) -> Suite:
        return build_suite(
            account, TOKENS, http=urllib3.PoolManager(), base_url=google.url, deadline=lambda: 20.0
        )

    return of


def propose(google: FakeGoogle, drafts: DynamoDraftStore, call: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    ports = ToolPorts(MemoryDirectory(), MemoryCalendar(), drafts, suites=suites(google))
    ctx = ToolContext(owner=OWNER, session_id="s-1", now=NOW, requester_email=ALEX.email)
    [outcome] = run_calls([call], ctx, ports)
    assert outcome.status == 200, outcome.body
    return outcome.body


def reviewer(google: FakeGoogle, drafts: DynamoDraftStore) -> Any:
    review, _ = provider_reviewer(
        drafts, build_suite, TOKENS, http=urllib3.PoolManager(), base_url=google.url, deadline=lambda: 20.0
    )
    return review


def called(google: FakeGoogle) -> list[str]:
    return [path for _, path, _ in google.requests]


def test_a_reply_is_a_draft_in_the_thread_sent_once(google: FakeGoogle, drafts: DynamoDraftStore) -> None:
    card = propose(
        google,
        drafts,
        (
            "reply_to_email",
            {
                "message": {
                    "said": "Priya's last email about the budget",
                    "people": [PRIYA.email],
                    "words": ["budget"],
                },
                "body": "Sounds good, Thursday.",
            },
        ),
    )
    assert card["message"]["item"]["fields"]["subject"] == "Re: Q1 budget"
    assert sum("/messages?" in p for p in called(google)) == 1  # one search

    done = reviewer(google, drafts).confirm(CALLER, card["draftId"], {})

    assert done.status is DraftStatus.DONE
    assert all(status < 400 for _, _, status in google.requests)
    [sent] = google.mail.sent_by(ALEX.email)
    original = next(m for m in google.mail.messages[ALEX.email].values() if b"Marketing" in m["raw"])
    original_id = str(google.mail._resource(original, "full")["payload"]["headers"])
    parsed = sent["parsed"]
    assert sent["threadId"] == original["threadId"]
    assert parsed["In-Reply-To"]
    assert parsed["In-Reply-To"] in original_id
    assert len(parsed["References"].split()) == 2
    assert parsed["Subject"] == "Re: Q1 budget"
    assert parsed["To"] == PRIYA.email
    assert parsed.get_body(("plain",)).get_content().startswith("Sounds good, Thursday.")
    assert any(b"Sounds good" in m["raw"] for m in google.mail.messages[PRIYA.email].values())


def test_a_forward_reattaches_the_files_kept(google: FakeGoogle, drafts: DynamoDraftStore) -> None:
    card = propose(
        google,
        drafts,
        (
            "forward_email",
            {
                "message": {"said": "the invoice", "words": ["invoice"]},
                "to": ["accounting@acme.example"],
                "note": "For payment.",
            },
        ),
    )
    files = {a["name"]: a for a in card["attachments"]}
    assert {n: f["size"] for n, f in files.items()} == {"INV-7.pdf": len(PDF), "terms.txt": 6}

    reviewer(google, drafts).confirm(CALLER, card["draftId"], {"attachments": [files["INV-7.pdf"]["id"]]})

    [sent] = google.mail.sent_by(ALEX.email)
    [attachment] = list(sent["parsed"].iter_attachments())
    assert (attachment.get_filename(), attachment.get_content()) == ("INV-7.pdf", PDF)
    assert sent["parsed"]["Subject"] == "Fw: Invoice INV-7"


def test_a_retried_confirm_finds_its_draft_sent_and_sends_nothing(
    google: FakeGoogle, drafts: DynamoDraftStore
) -> None:
    card = propose(
        google,
        drafts,
        ("reply_to_email", {"message": {"said": "the invoice", "words": ["invoice"]}, "body": "Paid."}),
    )
    review = reviewer(google, drafts)
    done = review.confirm(CALLER, card["draftId"], {})
    stored = drafts.get(card["draftId"])
    assert stored is not None
    drafts.replace(stored, stored.model_copy(update={"status": DraftStatus.FAILED, "result": None}))

    again = review.confirm(CALLER, card["draftId"], {})

    assert done.status is DraftStatus.DONE
    assert again.status is DraftStatus.DONE
    assert again.result is not None
    assert again.result["alreadySent"] is True
    assert sum(p.endswith("/drafts/send") for p in called(google)) == 1
    assert len(google.mail.sent_by(ALEX.email)) == 1


def test_another_users_mail_never_shows(google: FakeGoogle, drafts: DynamoDraftStore) -> None:
    card = propose(
        google,
        drafts,
        ("reply_to_email", {"message": {"said": "the secret", "words": ["secret"]}, "body": "x"}),
    )

    assert card["message"]["status"] == "none"
    assert "Only for you" not in str(card)
