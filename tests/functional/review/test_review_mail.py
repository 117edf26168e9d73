"""SesMailer against moto SES v2: plain mail, invitations, and rejections."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from email.message import Message
from typing import Any

import boto3
import pytest
from moto import mock_aws
from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends
from multitool.ports.aws.ses_mail import SesMailer
from multitool.ports.mail import Mail, MailRejected

SENDER = "assistant@example.com"
REGION = "us-east-1"


@pytest.fixture
def sesv2() -> Iterator[Any]:
    with mock_aws():
        client = boto3.client("sesv2", region_name=REGION)
        client.create_email_identity(EmailIdentity=SENDER)
        yield client


def _sent() -> list[Any]:
    return list(ses_backends[DEFAULT_ACCOUNT_ID][REGION].sent_messages)


def test_plain_mail_is_a_simple_message_from_the_sender(sesv2: Any) -> None:
    sent = SesMailer(sesv2, SENDER).send(
        Mail(to=("kin@example.com",), cc=("zoe@example.com",), subject="The doc", text="Here it is.")
    )

    [message] = _sent()
    assert message.id == sent.message_id
    assert message.source == SENDER
    assert message.subject == "The doc"
    assert message.body == "Here it is."
    assert message.destinations == {"ToAddresses": ["kin@example.com"], "CcAddresses": ["zoe@example.com"]}


def test_invitation_is_raw_mime_with_a_calendar_request_part(sesv2: Any) -> None:
    ics = b"BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nUID:d_1\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

    SesMailer(sesv2, SENDER).send(
        Mail(to=("kin@example.com", "zoe@example.com"), subject="Sync", text="Join us", invitation=ics)
    )

    [message] = _sent()
    assert "kin@example.com" in message.destinations
    assert "zoe@example.com" in message.destinations
    parsed: Message = email.message_from_string(message.raw_data)
    assert parsed["Subject"] == "Sync"
    assert parsed["From"] == SENDER
    parts = {part.get_content_type(): part for part in parsed.walk()}
    calendar = parts["text/calendar"]
    assert calendar.get_param("method") == "REQUEST"
    payload = calendar.get_payload(decode=True)
    assert isinstance(payload, bytes)
    assert b"UID:d_1" in payload
    assert parts["application/ics"].get_filename() == "invite.ics"
    assert parts["text/plain"].get_payload(decode=True) == b"Join us\r\n"


def test_an_unverified_sender_is_rejected_with_the_ses_reason(sesv2: Any) -> None:
    with pytest.raises(MailRejected) as caught:
        SesMailer(sesv2, "nobody@unverified.test").send(
            Mail(to=("kin@example.com",), subject="s", text="secret body")
        )

    assert caught.value.code == "mail_rejected"
    assert "MessageRejected" in caught.value.reason
    assert "secret body" not in caught.value.reason
    assert _sent() == []


def test_a_mail_needs_a_recipient() -> None:
    with pytest.raises(ValueError, match="recipient"):
        Mail(to=(), subject="s", text="t")


def _requests(client: Any) -> list[dict[str, Any]]:
    """Every SendEmail request as botocore validated and sent it (moto keeps no Reply-To)."""
    seen: list[dict[str, Any]] = []
    client.meta.events.register(
        "provide-client-params.sesv2.SendEmail", lambda params, **_: seen.append(params)
    )
    return seen


@pytest.mark.parametrize(
    "name",
    ["Alex Müller via multitool", 'Doe, Jane "JJ" via multitool', "Zoë O'Brien, Ph.D. via multitool"],
)
def test_a_display_name_and_reply_to_reach_ses_encoded(sesv2: Any, name: str) -> None:
    requests = _requests(sesv2)

    SesMailer(sesv2, SENDER).send(
        Mail(to=("kin@example.com",), subject="s", text="t", from_name=name, reply_to=("alex@example.com",))
    )

    [request] = requests
    assert request["ReplyToAddresses"] == ["alex@example.com"]
    header = request["FromEmailAddress"]
    assert header.isascii()  # RFC 2047 encoded words for anything else, as SES requires
    parsed = email.message_from_string(f"From: {header}\n\n", policy=email.policy.default)
    [mailbox] = parsed["From"].addresses
    assert (mailbox.display_name, mailbox.addr_spec) == (name, SENDER)
    [message] = _sent()
    assert message.source == header


def test_an_invitation_names_the_requester_and_replies_go_to_them(sesv2: Any) -> None:
    ics = b"BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nEND:VCALENDAR\r\n"

    SesMailer(sesv2, SENDER).send(
        Mail(
            to=("kin@example.com",),
            subject="Sync",
            text="Join us",
            invitation=ics,
            from_name="Müller, Alex via multitool",
            reply_to=("alex@example.com",),
        )
    )

    [message] = _sent()
    parsed = email.message_from_string(message.raw_data, policy=email.policy.default)
    [mailbox] = parsed["From"].addresses
    assert (mailbox.display_name, mailbox.addr_spec) == ("Müller, Alex via multitool", SENDER)
    assert parsed["Reply-To"] == "alex@example.com"


def test_a_display_name_cannot_inject_a_header(sesv2: Any) -> None:
    requests = _requests(sesv2)

    SesMailer(sesv2, SENDER).send(
        Mail(
            to=("kin@example.com",),
            subject="s",
            text="t",
            from_name="Alex\r\nBcc: all@example.com via multitool",
        )
    )

    assert requests[0]["FromEmailAddress"] == f'"Alex Bcc: all@example.com via multitool" <{SENDER}>'
