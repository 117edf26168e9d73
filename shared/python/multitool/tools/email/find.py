"""The message finder: "Priya's last email about the budget", "the invoice from Mei", found in the
caller's OWN mailbox (:meth:`multitool.toolkit.context.ToolPorts.mailbox`), newest first.

One mailbox search per turn: a lone reference searches with its hints (the sender, the subject
words, the days, "with attachments"), which the provider narrows itself (Graph ``$search``, Gmail
``q``, the builtin's one ``Query``); several references of one turn share one search over their days,
and each is ranked over its answer (:func:`multitool.toolkit.references.rank`). "last", "latest"
and "most recent" pick the newest message that fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, time, timedelta

from multitool.ports.mailbox import Mailbox, MailSearch, Message
from multitool.toolkit.errors import InvalidInput
from multitool.toolkit.references import (
    FindContext,
    Item,
    ItemRef,
    ItemResolution,
    rank,
    resolution,
    words_of,
)

NEWEST_WORDS = frozenset({"last", "latest", "newest", "recent"})
ATTACHMENT_WORDS = frozenset({"attachment", "attachments", "attached", "invoice", "pdf", "file"})
SHARED_SEARCH_LIMIT = 50


def message_item(message: Message) -> Item:
    """A message as a card shows it (sender, subject, date, first lines, attachments)."""
    who = message.sender_name or message.sender
    day = message.received.strftime("%b %d").replace(" 0", " ")
    return Item(
        kind="message",
        id=message.id,
        label=f"{who}: {message.subject or '(no subject)'} ({day})",
        version=message.version,
        fields={
            "sender": message.sender,
            "senderName": message.sender_name,
            "subject": message.subject,
            "received": message.received.isoformat(),
            "preview": message.preview,
            "to": list(message.to),
            "cc": list(message.cc),
            "threadId": message.thread_id,
            "hasAttachments": message.has_attachments or bool(message.attachments),
            "attachments": [
                {"id": a.id, "name": a.name, "size": a.size, "contentType": a.content_type}
                for a in message.attachments
            ],
        },
    )


def _search_of(ref: ItemRef, reads: FindContext, senders: Sequence[str]) -> MailSearch:
    zone = reads.ctx.zone
    days = ref.days
    since = datetime.combine(days[0], time.min, zone) if days else None
    until = datetime.combine(days[1] + timedelta(days=1), time.min, zone) if days else None
    said = words_of(ref.said)
    return MailSearch(
        senders=tuple(senders),
        words=tuple(ref.words),
        since=since,
        until=until,
        has_attachments=bool(said & {"attachment", "attachments", "attached"}),
    )


def _emails(ref: ItemRef, reads: FindContext) -> list[str]:
    found = []
    for name in ref.people:
        resolved = reads.people.get(name)
        if resolved is not None and resolved.person is not None:
            found.append(resolved.person.email)
        elif "@" in name:
            found.append(name)
    return found


def _ranked(messages: Sequence[Message], ref: ItemRef, emails: Sequence[str]) -> list[Item]:
    items = {m.id: message_item(m) for m in messages}
    by_id = {m.id: m for m in messages}
    ordered = rank(
        items.values(),
        ref,
        lambda item: (
            f"{item.fields['subject']} {item.fields['preview']} "
            + " ".join(a["name"] for a in item.fields["attachments"])
        ),
        people=lambda item: (by_id[item.id].sender,) if emails else (),
        emails=emails,
        newest=lambda item: by_id[item.id].received,
    )
    if ordered and words_of(ref.said) & NEWEST_WORDS:
        return [max(ordered, key=lambda item: by_id[item.id].received)]
    # One message per thread, its best fit (the newest among equals): answering a thread answers
    # its latest message, so "Priya's email about the budget" is the budget thread, not a choice
    # among its messages.
    threads: set[str] = set()
    kept = []
    for item in ordered:
        if by_id[item.id].thread_id not in threads:
            threads.add(by_id[item.id].thread_id)
            kept.append(item)
    return kept


def _listed(found: ItemResolution, mailbox: Mailbox) -> ItemResolution:
    """The resolution with each offered message's attachments listed (a search tells only that a
    message has some: the card lists their names and sizes, one read per message that has any)."""

    def filled(item: Item) -> Item:
        if not item.fields.get("hasAttachments") or item.fields.get("attachments"):
            return item
        message = mailbox.read(item.id)
        return message_item(message) if message is not None else item

    if found.item is not None:
        return ItemResolution(query=found.query, status=found.status, item=filled(found.item))
    return ItemResolution(
        query=found.query, status=found.status, candidates=tuple(filled(c) for c in found.candidates)
    )


def find_messages(refs: Sequence[ItemRef], reads: FindContext) -> list[ItemResolution]:
    """:data:`~multitool.toolkit.references.Finder` of the caller's messages: one search per turn."""
    mailbox: Mailbox | None = reads.ports.mailbox(reads.ctx)
    if mailbox is None:
        raise InvalidInput("This deployment keeps no mailbox to answer mail from.", field="message")
    if len(refs) == 1:
        ref = refs[0]
        emails = _emails(ref, reads)
        if ref.people and not emails:
            return [resolution(ref.said, [])]  # a name no one answers to: nothing is theirs
        found = resolution(ref.said, _ranked(mailbox.search(_search_of(ref, reads, emails)), ref, emails))
        return [_listed(found, mailbox)]
    spans = [_search_of(ref, reads, ()) for ref in refs]
    shared = MailSearch(
        since=None if any(s.since is None for s in spans) else min(s.since for s in spans if s.since),
        until=None if any(s.until is None for s in spans) else max(s.until for s in spans if s.until),
        limit=SHARED_SEARCH_LIMIT,
    )
    messages = mailbox.search(shared)
    answers = []
    for ref in refs:
        emails = _emails(ref, reads)
        ranked = _ranked(messages, ref, emails) if not (ref.people and not emails) else []
        answers.append(_listed(resolution(ref.said, ranked), mailbox))
    return answers
