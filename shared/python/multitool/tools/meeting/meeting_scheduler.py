"""meeting_scheduler: up to three free slots for a meeting; its confirm books one and invites.

The slots come from :mod:`multitool.tools.meeting.scheduling` (working hours in everyone's zone,
busy times, parts of the day); every guess behind them is said in ``notes``. A confirm
books the chosen slot first, re-checking every tracked attendee's time, then sends the
invitation (:mod:`multitool.tools.meeting.booking`).
"""

from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from datetime import time as dt_time
from typing import TYPE_CHECKING, Annotated, Any, Literal
from zoneinfo import ZoneInfo

import msgspec
from pydantic import Field, StringConstraints

from multitool.people import NameResolution
from multitool.ports.recurrence import Recurrence, RecurrenceProblem
from multitool.ports.recurrence import check as check_rule
from multitool.text import SingleLine
from multitool.toolkit.cards import (
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
from multitool.toolkit.common import (
    BusyTimes,
    DraftRef,
    People,
    Prepared,
    RawName,
    lookalike_notes,
    resolve_recipient,
    revises_field,
)
from multitool.toolkit.common import unsettled_notes as unsettled_names
from multitool.toolkit.context import (
    MAX_ATTENDEES,
    MAX_DURATION_MINUTES,
    MAX_TITLE_CHARS,
    MAX_WHEN_CHARS,
    MIN_DURATION_MINUTES,
    ToolConfig,
    ToolContext,
)
from multitool.toolkit.errors import InvalidRecurrence, NoFreeSlot, UnknownTimeZone, UnparseableDate
from multitool.toolkit.links import CallLabel, Produced, label_field, time_words
from multitool.toolkit.spec import ToolSpec
from multitool.tools.meeting.payload import MeetingPayload
from multitool.tools.meeting.scheduling import (
    WORKING_DAYS,
    Attendee,
    SlotProposal,
    day_label,
    hours_attendees,
    hours_notes,
    search_window,
    slot_checks,
    slot_proposal,
    slot_words,
)
from multitool.tools.meeting.series import busy_horizon, on_rule_days, series_checks, series_notes
from multitool.tools.meeting.slots import SeriesCheck, Slot, SlotCheck
from multitool.tools.meeting.when import (
    TIMES_FORMAT,
    PhraseReading,
    TimeRequest,
    check_option,
    describe,
    example_time,
    read_phrase,
    structured_request,
)
from multitool.wire import WireModel
from multitool.zones import iana_zone

if TYPE_CHECKING:
    from multitool.toolkit.references import Found

MAX_TIME_OPTIONS = 5
TimeValue = Annotated[str, StringConstraints(strip_whitespace=True, max_length=40)]


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
            "The day or time exactly as the user said it ('the day after tomorrow at 2pm', "
            "'Thursday 4pm London time', 'every Monday at 11': pass repeat too); the card shows it and "
            "the backend checks times against it"
        ),
    )
    times: list[TimeValue] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_TIME_OPTIONS,
        description=(
            "The times the user meant, resolved by you from the current time and the user's time zone "
            "(both are in your instructions): the alternatives in the order said ('Thursday at 4pm or "
            f"Friday at 10am' is two), {TIMES_FORMAT}. A part of the day is a window (morning "
            "09:00/12:00, afternoon 13:00/17:00; 'after 3pm' 15:00/18:00); 'next week' is its Monday to "
            "Friday, 'by Friday' today to Friday; hours on several days are a window on each ('next week "
            "in the afternoon': five)"
        ),
    )
    timezone: SingleLine | None = Field(
        default=None,
        max_length=64,
        description=(
            "The IANA time zone the times are in, when the user named one ('London time': "
            "Europe/London; 'PST': America/Los_Angeles); leave it out for the user's own zone"
        ),
    )
    timezone_of: RawName | None = Field(
        default=None,
        description=(
            "When the user means an attendee's zone ('in Priya's time', 'her time'): that attendee as "
            "named; the backend knows their zone. Do not also pass timezone"
        ),
    )
    not_on: list[date] | None = Field(
        default=None,
        max_length=MAX_TIME_OPTIONS * 3,
        description="Days the user ruled out ('not on Thursday'), as YYYY-MM-DD in the meeting's zone",
    )
    duration_minutes: int = Field(
        default=30, ge=MIN_DURATION_MINUTES, le=MAX_DURATION_MINUTES, description="Length in minutes"
    )
    repeat: Recurrence | None = Field(
        default=None,
        description=(
            "When the meeting repeats ('every Monday at 11', 'weekly on Thursdays', 'every other Friday "
            "until March'): how, read by you; times is then its first meeting (the next Monday at 11). "
            "'every other week' is interval 2; 'until March' is until the last day of February; "
            "'every working day' is weekly on MO-FR. Leave it out for a meeting that happens once"
        ),
    )
    revises: DraftRef | None = revises_field()
    label: CallLabel | None = label_field()


def reading_notes(args: MeetingArgs, request: TimeRequest, config: ToolConfig) -> list[str]:
    """Every guess behind the slots: how the day and time were read, hours and duration assumed."""
    notes = list(request.notes)
    for option in request.options:
        notes.extend(note for note in option.notes if note not in notes)
    hours = f"{config.working_hours_start:02d}:00-{config.working_hours_end:02d}:00"
    first = request.first
    if first.window is not None:
        opens, closes = (m.hour + m.minute / 60 for m in first.window)
        if opens < config.working_hours_start or closes > config.working_hours_end:
            part = f"The {first.part}" if first.part else "The window asked for"
            notes.append(f"{part} reaches outside working hours ({hours}).")
    elif all(o.time is None for o in request.options):
        notes.append(
            f"No time was asked for: the slots are the earliest free times within working hours ({hours})."
        )
    if "duration_minutes" not in args.model_fields_set:
        notes.append(f"No length was asked for: {args.duration_minutes} minutes.")
    return notes


def _zone_arg(args: MeetingArgs) -> ZoneInfo | None:
    if args.timezone is None:
        return None
    zone = iana_zone(args.timezone)
    if zone is None:
        raise UnknownTimeZone(
            f"'{args.timezone}' is not an IANA time zone; pass one such as Europe/London or "
            "America/New_York, or leave timezone out for the user's own zone.",
            field="timezone",
        )
    return zone


def _phrase(args: MeetingArgs, ctx: ToolContext, zone: ZoneInfo | None) -> PhraseReading | None:
    """The phrase as read, for the cross-check; None when it cannot be read at all."""
    try:
        return read_phrase(args.when, ctx, zone)
    except UnparseableDate:
        return None


def _request_from_phrase(
    args: MeetingArgs, reading: PhraseReading | None, ctx: ToolContext, zone: ZoneInfo | None
) -> TimeRequest:
    if reading is None:
        read_phrase(args.when, ctx, zone)  # raises what made it unreadable ("25:00", "Feb 30"), as said
    if reading is None or reading.request is None:
        raise UnparseableDate(
            f"Could not tell which day '{args.when}' means. Say e.g. 'Thursday', 'tomorrow at 3pm', "
            f"'Friday morning', 'next Tuesday' or a date like {example_time(ctx)}.",
            field="when",
        )
    request = reading.request
    options = tuple(check_option(option, ctx, " ".join(args.when.split())) for option in request.options)
    return TimeRequest(options, request.excluded, request.notes)


def cross_check(args: MeetingArgs, request: TimeRequest, reading: PhraseReading | None) -> list[str]:
    """Where the phrase as said and the times passed disagree, in words for the card."""
    notes: list[str] = []
    if reading is None or reading.request is None:
        if args.times is not None:
            notes.append(f"'{args.when}' could not be read to check the times; check them on the card.")
        return notes
    if args.times is not None:
        if reading.repeats is not None:  # the phrase's own notes are not the card's when times are passed
            notes.append(reading.repeats)
        notes.extend(reading.date_notes)  # ... but how "3/1" was read is ("day/month, as en-GB writes it")
        said, given = reading.request.options, request.options
        if len(said) != len(given) or not all(s.admits(g) for s, g in zip(said, given, strict=True)):
            read = ", ".join(describe(o) for o in reading.request.options)
            used = ", ".join(describe(o) for o in request.options)
            notes.append(f"'{args.when}' reads as {read}, but the times passed are {used}: check them.")
        if reading.request.excluded - request.excluded:
            days = ", ".join(sorted(d.isoformat() for d in reading.request.excluded - request.excluded))
            notes.append(f"'{args.when}' rules out {days}, which the times passed do not: check them.")
    if reading.unread:
        words = " ".join(reading.unread)
        notes.append(f"'{words}' in '{args.when}' was not read: check the times.")
    return notes


def _provisional(args: MeetingArgs, ctx: ToolContext) -> TimeRequest:
    """The request as far as it is known before the directory read (the zone of a person is not)."""
    zone = _zone_arg(args)
    if args.times is not None:
        return structured_request(list(args.times), list(args.not_on or ()), zone, ctx, args.when)
    return _request_from_phrase(args, _phrase(args, ctx, zone), ctx, zone)


def _zone_person(args: MeetingArgs, reading: PhraseReading | None) -> str | None:
    """The attendee whose zone is meant, as named: the argument, else the phrase ('Priya's time')."""
    if args.timezone_of is not None:
        return args.timezone_of
    if args.timezone is None and args.times is None and reading is not None and reading.zone_of:
        if reading.zone_of in ("her", "his", "their"):
            return args.attendees[0] if len(args.attendees) == 1 else None
        return reading.zone_of
    return None


def _minutes(window: tuple[dt_time, dt_time]) -> int:
    """How long a window of local hours is, in minutes."""
    return (window[1].hour - window[0].hour) * 60 + window[1].minute - window[0].minute


def _padded(window: tuple[datetime, datetime]) -> tuple[datetime, datetime]:
    # A zone not known yet (an attendee's) moves each day by at most 14 hours either way.
    return window[0] - timedelta(days=1), window[1] + timedelta(days=1)


def prepare(args: MeetingArgs, ctx: ToolContext, config: ToolConfig) -> Prepared:
    provisional = _provisional(args, ctx)
    early = _phrase(args, ctx, _zone_arg(args))
    zone_person = _zone_person(args, early)
    duration = timedelta(minutes=args.duration_minutes)

    def request_in(zone: ZoneInfo | None) -> tuple[TimeRequest, PhraseReading | None]:
        reading = _phrase(args, ctx, zone) if zone is not None else early
        if args.times is not None:
            return structured_request(
                list(args.times), list(args.not_on or ()), zone, ctx, args.when
            ), reading
        return _request_from_phrase(args, reading, ctx, zone), reading

    def finish(people: People, busy: BusyTimes, _found: "Found") -> dict[str, Any]:
        attendees, own_notes = without_organizer(
            [resolve_recipient(name, people) for name in args.attendees], ctx.requester_email
        )
        zone_notes_first: list[str] = list(own_notes)
        zone = _zone_arg(args)
        if zone_person is not None:
            found = resolve_recipient(zone_person, people)
            person_zone = iana_zone(found.person.timezone) if found.settled and found.person else None
            if person_zone is None:
                raise UnknownTimeZone(
                    f"The time zone of '{zone_person}' is not known; pass timezone (an IANA zone) instead.",
                    field="timezoneOf",
                )
            zone = person_zone
            assert found.person is not None
            zone_notes_first.append(f"Times read in {found.person.display_name}'s time zone, {zone.key}.")
        elif zone is None and early is not None and early.zone is not None and args.times is None:
            zone = ZoneInfo(early.zone)
        request, reading = request_in(zone)
        if zone is not None and zone.key != ctx.timezone and zone_person is None:
            said = f" ('{reading.zone_words}')" if reading is not None and reading.zone_words else ""
            zone_notes_first.append(f"Times read in {zone.key}{said}; the slots are shown in {ctx.timezone}.")
        elif args.times is not None and reading is not None and reading.zone and zone is None:
            zone_notes_first.append(
                f"'{args.when}' names {reading.zone}, but the times were passed in {ctx.timezone}: "
                "check them."
            )
        # Everyone's bookings, the requester's included: they attend the meeting they ask for.
        busy_emails = [r.person.email for r in attendees if r.person is not None]
        if ctx.requester_email is not None:
            busy_emails.append(ctx.requester_email)
        intervals = [interval for email in dict.fromkeys(busy_emails) for interval in busy.get(email, ())]
        constraining, zone_notes = hours_attendees(attendees)
        proposal = slot_proposal(request, duration, intervals, ctx, config, constraining)
        if args.repeat is not None:
            proposal = _series_slots(args, proposal, ctx)
        if not proposal.slots:
            too_short = [
                o.window
                for o in request.options
                if o.window is not None and _minutes(o.window) < args.duration_minutes
            ]
            if len(too_short) == len(request.options):
                hours = ", ".join(
                    f"{_minutes(window)} minutes ({window[0]:%H:%M}-{window[1]:%H:%M})"
                    for window in too_short
                )
                raise NoFreeSlot(
                    f"The hours asked for in '{args.when}' are {hours}, shorter than a "
                    f"{args.duration_minutes}-minute meeting. Ask for longer hours or a shorter meeting.",
                    field="when",
                )
            raise NoFreeSlot(
                f"No {args.duration_minutes}-minute time when every attendee is free from '{args.when}' "
                f"over the next {config.search_working_days} working days. "
                "Ask for a later day or a shorter meeting.",
                field="when",
            )
        notes = (
            unsettled_names(attendees, "attendee")
            + lookalike_notes(attendees)
            + zone_notes
            + zone_notes_first
        )
        for asked in proposal.taken:
            notes.append(f"{asked.isoformat(timespec='minutes')} is taken; these are the next free times.")
        notes.extend(moved_notes(request, proposal, ctx, config))
        notes.extend(holiday_notes(proposal, constraining, ctx))
        notes.extend(hours_notes(proposal, request, config))
        notes.extend(reading_notes(args, request, config))
        notes.extend(cross_check(args, request, reading))
        if args.repeat is not None:  # the series is booked: the reading's "only the first" is not so
            notes = [n for n in notes if "asks for a repeating meeting: this proposes the first" not in n]
        request_zone = request.first.zone_of(ctx).key
        checks = slot_checks(proposal.slots, attendees, busy, ctx, config)
        series_rule = args.repeat
        series = _series(series_rule, proposal.slots, attendees, busy, ctx)
        slot_notes = [slot_words(each, ctx, attendees) for each in checks]
        if series:
            slot_notes = [
                [*words, *series_notes(check, ctx.zone)]
                for words, check in zip(slot_notes, series, strict=True)
            ]
        return {
            "title": args.title,
            "attendees": [r.to_wire() for r in attendees],
            "requested": args.when,
            "times": [o.value() for o in request.options],
            "requestedTimezone": request_zone,
            "durationMinutes": args.duration_minutes,
            "timezone": ctx.timezone,
            "slots": [s.to_wire() for s in proposal.slots],
            "slotNotes": slot_notes,
            "slotChecks": [[c.to_wire() for c in each] for each in checks],
            **(
                {"repeat": series_rule.to_wire(), "series": [c.to_wire() for c in series]}
                if series_rule
                else {}
            ),
            "notes": list(dict.fromkeys(notes)),
        }

    window = search_window(provisional, ctx, config)
    names = list(args.attendees)
    if zone_person is not None and zone_person not in names:
        names.append(zone_person)
    if args.repeat is not None:
        window = busy_horizon(window, args.repeat)
    return Prepared(
        names=names,
        finish=finish,
        busy_window=_padded(window)
        if zone_person is not None or (early is not None and early.zone)
        else window,
        busy_names=list(args.attendees),
        busy_emails=[ctx.requester_email] if ctx.requester_email is not None else [],
    )


def _series_slots(args: MeetingArgs, proposal: SlotProposal, ctx: ToolContext) -> SlotProposal:
    """The proposal's slots a series can start on (a weekly rule's days), each checked against the rule:
    a rule the series cannot hold (an end before its first meeting) is refused in words."""
    assert args.repeat is not None
    slots = on_rule_days(args.repeat, proposal.slots, ctx.zone)
    if proposal.slots and not slots:
        days = ", ".join(args.repeat.weekdays)
        raise NoFreeSlot(
            f"No {args.duration_minutes}-minute time when every attendee is free on a day the series meets "
            f"({days}) from '{args.when}'. Ask for another first day or time.",
            field="when",
        )
    for slot in slots:
        try:
            check_rule(args.repeat, slot.start, ctx.zone)
        except RecurrenceProblem as problem:
            raise InvalidRecurrence(str(problem), field="repeat") from None
    return msgspec.structs.replace(proposal, slots=tuple(slots))


def _series(
    rule: Recurrence | None,
    slots: Sequence[Slot],
    attendees: list[NameResolution],
    busy: BusyTimes,
    ctx: ToolContext,
) -> list[SeriesCheck]:
    if rule is None:
        return []
    people = [("you", ctx.requester_email)] if ctx.requester_email is not None else []
    people += [(r.person.display_name, r.person.email) for r in attendees if r.person is not None]
    return series_checks(rule, slots, ctx.zone, people, busy)


def without_organizer(
    attendees: list[NameResolution], requester: str | None
) -> tuple[list[NameResolution], list[str]]:
    """The attendees without the signed-in user: they organize the meeting (it reaches their calendar
    as the organizer's), so they are not invited to it as well. Alone on the card, they stay."""
    if requester is None:
        return attendees, []
    own = requester.casefold()
    others = [r for r in attendees if not (r.settled and r.person and r.person.email.casefold() == own)]
    if len(others) == len(attendees) or not others:
        return attendees, []
    return others, ["You organize this meeting, so you are not also on its attendee list."]


def holiday_notes(proposal: SlotProposal, attendees: Sequence[Attendee], ctx: ToolContext) -> list[str]:
    """A slot on someone's public holiday (the organizer's or an attendee's), said for each day."""
    from multitool.ports.holidays import holiday

    who: list[tuple[str, ZoneInfo]] = [("you", ctx.zone), *((a.name, a.zone) for a in attendees)]
    found: dict[tuple[date, str, str], list[str]] = {}
    for slot in proposal.slots:
        for name, zone in who:
            day = slot.start.astimezone(zone).date()
            off = holiday(day, zone.key)
            if off is not None:
                people = found.setdefault((day, *off), [])
                if name not in people:
                    people.append(name)
    return [
        f"{day_label(day)} is a public holiday ({holiday_name}, {country}) for {' and '.join(people)}."
        for (day, country, holiday_name), people in found.items()
    ]


def moved_notes(
    request: TimeRequest, proposal: SlotProposal, ctx: ToolContext, config: ToolConfig
) -> list[str]:
    """Why no slot is on the day asked for: no time left today, a weekend, a day ruled out, fully booked."""
    if proposal.asked:
        return []
    first = request.first
    zone = first.zone_of(ctx)
    asked_days = {day for option in request.options for day in option.days}
    offered = {slot.start.astimezone(zone).date() for slot in proposal.slots}
    if offered & asked_days:
        return []
    day = first.day
    label = day_label(day)
    local_now = ctx.now.astimezone(zone)
    if first.last_day not in (None, first.day):
        last = day_label(first.last_day or day)
        return [
            f"Nothing from {label} to {last} is free within everyone's working hours; "
            "these are the next free times."
        ]
    if day in request.excluded:
        return [f"{label} was ruled out; the slots are on the next working days."]
    if day.weekday() not in WORKING_DAYS:
        return [f"{label} is a weekend day; the slots are on the next working days."]
    if day == local_now.date():
        closes = first.window[1] if first.window else dt_time(config.working_hours_end)
        last_start = datetime.combine(day, closes, tzinfo=zone) - timedelta(minutes=config.slot_step_minutes)
        if local_now >= last_start:
            return [f"No time is left today ({label}); the slots are on the next working days."]
    return [f"Nothing on {label} is free within everyone's working hours; these are the next free times."]


# -- the card ------------------------------------------------------------------


class MeetingSchedulerCard(Card):
    """Scheduler card: attendees, title and up to three proposed slots."""

    type: Literal["show_meeting_scheduler"] = Field(validation_alias=TYPE_ALIAS)
    # The confirm's limit, in the card's JSON Schema for the page to read (the edit is checked again).
    title: str = Field(default="", max_length=MAX_TITLE_CHARS)
    attendees: tuple[NameResolution, ...] = ()
    requested: str | None = Field(default=None, description="The day or time as the user said it")
    times: tuple[str, ...] = Field(default=(), description="The times searched ('2026-12-03T16:00', ...)")
    requested_timezone: str | None = Field(
        default=None, description="The IANA time zone the request was read in"
    )
    duration_minutes: int = 30
    timezone: str = Field(default="UTC", description="The organizer's time zone: the slots are shown in it")
    slots: tuple[Slot, ...] = ()
    slot_notes: tuple[tuple[str, ...], ...] = Field(
        default=(), description="Per slot: what it means for you and each attendee (local day, hours)"
    )
    slot_checks: tuple[tuple[SlotCheck, ...], ...] = Field(
        default=(),
        description="Per slot: each person's local time, hours and bookings, candidates of a name included",
    )
    repeat: Recurrence | None = Field(default=None, description="How the meeting repeats, when it does")
    series: tuple[SeriesCheck, ...] = Field(
        default=(), description="Per slot, for a repeating meeting: the rule from it and its first meetings"
    )


def meeting_fingerprint(card: MeetingSchedulerCard) -> Fingerprint:
    # The first slot's start as a datetime: the same instant is the same start, whatever its offset.
    start = card.slots[0].start if card.slots else norm(card.requested)
    key = (people_key(card.attendees), start, " ".join(card.title.casefold().split()))
    return (*key, card.series[0].rule) if card.series else key


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
    when += f" ({card.series[0].words})" if card.series else ""
    return f"Meeting '{title}' with {names_of(card.attendees)}: {when}{unresolved_notes(card.attendees)}"


def _on_asked_day(card: MeetingSchedulerCard) -> bool:
    """Whether the first slot is on a day the request named (a card without ``times`` is trusted)."""
    zone = iana_zone(card.requested_timezone or card.timezone)
    if not card.times or zone is None:
        return True
    first = card.slots[0].start.astimezone(zone).date()
    for value in card.times:
        day, _, rest = value.partition("/")
        start = date.fromisoformat(day[:10])
        last = date.fromisoformat(rest) if len(rest) == 10 else start
        if start <= first <= last:
            return True
    return False


def meeting_said(card: MeetingSchedulerCard) -> str | None:
    """'found 3 times for a sync with Kinshuok Sharma on Thursday'; None without a slot to offer."""
    slots = card.slots
    if not slots:
        return None
    times = "a time" if len(slots) == 1 else f"{len(slots)} times"
    when = f"on {day_words(slots[0].start)}"
    if card.series:
        when = f"from {day_words(slots[0].start)}"
    elif card.requested and _on_asked_day(card):
        when = when_words(card.requested)
    elif card.requested:
        when = f"on {day_words(slots[0].start)} (none {when_words(card.requested)})"
    repeats = (
        f", repeating ({card.series[0].words[:1].lower()}{card.series[0].words[1:]})" if card.series else ""
    )
    return f"found {times} for {a_thing(card.title)} with {names_of(card.attendees)} {when}{repeats}"


def _booked_words(result: Mapping[str, Any], zone: ZoneInfo) -> str:
    start = datetime.fromisoformat(str(result["start"]))
    end = datetime.fromisoformat(str(result["end"])) if result.get("end") else None
    return time_words(start, zone, end)


PRODUCES = {
    "when": Produced(
        description="the booked time in words, in the user's time zone (Thursday 10 December, 15:00-15:30)",
        fill=_booked_words,
        preview="{slot.start|when}",
        pending="once the meeting is booked",
    ),
    "start": Produced(
        description="the booked start as an ISO 8601 time",
        fill=lambda result, _zone: str(result["start"]),
        preview="{slot.start}",
        pending="once the meeting is booked",
    ),
    "title": Produced(
        description="the meeting's title as booked",
        fill=lambda result, _zone: str(result.get("title", "")),
        preview="{title}",
        pending="once the meeting is booked",
    ),
}
"""What a booked meeting gives another call of its turn (the confirm's result)."""


SPEC = ToolSpec(
    name="propose_meeting",
    action_group="meeting_scheduler",
    api_path="/meeting-proposals",
    args_model=MeetingArgs,
    payload_model=MeetingPayload,
    prepare=prepare,
    card=CardSpec(
        MeetingSchedulerCard, meeting_fingerprint, meeting_caption, said=meeting_said, held="booked"
    ),
    review="multitool.tools.meeting.booking:REVIEW",
    group_description="Proposes meeting slots for the user to review; never books.",
    nouns=("a meeting proposal", "meeting proposals"),
    produces=PRODUCES,
    takes_links=("title",),
    description=(
        "Propose a meeting for the user to review and book: up to three free slots within working "
        "hours on the day asked for. Pass attendees exactly as the user named them and the day or "
        "time as the user said it ('Thursday', 'tomorrow at 3pm'). Nothing is booked until the user confirms."
    ),
)
