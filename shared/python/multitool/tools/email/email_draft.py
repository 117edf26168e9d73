"""email_draft: a new email for the user to review; its confirm sends it.

What the model passes, the payload, the card (its fingerprint and caption) and its
action group are here; the confirm (the edits, the content sent, the send) is in
:mod:`multitool.tools.email.confirm`, which only a confirm imports. One line in
:mod:`multitool.tools` declares this module.
"""

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from multitool.people import NameResolution
from multitool.text import MultiLine, SingleLine
from multitool.toolkit.cards import TYPE_ALIAS, Card, CardSpec, Fingerprint, names_of, people_key, quoted
from multitool.toolkit.cards import unresolved_notes as unresolved_words
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
from multitool.toolkit.context import (
    MAX_BODY_CHARS,
    MAX_RECIPIENTS,
    MAX_SUBJECT_CHARS,
    ToolConfig,
    ToolContext,
)
from multitool.toolkit.links import CallLabel, Link, label_field, links_field
from multitool.toolkit.spec import ToolSpec
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.toolkit.references import Found


class EmailDraftArgs(WireModel):
    """What the model passes: raw names or addresses, the subject it wrote, the body."""

    to: list[RawName] = Field(
        min_length=1,
        max_length=MAX_RECIPIENTS,
        description="Recipients as the user named them ('Kinshuok', 'priya@example.com')",
    )
    cc: list[RawName] = Field(
        default_factory=list, max_length=MAX_RECIPIENTS, description="Copy recipients, raw names or addresses"
    )
    subject: SingleLine = Field(min_length=1, max_length=MAX_SUBJECT_CHARS, description="Subject line")
    body: MultiLine = Field(min_length=1, max_length=MAX_BODY_CHARS, description="Email body, plain text")
    revises: DraftRef | None = revises_field()
    label: CallLabel | None = label_field()


class EmailDraftPayload(WireModel):
    action: Literal["show_new_email_draft"] = "show_new_email_draft"
    draft_id: str
    to: tuple[NameResolution, ...]
    cc: tuple[NameResolution, ...] = ()
    subject: str
    body: str
    notes: tuple[str, ...] = Field(default=(), description="Names the user has to settle on the card")
    revises: str | None = replaced_field()
    links: tuple[Link, ...] = links_field()


def prepare(args: EmailDraftArgs, ctx: ToolContext, config: ToolConfig) -> Prepared:
    def finish(people: People, _busy: BusyTimes, _found: "Found") -> dict[str, object]:
        to = [resolve_recipient(name, people) for name in args.to]
        cc = [resolve_recipient(name, people) for name in args.cc]
        return {
            "to": [r.to_wire() for r in to],
            "cc": [r.to_wire() for r in cc],
            "subject": args.subject,
            "body": args.body,
            "notes": unsettled_notes([*to, *cc], "recipient") + lookalike_notes([*to, *cc]),
        }

    return Prepared(names=[*args.to, *args.cc], finish=finish)


# -- the card ------------------------------------------------------------------


class EmailDraftCard(Card):
    """Compose card: resolved recipients, subject and body."""

    type: Literal["show_new_email_draft"] = Field(validation_alias=TYPE_ALIAS)
    to: tuple[NameResolution, ...] = ()
    cc: tuple[NameResolution, ...] = ()
    # The confirm's limits, in the card's JSON Schema for the page to read (the edit is checked again).
    subject: str = Field(default="", max_length=MAX_SUBJECT_CHARS)
    body: str = Field(default="", max_length=MAX_BODY_CHARS)


def email_fingerprint(card: EmailDraftCard) -> Fingerprint:
    # The str fields spell cards.norm out (" ".join of nothing is ""): one call less each.
    return (
        people_key(card.to),
        " ".join(card.subject.casefold().split()),
        " ".join(card.body[:64].casefold().split()),
    )


def email_caption(card: EmailDraftCard) -> str:
    subject = card.subject or "(no subject)"
    notes = unresolved_words((*card.to, *card.cc)) if card.cc else unresolved_words(card.to)
    return f"Draft email to {names_of(card.to)}: {subject}{notes}"


def email_said(card: EmailDraftCard) -> str:
    """'drafted an email to Kinshuok Sharma about the doc' (or 'with the subject "Launch"')."""
    subject = " ".join(card.subject.split())
    if subject[:6].casefold() == "about " and len(subject) > 6:
        topic = f"about {subject[6:]}"
    else:
        topic = f"with the subject {quoted(subject)}" if subject else "without a subject"
    return f"drafted an email to {names_of(card.to)} {topic}"


SPEC = ToolSpec(
    name="create_email_draft",
    action_group="email_draft",
    api_path="/email-drafts",
    args_model=EmailDraftArgs,
    payload_model=EmailDraftPayload,
    prepare=prepare,
    card=CardSpec(EmailDraftCard, email_fingerprint, email_caption, said=email_said, held="sent"),
    review="multitool.tools.email.confirm:REVIEW",
    group_description="Drafts an email for the user to review; never sends.",
    nouns=("an email draft", "email drafts"),
    takes_links=("subject", "body"),
    description=(
        "Draft a new email for the user to review and send. Pass recipients exactly as the user "
        "named them (names or addresses); the backend resolves them. Write the subject (for "
        "'about the doc', a subject about the doc) and the body. Nothing is sent until the user confirms."
    ),
)
