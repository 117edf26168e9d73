"""The mail port on Amazon SES v2: send one confirmed email or meeting invitation.

:class:`SesMailer` sends through Amazon SES v2 ``SendEmail`` from one verified
sender identity: plain mail as ``Content.Simple``, an invitation as
``Content.Raw`` MIME whose ``text/calendar; method=REQUEST`` part calendar
clients turn into an accept/decline prompt.

The sender identity is always the address mail goes out from; a mail may give
it a display name (``from_name``, e.g. ``Alex Müller via multitool``) and a
``Reply-To`` (the requester's verified address), so a recipient sees who asked
and answers them, not the sender identity. Display names are encoded by the
standard library's ``email`` package: quoted when they hold commas or quotes
(RFC 5322), as an encoded word when they are not ASCII (RFC 2047), which is
what SES asks for in ``FromEmailAddress``.
"""

from __future__ import annotations

from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import formataddr, formatdate
from typing import TYPE_CHECKING, Any

from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, ConnectionClosedError, ReadTimeoutError

from multitool.ports.mail import Mail, MailOutcomeUnknown, MailRejected, MailUnavailable, SentMail

if TYPE_CHECKING:
    from mypy_boto3_sesv2 import SESV2Client
    from mypy_boto3_sesv2.type_defs import DestinationTypeDef, EmailContentTypeDef

# SES treats these as "try again later"; everything else is a rejection of the message.
_THROTTLING_CODES = frozenset({"TooManyRequestsException", "LimitExceededException", "Throttling"})

SEND_CONFIG = Config(retries={"total_max_attempts": 1}, connect_timeout=3, read_timeout=10)
"""The sending client tries once. botocore retries a read timeout, a dropped connection and a 5xx
(its "general connection errors" and transient statuses, in every retry mode:
https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html), and SES's ``SendEmail``
takes no idempotency key, so a retried send after a lost answer can deliver the mail twice. A
throttled send is ``mail_throttled`` and the user confirms again; a send with no answer is
:class:`MailOutcomeUnknown`."""

# Sent, and no answer: the request left; SES may have accepted it.
_NO_ANSWER = (ReadTimeoutError, ConnectionClosedError)


def ses_client() -> SESV2Client:
    """The SES v2 client a confirm sends with (:data:`SEND_CONFIG`)."""
    import boto3

    return boto3.client("sesv2", config=SEND_CONFIG)


class SesMailer:
    """:class:`Mailer` on SES v2, from the verified identity ``sender``."""

    def __init__(self, client: SESV2Client, sender: str, configuration_set: str | None = None) -> None:
        self._client = client
        self._sender = sender
        self._configuration_set = configuration_set

    def send(self, mail: Mail) -> SentMail:
        destination: DestinationTypeDef = {"ToAddresses": list(mail.to)}
        if mail.cc:
            destination["CcAddresses"] = list(mail.cc)
        sender = from_address(self._sender, mail.from_name)
        content: EmailContentTypeDef
        if mail.invitation is None:
            content = {
                "Simple": {
                    "Subject": {"Data": mail.subject, "Charset": "UTF-8"},
                    "Body": {"Text": {"Data": mail.text, "Charset": "UTF-8"}},
                }
            }
        else:
            content = {"Raw": {"Data": invitation_mime(self._sender, mail)}}
        options: dict[str, Any] = {}
        if mail.reply_to:
            options["ReplyToAddresses"] = list(mail.reply_to)
        return self._send(FromEmailAddress=sender, Destination=destination, Content=content, **options)

    def send_raw(self, data: bytes, to: tuple[str, ...], cc: tuple[str, ...] = ()) -> SentMail:
        """Send a whole MIME message (a reply or forward in its thread, with attachments) from the
        sender identity: ``Content.Raw`` carries its own headers (``In-Reply-To``, ``References``) and
        parts, which ``Content.Simple`` cannot (SESv2 ``SendEmail``, botocore's sesv2 model:
        ``RawMessage``)."""
        destination: DestinationTypeDef = {"ToAddresses": list(to)}
        if cc:
            destination["CcAddresses"] = list(cc)
        return self._send(
            FromEmailAddress=self._sender, Destination=destination, Content={"Raw": {"Data": data}}
        )

    @property
    def sender(self) -> str:
        return self._sender

    def _send(self, **request: Any) -> SentMail:
        if self._configuration_set:
            request["ConfigurationSetName"] = self._configuration_set
        try:
            response = self._client.send_email(**request)
        except ClientError as error:
            details = error.response.get("Error", {})
            code = str(details.get("Code", "Unknown"))
            text = str(details.get("Message", "")).strip()
            reason = f"SES {code}: {text}" if text else f"SES {code}"
            if code in _THROTTLING_CODES:
                raise MailUnavailable(reason, code="mail_throttled") from error
            if int(error.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 400)) >= 500:
                raise _unknown(f"{reason} (a server error after the message was sent)") from error
            raise MailRejected(reason, code="mail_rejected") from error
        except _NO_ANSWER as error:
            raise _unknown(f"SES gave no answer ({type(error).__name__})") from error
        except BotoCoreError as error:
            raise MailUnavailable(
                f"SES could not be reached ({type(error).__name__})", code="mail_unavailable"
            ) from error
        return SentMail(message_id=response["MessageId"])


def _unknown(reason: str) -> MailOutcomeUnknown:
    return MailOutcomeUnknown(
        f"{reason}: the mail may have gone out. Ask a recipient, or look in SES's sending "
        "statistics, before confirming again.",
        code="mail_outcome_unknown",
    )


def from_address(sender: str, display_name: str | None) -> str:
    """``sender`` with ``display_name`` as one RFC 5322 mailbox (RFC 2047-encoded when not ASCII)."""
    return formataddr((display_name, sender), charset="utf-8") if display_name else sender


def invitation_mime(sender: str, mail: Mail) -> bytes:
    """The raw MIME message for an invitation.

    ``multipart/mixed``: an alternative of the text and the ``text/calendar;
    method=REQUEST`` part (what Outlook and Gmail read), plus the same calendar
    as an ``invite.ics`` attachment for clients that only look at attachments.
    """
    if mail.invitation is None:
        raise ValueError("invitation_mime needs a mail with an invitation")
    message = EmailMessage()
    message["From"] = Address(display_name=mail.from_name or "", addr_spec=sender)
    message["To"] = ", ".join(mail.to)
    if mail.cc:
        message["Cc"] = ", ".join(mail.cc)
    if mail.reply_to:
        message["Reply-To"] = ", ".join(mail.reply_to)
    message["Subject"] = mail.subject
    message["Date"] = formatdate(usegmt=True)
    message["MIME-Version"] = "1.0"
    calendar_text = mail.invitation.decode("utf-8")
    message.set_content(mail.text)
    # The part's method is the calendar's own METHOD (REQUEST, CANCEL, REPLY: RFC 6047 2.4).
    method = next(
        (line.split(":", 1)[1].strip() for line in calendar_text.splitlines() if line.startswith("METHOD:")),
        "REQUEST",
    )
    message.add_alternative(calendar_text, subtype="calendar", params={"method": method})
    message.add_attachment(mail.invitation, maintype="application", subtype="ics", filename="invite.ics")
    return message.as_bytes(policy=SMTP)
