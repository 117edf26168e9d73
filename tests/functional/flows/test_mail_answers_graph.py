"""Reply and forward against the caller's own Microsoft 365: the message found with one Graph search,
the draft made with createReply/createReplyAll/createForward and sent once, against an in-memory Graph
that checks every request against Graph's own description (the committed subset) and keeps the
mailboxes, threads and attachments."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from multitool.drafts import DraftStatus
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory
from multitool.local.standins.graph_state import Fault, GraphPool, GraphState, WorkingHours
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.microsoft365.graph import build_suite
from multitool.ports.microsoft365.tokens import FixedTokenSource
from multitool.ports.suites import Suite
from multitool.ports.tokens import Account
from multitool.review import Caller, SideEffectFailed
from multitool.tools import ToolContext, ToolPorts, run_calls

from tests.support.provider_review import provider_reviewer
from tests.support.review_support import OWNER

ME = "alex.mueller@example.com"
PRIYA = "priya@example.com"
KIN = "kinshuok@example.com"
CALLER = Caller(user_id=OWNER, email=ME, name="Alex Müller")
NOW = datetime.now(UTC).replace(microsecond=0)
PDF = b"%PDF-1.4 invoice %%EOF"


@pytest.fixture
def graph() -> GraphState:
    state = GraphState()
    for name, address in (("Alex Müller", ME), ("Priya Raman", PRIYA), ("Kinshuok Sen", KIN)):
        state.add_user(name, address, working=WorkingHours())
    mail = state.mail
    mail.add_message(
        ME,
        PRIYA,
        "Q1 budget",
        "The budget draft is in.",
        to=[ME],
        cc=[KIN],
        received=NOW - timedelta(days=2),
        conversation="conv-budget",
        sender_name="Priya Raman",
    )
    mail.add_message(
        ME,
        PRIYA,
        "RE: Q1 budget",
        "Marketing is 8% over.\nThursday?",
        to=[ME],
        cc=[KIN],
        received=NOW - timedelta(hours=5),
        conversation="conv-budget",
        sender_name="Priya Raman",
    )
    mail.add_message(
        ME,
        "mei@vendor.example",
        "Invoice INV-7",
        "Attached.",
        to=[ME],
        received=NOW - timedelta(hours=20),
        sender_name="Mei Tanaka",
        attachments=[("INV-7.pdf", "application/pdf", PDF), ("terms.txt", "text/plain", b"Net 30")],
    )
    # Priya's mail to Kinshuok alone: never Alex's.
    mail.add_message(
        KIN, PRIYA, "Budget secret", "Only for you.", to=[KIN], received=NOW - timedelta(hours=1)
    )
    return state


def suites(graph: GraphState) -> Callable[[Account], Suite]:
    def of(account: Account) -> Suite:
        return build_suite(
            account,
            FixedTokenSource("t"),
            http=GraphPool(graph),  # type: ignore[arg-type]
            base_url="http://graph.local/v1.0",
        )

    return of


def propose(
    graph: GraphState, drafts: DynamoDraftStore, call: tuple[str, dict[str, Any]], who: str = ME
) -> dict[str, Any]:
    ports = ToolPorts(MemoryDirectory(), MemoryCalendar(), drafts, suites=suites(graph))
    ctx = ToolContext(
        owner=OWNER if who == ME else f"u-{who}", session_id="s-1", now=NOW, requester_email=who
    )
    [outcome] = run_calls([call], ctx, ports)
    assert outcome.status == 200, outcome.body
    return outcome.body


def reviewer(graph: GraphState, drafts: DynamoDraftStore) -> Any:
    review, _ = provider_reviewer(
        drafts,
        build_suite,
        FixedTokenSource("t"),
        http=GraphPool(graph),  # type: ignore[arg-type]
        base_url="http://graph.local/v1.0",
    )
    return review


def searches(graph: GraphState) -> list[Any]:
    return [r for r in graph.requests if r[:2] == ("GET", "/users/{user-id}/messages")]


def test_a_reply_is_found_with_one_search_and_sent_once_in_the_thread(
    graph: GraphState, drafts: DynamoDraftStore
) -> None:
    card = propose(
        graph,
        drafts,
        (
            "reply_to_email",
            {
                "message": {
                    "said": "Priya's last email about the budget",
                    "people": [PRIYA],
                    "words": ["budget"],
                },
                "body": "Sounds good, Thursday.",
            },
        ),
    )

    assert card["message"]["status"] == "found"
    assert card["message"]["item"]["fields"]["subject"] == "RE: Q1 budget"
    assert [r["person"]["email"] for r in card["to"]] == [PRIYA]
    assert len(searches(graph)) == 1
    done = reviewer(graph, drafts).confirm(CALLER, card["draftId"], {})

    assert done.status is DraftStatus.DONE
    assert graph.violations == []
    [sent] = graph.mail.sent_by(ME)
    assert sent["conversationId"] == "conv-budget"
    assert sent["inReplyTo"] == graph.mail.boxes[ME][1]["internetMessageId"]
    assert sent["body"]["content"].startswith("Sounds good, Thursday.")
    assert [r["emailAddress"]["address"] for r in sent["toRecipients"]] == [PRIYA]
    assert any(
        m["subject"] == "RE: RE: Q1 budget" or m["conversationId"] == "conv-budget"
        for m in graph.mail.boxes[PRIYA]
    )
    made = [r for r in graph.requests if r[1].endswith("/createReply")]
    assert made[0][2]["Comment"] == "Sounds good, Thursday."


def test_reply_all_copies_everyone_but_the_caller(graph: GraphState, drafts: DynamoDraftStore) -> None:
    card = propose(
        graph,
        drafts,
        (
            "reply_to_email",
            {
                "message": {"said": "Priya's last email", "people": [PRIYA]},
                "replyAll": True,
                "body": "I'm in.",
            },
        ),
    )

    assert [r["person"]["email"] for r in card["cc"]] == [KIN]
    reviewer(graph, drafts).confirm(CALLER, card["draftId"], {})

    assert [r for r in graph.requests if r[1].endswith("/createReplyAll")]
    [sent] = graph.mail.sent_by(ME)
    assert [r["emailAddress"]["address"] for r in sent["ccRecipients"]] == [KIN]


def test_a_forward_lists_the_attachments_and_drops_the_one_removed(
    graph: GraphState, drafts: DynamoDraftStore
) -> None:
    card = propose(
        graph,
        drafts,
        (
            "forward_email",
            {
                "message": {"said": "the invoice from Mei", "words": ["invoice"]},
                "to": ["accounting@acme.example"],
                "note": "For payment.",
            },
        ),
    )

    files = {a["name"]: a for a in card["attachments"]}
    assert {name: f["size"] for name, f in files.items()} == {"INV-7.pdf": len(PDF), "terms.txt": 6}
    done = reviewer(graph, drafts).confirm(
        CALLER, card["draftId"], {"attachments": [files["INV-7.pdf"]["id"]]}
    )

    assert done.status is DraftStatus.DONE
    assert graph.violations == []
    [sent] = graph.mail.sent_by(ME)
    assert [a["name"] for a in sent["attachments"]] == ["INV-7.pdf"]
    assert [r["emailAddress"]["address"] for r in sent["toRecipients"]] == ["accounting@acme.example"]
    assert [r for r in graph.requests if r[0] == "DELETE"]


def test_a_retry_after_an_unanswered_send_reads_the_draft_and_sends_nothing_twice(
    graph: GraphState, drafts: DynamoDraftStore
) -> None:
    card = propose(
        graph,
        drafts,
        ("reply_to_email", {"message": {"said": "the invoice", "words": ["invoice"]}, "body": "Paid."}),
    )
    graph.fail_next(
        "POST",
        "/users/{user-id}/messages/{message-id}/send",
        Fault(504, "GatewayTimeout", "No answer", after=True),
    )
    review = reviewer(graph, drafts)

    with pytest.raises(SideEffectFailed) as unknown:
        review.confirm(CALLER, card["draftId"], {})
    assert unknown.value.code == "provider_outcome_unknown"
    again = review.confirm(CALLER, card["draftId"], {})

    assert again.status is DraftStatus.DONE
    assert again.result is not None
    assert again.result["alreadySent"] is True
    sends = [r for r in graph.requests if r[1].endswith("/send")]
    assert len(sends) == 1
    assert len(graph.mail.sent_by(ME)) == 1


def test_another_users_mail_never_shows(graph: GraphState, drafts: DynamoDraftStore) -> None:
    card = propose(
        graph,
        drafts,
        ("reply_to_email", {"message": {"said": "the budget secret", "words": ["secret"]}, "body": "x"}),
    )

    assert card["message"]["status"] == "none"
    assert "Only for you" not in str(card)
