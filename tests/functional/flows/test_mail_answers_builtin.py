"""Reply and forward on the builtin suite, against moto: the message found in the caller's own
mailbox (DynamoDB), the card, the confirm sending ONE raw SES message in the thread, with the
forwarded attachment, kept in the sender's and the recipients' boxes; a retried confirm sends nothing
again; another user's mail never shows through a reference."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from multitool.drafts import DraftStatus
from multitool.ports.aws.dynamo_mailbox import DynamoMailbox, seed_mail
from multitool.ports.mailbox import MailSearch
from multitool.tools import ToolContext, run_calls
from multitool.wiring.action_groups import aws_environment
from multitool.wiring.review import review_function_app

from tests.support.bedrock_events import (
    LambdaContextStub,
    assert_bedrock_response,
    bedrock_action_event,
    response_body,
    tool_handler,
)
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.moto_tables import Tables
from tests.support.review_support import OWNER

ME = "jordan@example.com"
PRIYA = "priya@example.com"
KIN = "kinshuok@example.com"
NOW = datetime.now(UTC).replace(microsecond=0)
PDF = "%PDF-1.4 invoice INV-7 USD 1,800 %%EOF"

MAIL = [
    {
        "from": PRIYA,
        "fromName": "Priya Raman",
        "to": [ME],
        "cc": [KIN],
        "subject": "Q1 budget",
        "thread": "budget",
        "hoursAgo": 50,
        "body": "The Q1 budget draft is in the folder.\nCan we talk?",
    },
    {
        "from": PRIYA,
        "fromName": "Priya Raman",
        "to": [ME],
        "cc": [KIN, "mei@example.com"],
        "subject": "Re: Q1 budget",
        "thread": "budget",
        "hoursAgo": 6,
        "body": "Marketing is 8% over.\nWednesday or Thursday?\n\n> The Q1 budget draft is in the folder.",
    },
    {
        "from": "mei@example.com",
        "fromName": "Mei Tanaka",
        "to": [ME],
        "subject": "Invoice INV-7",
        "thread": "invoice",
        "hoursAgo": 20,
        "body": "Attached the invoice.",
        "attachments": [{"name": "INV-7.pdf", "contentType": "application/pdf", "text": PDF}],
    },
    # Another user's mail: Priya writes to Kinshuok about the budget, without Jordan.
    {
        "from": PRIYA,
        "fromName": "Priya Raman",
        "to": [KIN],
        "subject": "Budget secret for Kinshuok",
        "thread": "secret",
        "hoursAgo": 1,
        "body": "Only for you: the layoffs budget.",
    },
]
CONTEXT: Any = FakeLambdaContext()


@pytest.fixture
def mail(review_aws: Tables, monkeypatch: pytest.MonkeyPatch) -> Tables:
    seed_mail(review_aws.client, review_aws.names["MAILBOX_TABLE_NAME"], MAIL, NOW)
    aws_environment.cache_clear()
    return review_aws


def _ctx(email_address: str = ME) -> ToolContext:
    owner = OWNER if email_address == ME else f"user-{email_address}"
    return ToolContext(
        owner=owner, session_id="s-mail", now=NOW, timezone="Europe/London", requester_email=email_address
    )


def _propose(call: tuple[str, dict[str, Any]], address: str = ME) -> dict[str, Any]:
    [outcome] = run_calls([call], _ctx(address), aws_environment().ports)
    assert outcome.status == 200, outcome.body
    return outcome.body


def _confirm(
    draft_id: str, body: dict[str, Any] | None = None, email_claim: str = ME
) -> tuple[int, dict[str, Any]]:
    event = http_api_event(
        "POST",
        f"/actions/{draft_id}/confirm",
        body or {},
        sub=OWNER,
        path_parameters={"id": draft_id},
        route_key="POST /actions/{id}/confirm",
        claims={"email": email_claim, "email_verified": "true"},
    )
    response = review_function_app().resolve(event, CONTEXT)
    return response["statusCode"], json_body(response)


def _emails(recipients: list[dict[str, Any]]) -> list[str]:
    return [r["person"]["email"] for r in recipients]


def _box(tables: Tables, address: str) -> DynamoMailbox:
    return DynamoMailbox(tables.names["MAILBOX_TABLE_NAME"], tables.client, address)


def test_a_reply_finds_the_newest_fit_and_goes_to_the_sender_in_the_thread(mail: Tables) -> None:
    card = _propose(
        (
            "reply_to_email",
            {
                "message": {
                    "said": "Priya's last email about the budget",
                    "people": ["Priya"],
                    "words": ["budget"],
                },
                "body": "Sounds good, Thursday.",
            },
        )
    )

    found = card["message"]
    assert found["status"] == "found"
    assert found["item"]["fields"]["subject"] == "Re: Q1 budget"
    assert "Marketing is 8% over." in found["item"]["fields"]["preview"]
    assert "The Q1 budget draft" not in found["item"]["fields"]["preview"]  # quoted history left out
    assert (_emails(card["to"]), card["cc"], card["subject"]) == ([PRIYA], [], "Re: Q1 budget")
    assert card["to"][0]["person"]["displayName"] == "Priya Raman"

    status, done = _confirm(card["draftId"])

    assert status == 200, done
    [sent] = mail.sent()
    parsed = email.message_from_string(sent.raw_data, policy=email.policy.default)
    original = _box(mail, ME).read(found["item"]["id"])
    assert original is not None
    assert parsed["In-Reply-To"] == original.internet_id
    assert original.internet_id in parsed["References"]
    assert len(parsed["References"].split()) == 2  # the thread's first message, then the one answered
    assert parsed["Subject"] == "Re: Q1 budget"
    assert parsed["To"] == PRIYA
    text = parsed.get_body(("plain",)).get_content()
    assert text.startswith("Sounds good, Thursday.")
    assert "> Marketing is 8% over." in text
    # Kept: in Jordan's sent mail and in Priya's inbox, in the same thread.
    [kept] = _box(mail, PRIYA).search(MailSearch(senders=(ME,)))
    assert (kept.thread_id, kept.subject) == ("budget", "Re: Q1 budget")


def test_reply_all_answers_everyone_on_it_but_the_caller(mail: Tables) -> None:
    card = _propose(
        (
            "reply_to_email",
            {
                "message": {"said": "Priya's last email", "people": ["Priya"]},
                "replyAll": True,
                "body": "I'm in.",
            },
        )
    )

    assert _emails(card["to"]) == [PRIYA]
    assert _emails(card["cc"]) == [KIN, "mei@example.com"]
    status, done = _confirm(card["draftId"], {"cc": [KIN]})  # Mei removed on the card
    assert status == 200, done
    [sent] = mail.sent()
    assert sent.destinations == [PRIYA, KIN] or set(sent.destinations) == {PRIYA, KIN}


def test_a_retried_confirm_sends_the_same_draft_never_a_second_message(mail: Tables) -> None:
    card = _propose(
        ("reply_to_email", {"message": {"said": "the invoice", "words": ["invoice"]}, "body": "Paid."})
    )
    assert _confirm(card["draftId"])[0] == 200
    stored = mail.drafts.get(card["draftId"])
    assert stored is not None
    assert stored.progress is not None
    # The function died after the send, before "done": the draft is executing, its lease long past.
    mail.drafts.replace(
        stored,
        stored.model_copy(update={"status": DraftStatus.FAILED, "result": None, "error": "Lost"}),
    )

    status, again = _confirm(card["draftId"])

    assert status == 200, again
    assert again["result"]["alreadySent"] is True
    assert len(mail.sent()) == 1


def test_a_send_without_an_answer_is_said_and_never_sent_again(
    mail: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    from botocore.exceptions import ReadTimeoutError
    from multitool.ports.aws import ses_mail

    card = _propose(
        ("reply_to_email", {"message": {"said": "the invoice", "words": ["invoice"]}, "body": "Paid."})
    )
    tries: list[dict[str, Any]] = []

    class Silent:
        def send_email(self, **request: Any) -> Any:
            tries.append(request)
            raise ReadTimeoutError(endpoint_url="https://email.us-east-1.amazonaws.com")

    monkeypatch.setattr(ses_mail, "ses_client", Silent)
    status, failed = _confirm(card["draftId"])
    assert status == 502, failed
    assert failed["error"]["code"] == "mail_outcome_unknown"

    status, again = _confirm(card["draftId"])

    assert again["error"]["code"] == "mail_outcome_unknown"
    assert "may have gone out" in again["error"]["message"]
    assert len(tries) == 1  # handed to SES once, never again
    assert mail.sent() == []


def test_a_forward_carries_the_attachment_and_the_note(mail: Tables) -> None:
    card = _propose(
        (
            "forward_email",
            {
                "message": {
                    "said": "the invoice from Mei",
                    "people": ["mei@example.com"],
                    "words": ["invoice"],
                },
                "to": ["accounting@acme.com"],
                "note": "For payment, please.",
            },
        )
    )

    assert [(a["name"], a["size"]) for a in card["attachments"]] == [("INV-7.pdf", len(PDF))]
    assert card["subject"] == "Fw: Invoice INV-7"
    status, done = _confirm(card["draftId"])

    assert status == 200, done
    [sent] = mail.sent()
    parsed = email.message_from_string(sent.raw_data, policy=email.policy.default)
    assert parsed["To"] == "accounting@acme.com"
    assert "In-Reply-To" not in parsed
    [attachment] = list(parsed.iter_attachments())
    assert attachment.get_filename() == "INV-7.pdf"
    assert attachment.get_content() == PDF.encode()
    assert parsed.get_body(("plain",)).get_content().startswith("For payment, please.")


def test_an_attachment_removed_on_the_card_is_not_forwarded(mail: Tables) -> None:
    card = _propose(
        ("forward_email", {"message": {"said": "the invoice", "words": ["invoice"]}, "to": [KIN]})
    )

    status, done = _confirm(card["draftId"], {"attachments": []})

    assert status == 200, done
    parsed = email.message_from_string(mail.sent()[0].raw_data, policy=email.policy.default)
    assert list(parsed.iter_attachments()) == []


def test_an_attachment_id_the_card_did_not_list_is_refused(mail: Tables) -> None:
    card = _propose(
        ("forward_email", {"message": {"said": "the invoice", "words": ["invoice"]}, "to": [KIN]})
    )

    status, refused = _confirm(card["draftId"], {"attachments": ["a9"]})

    assert status == 422
    assert refused["error"]["field"] == "attachments"
    assert mail.sent() == []


def test_another_users_mail_never_shows_through_a_reference(mail: Tables) -> None:
    card = _propose(
        ("reply_to_email", {"message": {"said": "the budget secret", "words": ["secret"]}, "body": "x"})
    )

    assert card["message"]["status"] == "none"
    assert "secret" not in str(card["message"].get("candidates"))
    # Kinshuok, who received it, finds it in his own mailbox.
    theirs = _propose(
        ("reply_to_email", {"message": {"said": "the budget secret", "words": ["secret"]}, "body": "x"}), KIN
    )
    assert theirs["message"]["status"] == "found"


def test_a_message_id_from_another_mailbox_is_refused_at_confirm(mail: Tables) -> None:
    card = _propose(("reply_to_email", {"message": {"said": "my email"}, "body": "x"}))
    assert card["message"]["status"] == "ambiguous"
    # One candidate per thread: the budget thread's newest message, then the invoice.
    subjects = [c["fields"]["subject"] for c in card["message"]["candidates"]]
    assert subjects == ["Re: Q1 budget", "Invoice INV-7"]
    [secret] = _box(mail, KIN).search(MailSearch(words=("secret",), since=NOW - timedelta(hours=2)))

    status, refused = _confirm(card["draftId"], {"message": secret.id})

    assert status == 400
    assert "secret" not in str(refused).casefold()
    assert mail.sent() == []


def _action_group(
    group: str, path: str, properties: dict[str, Any], email_address: str = ME
) -> dict[str, Any]:
    """A Bedrock action-group event (the message reference as a JSON object property) through the handler."""

    boto3.setup_default_session(region_name="us-east-1")
    session = {"userId": OWNER, "timezone": "Europe/London", "userEmail": email_address}
    event = bedrock_action_event(group, path, "POST", properties, session)
    response: dict[str, Any] = tool_handler(group)(event, LambdaContextStub())
    assert_bedrock_response(response)
    return response


def test_the_action_groups_take_bedrocks_wire_shape_and_find_the_callers_own_message(mail: Tables) -> None:
    replied = _action_group(
        "email_reply",
        "/email-replies",
        {"message": {"said": "Priya's email", "people": ["Priya"]}, "replyAll": True, "body": "In."},
    )
    forwarded = _action_group(
        "email_forward",
        "/email-forwards",
        {"message": {"said": "the invoice", "words": ["invoice"]}, "to": ["Kinshuok"]},
    )

    assert replied["response"]["httpStatusCode"] == 200
    reply = response_body(replied)
    assert (reply["action"], reply["replyAll"]) == ("show_email_reply", True)
    assert reply["message"]["item"]["fields"]["subject"] == "Re: Q1 budget"
    forward = response_body(forwarded)
    assert forward["attachments"][0]["name"] == "INV-7.pdf"
    assert forward["to"][0]["person"]["email"] == KIN


def test_a_caller_without_a_verified_address_has_no_mailbox_to_search(mail: Tables) -> None:
    response = _action_group(
        "email_reply", "/email-replies", {"message": {"said": "my last email"}, "body": "x"}, email_address=""
    )

    assert response["response"]["httpStatusCode"] == 400
    assert response_body(response)["error"]["field"] == "message"
