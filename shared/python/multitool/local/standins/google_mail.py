"""The stand-in Gmail's mailboxes: messages, threads, attachments and drafts, each user's own.

:class:`GmailBoxes` answers the Gmail methods the mailbox adapter calls
(:mod:`multitool.ports.google.gmail_mailbox`) for :class:`multitool.local.standins.google_server.FakeGoogle`,
which checks every request and answer against Gmail's discovery document first. Messages are kept as
their RFC 5322 bytes and shown as Gmail shows them (``format=full``: the headers and the MIME parts,
an attachment's bytes behind its ``attachmentId``). A draft sent becomes its message with the ``SENT``
label (the message keeps its id) and is delivered to every recipient the Workspace holds.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import SMTP
from email.policy import default as default_policy
from email.utils import format_datetime, getaddresses, parseaddr
from typing import Any

from multitool.ports.mailbox import seeded_mail


class GmailBoxes:
    def __init__(self, known: Callable[[str], bool]) -> None:
        self.messages: dict[str, dict[str, dict[str, Any]]] = {}
        self.drafts: dict[str, dict[str, str]] = {}
        self.attachments: dict[str, bytes] = {}
        self._known = known
        self._ids = itertools.count(1)

    def _id(self, prefix: str = "18d") -> str:
        return f"{prefix}{next(self._ids):013x}"

    # -- setting up ------------------------------------------------------------------------

    def add_message(
        self,
        owner: str,
        sender: str,
        subject: str,
        text: str,
        *,
        to: Sequence[str] = (),
        cc: Sequence[str] = (),
        received: datetime | None = None,
        thread: str | None = None,
        attachments: Iterable[tuple[str, str, bytes]] = (),
        sender_name: str = "",
        labels: Sequence[str] = ("INBOX",),
        answers: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A message in ``owner``'s mailbox (``attachments``: name, content type, bytes), in the thread
        of the message it ``answers`` (``In-Reply-To``, ``References``) when one is given."""
        message = EmailMessage()
        message["From"] = f"{sender_name} <{sender}>" if sender_name else sender
        message["To"] = ", ".join(to)
        if cc:
            message["Cc"] = ", ".join(cc)
        message["Subject"] = subject
        when = received or datetime.now(UTC)
        message["Date"] = format_datetime(when)
        identifier = self._id()
        message["Message-ID"] = f"<{identifier}@standin.example>"
        if answers is not None:
            earlier = message_from_bytes(answers["raw"], policy=default_policy)
            refs = [*str(earlier.get("References") or "").split(), str(earlier["Message-ID"])]
            message["In-Reply-To"] = str(earlier["Message-ID"])
            message["References"] = " ".join(refs)
            thread = thread or str(answers["threadId"])
        message.set_content(text)
        for name, kind, content in attachments:
            maintype, _, subtype = kind.partition("/")
            message.add_attachment(content, maintype=maintype, subtype=subtype, filename=name)
        return self._store(owner, identifier, message.as_bytes(policy=SMTP), thread, list(labels), when)

    def _store(
        self, owner: str, identifier: str, raw: bytes, thread: str | None, labels: list[str], when: datetime
    ) -> dict[str, Any]:
        stored = {
            "id": identifier,
            "threadId": thread or identifier,
            "labelIds": labels,
            "internalDate": str(int(when.timestamp() * 1000)),
            "historyId": str(next(self._ids)),
            "raw": raw,
        }
        self.messages.setdefault(owner.casefold(), {})[identifier] = stored
        return stored

    # -- answering ---------------------------------------------------------------------------

    def answer(
        self, method_id: str, user: str, path: Mapping[str, str], query: Mapping[str, str], body: Any
    ) -> tuple[int, Any]:
        if path.get("userId") not in ("me", user):
            return 403, "Delegation denied for " + user
        box = self.messages.setdefault(user, {})
        if method_id == "gmail.users.messages.list":
            found = [m for m in box.values() if _matches(m, query.get("q", ""))]
            found.sort(key=lambda m: int(m["internalDate"]), reverse=True)
            size = int(query.get("maxResults") or 100)
            shown = [{"id": m["id"], "threadId": m["threadId"]} for m in found[:size]]
            return 200, (
                {"messages": shown, "resultSizeEstimate": len(shown)} if shown else {"resultSizeEstimate": 0}
            )
        if method_id == "gmail.users.messages.get":
            message = box.get(path["id"])
            if message is None:
                return 404, "Requested entity was not found."
            return 200, self._resource(message, query.get("format", "full"))
        if method_id == "gmail.users.messages.attachments.get":
            content = self.attachments.get(path["id"])
            if content is None or path["messageId"] not in box:
                return 404, "Requested entity was not found."
            return 200, {"attachmentId": path["id"], "size": len(content), "data": _b64(content)}
        drafts = self.drafts.setdefault(user, {})
        if method_id == "gmail.users.drafts.create":
            return self._create_draft(user, drafts, body)
        if method_id == "gmail.users.drafts.get":
            message_id = drafts.get(path["id"])
            if message_id is None:
                return 404, "Requested entity was not found."
            return 200, {"id": path["id"], "message": self._resource(box[message_id], "minimal")}
        if method_id == "gmail.users.drafts.send":
            message_id = drafts.pop(str(body.get("id")), None)
            if message_id is None:
                return 400, "Invalid draft"  # Gmail's answer for a draft it no longer has
            return 200, self._send(user, box[message_id])
        return 501, f"Not served: {method_id}"

    def _create_draft(self, user: str, drafts: dict[str, str], body: Mapping[str, Any]) -> tuple[int, Any]:
        message = body.get("message") or {}
        raw = base64.urlsafe_b64decode(str(message.get("raw", "")) + "==")
        stored = self._store(user, self._id(), raw, message.get("threadId"), ["DRAFT"], datetime.now(UTC))
        draft_id = self._id("r-")
        drafts[draft_id] = stored["id"]
        return 200, {
            "id": draft_id,
            "message": {"id": stored["id"], "threadId": stored["threadId"], "labelIds": ["DRAFT"]},
        }

    def _send(self, user: str, message: dict[str, Any]) -> dict[str, Any]:
        message["labelIds"] = ["SENT"]
        parsed = message_from_bytes(message["raw"], policy=default_policy)
        recipients = getaddresses([str(parsed.get("To") or ""), str(parsed.get("Cc") or "")])
        for _, address in recipients:
            if address and self._known(address.casefold()) and address.casefold() != user:
                self._store(address, self._id(), message["raw"], None, ["INBOX"], datetime.now(UTC))
        return {"id": message["id"], "threadId": message["threadId"], "labelIds": ["SENT"]}

    def sent_by(self, owner: str) -> list[dict[str, Any]]:
        """``owner``'s sent messages, parsed (the tests read what went out)."""
        return [
            {**m, "parsed": message_from_bytes(m["raw"], policy=default_policy)}
            for m in self.messages.get(owner.casefold(), {}).values()
            if "SENT" in m["labelIds"]
        ]

    def _resource(self, message: Mapping[str, Any], fmt: str) -> dict[str, Any]:
        shown = {k: v for k, v in message.items() if k != "raw"}
        parsed = message_from_bytes(message["raw"], policy=default_policy)
        text = parsed.get_body(("plain",))
        shown["snippet"] = (text.get_content() if text is not None else "")[:200]
        shown["sizeEstimate"] = len(message["raw"])
        if fmt in ("full", "metadata"):
            shown["payload"] = self._part(parsed, message["id"], "")
        return shown

    def _part(self, part: Any, message_id: str, part_id: str) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "partId": part_id,
            "mimeType": part.get_content_type(),
            "filename": part.get_filename() or "",
            "headers": [{"name": k, "value": str(v)} for k, v in part.items()],
        }
        if part.is_multipart():
            shown["body"] = {"size": 0}
            shown["parts"] = [
                self._part(p, message_id, f"{part_id}.{n}" if part_id else str(n))
                for n, p in enumerate(part.iter_parts())
            ]
            return shown
        content = part.get_payload(decode=True) or b""
        if part.get_filename():
            attachment_id = f"att-{message_id}-{part_id or '0'}"
            self.attachments[attachment_id] = content
            shown["body"] = {"attachmentId": attachment_id, "size": len(content)}
        else:
            shown["body"] = {"size": len(content), "data": _b64(content)}
        return shown


def _b64(content: bytes) -> str:
    return base64.urlsafe_b64encode(content).decode("ascii").rstrip("=")


def _matches(message: Mapping[str, Any], q: str) -> bool:
    parsed = message_from_bytes(message["raw"], policy=default_policy)
    body = parsed.get_body(("plain",))
    text = f"{parsed.get('Subject', '')} {body.get_content() if body is not None else ''}".casefold()
    when = datetime.fromtimestamp(int(message["internalDate"]) / 1000, UTC).strftime("%Y/%m/%d")
    for term in q.split():
        if term == "-in:drafts":
            if "DRAFT" in message["labelIds"]:
                return False
        elif term.startswith("from:"):
            if parseaddr(str(parsed.get("From", "")))[1].casefold() != term[5:].casefold():
                return False
        elif term == "has:attachment":
            if not any(p.get_filename() for p in parsed.walk()):
                return False
        elif term.startswith("after:"):
            if when < term[6:]:
                return False
        elif term.startswith("before:"):
            if when >= term[7:]:
                return False
        elif term.casefold() not in text:
            return False
    return True


def seed_gmail(boxes: GmailBoxes, messages: Sequence[Mapping[str, Any]], now: datetime) -> None:
    """``seed.json``'s ``mail`` in each sender's and recipient's Gmail, threaded as seeded."""
    threads: dict[tuple[str, str], dict[str, Any]] = {}
    for seeded in seeded_mail(messages, now):
        thread = seeded.thread or str(seeded.index)
        for owner in seeded.owners:
            if not boxes._known(owner):
                continue
            stored = boxes.add_message(
                owner,
                seeded.sender,
                seeded.subject,
                seeded.body,
                to=list(seeded.to),
                cc=list(seeded.cc),
                received=seeded.received,
                attachments=seeded.files,
                sender_name=seeded.sender_name,
                labels=("SENT",) if owner == seeded.sender.casefold() else ("INBOX",),
                answers=threads.get((owner, thread)),
            )
            threads[(owner, thread)] = stored
