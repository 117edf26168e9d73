"""meeting_scheduler: up to three free slots for a meeting; its confirm books one and invites.

The slots come from :mod:`multitool.tools.scheduling` (working hours in everyone's zone,
busy times, parts of the day); every guess behind them is said in ``notes``. A confirm
books the chosen slot first, re-checking every tracked attendee's time, then sends the
invitation (:mod:`multitool.tools.meeting_booking`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import Field

from multitool.cards import (
    TYPE_ALIAS,
    Card,
    CardSpec,
    Fingerprint,
    a_thing,
    day_words,
    names_of,
    norm,
    people_key,
    unresolved_notes,
    when_words,
)
from multitool.people import NameResolution
from multitool.review.base import (
    ActionReview,
    InvalidEdits,
    ReviewContext,
    addresses,
)
from multitool.slots import Slot
from multitool.text import SingleLine
from multitool.tools.base import (
    MAX_ATTENDEES,
    MAX_DURATION_MINUTES,
    MAX_TITLE_CHARS,
    MAX_WHEN_CHARS,
    MIN_DURATION_MINUTES,
    NoFreeSlot,
    ToolConfig,
    ToolContext,
    ToolSpec,
)
from multitool.tools.common import (
    BusyTimes,
    DraftRef,
    People,
    Prepared,
    RawName,
    replaced_field,
    resolve_recipient,
    revises_field,
)
from multitool.tools.common import (
    unsettled_notes as unsettled_names,
)
from multitool.tools.meeting_booking import (
    MeetingContent,
    MeetingEdits,
    book_and_invite,
    meeting_not_started,
)
from multitool.tools.scheduling import hours_attendees, hours_notes, search_window, slot_proposal
from multitool.tools.when import RequestedTime, resolve_when
from multitool.wire import WireModel

ACTION = "show_meeting_scheduler"


class MeetingArgs(WireModel):
    """What the model passes: raw attendee names, a title, the day or time as the user said it."""

    attendees: list[RawName] = Field(
        min_length=1,
        max_length=MAX_ATTENDEES,
        description="Attendees as the user named them; resolved by the backend",
    )
    title: SingleLine = Field(
        min_length=1, max_length=MAX_TITLE_CHARS, description="Meeting title, e.g. 'Sync'"
    )
    when: SingleLine = Field(
        min_length=1,
        max_length=MAX_WHEN_CHARS,
        description=(
            "Day or time as said: 'Thursday', 'Friday morning', 'tomorrow at 3pm', 'next Tuesday', "
            "or ISO 8601"
        ),
    )
    duration_minutes: int = Field(
        default=30, ge=MIN_DURATION_MINUTES, le=MAX_DURATION_MINUTES, description="Length in minutes"
    )
    revises: DraftRef | None = revises_field()


class MeetingPayload(WireModel):
    action: Literal["show_meeting_scheduler"] = "show_meeting_scheduler"
    draft_id: str
    title: str
    attendees: tuple[NameResolution, ...]
    requested: str = Field(description="The day or time as asked")
    duration_minutes: int
    timezone: str
    slots: tuple[Slot, ...]
    notes: tuple[str, ...] = ()
    revises: str | None = replaced_field()


def reading_notes(args: MeetingArgs, requested: RequestedTime, config: ToolConfig) -> list[str]:
    """Every guess behind the slots: how the day and time were read, hours and duration assumed."""
    notes = list(requested.notes)
    hours = f"{config.working_hours_start:02d}:00-{config.working_hours_end:02d}:00"
    if requested.window is not None:
        opens, closes = (m.hour + m.minute / 60 for m in requested.window)
        if opens < config.working_hours_start or closes > config.working_hours_end:
            notes.append(f"The {requested.part} reaches outside working hours ({hours}).")
    elif requested.time is None:
        notes.append(
            f"No time was asked for: the slots are the earliest free times within working hours ({hours})."
        )
    if "duration_minutes" not in args.model_fields_set:
        notes.append(f"No length was asked for: {args.duration_minutes} minutes.")
    return notes


def prepare(args: MeetingArgs, ctx: ToolContext, config: ToolConfig) -> Prepared:
    requested = resolve_when(args.when, ctx)
    duration = timedelta(minutes=args.duration_minutes)

    def finish(people: People, busy: BusyTimes) -> dict[str, Any]:
        attendees = [resolve_recipient(name, people) for name in args.attendees]
        # Everyone's bookings, the requester's included: they attend the meeting they ask for.
        busy_emails = [r.person.email for r in attendees if r.person is not None]
        if ctx.requester_email is not None:
            busy_emails.append(ctx.requester_email)
        intervals = [interval for email in dict.fromkeys(busy_emails) for interval in busy.get(email, ())]
        constraining, zone_notes = hours_attendees(attendees)
        proposal = slot_proposal(requested, duration, intervals, ctx, config, constraining)
        if not proposal.slots:
            raise NoFreeSlot(
                f"No {args.duration_minutes}-minute time when every attendee is free from '{args.when}' "
                f"over the next {config.search_working_days} working days. "
                "Ask for a later day or a shorter meeting.",
                field="when",
            )
        notes = unsettled_names(attendees, "attendee") + zone_notes
        asked = requested.start(ctx)
        if asked is not None and not proposal.asked_first:
            notes.append(f"{asked.isoformat(timespec='minutes')} is taken; these are the next free times.")
        notes.extend(hours_notes(proposal, requested, config))
        notes.extend(reading_notes(args, requested, config))
        return {
            "action": ACTION,
            "title": args.title,
            "attendees": [r.to_wire() for r in attendees],
            "requested": args.when,
            "durationMinutes": args.duration_minutes,
            "timezone": ctx.timezone,
            "slots": [s.to_wire() for s in proposal.slots],
            "notes": notes,
        }

    return Prepared(
        names=list(args.attendees),
        finish=finish,
        busy_window=search_window(requested, ctx, config),
        busy_names=list(args.attendees),
        busy_emails=[ctx.requester_email] if ctx.requester_email is not None else [],
    )


# -- the card ------------------------------------------------------------------


class MeetingSchedulerCard(Card):
    """Scheduler card: attendees, title and up to three proposed slots."""

    type: Literal["show_meeting_scheduler"] = Field(validation_alias=TYPE_ALIAS)
    # The confirm's limit, in the card's JSON Schema for the page to read (the edit is checked again).
    title: str = Field(default="", max_length=MAX_TITLE_CHARS)
    attendees: tuple[NameResolution, ...] = ()
    requested: str | None = Field(default=None, description="The day or time as the user said it")
    duration_minutes: int = 30
    timezone: str = "UTC"
    slots: tuple[Slot, ...] = ()


def meeting_fingerprint(card: MeetingSchedulerCard) -> Fingerprint:
    # The first slot's start as a datetime: the same instant is the same start, whatever its offset.
    start = card.slots[0].start if card.slots else norm(card.requested)
    return (people_key(card.attendees), start, " ".join(card.title.casefold().split()))


def meeting_caption(card: MeetingSchedulerCard) -> str:
    title = card.title or "Meeting"
    slots = card.slots
    if not slots:
        when = f"no free slot found for {card.requested}" if card.requested else "no free slot found"
    else:
        first = slots[0].start
        day = first.date()
        count = len(slots)
        noun = "slot" if count == 1 else "slots"
        joiner = "on"
        for slot in slots:
            if slot.start.date() != day:
                joiner = "from"
                break
        when = f"{count} proposed {noun} {joiner} {day_words(first)}"
    return f"Meeting '{title}' with {names_of(card.attendees)}: {when}{unresolved_notes(card.attendees)}"


def meeting_said(card: MeetingSchedulerCard) -> str | None:
    """'found 3 times for a sync with Kinshuok Sharma on Thursday'; None without a slot to offer."""
    slots = card.slots
    if not slots:
        return None
    times = "a time" if len(slots) == 1 else f"{len(slots)} times"
    when = when_words(card.requested) if card.requested else f"on {day_words(slots[0].start)}"
    return f"found {times} for {a_thing(card.title)} with {names_of(card.attendees)} {when}"


# -- the confirm: the slot chosen, the booking, the invitation -------------------


def meeting_content(
    edits: MeetingEdits, confirmed: MeetingContent | None, ctx: ReviewContext
) -> MeetingContent:
    payload = MeetingPayload.model_validate(ctx.draft.payload)
    attendees = addresses(
        edits.attendees, confirmed.attendees if confirmed else None, payload.attendees, "attendees", ctx
    )
    if edits.slot is not None:
        slot = next(
            (s for s in payload.slots if s.start == edits.slot.start and s.end == edits.slot.end),
            None,
        )
        if slot is None:
            offered = ", ".join(f"{s.start.isoformat()}/{s.end.isoformat()}" for s in payload.slots) or "none"
            raise InvalidEdits(f"Choose one of the proposed slots: {offered}.", field="slot")
        start, end = slot.start, slot.end
    elif confirmed is not None:
        start, end = confirmed.start, confirmed.end
    elif len(payload.slots) == 1:
        start, end = payload.slots[0].start, payload.slots[0].end
    else:
        raise InvalidEdits("Choose one of the proposed slots.", field="slot")
    zone = ZoneInfo(payload.timezone)
    return MeetingContent(
        title=edits.title or (confirmed.title if confirmed else payload.title),
        attendees=attendees,
        start=start.astimezone(zone),
        end=end.astimezone(zone),
        timezone=payload.timezone,
    )


SPEC = ToolSpec(
    name="propose_meeting",
    action_group="meeting_scheduler",
    api_path="/meeting-proposals",
    args_model=MeetingArgs,
    payload_model=MeetingPayload,
    action=ACTION,
    prepare=prepare,
    card=CardSpec(
        MeetingSchedulerCard, meeting_fingerprint, meeting_caption, said=meeting_said, held="booked"
    ),
    review=ActionReview(MeetingEdits, MeetingContent, meeting_content, book_and_invite, meeting_not_started),
    group_description="Proposes meeting slots for the user to review; never books.",
    nouns=("a meeting proposal", "meeting proposals"),
    description=(
        "Propose a meeting for the user to review and book: up to three free slots within working "
        "hours on the day asked for. Pass attendees exactly as the user named them and the day or "
        "time as the user said it ('Thursday', 'tomorrow at 3pm'). Nothing is booked until the user confirms."
    ),
)
