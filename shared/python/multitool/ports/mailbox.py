"""Mailbox port: the caller's own mail, read to find a message, and a reply or forward sent from it.

The mail tools (``email_reply``, ``email_forward``) find the message the user named among their own
(:meth:`Mailbox.search`, newest first; :meth:`Mailbox.read` for one), and the confirm sends the
answer in its thread. A send is exactly once across retried confirms: the confirm first makes the
answer a *draft in the provider* (:meth:`Mailbox.create_draft`), stores that draft's id in the
confirm's record, and only then sends THAT draft (:meth:`Mailbox.send_draft`). A confirm tried
again finds the id stored and asks the provider what became of the draft
(:meth:`Mailbox.draft_state`): still a draft, it is sent; already sent, the confirm answers done; gone,
it says so and sends nothing. A send left without an answer is never made again blindly: it is
:class:`~multitool.ports.tokens.ProviderOutcomeUnknown` (or the mail port's
:class:`~multitool.ports.mail.MailOutcomeUnknown`), and the next confirm reads the draft's state first.

Adapters: :class:`multitool.ports.aws.dynamo_mailbox.DynamoMailbox` (builtin: the mail this system
delivered and sent, in DynamoDB, sent through SES), ``GraphMailbox`` (Microsoft 365) and
``GmailMailbox`` (Google), each in its provider's module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Literal, Protocol

import msgspec

SEARCH_LIMIT = 25
"""The most messages one search reads: the newest that fit (a card offers five)."""
PREVIEW_LINES = 4
PREVIEW_CHARS = 400


class Attachment(msgspec.Struct, frozen=True):
    """An attachment as a card lists it (its content stays in the provider)."""

    id: str
    name: str
    size: int
    content_type: str = "application/octet-stream"


class Message(msgspec.Struct, frozen=True):
    """One message of the caller's mailbox: what finding it, showing it and answering it need."""

    id: str
    """The provider's id of it (Graph's immutable id, Gmail's message id, the builtin's own)."""
    thread_id: str
    sender: str
    subject: str
    received: datetime
    sender_name: str = ""
    to: tuple[str, ...] = ()
    cc: tuple[str, ...] = ()
    preview: str = ""
    """Its first lines, plain text."""
    internet_id: str = ""
    """The RFC 5322 ``Message-ID`` (angle brackets included): what a reply's ``In-Reply-To`` names."""
    references: tuple[str, ...] = ()
    """The thread's ``References`` so far (a reply appends :attr:`internet_id`)."""
    attachments: tuple[Attachment, ...] = ()
    has_attachments: bool = False
    version: str = ""
    """The provider's version of it (changeKey, historyId): a card's item carries it."""

    @property
    def everyone(self) -> tuple[str, ...]:
        """Every address on the message: the sender, then to and cc, each once (case-insensitive)."""
        seen: dict[str, str] = {}
        for address in (self.sender, *self.to, *self.cc):
            if address:
                seen.setdefault(address.casefold(), address)
        return tuple(seen.values())


class MailSearch(msgspec.Struct, frozen=True):
    """What a reference said about a message: from whom, which words, which days, with attachments."""

    senders: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    has_attachments: bool = False
    limit: int = SEARCH_LIMIT


AnswerKind = Literal["reply", "reply_all", "forward"]


class Outgoing(msgspec.Struct, frozen=True):
    """A reply or forward as confirmed: the message it answers, whom it goes to, the text."""

    kind: AnswerKind
    original: Message
    to: tuple[str, ...]
    body: str
    cc: tuple[str, ...] = ()
    keep_attachments: tuple[str, ...] = ()
    """A forward's attachments (ids of the original's) that go with it; the others are removed."""
    from_name: str | None = None
    reply_to: tuple[str, ...] = ()
    key: str = ""
    """The confirm's draft id: what makes the provider draft this confirm's own (builtin, Gmail)."""


class DraftState(StrEnum):
    DRAFT = "draft"
    SENT = "sent"
    GONE = "gone"
    UNKNOWN = "sending"
    """A send was handed over and not answered: it may have gone out (never sent again)."""


class SentAnswer(msgspec.Struct, frozen=True):
    message_id: str


class Mailbox(Protocol):
    """The caller's own mailbox at one provider (a suite's, made for one account)."""

    def search(self, query: MailSearch) -> Sequence[Message]:
        """The caller's messages that fit, newest first, in ONE provider read where it allows."""
        ...

    def read(self, message_id: str) -> Message | None:
        """One of the caller's messages with its attachments listed; None when it is not theirs or gone."""
        ...

    def create_draft(self, outgoing: Outgoing) -> str:
        """The answer as a draft in the provider, in the original's thread; the draft's id."""
        ...

    def draft_state(self, draft_id: str) -> DraftState:
        """What became of a draft this port made: still a draft, sent, or gone (deleted)."""
        ...

    def send_draft(self, draft_id: str) -> SentAnswer:
        """Send the draft (once: a send without an answer is outcome unknown, never retried)."""
        ...


def first_lines(text: str, *, lines: int = PREVIEW_LINES, chars: int = PREVIEW_CHARS) -> str:
    """The first non-empty lines of a plain-text body, for the card (quoted history left out)."""
    kept: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(">") or (stripped.startswith("On ") and stripped.endswith("wrote:")):
            break
        if stripped:
            kept.append(stripped)
        if len(kept) >= lines:
            break
    shown = "\n".join(kept)
    return shown if len(shown) <= chars else shown[: chars - 1].rstrip() + "…"


def answer_subject(kind: AnswerKind, subject: str) -> str:
    """``Re: budget`` / ``Fw: budget``, without stacking a prefix the subject already has."""
    prefix = "Fw:" if kind == "forward" else "Re:"
    bare = subject.strip()
    lowered = bare.casefold()
    if kind == "forward" and lowered.startswith(("fw:", "fwd:")):
        return bare
    if kind != "forward" and lowered.startswith("re:"):
        return bare
    return f"{prefix} {bare}" if bare else prefix


def reply_recipients(
    message: Message, own: str, *, everyone: bool
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Whom a reply goes to (to, cc): the sender (reply); reply all adds everyone else on the
    message but the caller. A message the caller sent is answered to its recipients."""
    mine = own.casefold()
    sender_is_me = message.sender.casefold() == mine
    to = [a for a in message.to if a.casefold() != mine] if sender_is_me else [message.sender]
    if not everyone:
        return tuple(dict.fromkeys(to[:1] if sender_is_me else to)), ()
    cc_pool = [*([] if sender_is_me else message.to), *message.cc]
    taken = {a.casefold() for a in to}
    cc: list[str] = []
    for address in cc_pool:
        if address.casefold() not in taken and address.casefold() != mine:
            taken.add(address.casefold())
            cc.append(address)
    return tuple(dict.fromkeys(to)), tuple(cc)


def newest_first(messages: Sequence[Message]) -> list[Message]:
    return sorted(messages, key=lambda m: m.received, reverse=True)


class SeededMessage(msgspec.Struct, frozen=True):
    """One message of ``seed.json``'s ``mail`` as every mailbox that starts with it reads it (the
    built-in one, the stand-in Graph's and Gmail's): :func:`seeded_mail`."""

    index: int
    """Its place in the seed: what names its thread when the seed names none."""
    sender: str
    sender_name: str
    to: tuple[str, ...]
    cc: tuple[str, ...]
    subject: str
    body: str
    received: datetime
    thread: str | None
    """The thread as seeded (messages of one thread share it); None: a thread of its own."""
    files: tuple[tuple[str, str, bytes], ...]
    """Its attachments: name, content type, bytes."""

    @property
    def owners(self) -> list[str]:
        """Every mailbox it stands in (casefolded): the sender's first, then each recipient's."""
        return list(dict.fromkeys(a.casefold() for a in (self.sender, *self.to, *self.cc)))


def seeded_mail(messages: Iterable[Mapping[str, Any]], now: datetime) -> list[SeededMessage]:
    """The seed's messages, each with its fields read and defaulted once: ``from``, ``fromName``,
    ``to``, ``cc`` (addresses), ``subject``, ``body``, ``hoursAgo`` (before ``now``; the n-th
    message n hours by default), ``thread``, ``attachments`` (``name``, ``contentType``, ``text``:
    its bytes, for the demo)."""
    return [
        SeededMessage(
            index=index,
            sender=str(seeded["from"]),
            sender_name=str(seeded.get("fromName", "")),
            to=tuple(str(a) for a in seeded.get("to", ())),
            cc=tuple(str(a) for a in seeded.get("cc", ())),
            subject=str(seeded.get("subject", "")),
            body=str(seeded.get("body", "")),
            received=now - timedelta(hours=float(seeded.get("hoursAgo", index + 1))),
            thread=str(seeded["thread"]) if seeded.get("thread") else None,
            files=tuple(
                (
                    str(a["name"]),
                    str(a.get("contentType", "application/octet-stream")),
                    str(a.get("text", "")).encode(),
                )
                for a in seeded.get("attachments", ())
            ),
        )
        for index, seeded in enumerate(messages)
    ]
