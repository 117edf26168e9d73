"""The builtin mailbox: the mail this system delivered to and sent for each directory user, in DynamoDB.

The builtin suite has no mail server: SES only sends. So that a builtin user can answer mail as on
Microsoft 365 and Google, the system keeps its own mailbox (:data:`multitool.ports.tables.MAILBOX`):
every reply and forward it sends is kept in the sender's box (``sent``) and in each recipient's
(``inbox``); the local demo seeds a few messages (``seed.json``'s ``mail``). Receiving mail from
outside (SES email receiving at the stack's domain) is not built: docs/deploy.md says where and what
it would cost.

Table layout (keys ``pk``/``sk``), one partition per address (case-folded), so a user's search is
ONE ``Query``, newest first:

- ``pk="BOX#<address>"``, ``sk="MSG#<id>"``: a message; the id starts with its UTC receive time
  (``20261203T091500Z-<hex>``), so the sort key orders the box by time. Attachments are kept in the
  item (``files``: name, type, bytes): the builtin limit is :data:`MAX_ATTACHMENT_BYTES` in all.
- ``pk="BOX#<address>"``, ``sk="DRAFT#<draft id>"``: an answer the confirm made (its MIME message and
  state ``draft`` -> ``sending`` -> ``sent``). ``sending`` is written in the same conditional update
  that claims the send, BEFORE SES is called: a confirm that finds it and no ``sent`` knows the send
  may have gone out and sends nothing (:attr:`DraftState.UNKNOWN`).

A reply is sent as raw MIME through SES (``In-Reply-To`` and ``References`` naming the original's
``Message-ID``, the forwarded attachments as parts), from the deployment's sender identity with the
user's name and ``Reply-To``, as every builtin mail is.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime
from typing import TYPE_CHECKING, Any

from multitool.ports.mail import MailOutcomeUnknown, MailRejected
from multitool.ports.mailbox import (
    Attachment,
    DraftState,
    MailSearch,
    Message,
    Outgoing,
    SentAnswer,
    answer_subject,
    first_lines,
    seeded_mail,
)
from multitool.text import multi_line, single_line

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

    from multitool.ports.aws.ses_mail import SesMailer

BOX_PREFIX = "BOX#"
MESSAGE_PREFIX = "MSG#"
DRAFT_PREFIX = "DRAFT#"
MAX_ATTACHMENT_BYTES = 300_000
"""All of a builtin message's attachments together: they live in its item, and a DynamoDB item holds
at most 400 KB (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html)."""
QUERY_PAGE = 100
ID_DOMAIN = "multitool.invalid"


def box_key(address: str) -> str:
    return f"{BOX_PREFIX}{address.strip().casefold()}"


def message_id(received: datetime, salt: str | None = None) -> str:
    stamp = received.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{salt or secrets.token_hex(4)}"


class StoredFile(Attachment, frozen=True):
    """An attachment with its bytes, as the builtin mailbox keeps it."""

    content: bytes = b""


class DynamoMailbox:
    """:class:`~multitool.ports.mailbox.Mailbox` of one address in the builtin mailbox table."""

    def __init__(
        self,
        table_name: str,
        client: DynamoDBClient,
        owner: str,
        *,
        ses: Callable[[], SesMailer] | None = None,
        clock: Any = None,
    ) -> None:
        self._table = table_name
        self._client = client
        self._owner = owner
        self._ses = ses
        self._clock = clock or (lambda: datetime.now(UTC))

    @property
    def owner(self) -> str:
        return self._owner

    # -- reads ---------------------------------------------------------------------------

    def search(self, query: MailSearch) -> Sequence[Message]:
        condition = "pk = :pk AND begins_with(sk, :msg)"
        values: dict[str, Any] = {":pk": {"S": box_key(self.owner)}, ":msg": {"S": MESSAGE_PREFIX}}
        if query.since is not None or query.until is not None:
            low = query.since or datetime(1970, 1, 1, tzinfo=UTC)
            high = query.until or datetime(9999, 1, 1, tzinfo=UTC)
            condition = "pk = :pk AND sk BETWEEN :low AND :high"
            values = {
                ":pk": values[":pk"],
                ":low": {"S": MESSAGE_PREFIX + message_id(low, "")},
                ":high": {"S": MESSAGE_PREFIX + message_id(high, "~")},
            }
        response = self._client.query(
            TableName=self._table,
            KeyConditionExpression=condition,
            ExpressionAttributeValues=values,
            ScanIndexForward=False,
            Limit=QUERY_PAGE,
            ProjectionExpression="id, threadId, sender, senderName, recipients, copied, subject, received, "
            "body, internetId, refs, files, folder",
        )
        found = [_message(item, with_files=False) for item in response.get("Items", [])]
        return [m for m in found if _fits(m, query)][: query.limit]

    def read(self, message_id: str) -> Message | None:
        item = self._item(MESSAGE_PREFIX + message_id)
        return _message(item, with_files=False) if item else None

    def _files(self, message_id: str) -> list[StoredFile]:
        item = self._item(MESSAGE_PREFIX + message_id)
        return _files(item) if item else []

    def _item(self, sort_key: str) -> Mapping[str, Any] | None:
        response = self._client.get_item(
            TableName=self._table,
            Key={"pk": {"S": box_key(self.owner)}, "sk": {"S": sort_key}},
            ConsistentRead=True,
        )
        return response.get("Item")

    # -- the answer: a draft, then its one send -------------------------------------------

    def create_draft(self, outgoing: Outgoing) -> str:
        draft_id = outgoing.key or secrets.token_hex(8)
        existing = self._item(DRAFT_PREFIX + draft_id)
        if existing is not None:
            return draft_id  # made by an earlier try of this confirm: the same draft
        files = self._forwarded(outgoing)
        internet_id = f"<{draft_id}@{ID_DOMAIN}>"
        mime = answer_mime(outgoing, self._sender(), internet_id, files, self._clock())
        self._client.put_item(
            TableName=self._table,
            Item={
                "pk": {"S": box_key(self.owner)},
                "sk": {"S": DRAFT_PREFIX + draft_id},
                "state": {"S": DraftState.DRAFT.value},
                "mime": {"B": mime},
                "to": {"L": [{"S": a} for a in outgoing.to]},
                "cc": {"L": [{"S": a} for a in outgoing.cc]},
                "subject": {"S": answer_subject(outgoing.kind, outgoing.original.subject)},
                "body": {"S": outgoing.body},
                "threadId": {"S": outgoing.original.thread_id},
                "internetId": {"S": internet_id},
                "refs": {"L": [{"S": r} for r in _references(outgoing.original)]},
                "files": {"L": [_file_item(f) for f in files]},
            },
            ConditionExpression="attribute_not_exists(pk)",
        )
        return draft_id

    def draft_state(self, draft_id: str) -> DraftState:
        item = self._item(DRAFT_PREFIX + draft_id)
        if item is None:
            return DraftState.GONE
        return DraftState(item["state"]["S"])

    def send_draft(self, draft_id: str) -> SentAnswer:
        item = self._item(DRAFT_PREFIX + draft_id)
        if item is None:
            raise MailRejected("The answer's draft is gone; nothing was sent.", code="mail_rejected")
        key = {"pk": {"S": box_key(self.owner)}, "sk": {"S": DRAFT_PREFIX + draft_id}}
        # Claim the send before SES is called: a confirm that finds "sending" sends nothing again.
        try:
            self._client.update_item(
                TableName=self._table,
                Key=key,
                UpdateExpression="SET #state = :sending",
                ConditionExpression="#state = :draft",
                ExpressionAttributeNames={"#state": "state"},
                ExpressionAttributeValues={":sending": {"S": "sending"}, ":draft": {"S": "draft"}},
            )
        except self._client.exceptions.ConditionalCheckFailedException:
            state = self.draft_state(draft_id)
            if state is DraftState.SENT:
                done = self._item(DRAFT_PREFIX + draft_id) or {}
                return SentAnswer(message_id=done.get("sentId", {}).get("S", draft_id))
            raise _unknown() from None
        to = tuple(v["S"] for v in item["to"]["L"])
        cc = tuple(v["S"] for v in item["cc"]["L"])
        sent = self._sender_port().send_raw(bytes(item["mime"]["B"]), to, cc)
        self._client.update_item(
            TableName=self._table,
            Key=key,
            UpdateExpression="SET #state = :sent, sentId = :id",
            ExpressionAttributeNames={"#state": "state"},
            ExpressionAttributeValues={":sent": {"S": "sent"}, ":id": {"S": sent.message_id}},
        )
        self._keep(item, to, cc)
        return SentAnswer(message_id=sent.message_id)

    # -- helpers ---------------------------------------------------------------------------

    def _sender_port(self) -> SesMailer:
        if self._ses is None:
            raise MailRejected("This function sends no mail.", code="mail_rejected")
        return self._ses()

    def _sender(self) -> str:
        return self._sender_port().sender

    def _forwarded(self, outgoing: Outgoing) -> list[StoredFile]:
        if outgoing.kind != "forward" or not outgoing.keep_attachments:
            return []
        wanted = set(outgoing.keep_attachments)
        return [f for f in self._files(outgoing.original.id) if f.id in wanted]

    def _keep(self, draft: Mapping[str, Any], to: Sequence[str], cc: Sequence[str]) -> None:
        """The sent answer, in the sender's box and in every recipient's: the builtin's delivery."""
        now = self._clock()
        base: dict[str, Any] = {
            "threadId": draft["threadId"],
            "sender": {"S": self.owner},
            "recipients": {"L": [{"S": a} for a in to]},
            "copied": {"L": [{"S": a} for a in cc]},
            "subject": draft["subject"],
            "received": {"S": now.astimezone(UTC).isoformat()},
            "body": draft["body"],
            "internetId": draft["internetId"],
            "refs": draft["refs"],
            "files": draft["files"],
        }
        identifier = message_id(now)
        boxes = {self.owner.casefold(): "sent"}
        for address in (*to, *cc):
            boxes.setdefault(address.casefold(), "inbox")
        for address, folder in boxes.items():
            self._client.put_item(
                TableName=self._table,
                Item={
                    "pk": {"S": box_key(address)},
                    "sk": {"S": MESSAGE_PREFIX + identifier},
                    "id": {"S": identifier},
                    "folder": {"S": folder},
                    **base,
                },
            )


def _unknown() -> MailOutcomeUnknown:
    return MailOutcomeUnknown(
        "An earlier confirm handed this answer to SES and got no answer: it may have gone out. "
        "Look in your sent mail before asking for it again; it is not sent twice.",
        code="mail_outcome_unknown",
    )


def _references(original: Message) -> list[str]:
    refs = [r for r in original.references if r]
    if original.internet_id and original.internet_id not in refs:
        refs.append(original.internet_id)
    return refs


def answer_mime(
    outgoing: Outgoing, sender: str, internet_id: str, files: Sequence[StoredFile], now: datetime
) -> bytes:
    """The answer as one RFC 5322 message, in the original's thread (RFC 5322 3.6.4: ``In-Reply-To``
    is the original's ``Message-ID``, ``References`` the original's references and it)."""
    message = EmailMessage()
    message["From"] = Address(display_name=outgoing.from_name or "", addr_spec=sender)
    message["To"] = ", ".join(outgoing.to)
    if outgoing.cc:
        message["Cc"] = ", ".join(outgoing.cc)
    if outgoing.reply_to:
        message["Reply-To"] = ", ".join(outgoing.reply_to)
    message["Subject"] = single_line(answer_subject(outgoing.kind, outgoing.original.subject))
    message["Date"] = format_datetime(now.astimezone(UTC))
    message["Message-ID"] = internet_id
    refs = _references(outgoing.original)
    if outgoing.kind != "forward" and outgoing.original.internet_id:
        message["In-Reply-To"] = outgoing.original.internet_id
    if refs:
        message["References"] = " ".join(refs)
    message.set_content(quoted_body(outgoing))
    for f in files:
        maintype, _, subtype = f.content_type.partition("/")
        message.add_attachment(
            f.content, maintype=maintype, subtype=subtype or "octet-stream", filename=f.name
        )
    return message.as_bytes(policy=SMTP)


def quoted_body(outgoing: Outgoing) -> str:
    """The text with the original under it: quoted for a reply, as a forwarded block for a forward."""
    original = outgoing.original
    when = format_datetime(original.received.astimezone(UTC))
    who = f"{original.sender_name} <{original.sender}>" if original.sender_name else original.sender
    text = multi_line(outgoing.body)
    if outgoing.kind == "forward":
        header = (
            f"---------- Forwarded message ---------\nFrom: {who}\nDate: {when}\n"
            f"Subject: {original.subject}\nTo: {', '.join(original.to)}"
        )
        return f"{text}\n\n{header}\n\n{original.preview}\n"
    quoted = "\n".join(f"> {line}" for line in original.preview.splitlines())
    return f"{text}\n\nOn {when}, {who} wrote:\n{quoted}\n"


def _fits(message: Message, query: MailSearch) -> bool:
    if query.senders and message.sender.casefold() not in {s.casefold() for s in query.senders}:
        return False
    return not (query.has_attachments and not message.attachments)


def _message(item: Mapping[str, Any], *, with_files: bool) -> Message:
    files = _files(item)
    body = item.get("body", {}).get("S", "")
    return Message(
        id=item["id"]["S"],
        thread_id=item.get("threadId", {}).get("S", item["id"]["S"]),
        sender=item["sender"]["S"],
        sender_name=item.get("senderName", {}).get("S", ""),
        to=tuple(v["S"] for v in item.get("recipients", {}).get("L", [])),
        cc=tuple(v["S"] for v in item.get("copied", {}).get("L", [])),
        subject=item.get("subject", {}).get("S", ""),
        received=datetime.fromisoformat(item["received"]["S"]),
        preview=first_lines(body),
        internet_id=item.get("internetId", {}).get("S", ""),
        references=tuple(v["S"] for v in item.get("refs", {}).get("L", [])),
        attachments=tuple(Attachment(f.id, f.name, f.size, f.content_type) for f in files),
        has_attachments=bool(files),
    )


def _files(item: Mapping[str, Any]) -> list[StoredFile]:
    found = []
    for entry in item.get("files", {}).get("L", []):
        m = entry["M"]
        content = bytes(m.get("content", {}).get("B", b""))
        found.append(
            StoredFile(
                id=m["id"]["S"],
                name=m["name"]["S"],
                size=int(m.get("size", {}).get("N", len(content))),
                content_type=m.get("type", {}).get("S", "application/octet-stream"),
                content=content,
            )
        )
    return found


def _file_item(f: StoredFile) -> dict[str, Any]:
    return {
        "M": {
            "id": {"S": f.id},
            "name": {"S": f.name},
            "size": {"N": str(f.size)},
            "type": {"S": f.content_type},
            "content": {"B": f.content},
        }
    }


def seed_mail(
    client: DynamoDBClient, table_name: str, messages: Iterable[Mapping[str, Any]], now: datetime
) -> int:
    """Deliver seeded messages (``seed.json``'s ``mail``, each as
    :func:`multitool.ports.mailbox.seeded_mail` reads it, as the stand-in Graph and Gmail do) into
    their sender's and recipients' boxes. Idempotent: ids are derived from the seed."""
    written = 0
    threads: dict[str, list[str]] = {}
    for seeded in seeded_mail(messages, now.replace(microsecond=0)):
        index, received = seeded.index, seeded.received
        identifier = message_id(received, f"seed{index:03d}")
        thread = seeded.thread or identifier
        internet_id = f"<seed{index:03d}.{thread}@{ID_DOMAIN}>"
        refs = list(threads.get(thread, []))
        threads.setdefault(thread, []).append(internet_id)
        files = [
            StoredFile(id=f"a{n}", name=name, size=len(content), content_type=kind, content=content)
            for n, (name, kind, content) in enumerate(seeded.files)
        ]
        if sum(f.size for f in files) > MAX_ATTACHMENT_BYTES:
            raise ValueError(f"Seeded message {index}'s attachments are over {MAX_ATTACHMENT_BYTES} bytes")
        to, cc, sender = seeded.to, seeded.cc, seeded.sender
        base: dict[str, Any] = {
            "id": {"S": identifier},
            "threadId": {"S": thread},
            "sender": {"S": sender},
            "senderName": {"S": seeded.sender_name},
            "recipients": {"L": [{"S": a} for a in to]},
            "copied": {"L": [{"S": a} for a in cc]},
            "subject": {"S": seeded.subject},
            "received": {"S": received.astimezone(UTC).isoformat()},
            "body": {"S": seeded.body},
            "internetId": {"S": internet_id},
            "refs": {"L": [{"S": r} for r in refs]},
            "files": {"L": [_file_item(f) for f in files]},
        }
        boxes = {sender.casefold(): "sent"}
        for address in (*to, *cc):
            boxes.setdefault(address.casefold(), "inbox")
        for address, folder in boxes.items():
            client.put_item(
                TableName=table_name,
                Item={
                    "pk": {"S": box_key(address)},
                    "sk": {"S": MESSAGE_PREFIX + identifier},
                    "folder": {"S": folder},
                    **base,
                },
            )
            written += 1
    return written
