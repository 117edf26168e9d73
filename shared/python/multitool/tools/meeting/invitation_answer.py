"""invitation_answer: a card that answers an invitation of the user's: accept, tentative or decline.

The meeting is named by reference (found by :func:`multitool.tools.meeting.find.find_meetings`
among the user's own: the ones they are invited to). The confirm (:mod:`.answer_confirm`) records
the answer on the calendar with the message to the organizer: Graph's accept / tentativelyAccept /
decline, Google's attendee ``responseStatus``, the built-in booking's answer and an iCalendar REPLY.
"""

from typing import TYPE_CHECKING, Any

from pydantic import Field

from multitool.toolkit.cards import CardSpec
from multitool.toolkit.common import BusyTimes, DraftRef, People, Prepared, revises_field
from multitool.toolkit.context import ToolConfig, ToolContext
from multitool.toolkit.errors import InvalidInput
from multitool.toolkit.references import ItemRef, Lookup, reference_notes
from multitool.toolkit.spec import ToolSpec
from multitool.tools.meeting.existing import Answer, AnswerPayload, Message, event_of, not_started
from multitool.tools.meeting.find import find_meetings
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.toolkit.references import Found


class AnswerArgs(WireModel):
    meeting: ItemRef = Field(description="The invitation, as the user named it ('Mei's offsite planning')")
    response: Answer = Field(description="accepted, tentative ('maybe') or declined")
    message: Message = Field(
        default="", description="What to tell the organizer ('I'm out'), if the user said"
    )
    revises: DraftRef | None = revises_field()


def prepare(args: AnswerArgs, ctx: ToolContext, _config: ToolConfig) -> Prepared:
    def finish(_people: People, _busy: BusyTimes, found: "Found") -> dict[str, Any]:
        event = event_of(found[0])
        notes = reference_notes(found, "meeting")
        if event is not None:
            not_started(event, ctx.now, "answered")
            if event.role == "organizer":
                raise InvalidInput(
                    f"You organize '{event.title}': there is no invitation to answer. "
                    "To call it off, cancel it.",
                    field="meeting",
                )
            if event.response.value == args.response:
                notes.append(
                    f"You have already answered {args.response}; confirming sends it again with the message."
                )
        return {
            "meeting": found[0].to_wire(),
            "response": args.response,
            "message": args.message,
            "timezone": ctx.timezone,
            "notes": notes,
        }

    return Prepared(
        names=list(args.meeting.people), finish=finish, lookups=[Lookup(args.meeting, find_meetings)]
    )


_VERBS = {"accepted": "Accept", "tentative": "Tentatively accept", "declined": "Decline"}


def answer_caption(card: Any) -> str:
    item = card.meeting.item
    if item is None:
        return f"Answer an invitation: {card.meeting.query} ({card.meeting.status})"
    return f"{_VERBS[card.response]} '{item.fields.get('title') or 'meeting'}'"


def answer_said(card: Any) -> str | None:
    item = card.meeting.item
    if item is None:
        return None
    return f"prepared your answer to '{item.fields.get('title') or 'the invitation'}' ({card.response})"


SPEC = ToolSpec(
    name="answer_invitation",
    action_group="invitation_answer",
    api_path="/invitation-answers",
    args_model=AnswerArgs,
    payload_model=AnswerPayload,
    prepare=prepare,
    card=CardSpec.of_payload(AnswerPayload, answer_caption, said=answer_said, held="answered"),
    review="multitool.tools.meeting.answer_confirm:REVIEW",
    group_description="Prepares the user's answer to a meeting invitation for review; never answers it.",
    nouns=("an invitation answer", "invitation answers"),
    description=(
        "Accept, tentatively accept or decline a meeting the user is invited to: pass the meeting as the "
        "user "
        "named it (what they said, the organizer or people, the day, title words), the response and the "
        "message to the organizer if they gave one. Nothing is answered until the user confirms."
    ),
)
