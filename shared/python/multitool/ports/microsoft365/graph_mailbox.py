"""The mailbox port on Microsoft 365 (Graph v1.0): the user's own messages, answered in their thread.

Every request is one of the paths of ``multitool/local/standins/graph_openapi.json`` (built by
``scripts/graph_openapi_subset.py`` from Graph's own metadata) and carries
``Prefer: IdType="ImmutableId"``: an Outlook item's default id changes when it moves folder, and a
draft sent moves to Sent Items; the immutable id stays, so a retried confirm finds the draft it made
(https://learn.microsoft.com/graph/outlook-immutable-id).

- **Find**: ``GET /users/{me}/messages``. Words or a sender: ``$search`` (KQL ``from:``, the words,
  ``hasAttachments:true``, ``received>=``), which Graph answers newest first and which cannot be
  combined with ``$orderby`` or ``$filter`` (https://learn.microsoft.com/graph/search-query-parameter);
  else ``$filter`` on ``receivedDateTime``/``hasAttachments`` with ``$orderby=receivedDateTime desc``.
  Drafts are left out.
- **Read**: ``GET .../messages/{id}`` and its ``attachments`` (name, size, content type only).
- **Answer**: ``POST .../messages/{id}/createReply`` (``createReplyAll``, ``createForward``) makes the
  draft in the thread, with the text as ``Comment`` (Graph puts the quoted original under it) and the
  recipients as the card has them; a forward's attachments come with it, and those removed on the
  card are deleted from the draft (``DELETE .../messages/{draft}/attachments/{id}``). Then
  ``POST .../messages/{draft}/send``, which is not idempotent: without an answer it is outcome
  unknown, and the next confirm reads the draft (``isDraft``) before doing anything.

Scopes (delegated, least privileged for each call): ``Mail.ReadWrite`` to read and make drafts,
``Mail.Send`` to send them (https://learn.microsoft.com/graph/api/message-createreply,
https://learn.microsoft.com/graph/api/message-send).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from multitool.ports.mail import MailRejected
from multitool.ports.mailbox import (
    Attachment,
    DraftState,
    MailSearch,
    Message,
    Outgoing,
    SentAnswer,
    first_lines,
    newest_first,
)
from multitool.ports.microsoft365.graph_http import GraphHttp, recipient, user_path, values
from multitool.ports.tokens import ProviderRefused
from multitool.text import multi_line, single_line

MAILBOX_SCOPES = ("Mail.ReadWrite",)
SEND_SCOPES = ("Mail.Send",)
IMMUTABLE_IDS = {"Prefer": 'IdType="ImmutableId"'}
MESSAGE_FIELDS = (
    "id,conversationId,internetMessageId,subject,from,toRecipients,ccRecipients,receivedDateTime,"
    "bodyPreview,hasAttachments,changeKey,isDraft"
)
ATTACHMENT_FIELDS = "id,name,size,contentType"
MAX_ATTACHMENT_BYTES = 35_000_000
"""Exchange Online's default largest message a user sends (the organization may raise it to 150 MB):
https://learn.microsoft.com/office365/servicedescriptions/exchange-online-service-description/exchange-online-limits"""


class GraphMailbox:
    """:class:`~multitool.ports.mailbox.Mailbox` of the signed-in user's Exchange Online mailbox."""

    max_attachment_bytes = MAX_ATTACHMENT_BYTES

    def __init__(self, graph: GraphHttp) -> None:
        self._graph = graph

    def _me(self) -> str:
        if not self._graph.account.email:
            raise ProviderRefused(
                "microsoft365", "Microsoft 365 needs your verified email address to read your mail."
            )
        return user_path(self._graph.account.email)

    def search(self, query: MailSearch) -> Sequence[Message]:
        params = {"$select": MESSAGE_FIELDS, "$top": str(query.limit)}
        kql = _kql(query)
        if kql:
            params["$search"] = f'"{kql}"'
        else:
            clauses = []
            if query.since is not None:
                clauses.append(f"receivedDateTime ge {_instant(query.since)}")
            if query.until is not None:
                clauses.append(f"receivedDateTime lt {_instant(query.until)}")
            if query.has_attachments:
                clauses.append("hasAttachments eq true")
            if clauses:
                params["$filter"] = " and ".join(clauses)
            params["$orderby"] = "receivedDateTime desc"
        answer = self._graph.send(
            "GET",
            f"{self._me()}/messages",
            scopes=MAILBOX_SCOPES,
            query=params,
            headers=IMMUTABLE_IDS,
            what="searching your mail",
        )
        found = [_message(m) for m in values(answer.body) if not m.get("isDraft")]
        if kql:  # $search cannot be combined with $filter: the days are checked here
            found = [m for m in found if _within(m, query)]
        return newest_first(found)[: query.limit]

    def read(self, message_id: str) -> Message | None:
        answer = self._graph.get_item(
            f"{self._me()}/messages/{_segment(message_id)}",
            scopes=MAILBOX_SCOPES,
            query={"$select": MESSAGE_FIELDS},
            headers=IMMUTABLE_IDS,
            what="reading the message",
        )
        if answer is None:
            return None
        message = _message(answer.body)
        if not message.has_attachments:
            return message
        files = self._attachments(message_id)
        return Message(**{**_fields(message), "attachments": tuple(files)})

    def _attachments(self, message_id: str) -> list[Attachment]:
        answer = self._graph.send(
            "GET",
            f"{self._me()}/messages/{_segment(message_id)}/attachments",
            scopes=MAILBOX_SCOPES,
            query={"$select": ATTACHMENT_FIELDS},
            headers=IMMUTABLE_IDS,
            what="listing the message's attachments",
        )
        return [
            Attachment(
                id=str(a["id"]),
                name=str(a.get("name") or "attachment"),
                size=int(a.get("size") or 0),
                content_type=str(a.get("contentType") or "application/octet-stream"),
            )
            for a in values(answer.body)
        ]

    def create_draft(self, outgoing: Outgoing) -> str:
        action = {"reply": "createReply", "reply_all": "createReplyAll", "forward": "createForward"}[
            outgoing.kind
        ]
        message: dict[str, Any] = {}
        body: dict[str, Any] = {"Comment": multi_line(outgoing.body)}
        if outgoing.kind == "forward":
            body["ToRecipients"] = [recipient(a) for a in outgoing.to]
        else:
            message["toRecipients"] = [recipient(a) for a in outgoing.to]
        message["ccRecipients"] = [recipient(a) for a in outgoing.cc]
        body["Message"] = message
        answer = self._graph.send(
            "POST",
            f"{self._me()}/messages/{_segment(outgoing.original.id)}/{action}",
            scopes=MAILBOX_SCOPES,
            body=body,
            headers=IMMUTABLE_IDS,
            what="making the answer's draft",
            check="your Drafts",
        )
        draft_id = str(answer.body["id"])
        if outgoing.kind == "forward":
            self._drop_attachments(draft_id, outgoing)
        return draft_id

    def _drop_attachments(self, draft_id: str, outgoing: Outgoing) -> None:
        """The forward's copies of the attachments removed on the card (matched by name and size:
        the draft's attachments have ids of their own)."""
        kept = set(outgoing.keep_attachments)
        removed = {(a.name, a.size) for a in outgoing.original.attachments if a.id not in kept}
        if not removed:
            return
        for attachment in self._attachments(draft_id):
            if (attachment.name, attachment.size) in removed:
                self._graph.send(
                    "DELETE",
                    f"{self._me()}/messages/{_segment(draft_id)}/attachments/{_segment(attachment.id)}",
                    scopes=MAILBOX_SCOPES,
                    headers=IMMUTABLE_IDS,
                    what="removing an attachment from the forward",
                )

    def draft_state(self, draft_id: str) -> DraftState:
        answer = self._graph.get_item(
            f"{self._me()}/messages/{_segment(draft_id)}",
            scopes=MAILBOX_SCOPES,
            query={"$select": "id,isDraft"},
            headers=IMMUTABLE_IDS,
            what="reading the answer's draft",
        )
        if answer is None:
            return DraftState.GONE
        return DraftState.DRAFT if answer.body.get("isDraft") else DraftState.SENT

    def send_draft(self, draft_id: str) -> SentAnswer:
        try:
            answer = self._graph.send(
                "POST",
                f"{self._me()}/messages/{_segment(draft_id)}/send",
                scopes=SEND_SCOPES,
                headers=IMMUTABLE_IDS,
                what="sending the answer",
                check="your Sent Items",
            )
        except ProviderRefused as refused:
            raise MailRejected(str(refused), code="mail_rejected") from refused
        headers = {k.lower(): v for k, v in answer.headers.items()}
        return SentAnswer(message_id=headers.get("request-id") or draft_id)


def _kql(query: MailSearch) -> str:
    """The KQL of a search with words or a sender (https://learn.microsoft.com/graph/search-query-parameter)."""
    if not query.words and not query.senders:
        return ""
    terms = [f"from:{_kql_word(s)}" for s in query.senders[:1]]
    terms += [_kql_word(w) for w in query.words]
    if query.has_attachments:
        terms.append("hasAttachments:true")
    if query.since is not None:
        terms.append(f"received>={query.since.astimezone(UTC).date().isoformat()}")
    return " ".join(terms)


def _kql_word(word: str) -> str:
    return "".join(c for c in single_line(word) if c not in '"\\():')


def _instant(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _within(message: Message, query: MailSearch) -> bool:
    if query.since is not None and message.received < query.since:
        return False
    return query.until is None or message.received < query.until


def _segment(identifier: str) -> str:
    from urllib.parse import quote

    return quote(identifier, safe="")


def _address(value: Any) -> tuple[str, str]:
    email = value.get("emailAddress", {}) if isinstance(value, Mapping) else {}
    return str(email.get("address") or ""), str(email.get("name") or "")


def _message(data: Mapping[str, Any]) -> Message:
    sender, sender_name = _address(data.get("from"))
    received = datetime.fromisoformat(str(data.get("receivedDateTime")).replace("Z", "+00:00"))
    return Message(
        id=str(data["id"]),
        thread_id=str(data.get("conversationId") or data["id"]),
        sender=sender,
        sender_name=sender_name,
        subject=str(data.get("subject") or ""),
        received=received,
        to=tuple(a for a, _ in map(_address, data.get("toRecipients") or ()) if a),
        cc=tuple(a for a, _ in map(_address, data.get("ccRecipients") or ()) if a),
        preview=first_lines(str(data.get("bodyPreview") or "")),
        internet_id=str(data.get("internetMessageId") or ""),
        has_attachments=bool(data.get("hasAttachments")),
        version=str(data.get("changeKey") or ""),
    )


def _fields(message: Message) -> dict[str, Any]:
    return {name: getattr(message, name) for name in message.__struct_fields__}
