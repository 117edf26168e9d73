"""email_draft: a new email for the user to review; nothing is sent here."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from multitool.people import NameResolution
from multitool.text import MultiLine, SingleLine
from multitool.tools.base import (
    MAX_BODY_CHARS,
    MAX_RECIPIENTS,
    MAX_SUBJECT_CHARS,
    ToolConfig,
    ToolContext,
    ToolSpec,
)
from multitool.tools.common import BusyTimes, People, Prepared, RawName, resolve_recipient, unsettled_notes
from multitool.wire import WireModel

ACTION = "show_new_email_draft"


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


class EmailDraftPayload(WireModel):
    action: Literal["show_new_email_draft"] = "show_new_email_draft"
    draft_id: str
    to: tuple[NameResolution, ...]
    cc: tuple[NameResolution, ...] = ()
    subject: str
    body: str
    notes: tuple[str, ...] = Field(default=(), description="Names the user has to settle on the card")


def prepare(args: EmailDraftArgs, ctx: ToolContext, config: ToolConfig) -> Prepared:
    def finish(people: People, _busy: BusyTimes) -> dict[str, object]:
        to = [resolve_recipient(name, people) for name in args.to]
        cc = [resolve_recipient(name, people) for name in args.cc]
        return {
            "action": ACTION,
            "to": [r.to_wire() for r in to],
            "cc": [r.to_wire() for r in cc],
            "subject": args.subject,
            "body": args.body,
            "notes": unsettled_notes([*to, *cc], "recipient"),
        }

    return Prepared(names=[*args.to, *args.cc], finish=finish)


SPEC = ToolSpec(
    name="create_email_draft",
    action_group="email_draft",
    api_path="/email-drafts",
    method="POST",
    args_model=EmailDraftArgs,
    payload_model=EmailDraftPayload,
    action=ACTION,
    description=(
        "Draft a new email for the user to review and send. Pass recipients exactly as the user "
        "named them (names or addresses); the backend resolves them. Write the subject (for "
        "'about the doc', a subject about the doc) and the body. Nothing is sent until the user confirms."
    ),
)
