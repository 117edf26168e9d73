"""meeting_move: a card that moves a meeting of the user's; its confirm updates the one event.

The meeting is named by reference (:class:`~multitool.toolkit.references.ItemRef`, found by
:func:`multitool.tools.meeting.find.find_meetings` among the user's own), the new time through the
same time contract as a new meeting (``when``/``times``/``timezone``/``notOn``:
:mod:`multitool.tools.meeting.meeting_scheduler`), or relative to the meeting as it is (a shift,
"30 minutes later"; a new length, "make it 15 minutes"). The slots are searched against everyone's
busy times but this meeting's own (:func:`.existing.without_own`), within working hours, with the
same notes (holidays, a day ruled out, times passed that disagree with the phrase). Only the
organizer moves a meeting: an attendee's card proposes the time to the organizer where the
calendar can (Microsoft 365) and says so where it cannot (Google). The confirm is
:mod:`.move_confirm`.
"""

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from pydantic import Field, model_validator

from multitool.ports.calendar import CalendarEvent, Scope
from multitool.text import SingleLine
from multitool.toolkit.cards import CardSpec, day_words
from multitool.toolkit.common import BusyTimes, DraftRef, People, Prepared, revises_field
from multitool.toolkit.context import (
    MAX_DURATION_MINUTES,
    MAX_WHEN_CHARS,
    MIN_DURATION_MINUTES,
    ToolConfig,
    ToolContext,
)
from multitool.toolkit.errors import NoFreeSlot
from multitool.toolkit.references import ItemRef, Lookup, reference_notes
from multitool.toolkit.spec import ToolSpec
from multitool.tools.meeting.existing import (
    Message,
    MovePayload,
    chosen_scope,
    colleagues,
    event_of,
    not_started,
    offered_events,
    people_of,
    scope_field,
    scope_question,
    scope_words,
    shifted,
    without_own,
)
from multitool.tools.meeting.find import find_meetings, read_window
from multitool.tools.meeting.meeting_scheduler import (
    MAX_TIME_OPTIONS,
    MeetingArgs,
    TimeValue,
    cross_check,
    holiday_notes,
    moved_notes,
    reading_notes,
)
from multitool.tools.meeting.scheduling import (
    hours_attendees,
    hours_notes,
    search_window,
    slot_checks,
    slot_proposal,
    slot_words,
)
from multitool.tools.meeting.slots import Slot
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.toolkit.references import Found

MAX_SHIFT_MINUTES = 7 * 24 * 60


class MoveArgs(WireModel):
    """The meeting as the user named it, and its new time: said, a shift, or a new length."""

    meeting: ItemRef = Field(description="The meeting to move, as the user named it; the backend finds it")
    when: SingleLine | None = Field(
        default=None,
        max_length=MAX_WHEN_CHARS,
        description="The new day or time exactly as the user said it ('Friday afternoon', 'Thursday at 3pm');"
        " "
        "leave it out for a shift or a new length only",
    )
    times: list[TimeValue] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_TIME_OPTIONS,
        description=MeetingArgs.model_fields["times"].description,
    )
    timezone: SingleLine | None = Field(
        default=None, max_length=64, description=MeetingArgs.model_fields["timezone"].description
    )
    not_on: list[date] | None = Field(
        default=None,
        max_length=MAX_TIME_OPTIONS * 3,
        description=MeetingArgs.model_fields["not_on"].description,
    )
    shift_minutes: int | None = Field(
        default=None,
        ge=-MAX_SHIFT_MINUTES,
        le=MAX_SHIFT_MINUTES,
        description="A move relative to its time now, in minutes: 'push it 30 minutes later' is 30, "
        "'an hour earlier' -60",
    )
    duration_minutes: int | None = Field(
        default=None,
        ge=MIN_DURATION_MINUTES,
        le=MAX_DURATION_MINUTES,
        description="The new length when the user changes it ('make it 15 minutes'); leave it out to keep it",
    )
    message: Message = Field(
        default="", description="What the update tells the attendees, if the user said why"
    )
    scope: Scope | None = scope_field()
    revises: DraftRef | None = revises_field()

    @model_validator(mode="after")
    def _a_new_time(self) -> "MoveArgs":
        if (
            self.when is None
            and self.times is None
            and self.shift_minutes is None
            and self.duration_minutes is None
        ):
            raise ValueError("say the new time: when (and times), shiftMinutes or durationMinutes")
        return self


def _time_args(args: MoveArgs, duration: int | None = None) -> MeetingArgs:
    """The new time as a new meeting's time is said: the same contract, read by the same code."""
    values: dict[str, Any] = {
        "attendees": ["the attendees"],
        "title": "the meeting",
        "when": args.when or "-",
    }
    for name in ("times", "timezone", "not_on"):
        if getattr(args, name) is not None:
            values[name] = getattr(args, name)
    if duration is not None:
        values["duration_minutes"] = duration
    return MeetingArgs.model_validate(values)


def _subject(found: "Found") -> tuple[CalendarEvent | None, list[CalendarEvent]]:
    resolution = found[0]
    return event_of(resolution), offered_events(resolution)


def prepare(args: MoveArgs, ctx: ToolContext, config: ToolConfig) -> Prepared:
    said = args.when is not None or args.times is not None
    if said:
        from multitool.tools.meeting.meeting_scheduler import _provisional

        request = _provisional(_time_args(args), ctx)
        window = search_window(request, ctx, config)
    else:
        start, end = read_window([args.meeting], ctx.now, ctx.zone)
        reach = timedelta(minutes=abs(args.shift_minutes or 0) + (args.duration_minutes or 0))
        window = (start - reach, end + reach)

    def attendees_of(found: "Found") -> list[str]:
        people = [p for event in offered_events(found[0]) for p in event.people] if found else []
        return colleagues(people, ctx.requester_email)

    def finish(people: People, busy: BusyTimes, found: "Found") -> dict[str, Any]:
        event, offered = _subject(found)
        notes = reference_notes(found, "meeting")
        scope = chosen_scope(event, args.scope, args.meeting.from_day is not None)
        if event is not None and event.recurring and scope is None:
            notes.append(scope_question(event))
        base: dict[str, Any] = {
            "scope": scope,
            "scopeWords": scope_words(event, scope),
            "meeting": found[0].to_wire(),
            "requested": args.when,
            "shiftMinutes": args.shift_minutes,
            "durationMinutes": args.duration_minutes,
            "timezone": ctx.timezone,
            "message": args.message,
        }
        if not offered:
            return {**base, "slots": [], "notes": notes}
        subject = event or offered[0]
        if event is not None:
            not_started(event, ctx.now, "moved")
        directory = {r.person.email.casefold(): r.person for r in people.values() if r.person is not None}
        attendees = people_of(subject, directory, ctx.requester_email)
        own = list(offered)
        emails = list(
            dict.fromkeys(
                [
                    *(p for e in offered for p in e.people),
                    *([ctx.requester_email] if ctx.requester_email else []),
                ]
            )
        )
        free_of_own = {email: without_own(busy.get(email, ()), own) for email in emails}
        intervals = [i for email in emails for i in free_of_own[email]]
        if said:
            slots, slot_notes = _said_slots(args, subject, intervals, attendees, ctx, config)
            notes.extend(slot_notes)
        else:
            moved = shifted(subject, args.shift_minutes, args.duration_minutes)
            slot = Slot(start=moved.start.astimezone(ctx.zone), end=moved.end.astimezone(ctx.zone))
            if slot.start <= ctx.now:
                raise NoFreeSlot(
                    f"That would start at {slot.start.isoformat(timespec='minutes')}, in the past: "
                    "ask for a later time.",
                    field="shiftMinutes",
                )
            slots = [slot]
        checks = slot_checks(slots, attendees, free_of_own, ctx, config)
        if event is not None and event.role != "organizer":
            notes.append(_attendee_note(event, found, ctx))
        return {
            **base,
            "role": event.role if event is not None else None,
            "before": {"start": subject.start.isoformat(), "end": subject.end.isoformat()},
            "slots": [s.to_wire() for s in slots],
            "slotNotes": [slot_words(each, ctx, attendees) for each in checks],
            "slotChecks": [[c.to_wire() for c in each] for each in checks],
            "proposes": event is not None and event.role != "organizer",
            "notes": list(dict.fromkeys(notes)),
        }

    return Prepared(
        names=list(args.meeting.people),
        finish=finish,
        lookups=[Lookup(args.meeting, find_meetings)],
        busy_window=window,
        busy_emails=[ctx.requester_email] if ctx.requester_email else [],
        busy_found=attendees_of,
    )


def _attendee_note(event: CalendarEvent, found: "Found", ctx: ToolContext) -> str:
    who = event.organizer_name or event.organizer
    return (
        f"{who} organizes this meeting, so only they can move it: confirming proposes the new time to them "
        "(where your calendar can: Microsoft 365 can, Google Calendar cannot; then decline it and say why)."
    )


def _said_slots(
    args: MoveArgs,
    subject: CalendarEvent,
    intervals: list[Any],
    attendees: list[Any],
    ctx: ToolContext,
    config: ToolConfig,
) -> tuple[list[Slot], list[str]]:
    from multitool.tools.meeting.meeting_scheduler import _phrase, _provisional, _zone_arg

    minutes = args.duration_minutes or int((subject.end - subject.start).total_seconds() // 60)
    time_args = _time_args(args, max(MIN_DURATION_MINUTES, min(MAX_DURATION_MINUTES, minutes)))
    request = _provisional(time_args, ctx)
    reading = _phrase(time_args, ctx, _zone_arg(time_args)) if args.when else None
    constraining, zone_notes = hours_attendees(attendees)
    proposal = slot_proposal(request, timedelta(minutes=minutes), intervals, ctx, config, constraining)
    if not proposal.slots:
        raise NoFreeSlot(
            f"No {minutes}-minute time when everyone on '{subject.title}' is free from "
            f"'{args.when or ', '.join(args.times or ())}'. Ask for another day.",
            field="when",
        )
    notes = list(zone_notes)
    for asked in proposal.taken:
        notes.append(f"{asked.isoformat(timespec='minutes')} is taken; these are the next free times.")
    notes.extend(moved_notes(request, proposal, ctx, config))
    notes.extend(holiday_notes(proposal, constraining, ctx))
    notes.extend(hours_notes(proposal, request, config))
    notes.extend(n for n in reading_notes(time_args, request, config) if not n.startswith("No length"))
    if args.when:
        notes.extend(cross_check(time_args, request, reading))
    return list(proposal.slots), notes


# -- the card ------------------------------------------------------------------------------------


def move_caption(card: Any) -> str:
    item = card.meeting.item
    if item is None:
        return f"Move a meeting: {card.meeting.query} ({card.meeting.status})"
    title = str(item.fields.get("title") or "meeting")
    if not card.slots:
        return f"Move '{title}': no new time found"
    first = card.slots[0].start
    verb = "Propose" if card.proposes else "Move"
    which = f" ({card.scope_words})" if card.scope_words else ""
    return f"{verb} '{title}'{which} to {day_words(first)} {first:%H:%M}" + (
        f" ({len(card.slots)} times offered)" if len(card.slots) > 1 else ""
    )


def move_said(card: Any) -> str | None:
    item = card.meeting.item
    if item is None or not card.slots:
        return None
    title = str(item.fields.get("title") or "the meeting")
    return f"found {'a new time' if len(card.slots) == 1 else f'{len(card.slots)} new times'} for '{title}'"


def _fingerprint(card: Any) -> tuple[Any, ...]:
    item = card.meeting.item
    first: datetime | None = card.slots[0].start if card.slots else None
    return (item.id if item else card.meeting.query, first, card.shift_minutes, card.duration_minutes)


SPEC = ToolSpec(
    name="move_meeting",
    action_group="meeting_move",
    api_path="/meeting-moves",
    args_model=MoveArgs,
    payload_model=MovePayload,
    prepare=prepare,
    card=CardSpec.of_payload(
        MovePayload, move_caption, fingerprint=_fingerprint, said=move_said, held="moved"
    ),
    review="multitool.tools.meeting.move_confirm:REVIEW",
    group_description="Proposes a new time for one of the user's meetings for review; never moves it.",
    nouns=("a meeting move", "meeting moves"),
    description=(
        "Move one of the user's existing meetings: pass the meeting as the user named it (what they said, "
        "the "
        "people, the day, title words) and the new time as said (when/times, like propose_meeting), or "
        "shiftMinutes ('30 minutes later') or durationMinutes ('make it 15 minutes'). The backend finds the "
        "meeting in the user's calendar and offers free times; nothing changes until the user confirms. "
        "For a repeating meeting pass scope when the user said which: 'occurrence' (only the one named) "
        "or 'series' (every meeting of it)."
    ),
)


__all__: Sequence[str] = ("SPEC", "MoveArgs", "prepare")
