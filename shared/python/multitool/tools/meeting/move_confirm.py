"""What confirming a meeting move does: re-read the meeting, re-check the time, update it once.

The calendar's :meth:`~multitool.ports.calendar.Calendar.move` re-reads the event and writes only
over the version the card showed (a meeting changed or gone since: ``409 item_changed``, nothing
written; already at the new time: nothing to do, a retried confirm). Everyone's time is re-read
first, this meeting's own left out (taken since the card: ``409 slot_taken``). Microsoft 365 and
Google mail the update themselves; on the built-in calendar the confirm mails an iCalendar REQUEST
with the SEQUENCE raised (:func:`.existing.notify`). An attendee's confirm proposes the time to
the organizer where the calendar can (Graph's ``proposedNewTime``), and is refused where it cannot.
"""

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import Field

from multitool.ports.calendar import (
    CalendarEvent,
    EventChanged,
    Interval,
    NotOrganizer,
    Response,
    Scope,
    SlotTaken,
    already_at,
    checked,
)
from multitool.toolkit.confirm import ActionReview, Backends, ReviewContext
from multitool.toolkit.errors import InvalidEdits, SlotRefused
from multitool.toolkit.references import Key
from multitool.tools.meeting.existing import (
    Message,
    MovePayload,
    caller_address,
    changed,
    notify,
    recheck_free,
    scope_question,
    shifted,
    shown_meeting,
    when_words,
)
from multitool.tools.meeting.slots import Slot
from multitool.wire import WireModel


class MoveEdits(WireModel):
    meeting: Key | None = Field(default=None, description="The id of the meeting chosen on the card")
    slot: Slot | None = Field(default=None, description="One of the new times the card offers")
    message: Message | None = None
    scope: Scope | None = Field(
        default=None, description="For a meeting of a series: 'occurrence' (this one) or 'series' (every one)"
    )


class MoveContent(WireModel):
    meeting: CalendarEvent
    start: datetime
    end: datetime
    message: str = ""
    scope: Scope | None = None


def move_content(edits: MoveEdits, confirmed: MoveContent | None, ctx: ReviewContext) -> MoveContent:
    payload = MovePayload.model_validate(ctx.draft.payload)
    meeting = shown_meeting(payload.meeting, edits.meeting or (confirmed.meeting.id if confirmed else None))
    relative = payload.requested is None and not payload.times
    if relative:
        slot = shifted(meeting, payload.shift_minutes, payload.duration_minutes)
    elif edits.slot is not None:
        slot = _offered(edits.slot, payload.slots)
    elif confirmed is not None:
        slot = Slot(start=confirmed.start, end=confirmed.end)
    elif len(payload.slots) == 1:
        slot = payload.slots[0]
    else:
        raise InvalidEdits("Choose one of the new times.", field="slot")
    message = (
        edits.message if edits.message is not None else (confirmed.message if confirmed else payload.message)
    )
    scope = edits.scope or (confirmed.scope if confirmed else None) or payload.scope
    return MoveContent(
        meeting=meeting,
        start=slot.start,
        end=slot.end,
        message=message,
        scope=scope if meeting.recurring else None,
    )


def _offered(chosen: Slot, offered: tuple[Slot, ...]) -> Slot:
    if chosen.start.utcoffset() is None:
        raise InvalidEdits("The slot's start and end must carry a UTC offset.", field="slot")
    for slot in offered:
        if (
            slot.start.timestamp() == chosen.start.timestamp()
            and slot.end.timestamp() == chosen.end.timestamp()
        ):
            return slot
    times = ", ".join(f"{s.start.isoformat()}/{s.end.isoformat()}" for s in offered) or "none"
    raise InvalidEdits(f"Choose one of the new times offered: {times}.", field="slot")


def not_started(content: MoveContent, _ctx: ReviewContext, backends: Backends) -> None:
    now = backends.clock()
    if content.meeting.start <= now:
        raise InvalidEdits(
            f"'{content.meeting.title}' has already started; it is not moved.", field="meeting"
        )
    if content.start <= now:
        raise InvalidEdits("This new time has already started; choose a later one.", field="slot")
    shown = content.meeting
    if shown.recurring and shown.role == "organizer":
        if content.scope is None:
            raise InvalidEdits(scope_question(shown), field="scope")
        zone = ZoneInfo(shown.timezone)
        if (
            content.scope == "series"
            and content.start.astimezone(zone).date() != shown.start.astimezone(zone).date()
        ):
            raise InvalidEdits(
                f"'{shown.title}' repeats on its days: the whole series moves to another time of the same "
                "day only. Move this one meeting (scope occurrence), or cancel the series and set up a new "
                "one.",
                field="scope",
            )


def move(content: MoveContent, ctx: ReviewContext, backends: Backends) -> dict[str, Any]:
    own = caller_address(ctx)
    shown = content.meeting
    if shown.role != "organizer":
        return _propose(content, ctx, backends, own)
    try:
        # The meeting as it stands first: changed since the card is item_changed, whatever the time.
        one = shown.recurring and content.scope == "occurrence"
        current = backends.calendar.event(own, shown.id)
        if current is not None and shown.recurring and shown.series_id == shown.id:
            # The built-in calendar reads the series (its first meeting): the card's meeting is the one
            # at the card's time.
            current = current.model_copy(update={"start": shown.start, "end": shown.end})
        if not already_at(current, content.start, content.end):
            recheck_free(checked(current, shown), content.start, content.end, backends, own)
        scope: Scope = "occurrence" if one else "series"
        moved = backends.calendar.move(own, shown, content.start, content.end, scope)
    except EventChanged as error:
        raise changed(error, shown) from None
    except NotOrganizer:
        raise InvalidEdits(f"Only the organizer can move '{shown.title}'.", field="meeting") from None
    except SlotTaken as taken:
        raise SlotRefused(
            f"{content.start:%a %d %b %H:%M} is no longer free: {', '.join(sorted(taken.busy))} booked then. "
            "Nothing was sent."
        ) from taken
    when = when_words(content.start, content.end, shown.timezone)
    was = when_words(shown.start, shown.end, shown.timezone)
    text = f"'{shown.title}' has moved.\nNow: {when}\nWas: {was}\n"
    if content.message:
        text += f"\n{content.message}\n"
    whole = shown.recurring and not one  # the series: its first meeting and its rule go out
    message_id = notify(
        shown.model_copy(update={"sequence": moved.sequence}) if one else moved,
        ctx,
        backends,
        method="REQUEST",
        subject=f"Updated: {shown.title}",
        text=text,
        start=moved.start if whole else content.start,
        end=moved.end if whole else content.end,
        sequence=moved.sequence,
        occurrence=shown.start if one else None,
        rrule=moved.rrule if whole else None,
    )
    return {
        "meetingId": moved.id if one else (shown.series_id or shown.id),
        **({"scope": content.scope} if shown.recurring else {}),
        "start": content.start.isoformat(),
        "end": content.end.isoformat(),
        "previousStart": shown.start.isoformat(),
        "timezone": shown.timezone,
        "sequence": moved.sequence,
        "updatedBy": "calendar" if message_id is None else "invitation",
        **({"messageId": message_id} if message_id else {}),
    }


def _propose(content: MoveContent, ctx: ReviewContext, backends: Backends, own: str) -> dict[str, Any]:
    """An attendee's move: the new time proposed to the organizer (tentatively accepting), where the
    calendar can carry a proposal; elsewhere a clear refusal, nothing changed."""
    shown = content.meeting
    if not backends.calendar.proposes_new_times:
        raise InvalidEdits(
            f"Only {shown.organizer_name or shown.organizer} can move '{shown.title}', and this calendar "
            "cannot "
            "propose a new time to them: decline it and say why, or ask them.",
            field="meeting",
        )
    try:
        backends.calendar.respond(
            own,
            shown,
            Response.TENTATIVE,
            content.message,
            proposed=Interval(start=content.start, end=content.end),
        )
    except EventChanged as error:
        raise changed(error, shown) from None
    return {
        "meetingId": shown.id,
        "proposedStart": content.start.isoformat(),
        "proposedEnd": content.end.isoformat(),
        "to": shown.organizer,
    }


def attendees_mailed(content: MoveContent, ctx: ReviewContext) -> list[tuple[str, str]]:
    """Whom the update reaches (the calendar's or ours), for the recipient limits."""
    own = (ctx.caller.email or "").casefold()
    if content.meeting.role != "organizer":
        return [("meeting.organizer", content.meeting.organizer)]
    return [
        (f"meeting.attendees[{i}]", a.email)
        for i, a in enumerate(content.meeting.attendees)
        if a.email.casefold() != own
    ]


REVIEW = ActionReview(MoveEdits, MoveContent, move_content, move, not_started, recipients=attendees_mailed)
