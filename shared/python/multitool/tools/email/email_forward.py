"""email_forward: a message of the caller's own forwarded, with its attachments, for them to review.

The model passes the message as the user said it ("the invoice from Mei"), the recipients as
named (raw names or addresses: the directory resolves them) and the note; the card lists the
original's attachments (name and size), each removable, and the note, editable. The confirm
(:mod:`multitool.tools.email.answer`) sends the forward from the caller's mailbox, once.
"""

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from multitool.people import NameResolution
from multitool.ports.mailbox import answer_subject
from multitool.text import MultiLine
from multitool.toolkit.cards import CardSpec, names_of, quoted
from multitool.toolkit.common import (
    BusyTimes,
    DraftRef,
    People,
    Prepared,
    RawName,
    lookalike_notes,
    replaced_field,
    resolve_recipient,
    revises_field,
    unsettled_notes,
)
from multitool.toolkit.context import MAX_BODY_CHARS, MAX_RECIPIENTS, ToolConfig, ToolContext
from multitool.toolkit.references import ItemRef, ItemResolution, Lookup, reference_notes
from multitool.toolkit.spec import ToolSpec
from multitool.tools.email.find import find_messages
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.toolkit.references import Found


class ForwardArgs(WireModel):
    """What the model passes: the message as said, whom to forward it to, a note."""

    message: ItemRef = Field(
        description="The message to forward, as the user said it ('the invoice from Mei'), with people = "
        "its sender, words = subject words, days when said"
    )
    to: list[RawName] = Field(
        min_length=1,
        max_length=MAX_RECIPIENTS,
        description="Recipients as the user named them (names or addresses)",
    )
    cc: list[RawName] = Field(default_factory=list, max_length=MAX_RECIPIENTS, description="Copy recipients")
    note: MultiLine = Field(
        default="", max_length=MAX_BODY_CHARS, description="The note above the forwarded message"
    )
    revises: DraftRef | None = revises_field()


class ForwardedFile(WireModel):
    id: str
    name: str
    size: int = Field(description="Bytes")
    content_type: str = "application/octet-stream"


class ForwardPayload(WireModel):
    action: Literal["show_email_forward"] = "show_email_forward"
    draft_id: str
    message: ItemResolution = Field(description="The message forwarded, or the messages it could be")
    to: tuple[NameResolution, ...]
    cc: tuple[NameResolution, ...] = ()
    subject: str = ""
    note: str = ""
    attachments: tuple[ForwardedFile, ...] = Field(
        default=(), description="The original's attachments, forwarded unless removed on the card"
    )
    notes: tuple[str, ...] = Field(default=(), description="What the user has to settle on the card")
    revises: str | None = replaced_field()


def prepare(args: ForwardArgs, _ctx: ToolContext, _config: ToolConfig) -> Prepared:
    def finish(people: People, _busy: BusyTimes, found: "Found") -> dict[str, object]:
        to = [resolve_recipient(name, people) for name in args.to]
        cc = [resolve_recipient(name, people) for name in args.cc]
        message = found[0]
        item = message.item
        return {
            "message": message.to_wire(),
            "to": [r.to_wire() for r in to],
            "cc": [r.to_wire() for r in cc],
            "subject": answer_subject("forward", str(item.fields.get("subject", ""))) if item else "",
            "note": args.note,
            "attachments": list(item.fields.get("attachments", ())) if item else [],
            "notes": reference_notes(found, "message")
            + unsettled_notes([*to, *cc], "recipient")
            + lookalike_notes([*to, *cc]),
        }

    return Prepared(
        names=[*args.to, *args.cc, *args.message.people],
        finish=finish,
        lookups=[Lookup(args.message, find_messages)],
    )


def _label(card: ForwardPayload) -> str:
    item = card.message.item
    return item.label if item is not None else quoted(card.message.query)


def forward_caption(card: ForwardPayload) -> str:
    files = f", {len(card.attachments)} attachment(s)" if card.attachments else ""
    return f"Forward {_label(card)} to {names_of(card.to)}{files}"


def forward_said(card: ForwardPayload) -> str:
    return f"drafted a forward of {_label(card)} to {names_of(card.to)}"


SPEC = ToolSpec(
    name="forward_email",
    action_group="email_forward",
    api_path="/email-forwards",
    args_model=ForwardArgs,
    payload_model=ForwardPayload,
    prepare=prepare,
    card=CardSpec.of_payload(ForwardPayload, caption=forward_caption, said=forward_said),
    review="multitool.tools.email.answer:FORWARD",
    group_description="Drafts a forward of one of the user's own emails for them to review; never sends.",
    nouns=("an email forward", "email forwards"),
    description=(
        "Forward an email the user received or sent, with its attachments. Pass the message as the "
        "user said it ('the invoice from Mei': Mei in people, invoice in words), the recipients "
        "exactly as named (names or addresses) and the user's note, if any. Nothing is sent until "
        "the user confirms."
    ),
)
