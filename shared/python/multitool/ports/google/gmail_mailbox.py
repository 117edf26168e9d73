"""The mailbox port on Gmail: the user's own messages, answered in their thread through a Gmail draft.

Every call is a method of Gmail's discovery document (``gmail.v1.json``, checked by the stand-in and
the tests: :mod:`multitool.local.standins.google_discovery`).

- **Find**: ``users.messages.list`` with ``q`` (``from:``, the words, ``has:attachment``,
  ``after:``/``before:``, ``-in:drafts``), newest first as Gmail lists, then ``users.messages.get``
  (``format=full``) for each of the few it answers (Gmail's list carries ids only): at most
  :data:`SEARCH_LIMIT` reads.
- **Answer**: the reply or forward is built with the standard library's ``email`` package
  (``In-Reply-To`` and ``References`` from the original's headers, ``Re:``/``Fw:`` subject, the kept
  attachments re-attached from ``users.messages.attachments.get``), made a draft with
  ``users.drafts.create`` (``threadId`` of the original for a reply: Gmail threads a message when the
  thread id is given, the ``References``/``In-Reply-To`` headers are set and the subject matches,
  https://developers.google.com/workspace/gmail/api/guides/threads), then sent with
  ``users.drafts.send``, never twice: without an answer it is outcome unknown.
- **What became of a draft**: ``users.drafts.get``; a draft Gmail no longer has was sent (its message,
  read with ``users.messages.get``, carries the ``SENT`` label) or deleted. Either way nothing is sent
  again.

Scopes (least privilege, from each method's ``scopes``): ``gmail.readonly`` to search and read,
``gmail.compose`` to make and send drafts.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, getaddresses, parseaddr
from typing import Any

from multitool.ports.google.http import GoogleApi, path
from multitool.ports.mail import MailRejected
from multitool.ports.mailbox import (
    Attachment,
    DraftState,
    MailSearch,
    Message,
    Outgoing,
    SentAnswer,
    answer_subject,
    first_lines,
    newest_first,
)
from multitool.ports.tokens import ProviderRefused
from multitool.text import multi_line, single_line

READ_SCOPES = ("https://www.googleapis.com/auth/gmail.readonly",)
COMPOSE_SCOPES = ("https://www.googleapis.com/auth/gmail.compose",)
SCOPES = READ_SCOPES + COMPOSE_SCOPES
SEARCH_LIMIT = 10
MAX_ATTACHMENT_BYTES = 25_000_000
"""Gmail sends messages of up to 25 MB (https://support.google.com/mail/answer/6584)."""
_SEP = "~"


class GmailMailbox:
    """:class:`~multitool.ports.mailbox.Mailbox` of the signed-in user's Gmail."""

    max_attachment_bytes = MAX_ATTACHMENT_BYTES

    def __init__(self, api: GoogleApi) -> None:
        self._api = api

    def search(self, query: MailSearch) -> Sequence[Message]:
        answer = self._api.call(
            "GET",
            "gmail",
            path("users", "me", "messages"),
            scopes=READ_SCOPES,
            query=[("q", gmail_query(query)), ("maxResults", str(min(query.limit, SEARCH_LIMIT)))],
        )
        ids = [str(m["id"]) for m in (answer.body or {}).get("messages") or () if isinstance(m, dict)]
        found = [m for m in (self._get(i) for i in ids) if m is not None]
        return newest_first(found)

    def read(self, message_id: str) -> Message | None:
        return self._get(message_id)

    def _get(self, message_id: str) -> Message | None:
        answer = self._api.call(
            "GET",
            "gmail",
            path("users", "me", "messages", message_id),
            scopes=READ_SCOPES,
            query=[("format", "full")],
            accept=(200, 404),
        )
        if answer.status == 404 or "DRAFT" in (answer.body.get("labelIds") or ()):
            return None
        return message_of(answer.body)

    def create_draft(self, outgoing: Outgoing) -> str:
        files = self._files(outgoing) if outgoing.kind == "forward" else []
        raw = answer_mime(outgoing, self._api.account.email, files)
        message: dict[str, Any] = {"raw": base64.urlsafe_b64encode(raw).decode("ascii")}
        if outgoing.kind != "forward":
            message["threadId"] = outgoing.original.thread_id
        answer = self._api.call(
            "POST",
            "gmail",
            path("users", "me", "drafts"),
            scopes=COMPOSE_SCOPES,
            body={"message": message},
            idempotent=False,
            check="your Gmail Drafts",
        )
        draft = answer.body or {}
        return f"{draft['id']}{_SEP}{draft.get('message', {}).get('id', '')}"

    def _files(self, outgoing: Outgoing) -> list[tuple[Attachment, bytes]]:
        kept = set(outgoing.keep_attachments)
        files = []
        for attachment in outgoing.original.attachments:
            if attachment.id not in kept:
                continue
            answer = self._api.call(
                "GET",
                "gmail",
                path("users", "me", "messages", outgoing.original.id, "attachments", attachment.id),
                scopes=READ_SCOPES,
            )
            data = str((answer.body or {}).get("data") or "")
            files.append((attachment, base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))))
        return files

    def draft_state(self, draft_id: str) -> DraftState:
        draft, _, message_id = draft_id.partition(_SEP)
        answer = self._api.call(
            "GET",
            "gmail",
            path("users", "me", "drafts", draft),
            scopes=COMPOSE_SCOPES,
            query=[("format", "minimal")],
            accept=(200, 404),
        )
        if answer.status == 200:
            return DraftState.DRAFT
        if not message_id:
            return DraftState.GONE
        sent = self._api.call(
            "GET",
            "gmail",
            path("users", "me", "messages", message_id),
            scopes=READ_SCOPES,
            query=[("format", "minimal")],
            accept=(200, 404),
        )
        if sent.status == 200 and "SENT" in (sent.body.get("labelIds") or ()):
            return DraftState.SENT
        return DraftState.GONE

    def send_draft(self, draft_id: str) -> SentAnswer:
        draft, _, _ = draft_id.partition(_SEP)
        try:
            answer = self._api.call(
                "POST",
                "gmail",
                path("users", "me", "drafts", "send"),
                scopes=COMPOSE_SCOPES,
                body={"id": draft},
                idempotent=False,
                check="your Gmail Sent folder",
            )
        except ProviderRefused as refused:
            raise MailRejected(str(refused), code="mail_rejected") from refused
        return SentAnswer(message_id=str((answer.body or {}).get("id") or draft))


def gmail_query(query: MailSearch) -> str:
    """Gmail's search operators (https://support.google.com/mail/answer/7190) for a search."""
    terms = [f"from:{_term(s)}" for s in query.senders[:1]]
    terms += [_term(w) for w in query.words]
    if query.has_attachments:
        terms.append("has:attachment")
    if query.since is not None:
        terms.append(f"after:{query.since.astimezone(UTC).strftime('%Y/%m/%d')}")
    if query.until is not None:
        terms.append(f"before:{(query.until.astimezone(UTC) + timedelta(days=1)).strftime('%Y/%m/%d')}")
    terms.append("-in:drafts")
    return " ".join(t for t in terms if t)


def _term(word: str) -> str:
    return "".join(c for c in single_line(word) if c not in '"(){}:')


def _headers(payload: Mapping[str, Any]) -> dict[str, str]:
    return {str(h.get("name", "")).casefold(): str(h.get("value", "")) for h in payload.get("headers") or ()}


def _parts(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = [payload]
    for part in payload.get("parts") or ():
        found += _parts(part)
    return found


def _text(payload: Mapping[str, Any]) -> str:
    for part in _parts(payload):
        if part.get("mimeType") == "text/plain" and not part.get("filename"):
            data = str((part.get("body") or {}).get("data") or "")
            return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)).decode("utf-8", "replace")
    return ""


def message_of(data: Mapping[str, Any]) -> Message:
    payload = data.get("payload") or {}
    headers = _headers(payload)
    sender_name, sender = parseaddr(headers.get("from", ""))
    attachments = tuple(
        Attachment(
            id=str(part["body"]["attachmentId"]),
            name=str(part.get("filename")),
            size=int(part["body"].get("size") or 0),
            content_type=str(part.get("mimeType") or "application/octet-stream"),
        )
        for part in _parts(payload)
        if part.get("filename") and (part.get("body") or {}).get("attachmentId")
    )
    received = datetime.fromtimestamp(int(data.get("internalDate") or 0) / 1000, UTC)
    return Message(
        id=str(data["id"]),
        thread_id=str(data.get("threadId") or data["id"]),
        sender=sender,
        sender_name=sender_name,
        subject=headers.get("subject", ""),
        received=received,
        to=tuple(a for _, a in getaddresses([headers.get("to", "")]) if a),
        cc=tuple(a for _, a in getaddresses([headers.get("cc", "")]) if a),
        preview=first_lines(_text(payload) or str(data.get("snippet") or "")),
        internet_id=headers.get("message-id", ""),
        references=tuple(headers.get("references", "").split()),
        attachments=attachments,
        has_attachments=bool(attachments),
        version=str(data.get("historyId") or ""),
    )


def answer_mime(outgoing: Outgoing, sender: str | None, files: Sequence[tuple[Attachment, bytes]]) -> bytes:
    """The reply or forward as an RFC 5322 message, in the original's thread."""
    from multitool.ports.aws.dynamo_mailbox import quoted_body

    original = outgoing.original
    message = EmailMessage()
    if sender:
        message["From"] = sender
    message["To"] = ", ".join(outgoing.to)
    if outgoing.cc:
        message["Cc"] = ", ".join(outgoing.cc)
    message["Subject"] = single_line(answer_subject(outgoing.kind, original.subject))
    message["Date"] = format_datetime(datetime.now(UTC))
    refs = [r for r in original.references if r]
    if original.internet_id:
        refs.append(original.internet_id)
        if outgoing.kind != "forward":
            message["In-Reply-To"] = original.internet_id
    if refs:
        message["References"] = " ".join(dict.fromkeys(refs))
    message.set_content(multi_line(quoted_body(outgoing)))
    for attachment, content in files:
        maintype, _, subtype = attachment.content_type.partition("/")
        message.add_attachment(
            content, maintype=maintype, subtype=subtype or "octet-stream", filename=attachment.name
        )
    return message.as_bytes(policy=SMTP)
