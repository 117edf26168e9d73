"""What confirming an answer to an invitation does: re-read the meeting, record the answer once.

:meth:`~multitool.ports.calendar.Calendar.respond` re-reads the event and answers over the
version the card showed (changed or gone since: ``409 item_changed``); Microsoft 365 and Google
tell the organizer themselves, the built-in calendar's confirm mails an iCalendar REPLY.
"""

from typing import Any

from pydantic import Field

from multitool.ports.calendar import CalendarEvent, EventChanged, NotOrganizer, Response
from multitool.toolkit.confirm import ActionReview, Backends, ReviewContext
from multitool.toolkit.errors import InvalidEdits
from multitool.toolkit.references import Key
from multitool.tools.meeting.existing import (
    Answer,
    AnswerPayload,
    Message,
    caller_address,
    changed,
    notify,
    shown_meeting,
    when_words,
)
from multitool.wire import WireModel


class AnswerEdits(WireModel):
    meeting: Key | None = Field(default=None, description="The id of the meeting chosen on the card")
    response: Answer | None = None
    message: Message | None = None


class AnswerContent(WireModel):
    meeting: CalendarEvent
    response: Answer
    message: str = ""


def answer_content(edits: AnswerEdits, confirmed: AnswerContent | None, ctx: ReviewContext) -> AnswerContent:
    payload = AnswerPayload.model_validate(ctx.draft.payload)
    meeting = shown_meeting(payload.meeting, edits.meeting or (confirmed.meeting.id if confirmed else None))
    base = confirmed.model_dump() if confirmed else {"response": payload.response, "message": payload.message}
    return AnswerContent(
        meeting=meeting,
        response=edits.response or base["response"],
        message=edits.message if edits.message is not None else base["message"],
    )


def not_started(content: AnswerContent, _ctx: ReviewContext, backends: Backends) -> None:
    if content.meeting.start <= backends.clock():
        raise InvalidEdits(f"'{content.meeting.title}' has already started.", field="meeting")


_WORDS = {
    Response.ACCEPTED: "accepted",
    Response.TENTATIVE: "tentatively accepted",
    Response.DECLINED: "declined",
}


def answer(
    shown: CalendarEvent, response: Response, message: str, ctx: ReviewContext, backends: Backends
) -> dict[str, Any]:
    """The caller's answer recorded on the calendar, and (built-in) the REPLY mailed to the organizer."""
    own = caller_address(ctx)
    try:
        answered = backends.calendar.respond(own, shown, response, message)
    except EventChanged as error:
        raise changed(error, shown) from None
    except NotOrganizer:
        raise InvalidEdits(
            f"You organize '{shown.title}': there is nothing to answer.", field="meeting"
        ) from None
    who = ctx.caller.name or own
    when = when_words(shown.start, shown.end, shown.timezone)
    text = f"{who} has {_WORDS[response]} '{shown.title}' ({when}).\n"
    if message:
        text += f"\n{message}\n"
    message_id = notify(
        answered,
        ctx,
        backends,
        method="REPLY",
        subject=f"{_WORDS[response].capitalize()}: {shown.title}",
        text=text,
        sequence=shown.sequence,
        answer=response,
        comment=message,
    )
    return {
        "meetingId": shown.id,
        "response": str(response),
        "organizer": shown.organizer,
        **({"messageId": message_id} if message_id else {}),
    }


def respond(content: AnswerContent, ctx: ReviewContext, backends: Backends) -> dict[str, Any]:
    return answer(content.meeting, Response(content.response), content.message, ctx, backends)


def organizer_mailed(content: AnswerContent, _ctx: ReviewContext) -> list[tuple[str, str]]:
    return [("meeting.organizer", content.meeting.organizer)]


REVIEW = ActionReview(
    AnswerEdits, AnswerContent, answer_content, respond, not_started, recipients=organizer_mailed
)
