"""meeting_cancel: a card that cancels a meeting of the user's, with a message to the attendees.

The meeting is named by reference (found by :func:`multitool.tools.meeting.find.find_meetings`
among the user's own). The organizer's confirm cancels it on the calendar with the message
(:mod:`.cancel_confirm`); an attendee cannot cancel someone else's meeting: their card offers to
decline it instead, with the same message to the organizer.

A meeting of a repeating series is cancelled for that one meeting or for the whole series
(``scope``): as the user said; the one meeting when they named its day; else the card asks, and
the confirm's edits choose.
"""

from typing import TYPE_CHECKING, Any

from pydantic import Field

from multitool.ports.calendar import Scope
from multitool.toolkit.cards import CardSpec
from multitool.toolkit.common import BusyTimes, DraftRef, People, Prepared, revises_field
from multitool.toolkit.context import ToolConfig, ToolContext
from multitool.toolkit.references import ItemRef, Lookup, reference_notes
from multitool.toolkit.spec import ToolSpec
from multitool.tools.meeting.existing import (
    CancelPayload,
    Message,
    chosen_scope,
    event_of,
    not_started,
    scope_field,
    scope_question,
    scope_words,
)
from multitool.tools.meeting.find import find_meetings
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.toolkit.references import Found


class CancelArgs(WireModel):
    meeting: ItemRef = Field(description="The meeting to cancel, as the user named it; the backend finds it")
    message: Message = Field(
        default="", description="What to tell the attendees, as the user said it ('I'm sick'), if they did"
    )
    scope: Scope | None = scope_field()
    revises: DraftRef | None = revises_field()


def prepare(args: CancelArgs, ctx: ToolContext, _config: ToolConfig) -> Prepared:
    def finish(_people: People, _busy: BusyTimes, found: "Found") -> dict[str, Any]:
        event = event_of(found[0])
        notes = reference_notes(found, "meeting")
        declines = False
        scope = chosen_scope(event, args.scope, args.meeting.from_day is not None)
        if event is not None and event.recurring and scope is None:
            notes.append(scope_question(event))
        if event is not None:
            not_started(event, ctx.now, "cancelled")
            if event.role != "organizer":
                declines = True
                notes.append(
                    f"{event.organizer_name or event.organizer} organizes this meeting, so only they can "
                    "cancel "
                    "it: confirming declines it for you, with your message to them."
                )
        return {
            "meeting": found[0].to_wire(),
            "role": event.role if event is not None else None,
            "message": args.message,
            "declines": declines,
            "scope": scope,
            "scopeWords": scope_words(event, scope),
            "timezone": ctx.timezone,
            "notes": notes,
        }

    return Prepared(
        names=list(args.meeting.people), finish=finish, lookups=[Lookup(args.meeting, find_meetings)]
    )


def cancel_caption(card: Any) -> str:
    item = card.meeting.item
    if item is None:
        return f"Cancel a meeting: {card.meeting.query} ({card.meeting.status})"
    verb = "Decline" if card.declines else "Cancel"
    parts = item.label.split(" · ")
    when = f" ({parts[1]})" if len(parts) > 1 else ""
    which = f": {card.scope_words}" if card.scope_words else ""
    return f"{verb} '{item.fields.get('title') or 'meeting'}'{when}{which}"


def cancel_said(card: Any) -> str | None:
    item = card.meeting.item
    if item is None:
        return None
    what = "your decline of" if card.declines else "the cancellation of"
    return f"prepared {what} '{item.fields.get('title') or 'the meeting'}'"


SPEC = ToolSpec(
    name="cancel_meeting",
    action_group="meeting_cancel",
    api_path="/meeting-cancellations",
    args_model=CancelArgs,
    payload_model=CancelPayload,
    prepare=prepare,
    card=CardSpec.of_payload(CancelPayload, cancel_caption, said=cancel_said, held="cancelled"),
    review="multitool.tools.meeting.cancel_confirm:REVIEW",
    group_description="Prepares cancelling one of the user's meetings for review; never cancels it.",
    nouns=("a meeting cancellation", "meeting cancellations"),
    description=(
        "Cancel one of the user's existing meetings: pass the meeting as the user named it (what they said, "
        "the people, the day, title words) and the message to the attendees if they gave one ('say I'm "
        "sick'). For a repeating meeting pass scope when the user said which: 'occurrence' (only the one "
        "named) or 'series' (every meeting of it). The "
        "backend finds it in the user's calendar; nothing is cancelled until the user confirms."
    ),
)
