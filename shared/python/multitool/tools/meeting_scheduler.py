"""meeting_scheduler: up to three free slots for a meeting; nothing is booked here.

Slots lie within working hours (``ToolConfig.working_hours_start/end``, in the
requesting user's time zone) on working days (Monday to Friday), start on a
30-minute grid, and avoid every resolved attendee's busy intervals. The search
starts on the requested day (from now, if that is today) and moves on to the
following working days while fewer than three slots are found. A time the
user named ("tomorrow at 3pm") is the first slot when it is free, even outside
working hours, since the user asked for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal

from pydantic import Field

from multitool.people import NameResolution
from multitool.ports.calendar import Interval, overlaps
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
from multitool.tools.common import BusyTimes, People, Prepared, RawName, resolve_recipient, unsettled_notes
from multitool.tools.when import RequestedTime, resolve_when
from multitool.wire import WireModel

ACTION = "show_meeting_scheduler"
WORKING_DAYS = frozenset(range(5))  # Monday..Friday


class MeetingArgs(WireModel):
    """What the model passes: raw attendee names, a title, the day or time as the user said it."""

    attendees: list[RawName] = Field(
        min_length=1,
        max_length=MAX_ATTENDEES,
        description="Attendees as the user named them; resolved by the backend",
    )
    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS, description="Meeting title, e.g. 'Sync'")
    when: str = Field(
        min_length=1,
        max_length=MAX_WHEN_CHARS,
        description="Day or time as said: 'Thursday', 'tomorrow at 3pm', 'next Tuesday', or ISO 8601",
    )
    duration_minutes: int = Field(
        default=30, ge=MIN_DURATION_MINUTES, le=MAX_DURATION_MINUTES, description="Length in minutes"
    )


class Slot(WireModel):
    start: datetime
    end: datetime


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


def search_days(first: date, config: ToolConfig) -> list[date]:
    """The requested day if it is a working day, then working days after it."""
    days: list[date] = []
    day = first
    while len(days) < config.search_working_days:
        if day.weekday() in WORKING_DAYS:
            days.append(day)
        day += timedelta(days=1)
    return days


def search_window(
    requested: RequestedTime, ctx: ToolContext, config: ToolConfig
) -> tuple[datetime, datetime]:
    """[start, end) covering every candidate slot: whole local days, UTC."""
    days = search_days(requested.day, config)
    first = min(requested.day, days[0])
    start = datetime.combine(first, datetime.min.time(), tzinfo=ctx.zone)
    end = datetime.combine(days[-1] + timedelta(days=1), datetime.min.time(), tzinfo=ctx.zone)
    return start.astimezone(UTC), end.astimezone(UTC)


def _free(start: datetime, end: datetime, busy: Sequence[Interval]) -> bool:
    return not any(overlaps(interval, start, end) for interval in busy)


def _round_up(moment: datetime, step: timedelta) -> datetime:
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    offset = (moment - epoch) % step
    return moment if not offset else moment + (step - offset)


def propose_slots(
    requested: RequestedTime,
    duration: timedelta,
    busy: Sequence[Interval],
    ctx: ToolContext,
    config: ToolConfig,
) -> list[Slot]:
    """Up to ``config.max_slots`` free slots, earliest first after the asked-for time."""
    zone = ctx.zone
    step = timedelta(minutes=config.slot_step_minutes)
    now = ctx.now.astimezone(UTC)
    slots: list[Slot] = []
    taken: list[Interval] = []
    asked = requested.start(ctx)
    not_before = now
    if asked is not None:
        asked_utc = asked.astimezone(UTC)
        if asked_utc >= now - timedelta(minutes=1) and _free(asked_utc, asked_utc + duration, busy):
            slots.append(Slot(start=asked, end=(asked_utc + duration).astimezone(zone)))
            taken.append(Interval(start=asked_utc, end=asked_utc + duration))
            not_before = max(now, asked_utc + duration)
        else:
            not_before = max(now, asked_utc)
    for day in search_days(requested.day, config):
        opens = datetime.combine(day, datetime.min.time(), tzinfo=zone) + timedelta(
            hours=config.working_hours_start
        )
        closes = datetime.combine(day, datetime.min.time(), tzinfo=zone) + timedelta(
            hours=config.working_hours_end
        )
        # Aware + timedelta is wall-clock arithmetic: 9:00 stays 9:00 local on DST days.
        opens_utc, closes_utc = opens.astimezone(UTC), closes.astimezone(UTC)
        candidate = _round_up(max(opens_utc, not_before), step)
        while candidate + duration <= closes_utc and len(slots) < config.max_slots:
            if _free(candidate, candidate + duration, busy) and _free(candidate, candidate + duration, taken):
                slots.append(
                    Slot(start=candidate.astimezone(zone), end=(candidate + duration).astimezone(zone))
                )
                taken.append(Interval(start=candidate, end=candidate + duration))
                # Distinct choices: the next proposal starts after this one ends.
                candidate = _round_up(candidate + duration, step)
                continue
            candidate += step
        if len(slots) >= config.max_slots:
            break
    return slots


def prepare(args: MeetingArgs, ctx: ToolContext, config: ToolConfig) -> Prepared:
    requested = resolve_when(args.when, ctx)
    duration = timedelta(minutes=args.duration_minutes)

    def finish(people: People, busy: BusyTimes) -> dict[str, Any]:
        attendees = [resolve_recipient(name, people) for name in args.attendees]
        intervals = [
            interval
            for resolution in attendees
            if resolution.person is not None
            for interval in busy.get(resolution.person.email, ())
        ]
        slots = propose_slots(requested, duration, intervals, ctx, config)
        if not slots:
            raise NoFreeSlot(
                f"No {args.duration_minutes}-minute time when every attendee is free from '{args.when}' "
                f"over the next {config.search_working_days} working days. "
                "Ask for a later day or a shorter meeting.",
                field="when",
            )
        notes = unsettled_notes(attendees, "attendee")
        asked = requested.start(ctx)
        if asked is not None and slots[0].start != asked:
            notes.append(f"{asked.isoformat(timespec='minutes')} is taken; these are the next free times.")
        return {
            "action": ACTION,
            "title": args.title,
            "attendees": [r.to_wire() for r in attendees],
            "requested": args.when,
            "durationMinutes": args.duration_minutes,
            "timezone": ctx.timezone,
            "slots": [s.to_wire() for s in slots],
            "notes": notes,
        }

    return Prepared(
        names=list(args.attendees),
        finish=finish,
        busy_window=search_window(requested, ctx, config),
        busy_names=list(args.attendees),
    )


SPEC = ToolSpec(
    name="propose_meeting",
    action_group="meeting_scheduler",
    api_path="/meeting-proposals",
    method="POST",
    args_model=MeetingArgs,
    payload_model=MeetingPayload,
    action=ACTION,
    description=(
        "Propose a meeting for the user to review and book: up to three free slots within working "
        "hours on the day asked for. Pass attendees exactly as the user named them and the day or "
        "time as the user said it ('Thursday', 'tomorrow at 3pm'). Nothing is booked until the user confirms."
    ),
)
