"""email_reply: a reply (or reply all) to a message of the caller's own, for them to review.

The model passes the message as the user said it (:class:`~multitool.toolkit.references.ItemRef`:
"Priya's email about the budget"), ``replyAll`` and the text; the backend finds the message in
the caller's own mailbox (:mod:`multitool.tools.email.find`). The card shows the message answered
(sender, subject, date, first lines), whom the reply goes to (reply all: everyone on it but the
caller; each editable) and the text. The confirm (:mod:`multitool.tools.email.answer`) sends it in
the thread, once.
"""

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from multitool.people import NameResolution, Person, Resolution
from multitool.ports.mailbox import answer_subject
from multitool.text import MultiLine
from multitool.toolkit.cards import CardSpec, quoted
from multitool.toolkit.common import (
    EXTERNAL_ID_PREFIX,
    BusyTimes,
    DraftRef,
    People,
    Prepared,
    replaced_field,
    revises_field,
)
from multitool.toolkit.context import MAX_BODY_CHARS, ToolConfig, ToolContext
from multitool.toolkit.references import ItemRef, ItemResolution, Lookup, reference_notes
from multitool.toolkit.spec import ToolSpec
from multitool.tools.email.find import find_messages
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.toolkit.references import Found


class ReplyArgs(WireModel):
    """What the model passes: the message as said, reply or reply all, the text."""

    message: ItemRef = Field(
        description="The message to answer, as the user said it ('Priya's email about the budget'), with "
        "people = its sender, words = subject words, days when said"
    )
    reply_all: bool = Field(default=False, description="True for 'reply all': everyone on the message")
    body: MultiLine = Field(min_length=1, max_length=MAX_BODY_CHARS, description="The reply's text, plain")
    revises: DraftRef | None = revises_field()


class ReplyPayload(WireModel):
    action: Literal["show_email_reply"] = "show_email_reply"
    draft_id: str
    message: ItemResolution = Field(description="The message answered, or the messages it could be")
    reply_all: bool = False
    to: tuple[NameResolution, ...] = Field(
        default=(), description="Whom the reply goes to (the message found's)"
    )
    cc: tuple[NameResolution, ...] = ()
    subject: str = ""
    body: str
    notes: tuple[str, ...] = Field(default=(), description="What the user has to settle on the card")
    revises: str | None = replaced_field()


def recipients_for(
    item_fields: dict[str, object], own: str | None, *, everyone: bool
) -> tuple[list[str], list[str]]:
    """The reply's recipients from a found message's fields
    (:func:`multitool.ports.mailbox.reply_recipients`)."""
    from datetime import datetime

    from multitool.ports.mailbox import Message, reply_recipients

    message = Message(
        id="",
        thread_id="",
        sender=str(item_fields.get("sender", "")),
        subject="",
        received=datetime.fromisoformat(str(item_fields.get("received"))),
        to=_addresses(item_fields.get("to")),
        cc=_addresses(item_fields.get("cc")),
    )
    to, cc = reply_recipients(message, own or "", everyone=everyone)
    return list(to), list(cc)


def _addresses(value: object) -> tuple[str, ...]:
    return tuple(str(a) for a in value) if isinstance(value, list | tuple) else ()


def on_card(addresses: list[str], item_fields: dict[str, object]) -> list[dict[str, object]]:
    """Each address as a settled recipient (the sender by the name the message gave)."""
    sender = str(item_fields.get("sender", "")).casefold()
    named = str(item_fields.get("senderName") or "")
    return [
        NameResolution(
            query=address,
            status=Resolution.RESOLVED,
            person=Person(
                id=f"{EXTERNAL_ID_PREFIX}{address.casefold()}",
                display_name=named if address.casefold() == sender and named else address,
                email=address,
                timezone="",
            ),
        ).to_wire()
        for address in addresses
    ]


def prepare(args: ReplyArgs, ctx: ToolContext, _config: ToolConfig) -> Prepared:
    def finish(_people: People, _busy: BusyTimes, found: "Found") -> dict[str, object]:
        message = found[0]
        to: list[dict[str, object]] = []
        cc: list[dict[str, object]] = []
        subject = ""
        if message.item is not None:
            to_addresses, cc_addresses = recipients_for(
                message.item.fields, ctx.requester_email, everyone=args.reply_all
            )
            to, cc = on_card(to_addresses, message.item.fields), on_card(cc_addresses, message.item.fields)
            subject = answer_subject("reply", str(message.item.fields.get("subject", "")))
        return {
            "message": message.to_wire(),
            "replyAll": args.reply_all,
            "to": to,
            "cc": cc,
            "subject": subject,
            "body": args.body,
            "notes": reference_notes(found, "message"),
        }

    return Prepared(
        names=list(args.message.people), finish=finish, lookups=[Lookup(args.message, find_messages)]
    )


def _label(card: ReplyPayload) -> str:
    item = card.message.item
    return item.label if item is not None else quoted(card.message.query)


def reply_caption(card: ReplyPayload) -> str:
    kind = "Reply all" if card.reply_all else "Reply"
    return f"{kind} to {_label(card)}"


def reply_said(card: ReplyPayload) -> str:
    kind = "a reply to everyone on" if card.reply_all else "a reply to"
    return f"drafted {kind} {_label(card)}"


SPEC = ToolSpec(
    name="reply_to_email",
    action_group="email_reply",
    api_path="/email-replies",
    args_model=ReplyArgs,
    payload_model=ReplyPayload,
    prepare=prepare,
    card=CardSpec.of_payload(ReplyPayload, caption=reply_caption, said=reply_said),
    review="multitool.tools.email.answer:REPLY",
    group_description="Drafts a reply to one of the user's own emails for them to review; never sends.",
    nouns=("an email reply", "email replies"),
    description=(
        "Reply (or reply all) to an email the user received or sent. Pass the message as the user "
        "said it ('Priya's last email about the budget'): its sender's name in people, subject words "
        "in words, days when said; the backend finds it in the user's own mailbox and the card shows "
        "it. Write the reply's text. Nothing is sent until the user confirms."
    ),
)
