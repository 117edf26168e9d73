"""The stand-in Graph's mailboxes: messages, threads (``conversationId``), attachments and drafts.

:class:`GraphMail` answers the ``/users/{user-id}/messages...`` paths for
:class:`multitool.local.standins.graph_state.GraphState` (which checks every request and answer
against Graph's description first). Ids are immutable (the adapter asks for
``Prefer: IdType="ImmutableId"``, and the stand-in refuses a mailbox request without it): a draft
sent keeps its id and turns ``isDraft: false``. A sent answer is delivered to every recipient the
organization holds, in the same conversation, attachments and all.
"""

from __future__ import annotations

import base64
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from multitool.ports.mailbox import seeded_mail

_SEARCH = re.compile(r'^"(?P<kql>[^"]*)"$')
_RECEIVED = re.compile(r"receivedDateTime (ge|lt) (\S+)")
IMMUTABLE = 'IdType="ImmutableId"'


class GraphMail:
    def __init__(
        self, known: Callable[[str], bool], on_sent: Callable[[str, Mapping[str, Any]], None] | None = None
    ) -> None:
        self.boxes: dict[str, list[dict[str, Any]]] = {}
        self._known = known
        self._on_sent = on_sent
        self._ids = itertools.count(1)

    # -- setting up ------------------------------------------------------------------------

    def add_message(
        self,
        mailbox: str,
        sender: str,
        subject: str,
        body: str,
        *,
        to: Sequence[str] = (),
        cc: Sequence[str] = (),
        received: datetime | None = None,
        conversation: str | None = None,
        attachments: Sequence[tuple[str, str, bytes]] = (),
        sender_name: str = "",
    ) -> dict[str, Any]:
        """A message in ``mailbox`` (``attachments``: name, content type, bytes)."""
        identifier = self._id()
        message = {
            "id": identifier,
            "conversationId": conversation or f"conv-{identifier}",
            "internetMessageId": f"<{identifier}@standin.example>",
            "subject": subject,
            "from": _recipient(sender, sender_name),
            "toRecipients": [_recipient(a) for a in to],
            "ccRecipients": [_recipient(a) for a in cc],
            "receivedDateTime": _instant(received or datetime.now(UTC)),
            "body": {"contentType": "text", "content": body},
            "bodyPreview": body[:255],
            "hasAttachments": bool(attachments),
            "changeKey": f"ck-{identifier}",
            "isDraft": False,
            "attachments": [
                {
                    "@odata.type": "#microsoft.graph.fileAttachment",
                    "id": f"{identifier}-att{n}",
                    "name": name,
                    "contentType": kind,
                    "size": len(content),
                    "contentBytes": base64.b64encode(content).decode(),
                }
                for n, (name, kind, content) in enumerate(attachments)
            ],
        }
        self.boxes.setdefault(mailbox.casefold(), []).append(message)
        return message

    def _id(self) -> str:
        return f"AAkALgImmutable{next(self._ids):05d}="

    # -- answering -------------------------------------------------------------------------

    def handles(self, template: str) -> bool:
        return template.startswith("/users/{user-id}/messages")

    def answer(
        self,
        method: str,
        template: str,
        params: Mapping[str, str],
        query: Mapping[str, str],
        data: Any,
        headers: Mapping[str, str],
    ) -> tuple[int, dict[str, str], Any]:
        if IMMUTABLE not in {k.lower(): v for k, v in headers.items()}.get("prefer", ""):
            return 400, {}, _error("BadRequest", "The stand-in serves immutable ids only (Prefer: IdType).")
        box = self.boxes.setdefault(params["user-id"].casefold(), [])
        if template == "/users/{user-id}/messages":
            return self._list(box, query)
        found = next((m for m in box if m["id"] == params.get("message-id")), None)
        if found is None:
            return 404, {}, _error("ErrorItemNotFound", "The specified object was not found in the store.")
        action = template.rsplit("/", 1)[-1]
        if template == "/users/{user-id}/messages/{message-id}":
            return 200, {}, _shown(found, query)
        if action == "attachments":
            return 200, {}, {"value": [_selected(a, query) for a in found["attachments"]]}
        if template.endswith("/attachments/{attachment-id}"):
            kept = [a for a in found["attachments"] if a["id"] != params["attachment-id"]]
            if len(kept) == len(found["attachments"]):
                return 404, {}, _error("ErrorItemNotFound", "The attachment was not found.")
            found["attachments"] = kept
            found["hasAttachments"] = bool(kept)
            return 204, {}, None
        if action in ("createReply", "createReplyAll", "createForward"):
            return 201, {}, _shown(self._draft(box, found, action, params["user-id"], data or {}), {})
        if action == "send":
            if not found["isDraft"]:
                return 400, {}, _error("ErrorInvalidOperation", "The message was already sent.")
            self._send(params["user-id"], found)
            return 202, {"request-id": f"req-{found['id']}"}, None
        return 501, {}, _error("NotImplemented", f"{method} {template}")

    def _list(self, box: list[dict[str, Any]], query: Mapping[str, str]) -> tuple[int, dict[str, str], Any]:
        found = list(box)
        search = query.get("$search")
        if search is not None:
            if "$filter" in query or "$orderby" in query:
                return (
                    400,
                    {},
                    _error("ErrorInvalidUrlQuery", "$search cannot be combined with $filter or $orderby."),
                )
            match = _SEARCH.match(search)
            if match is None:
                return 400, {}, _error("BadRequest", "The $search value must be in double quotes.")
            found = [m for m in found if _matches(m, match.group("kql"))]
        for op, value in _RECEIVED.findall(query.get("$filter", "")):
            found = [m for m in found if (m["receivedDateTime"] >= value) == (op == "ge")]
        if "hasAttachments eq true" in query.get("$filter", ""):
            found = [m for m in found if m["hasAttachments"]]
        found.sort(key=lambda m: m["receivedDateTime"], reverse=True)
        top = int(query.get("$top", "10"))
        return 200, {}, {"value": [_shown(m, query) for m in found[:top]]}

    def _draft(
        self,
        box: list[dict[str, Any]],
        original: dict[str, Any],
        action: str,
        owner: str,
        data: Mapping[str, Any],
    ) -> dict[str, Any]:
        sender = original["from"]
        everyone = [*original["toRecipients"], *original["ccRecipients"]]
        to = [sender] if action != "createForward" else list(data.get("ToRecipients") or [])
        cc = [r for r in everyone if _address(r) != owner.casefold()] if action == "createReplyAll" else []
        message = data.get("Message") or {}
        prefix = "FW: " if action == "createForward" else "RE: "
        identifier = self._id()
        draft = {
            **original,
            "id": identifier,
            "subject": prefix + original["subject"],
            "from": _recipient(owner),
            "toRecipients": message.get("toRecipients", to),
            "ccRecipients": message.get("ccRecipients", cc),
            "receivedDateTime": _instant(datetime.now(UTC)),
            "body": {
                "contentType": "text",
                "content": f"{data.get('Comment') or ''}\n\n-----\n{original['body']['content']}",
            },
            "isDraft": True,
            "changeKey": f"ck-{identifier}",
            "inReplyTo": original["internetMessageId"] if action != "createForward" else None,
            "internetMessageId": f"<{identifier}@standin.example>",
            "attachments": [
                {**a, "id": f"{identifier}-att{n}"}
                for n, a in enumerate(original["attachments"] if action == "createForward" else [])
            ],
        }
        draft["hasAttachments"] = bool(draft["attachments"])
        box.append(draft)
        return draft

    def _send(self, owner: str, draft: dict[str, Any]) -> None:
        draft["isDraft"] = False
        draft["sentDateTime"] = _instant(datetime.now(UTC))
        if self._on_sent is not None:
            self._on_sent(owner, draft)
        for recipient in [*draft["toRecipients"], *draft["ccRecipients"]]:
            address = _address(recipient)
            if self._known(address):
                copy = {**draft, "id": self._id(), "attachments": [dict(a) for a in draft["attachments"]]}
                self.boxes.setdefault(address, []).append(copy)

    def sent_by(self, owner: str) -> list[dict[str, Any]]:
        return [m for m in self.boxes.get(owner.casefold(), []) if "sentDateTime" in m]


def _matches(message: Mapping[str, Any], kql: str) -> bool:
    text = f"{message['subject']} {message['body']['content']}".casefold()
    for term in kql.split():
        key, _, value = term.partition(":")
        if value and key == "from":
            if _address(message["from"]) != value.casefold():
                return False
        elif value and key == "hasAttachments":
            if not message["hasAttachments"]:
                return False
        elif term.startswith("received>="):
            if message["receivedDateTime"][:10] < term.removeprefix("received>="):
                return False
        elif term.casefold() not in text:
            return False
    return True


_PRIVATE = frozenset({"attachments", "inReplyTo", "body"})


def _shown(message: Mapping[str, Any], query: Mapping[str, str]) -> dict[str, Any]:
    public = {k: v for k, v in message.items() if k not in _PRIVATE}
    return _selected(public, query)


def _selected(item: Mapping[str, Any], query: Mapping[str, str]) -> dict[str, Any]:
    fields = query["$select"].split(",") if "$select" in query else None
    return {k: item.get(k) for k in fields} if fields else dict(item)


def _address(recipient: Mapping[str, Any]) -> str:
    return str(recipient.get("emailAddress", {}).get("address", "")).casefold()


def _recipient(address: str, name: str = "") -> dict[str, Any]:
    shown: dict[str, Any] = {"address": address}
    if name:
        shown["name"] = name
    return {"emailAddress": shown}


def _instant(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "innerError": {"request-id": "0"}}}


def seed_graph_mail(mail: GraphMail, messages: Sequence[Mapping[str, Any]], now: datetime) -> None:
    """``seed.json``'s ``mail`` in each sender's and recipient's mailbox, one conversation per thread."""
    for seeded in seeded_mail(messages, now):
        for owner in seeded.owners:
            if mail._known(owner):
                mail.add_message(
                    owner,
                    seeded.sender,
                    seeded.subject,
                    seeded.body,
                    to=list(seeded.to),
                    cc=list(seeded.cc),
                    received=seeded.received,
                    conversation=f"conv-{seeded.thread or seeded.index}",
                    attachments=seeded.files,
                    sender_name=seeded.sender_name,
                )
