"""The reply and forward confirms on an in-memory mailbox: a candidate chosen on the card brings its
own recipients, attachments over what the provider sends are refused before anything is made, and
content changed after a failed send makes a new provider draft, never the stale one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from multitool.drafts import DraftStatus
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore, MemoryMailbox
from multitool.ports.mail import MailRejected
from multitool.ports.mailbox import Attachment, Message
from multitool.review import Caller, ReviewConfig
from multitool.review.reviewer import Reviewer
from multitool.toolkit.errors import InvalidEdits
from multitool.tools import ToolContext, ToolPorts, run_calls

from tests.support.review_support import RecordingMailer

ME = "jordan@example.com"
NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
CALLER = Caller(user_id="u-1", email=ME, name="Jordan Lee")


def message(ident: str, sender: str, subject: str, hours: int, **fields: Any) -> Message:
    return Message(
        id=ident,
        thread_id=ident,
        sender=sender,
        subject=subject,
        received=NOW - timedelta(hours=hours),
        to=(ME,),
        preview="Hello",
        **fields,
    )


@pytest.fixture
def box() -> MemoryMailbox:
    big = Attachment("a1", "scan.tiff", 400_000, "image/tiff")
    return MemoryMailbox(
        ME,
        [
            message("m1", "priya@example.com", "Budget", 2, cc=("kin@example.com",)),
            message("m2", "mei@example.com", "Budget for Tokyo", 5, cc=("kin@example.com",)),
            message("m3", "mei@example.com", "Scans", 7, attachments=(big,), has_attachments=True),
        ],
    )


def propose(box: MemoryMailbox, drafts: MemoryDraftStore, call: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    ports = ToolPorts(MemoryDirectory(), MemoryCalendar(), drafts, mailboxes=lambda _address: box)
    ctx = ToolContext(owner=CALLER.user_id, session_id="s", now=NOW, requester_email=ME)
    [outcome] = run_calls([call], ctx, ports)
    assert outcome.status == 200, outcome.body
    return outcome.body


def reviewer(box: MemoryMailbox, drafts: MemoryDraftStore) -> Reviewer:
    return Reviewer(
        drafts,
        mailer=RecordingMailer(),
        calendar=MemoryCalendar(),
        jira=None,
        config=ReviewConfig(sender_email="assistant@example.com"),
        mailboxes=lambda _address: box,
        clock=lambda: NOW,
    )


def test_a_candidate_chosen_on_the_card_is_answered_to_its_own_sender(box: MemoryMailbox) -> None:
    drafts = MemoryDraftStore()
    card = propose(
        box,
        drafts,
        (
            "reply_to_email",
            {"message": {"said": "the budget", "words": ["budget"]}, "replyAll": True, "body": "Yes."},
        ),
    )
    assert card["message"]["status"] == "ambiguous"
    assert card["to"] == []

    done = reviewer(box, drafts).confirm(CALLER, card["draftId"], {"message": "m2"})

    assert done.status is DraftStatus.DONE
    [sent] = box.sent.values()
    assert (sent.original.id, sent.to, sent.cc) == ("m2", ("mei@example.com",), ("kin@example.com",))


def test_attachments_over_the_providers_limit_are_refused_and_nothing_is_made(box: MemoryMailbox) -> None:
    drafts = MemoryDraftStore()
    card = propose(
        box,
        drafts,
        ("forward_email", {"message": {"said": "the scans", "words": ["scans"]}, "to": ["ops@example.com"]}),
    )
    assert [a["size"] for a in card["attachments"]] == [400_000]

    with pytest.raises(InvalidEdits) as refused:
        reviewer(box, drafts).confirm(CALLER, card["draftId"], {})

    assert refused.value.field == "attachments"
    assert "400 KB, over the 300 KB" in refused.value.message
    assert box.drafts == {}
    assert box.sent == {}
    # Leaving it out, the forward goes.
    assert (
        reviewer(box, drafts).confirm(CALLER, card["draftId"], {"attachments": []}).status is DraftStatus.DONE
    )


def test_new_content_after_a_failed_send_makes_a_new_draft(
    box: MemoryMailbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    drafts = MemoryDraftStore()
    card = propose(
        box,
        drafts,
        (
            "reply_to_email",
            {
                "message": {"said": "Priya's budget", "words": ["budget"], "people": ["priya@example.com"]},
                "body": "Yes.",
            },
        ),
    )
    review = reviewer(box, drafts)
    original = MemoryMailbox.send_draft

    def refuse(self: MemoryMailbox, draft_id: str) -> Any:
        raise MailRejected("The mailbox is full.", code="mail_rejected")

    monkeypatch.setattr(MemoryMailbox, "send_draft", refuse)
    with pytest.raises(Exception, match="The mailbox is full"):
        review.confirm(CALLER, card["draftId"], {})
    monkeypatch.setattr(MemoryMailbox, "send_draft", original)
    [stale] = box.drafts

    done = review.confirm(CALLER, card["draftId"], {"body": "Yes, Thursday."})

    assert done.status is DraftStatus.DONE
    [(sent_id, sent)] = box.sent.items()
    assert sent_id != stale
    assert sent.body == "Yes, Thursday."


def test_without_a_mailbox_only_the_calls_that_search_it_fail(box: MemoryMailbox) -> None:
    drafts = MemoryDraftStore()
    ports = ToolPorts(MemoryDirectory(), MemoryCalendar(), drafts, mailboxes=lambda _address: None)
    ctx = ToolContext(owner=CALLER.user_id, session_id="s", now=NOW, requester_email=None)

    reply, email = run_calls(
        [
            ("reply_to_email", {"message": {"said": "the budget"}, "body": "Yes."}),
            ("create_email_draft", {"to": ["ops@example.com"], "subject": "Budget", "body": "Yes."}),
        ],
        ctx,
        ports,
    )

    assert (reply.status, reply.body["error"]["field"]) == (400, "message")
    assert email.status == 200
