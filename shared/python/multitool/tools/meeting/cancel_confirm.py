"""What confirming a meeting cancellation does: re-read the meeting, cancel it once, tell everyone.

The organizer's confirm cancels on the calendar over the version the card showed
(:meth:`~multitool.ports.calendar.Calendar.cancel`: Graph's ``cancel`` with the message as its
Comment, Google's ``events.delete`` with ``sendUpdates=all`` and, as that method takes no message,
the message mailed from the user's own mailbox; the built-in calendar frees the booking and the
confirm mails an iCalendar CANCEL with the message). An attendee's confirm declines instead.

For a meeting of a series the card's ``scope`` (or the confirm's edit of it) says which: that one
meeting (the provider's occurrence, or on the built-in calendar an EXDATE and a CANCEL carrying its
RECURRENCE-ID) or every meeting of the series; a series meeting with no scope chosen is not
cancelled, the confirm asks.
"""

from typing import Any

from pydantic import Field

from multitool.ports.calendar import CalendarEvent, EventChanged, NotOrganizer, Response, Scope
from multitool.ports.mail import Mail
from multitool.toolkit.confirm import ActionReview, Backends, ReviewContext, reply_to, sender_name
from multitool.toolkit.errors import InvalidEdits
from multitool.toolkit.references import Key
from multitool.tools.meeting.existing import (
    CancelPayload,
    Message,
    caller_address,
    changed,
    notify,
    scope_question,
    shown_meeting,
    when_words,
)
from multitool.wire import WireModel


class CancelEdits(WireModel):
    meeting: Key | None = Field(default=None, description="The id of the meeting chosen on the card")
    message: Message | None = None
    scope: Scope | None = Field(
        default=None, description="For a meeting of a series: 'occurrence' (this one) or 'series' (every one)"
    )


class CancelContent(WireModel):
    meeting: CalendarEvent
    message: str = ""
    scope: Scope | None = None


def cancel_content(edits: CancelEdits, confirmed: CancelContent | None, ctx: ReviewContext) -> CancelContent:
    payload = CancelPayload.model_validate(ctx.draft.payload)
    meeting = shown_meeting(payload.meeting, edits.meeting or (confirmed.meeting.id if confirmed else None))
    message = (
        edits.message if edits.message is not None else (confirmed.message if confirmed else payload.message)
    )
    scope = edits.scope or (confirmed.scope if confirmed else None) or payload.scope
    return CancelContent(meeting=meeting, message=message, scope=scope if meeting.recurring else None)


def not_started(content: CancelContent, _ctx: ReviewContext, backends: Backends) -> None:
    if content.meeting.start <= backends.clock():
        raise InvalidEdits(
            f"'{content.meeting.title}' has already started; it is not cancelled.", field="meeting"
        )
    if content.meeting.recurring and content.scope is None and content.meeting.role == "organizer":
        raise InvalidEdits(scope_question(content.meeting), field="scope")


def cancel(content: CancelContent, ctx: ReviewContext, backends: Backends) -> dict[str, Any]:
    own = caller_address(ctx)
    shown = content.meeting
    when = when_words(shown.start, shown.end, shown.timezone)
    if shown.role != "organizer":
        from multitool.tools.meeting.answer_confirm import answer

        return answer(shown, Response.DECLINED, content.message, ctx, backends)
    one = shown.recurring and content.scope == "occurrence"
    try:
        backends.calendar.cancel(own, shown, content.message, "occurrence" if one else "series")
    except EventChanged as error:
        raise changed(error, shown) from None
    except NotOrganizer:
        raise InvalidEdits(f"Only the organizer can cancel '{shown.title}'.", field="meeting") from None
    what = "every meeting of the series" if shown.recurring and not one else when
    text = (
        f"'{shown.title}' ({what}) is cancelled.\n"
        if shown.recurring
        else f"'{shown.title}' on {when} is cancelled.\n"
    )
    text += f"\n{content.message}\n" if content.message else ""
    message_id = notify(
        shown,
        ctx,
        backends,
        method="CANCEL",
        subject=f"Cancelled: {shown.title}",
        text=text,
        sequence=shown.sequence + 1,
        comment=content.message,
        occurrence=shown.start if one else None,
    )
    if message_id is None and content.message and not backends.calendar.cancellation_message:
        message_id = _mail_the_message(shown, content.message, text, ctx, backends, own)
    return {
        "meetingId": shown.id if one or not shown.recurring else (shown.series_id or shown.id),
        "cancelled": True,
        **({"scope": content.scope} if shown.recurring else {}),
        "start": shown.start.isoformat(),
        "attendees": [a.email for a in shown.attendees],
        **({"messageId": message_id} if message_id else {}),
    }


def _mail_the_message(
    shown: CalendarEvent, message: str, text: str, ctx: ReviewContext, backends: Backends, own: str
) -> str | None:
    """The message mailed from the user's own mailbox, where the calendar's cancellation carries none."""
    to = tuple(a.email for a in shown.attendees if a.email.casefold() != own.casefold())
    if not to:
        return None
    sent = backends.mailer.send(
        Mail(
            to=to,
            subject=f"Cancelled: {shown.title}",
            text=text,
            from_name=sender_name(ctx.caller),
            reply_to=reply_to(ctx.caller),
        )
    )
    return sent.message_id


def attendees_mailed(content: CancelContent, ctx: ReviewContext) -> list[tuple[str, str]]:
    own = (ctx.caller.email or "").casefold()
    if content.meeting.role != "organizer":
        return [("meeting.organizer", content.meeting.organizer)]
    return [
        (f"meeting.attendees[{i}]", a.email)
        for i, a in enumerate(content.meeting.attendees)
        if a.email.casefold() != own
    ]


REVIEW = ActionReview(
    CancelEdits, CancelContent, cancel_content, cancel, not_started, recipients=attendees_mailed
)
