"""The confirms of email_reply and email_forward: the answer as edited, sent in its thread, ONCE.

Exactly once (:mod:`multitool.ports.mailbox`): the confirm makes the answer a draft in the caller's
own mailbox, stores that draft's id in the confirm's record (``ctx.remember``, the draft's
``progress``) and only then sends THAT draft. A confirm tried again (the function died, the send
had no answer) reads the id back and asks the provider what became of it: still a draft, it is
sent; sent, the confirm answers done without sending; a send left unanswered is outcome unknown,
said on the card, never sent again. Changed content on a confirm after a failure makes a new draft.

Only a confirm imports this module (the tools' specs name it), and only the caller's own mailbox is
read: an item id from anywhere but the card is refused (:func:`~multitool.toolkit.references.chosen`).
"""

import hashlib
from typing import Annotated, Any

from pydantic import Field, StringConstraints

from multitool.drafts import canonical_json
from multitool.people import NameResolution
from multitool.ports.mail import MailOutcomeUnknown, MailRejected
from multitool.ports.mailbox import DraftState, Mailbox, Message, Outgoing
from multitool.text import CLEAN_MULTI_LINE, CLEAN_SINGLE_LINE
from multitool.toolkit.confirm import (
    ActionReview,
    Address,
    Backends,
    Recipients,
    ReviewContext,
    addresses,
    reply_to,
    sender_name,
)
from multitool.toolkit.context import MAX_BODY_CHARS, MAX_RECIPIENTS
from multitool.toolkit.errors import InvalidEdits, ItemChanged
from multitool.toolkit.references import Item, ItemResolution, chosen
from multitool.tools.email.email_forward import ForwardPayload
from multitool.tools.email.email_reply import ReplyPayload, on_card, recipients_for
from multitool.wire import WireModel

Body = Annotated[str, StringConstraints(min_length=1, max_length=MAX_BODY_CHARS), CLEAN_MULTI_LINE]
Note = Annotated[str, StringConstraints(max_length=MAX_BODY_CHARS), CLEAN_MULTI_LINE]
ItemId = Annotated[str, StringConstraints(min_length=1, max_length=1024), CLEAN_SINGLE_LINE]


class ReplyEdits(WireModel):
    """``message``: the id of the message chosen on the card; recipients are addresses."""

    message: ItemId | None = None
    to: Recipients | None = Field(default=None, min_length=1, max_length=MAX_RECIPIENTS)
    cc: Recipients | None = Field(default=None, max_length=MAX_RECIPIENTS)
    body: Body | None = None


class ReplyContent(WireModel):
    message: str
    reply_all: bool = False
    to: tuple[Address, ...]
    cc: tuple[Address, ...] = ()
    body: Body


class ForwardEdits(WireModel):
    """``attachments``: the ids of the original's attachments to keep (the others are removed)."""

    message: ItemId | None = None
    to: Recipients | None = Field(default=None, min_length=1, max_length=MAX_RECIPIENTS)
    cc: Recipients | None = Field(default=None, max_length=MAX_RECIPIENTS)
    note: Note | None = None
    attachments: list[ItemId] | None = Field(default=None, max_length=100)


class ForwardContent(WireModel):
    message: str
    to: tuple[Address, ...]
    cc: tuple[Address, ...] = ()
    note: Note = ""
    attachments: tuple[str, ...] = ()


def _item(found: dict[str, Any], item_id: str | None) -> Item:
    return chosen(ItemResolution.from_wire(found), item_id, "message")


def reply_content(edits: ReplyEdits, confirmed: ReplyContent | None, ctx: ReviewContext) -> ReplyContent:
    payload = ReplyPayload.model_validate(ctx.draft.payload)
    item = _item(payload.message.to_wire(), edits.message or (confirmed.message if confirmed else None))
    same = confirmed if confirmed is not None and confirmed.message == item.id else None
    if payload.message.item is not None and payload.message.item.id == item.id:
        proposed_to, proposed_cc = payload.to, payload.cc
    else:  # a candidate chosen on the card: its own sender (and everyone on it, for reply all)
        to_addresses, cc_addresses = recipients_for(item.fields, ctx.caller.email, everyone=payload.reply_all)
        proposed_to = tuple(NameResolution.from_wire(r) for r in on_card(to_addresses, item.fields))
        proposed_cc = tuple(NameResolution.from_wire(r) for r in on_card(cc_addresses, item.fields))
    to = addresses(edits.to, same.to if same else None, proposed_to, "to", ctx)
    cc = addresses(edits.cc, same.cc if same else None, proposed_cc, "cc", ctx)
    if not to:
        raise InvalidEdits("The reply needs at least one recipient.", field="to")
    taken = {a.email.casefold() for a in to}
    return ReplyContent(
        message=item.id,
        reply_all=payload.reply_all,
        to=to,
        cc=tuple(a for a in cc if a.email.casefold() not in taken),
        body=edits.body or (confirmed.body if confirmed else payload.body),
    )


def forward_content(
    edits: ForwardEdits, confirmed: ForwardContent | None, ctx: ReviewContext
) -> ForwardContent:
    payload = ForwardPayload.model_validate(ctx.draft.payload)
    item = _item(payload.message.to_wire(), edits.message or (confirmed.message if confirmed else None))
    to = addresses(edits.to, confirmed.to if confirmed else None, payload.to, "to", ctx)
    cc = addresses(edits.cc, confirmed.cc if confirmed else None, payload.cc, "cc", ctx)
    offered = [str(a["id"]) for a in item.fields.get("attachments", ())]
    if edits.attachments is not None:
        unknown = [a for a in edits.attachments if a not in offered]
        if unknown:
            raise InvalidEdits("Keep only attachments the card lists.", field="attachments")
        kept = tuple(a for a in offered if a in edits.attachments)
    elif confirmed is not None and confirmed.message == item.id:
        kept = confirmed.attachments
    else:
        kept = tuple(offered)
    taken = {a.email.casefold() for a in to}
    note = edits.note if edits.note is not None else (confirmed.note if confirmed else payload.note)
    return ForwardContent(
        message=item.id,
        to=to,
        cc=tuple(a for a in cc if a.email.casefold() not in taken),
        note=note,
        attachments=kept,
    )


# -- the side effect ---------------------------------------------------------------------------


def _mailbox(ctx: ReviewContext, backends: Backends) -> Mailbox:
    mailbox = backends.mailbox(ctx.caller)
    if mailbox is None:
        raise MailRejected("This deployment keeps no mailbox to answer mail from.", code="mail_rejected")
    return mailbox


def _original(mailbox: Mailbox, item_id: str) -> Message:
    original = mailbox.read(item_id)
    if original is None:
        raise ItemChanged("The message is no longer in your mailbox; nothing was sent.", field="message")
    return original


def check_reply(content: ReplyContent, ctx: ReviewContext, backends: Backends) -> None:
    _original(_mailbox(ctx, backends), content.message)


def check_forward(content: ForwardContent, ctx: ReviewContext, backends: Backends) -> None:
    mailbox = _mailbox(ctx, backends)
    original = _original(mailbox, content.message)
    size = sum(a.size for a in original.attachments if a.id in content.attachments)
    limit = getattr(mailbox, "max_attachment_bytes", None)
    if limit is not None and size > limit:
        raise InvalidEdits(
            f"The attachments kept come to {_megabytes(size)}, over the {_megabytes(limit)} your mail "
            "provider forwards: remove some on the card. Nothing was sent.",
            field="attachments",
        )


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB" if size >= 1_000_000 else f"{size / 1000:.0f} KB"


def send_answer(
    outgoing: Outgoing, content: WireModel, ctx: ReviewContext, mailbox: Mailbox
) -> dict[str, Any]:
    """Make the provider draft (or find the one an earlier try made), remember it, send it once."""
    fingerprint = hashlib.sha256(canonical_json(content.to_wire()).encode()).hexdigest()[:16]
    progress = ctx.draft.progress or {}
    draft_id = progress.get("mailDraft") if progress.get("for") == fingerprint else None
    if isinstance(draft_id, str):
        state = mailbox.draft_state(draft_id)
        if state is DraftState.SENT:
            return {"mailDraft": draft_id, "alreadySent": True}
        if state is DraftState.UNKNOWN:
            raise MailOutcomeUnknown(
                "An earlier confirm sent this answer and got no answer back: it may have gone out. "
                "Look in your sent mail; it is not sent again.",
                code="mail_outcome_unknown",
            )
        if state is DraftState.GONE:
            raise MailRejected(
                "The answer's draft is no longer in your mailbox (deleted, or sent from there): nothing "
                "was sent again. Look in your sent mail; to send it after all, change the text on the "
                "card and confirm.",
                code="mail_rejected",
            )
    else:
        draft_id = mailbox.create_draft(msgspec_replace(outgoing, key=f"{ctx.draft.id[:40]}-{fingerprint}"))
        ctx.remember({"mailDraft": draft_id, "for": fingerprint})
    sent = mailbox.send_draft(draft_id)
    return {"mailDraft": draft_id, "messageId": sent.message_id}


def msgspec_replace(outgoing: Outgoing, **changes: Any) -> Outgoing:
    import msgspec

    return msgspec.structs.replace(outgoing, **changes)


def send_reply(content: ReplyContent, ctx: ReviewContext, backends: Backends) -> dict[str, Any]:
    mailbox = _mailbox(ctx, backends)
    original = _original(mailbox, content.message)
    outgoing = Outgoing(
        kind="reply_all" if content.reply_all else "reply",
        original=original,
        to=tuple(a.email for a in content.to),
        cc=tuple(a.email for a in content.cc),
        body=content.body,
        from_name=sender_name(ctx.caller),
        reply_to=reply_to(ctx.caller),
    )
    result = send_answer(outgoing, content, ctx, mailbox)
    return {
        **result,
        "inReplyTo": original.subject,
        "recipients": [a.email for a in (*content.to, *content.cc)],
    }


def send_forward(content: ForwardContent, ctx: ReviewContext, backends: Backends) -> dict[str, Any]:
    mailbox = _mailbox(ctx, backends)
    original = _original(mailbox, content.message)
    outgoing = Outgoing(
        kind="forward",
        original=original,
        to=tuple(a.email for a in content.to),
        cc=tuple(a.email for a in content.cc),
        body=content.note,
        keep_attachments=content.attachments,
        from_name=sender_name(ctx.caller),
        reply_to=reply_to(ctx.caller),
    )
    result = send_answer(outgoing, content, ctx, mailbox)
    return {
        **result,
        "forwarded": original.subject,
        "attachments": len(content.attachments),
        "recipients": [a.email for a in (*content.to, *content.cc)],
    }


def _recipients(content: ReplyContent | ForwardContent, _ctx: ReviewContext) -> list[tuple[str, str]]:
    return [
        *((f"to[{i}]", a.email) for i, a in enumerate(content.to)),
        *((f"cc[{i}]", a.email) for i, a in enumerate(content.cc)),
    ]


REPLY = ActionReview(ReplyEdits, ReplyContent, reply_content, send_reply, check_reply, _recipients)
FORWARD = ActionReview(
    ForwardEdits, ForwardContent, forward_content, send_forward, check_forward, _recipients
)
