"""Mail port: what one confirmed email or meeting invitation is, and who sends it.

:class:`Mail` and :class:`Mailer` are all a tool's confirm needs; the SES adapter,
:class:`multitool.ports.aws.ses_mail.SesMailer`, is its own module (with the standard
library's MIME and header machinery), built only by the review function, so the
action-group functions, which build drafts and never mail, do not load it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

import msgspec

from multitool.text import single_line


class Mail(msgspec.Struct, frozen=True):
    """One outgoing message. ``invitation`` is an iCalendar REQUEST body, if any."""

    to: tuple[str, ...]
    subject: str
    text: str
    cc: tuple[str, ...] = ()
    invitation: bytes | None = None
    from_name: str | None = None
    reply_to: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.to:
            raise ValueError("A mail needs at least one recipient in 'to'")
        if self.from_name is not None:
            msgspec.structs.force_setattr(self, "from_name", single_line(self.from_name) or None)
        # A subject is one header line (the text policy, multitool.text): line breaks fold and
        # controls go, so it is never a crash in MIME (ValueError) nor an injected header.
        msgspec.structs.force_setattr(self, "subject", single_line(self.subject))


class SentMail(msgspec.Struct, frozen=True):
    message_id: str


class MailError(Exception):
    """Sending failed; ``reason`` is safe to store and show (no message content)."""

    def __init__(self, reason: str, *, code: str = "mail_failed") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


class MailRejected(MailError):
    """SES refused the message (unverified identity, invalid address, paused account...)."""


class MailUnavailable(MailError):
    """SES could not be reached or throttled the call; the same message can be sent later."""


class MailOutcomeUnknown(MailError):
    """SES was sent the message and gave no answer (a read timeout, a dropped connection, a 5xx): it may
    have gone out. ``SendEmail`` takes no idempotency key, so it is never sent again blindly; the user
    checks before confirming again, as for the suites' ``provider_outcome_unknown``."""


class Mailer(Protocol):
    def send(self, mail: Mail) -> SentMail:
        """Send ``mail``; raise :class:`MailError` when it was not accepted."""
        ...


class DeferredMailer:
    """A :class:`Mailer` built on its first send: a review that reads or discards a card never
    creates the SES client (a second botocore client, its service model and endpoint rules, at a
    cold start) nor loads the MIME machinery."""

    def __init__(self, build: Callable[[], Mailer]) -> None:
        self._build = build
        self._mailer: Mailer | None = None
        self._lock = threading.Lock()

    def send(self, mail: Mail) -> SentMail:
        with self._lock:
            if self._mailer is None:
                self._mailer = self._build()
            mailer = self._mailer
        return mailer.send(mail)
