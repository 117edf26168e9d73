"""email_draft's confirm: the fields as the user edited them, the content sent, the send.

Only a confirm needs it, so it is apart from :mod:`multitool.tools.email.email_draft` (whose spec names
it): the action group and the orchestrator, which only propose, never import it or the mail port.
"""

from typing import Annotated, Any

from pydantic import Field, StringConstraints

from multitool.ports.mail import Mail
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
from multitool.toolkit.context import MAX_BODY_CHARS, MAX_RECIPIENTS, MAX_SUBJECT_CHARS
from multitool.tools.email.email_draft import EmailDraftPayload
from multitool.wire import WireModel

# Edited text follows the same policy as the arguments (multitool.text): cleaned, then measured,
# so a field that is empty once cleaned is the same error as an empty field.
# (Constraints first: the cleaning placed after them runs before them.)
Subject = Annotated[str, StringConstraints(min_length=1, max_length=MAX_SUBJECT_CHARS), CLEAN_SINGLE_LINE]
Body = Annotated[str, StringConstraints(min_length=1, max_length=MAX_BODY_CHARS), CLEAN_MULTI_LINE]


class EmailEdits(WireModel):
    """Recipients are email addresses or ids of people offered on the card."""

    to: Recipients | None = Field(default=None, min_length=1, max_length=MAX_RECIPIENTS)
    cc: Recipients | None = Field(default=None, max_length=MAX_RECIPIENTS)
    subject: Subject | None = None
    body: Body | None = None


class EmailContent(WireModel):
    to: tuple[Address, ...]
    cc: tuple[Address, ...] = ()
    subject: Subject
    body: Body


def email_content(edits: EmailEdits, confirmed: EmailContent | None, ctx: ReviewContext) -> EmailContent:
    payload = EmailDraftPayload.model_validate(ctx.draft.payload)
    to = addresses(edits.to, confirmed.to if confirmed else None, payload.to, "to", ctx)
    cc = addresses(edits.cc, confirmed.cc if confirmed else None, payload.cc, "cc", ctx)
    to_emails = {a.email.casefold() for a in to}
    return EmailContent(
        to=to,
        cc=tuple(a for a in cc if a.email.casefold() not in to_emails),
        subject=edits.subject or (confirmed.subject if confirmed else payload.subject),
        body=edits.body or (confirmed.body if confirmed else payload.body),
    )


def send_email(content: EmailContent, ctx: ReviewContext, backends: Backends) -> dict[str, Any]:
    sent = backends.mailer.send(
        Mail(
            to=tuple(a.email for a in content.to),
            cc=tuple(a.email for a in content.cc),
            subject=content.subject,
            text=content.body,
            from_name=sender_name(ctx.caller),
            reply_to=reply_to(ctx.caller),
        )
    )
    return {"messageId": sent.message_id, "recipients": [a.email for a in (*content.to, *content.cc)]}


def email_recipients(content: EmailContent, _ctx: ReviewContext) -> list[tuple[str, str]]:
    return [
        *((f"to[{i}]", a.email) for i, a in enumerate(content.to)),
        *((f"cc[{i}]", a.email) for i, a in enumerate(content.cc)),
    ]


# A mail waits a moment after its confirm (the undo window): once sent it cannot be called back, and
# nothing else waits on it. Its content holds every address and word sent; the sender's name and
# reply-to come from the confirmer the draft keeps (multitool.drafts.Confirmer).
REVIEW = ActionReview(
    EmailEdits, EmailContent, email_content, send_email, recipients=email_recipients, undoable=True
)
