"""What the tools for meetings that already exist share: their payloads, and their confirms' parts.

``move_meeting`` (:mod:`.meeting_move`), ``cancel_meeting`` (:mod:`.meeting_cancel`) and
``answer_invitation`` (:mod:`.invitation_answer`) name a meeting by reference
(:mod:`multitool.toolkit.references`, found by :mod:`.find`); their cards carry the resolution,
and their confirms act on the meeting the card offered (:func:`shown_meeting`), re-read on the
provider first (:meth:`multitool.ports.calendar.Calendar.move` and the others check its version).
This module is what a confirm imports: no phrase reader, no slot search.

On the built-in calendar nobody else tells the guests: the confirm mails iCalendar itself
(:func:`notify`), an update as a REQUEST with its SEQUENCE raised, a cancellation as a CANCEL, an
answer as a REPLY to the organizer (RFC 5546 3.2). Microsoft 365 and Google mail their own.
"""

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from multitool.people import NameResolution, Person, Resolution
from multitool.ports.calendar import (
    CalendarEvent,
    EventChanged,
    Interval,
    Response,
    Scope,
    moved_occurrence_of,
    overlaps,
)
from multitool.ports.mail import Mail
from multitool.text import CLEAN_MULTI_LINE
from multitool.toolkit.common import external_person, replaced_field
from multitool.toolkit.confirm import Backends, ReviewContext, reply_to, sender_name
from multitool.toolkit.errors import DateInPast, InvalidEdits, ItemChanged, SlotRefused
from multitool.toolkit.references import ItemResolution, chosen
from multitool.tools.meeting.slots import Slot, SlotCheck
from multitool.wire import WireModel

MAX_MESSAGE_CHARS = 1000
Message = Annotated[
    str, StringConstraints(strip_whitespace=True, max_length=MAX_MESSAGE_CHARS), CLEAN_MULTI_LINE
]
Answer = Literal["accepted", "tentative", "declined"]


class MovePayload(WireModel):
    action: Literal["show_meeting_move"] = "show_meeting_move"
    draft_id: str
    meeting: ItemResolution = Field(description="The meeting as found: one, a choice, or none")
    role: str | None = Field(default=None, description="The caller's part in it: organizer or attendee")
    requested: str | None = Field(default=None, description="The new day or time as the user said it")
    times: tuple[str, ...] = Field(
        default=(), description="The times searched, as the tool contract writes them"
    )
    shift_minutes: int | None = Field(
        default=None, description="The move asked for: minutes later (earlier < 0)"
    )
    duration_minutes: int | None = Field(default=None, description="The new length, when asked for")
    timezone: str = Field(description="The user's time zone: the times are shown in it")
    before: Slot | None = Field(default=None, description="When the meeting is now")
    slots: tuple[Slot, ...] = Field(default=(), description="The new times offered, best first")
    slot_notes: tuple[tuple[str, ...], ...] = ()
    slot_checks: tuple[tuple[SlotCheck, ...], ...] = ()
    message: str = Field(
        default="", max_length=MAX_MESSAGE_CHARS, description="What the update tells the attendees"
    )
    proposes: bool = Field(
        default=False, description="The caller is an attendee: confirming proposes the time to the organizer"
    )
    scope: Scope | None = Field(
        default=None,
        description="For a meeting of a series: 'occurrence' (this one) or 'series' (every one); none: "
        "not said yet, the card asks",
    )
    scope_words: str | None = Field(
        default=None, description="Which, in words: 'Only Mon 14 Dec' or 'Every meeting of the series'"
    )
    notes: tuple[str, ...] = ()
    revises: str | None = replaced_field()


def scope_field() -> Any:
    return Field(
        default=None,
        description="For a repeating meeting: 'occurrence' for the one meeting named ('only next Monday's', "
        "'this week's') or 'series' for every meeting of it ('the whole series', 'all of them'); leave it "
        "out when the user did not say",
    )


class CancelPayload(WireModel):
    action: Literal["show_meeting_cancel"] = "show_meeting_cancel"
    draft_id: str
    meeting: ItemResolution = Field(description="The meeting as found: one, a choice, or none")
    role: str | None = Field(default=None, description="The caller's part in it: organizer or attendee")
    scope: Scope | None = Field(
        default=None,
        description="For a meeting of a series: 'occurrence' (this one) or 'series' (every one); none: "
        "not said yet, the card asks",
    )
    scope_words: str | None = Field(
        default=None, description="Which, in words: 'Only Mon 14 Dec' or 'Every meeting of the series'"
    )
    message: str = Field(
        default="", max_length=MAX_MESSAGE_CHARS, description="What the cancellation tells the attendees"
    )
    declines: bool = Field(
        default=False, description="The caller is an attendee: confirming declines it instead"
    )
    timezone: str
    notes: tuple[str, ...] = ()
    revises: str | None = replaced_field()


class AnswerPayload(WireModel):
    action: Literal["show_invitation_answer"] = "show_invitation_answer"
    draft_id: str
    meeting: ItemResolution = Field(description="The invitation as found: one, a choice, or none")
    response: Answer = Field(description="accepted, tentative or declined")
    message: str = Field(
        default="", max_length=MAX_MESSAGE_CHARS, description="What the answer tells the organizer"
    )
    timezone: str
    notes: tuple[str, ...] = ()
    revises: str | None = replaced_field()


# -- the meeting a card names ------------------------------------------------------------------


def event_of(resolution: ItemResolution) -> CalendarEvent | None:
    """The meeting found, when the reference settled on one."""
    return CalendarEvent.model_validate(resolution.item.fields) if resolution.item is not None else None


def offered_events(resolution: ItemResolution) -> list[CalendarEvent]:
    return [CalendarEvent.model_validate(item.fields) for item in resolution.offered]


def not_started(event: CalendarEvent, now: datetime, doing: str) -> None:
    """A meeting that has started (or is over) is not moved, cancelled or answered: it is past."""
    if event.start <= now:
        raise DateInPast(
            f"'{event.title}' started at {event.start.isoformat(timespec='minutes')}: "
            f"a past meeting can't be {doing}. Name an upcoming one (a day or the title).",
            field="meeting",
        )


def chosen_scope(event: CalendarEvent | None, said: Scope | None, named_a_day: bool) -> Scope | None:
    """Which meetings of a series a move or cancel is for: as the user said it; else the one
    meeting when they named its day ("cancel next Monday's 1:1"); else not known (the card asks).
    None for a meeting that does not repeat (kept as said while the card offers a choice)."""
    if event is not None and not event.recurring:
        return None
    if said is not None:
        return said
    return "occurrence" if named_a_day else None


def scope_words(event: CalendarEvent | None, scope: Scope | None) -> str | None:
    """'Only Mon 14 Dec' (in the meeting's zone) or 'Every meeting of the series'; None otherwise."""
    if event is None or not event.recurring or scope is None:
        return None
    if scope == "series":
        return "Every meeting of the series"
    from zoneinfo import ZoneInfo

    return f"Only {event.start.astimezone(ZoneInfo(event.timezone)):%a %d %b}"


def scope_question(event: CalendarEvent) -> str:
    return (
        f"'{event.title}' repeats: is this for the one on {event.start:%a %d %b} only, or for every meeting "
        "of the series? Choose on the card (scope: occurrence or series)."
    )


def shown_meeting(payload_meeting: ItemResolution, item_id: str | None) -> CalendarEvent:
    """The meeting the confirm acts on: the one found, or the candidate the user chose on the card."""
    item = chosen(payload_meeting, item_id, "meeting")
    return CalendarEvent.model_validate(item.fields).model_copy(update={"version": item.version})


def people_of(event: CalendarEvent, people: dict[str, Person], own: str | None) -> list[NameResolution]:
    """Everyone on the meeting but the caller, as the directory knows them (zones for their hours),
    else as an address (no zone: no hours assumed)."""
    found: list[NameResolution] = []
    for address in event.people:
        if own is not None and address.casefold() == own.casefold():
            continue
        person = people.get(address.casefold()) or external_person(address)
        found.append(NameResolution(query=address, status=Resolution.RESOLVED, person=person))
    return found


def colleagues(addresses: Sequence[str], own: str | None) -> list[str]:
    """The addresses whose calendars are read for a move: the caller's own domain's. An outside
    guest's calendar is not ours to know (a booking tracks directory people only), and a provider
    answers no free/busy for it."""
    domain = own.rpartition("@")[2].casefold() if own else ""
    return list(dict.fromkeys(a for a in addresses if domain and a.rpartition("@")[2].casefold() == domain))


def without_own(intervals: Sequence[Interval], own: Sequence[CalendarEvent]) -> list[Interval]:
    """Busy times with the meetings' own times cut out: a meeting being moved does not clash with itself."""
    kept = list(intervals)
    for event in own:
        cut: list[Interval] = []
        for interval in kept:
            if not overlaps(interval, event.start, event.end):
                cut.append(interval)
                continue
            if interval.start < event.start:
                cut.append(Interval(start=interval.start, end=event.start))
            if event.end < interval.end:
                cut.append(Interval(start=event.end, end=interval.end))
        kept = cut
    return kept


# -- the confirms' parts -------------------------------------------------------------------------


def caller_address(ctx: ReviewContext) -> str:
    if not ctx.caller.email:
        raise InvalidEdits(
            "Your verified email address is needed to find your calendar; sign in again.", field="meeting"
        )
    return ctx.caller.email


def changed(error: EventChanged, event: CalendarEvent) -> ItemChanged:
    """The words for a meeting that moved or went since its card: nothing was written."""
    if error.gone:
        return ItemChanged(
            f"'{event.title}' is no longer on your calendar (cancelled or deleted since the card was made). "
            "Nothing was changed.",
            field="meeting",
        )
    return ItemChanged(
        f"'{event.title}' changed since the card was made (moved, renamed or answered elsewhere). Nothing "
        "was "
        "changed: ask again to see it as it is now.",
        field="meeting",
    )


def recheck_free(event: CalendarEvent, start: datetime, end: datetime, backends: Backends, own: str) -> None:
    """Everyone's time re-read before the move (this meeting's own left out): a slot taken since
    the card is :class:`SlotRefused`, nothing written."""
    tracked = colleagues([own, *event.people], own)
    busy = backends.calendar.busy(tracked, start, end)
    taken = [
        email
        for email in tracked
        if any(overlaps(i, start, end) for i in without_own(busy.get(email, ()), [event]))
    ]
    if taken:
        who = ", ".join("you" if t.casefold() == own.casefold() else t for t in taken)
        raise SlotRefused(
            f"{start:%a %d %b %H:%M}-{end:%H:%M} is no longer free: {who} booked then. Nothing was sent."
        )


def notify(
    event: CalendarEvent,
    ctx: ReviewContext,
    backends: Backends,
    *,
    method: str,
    subject: str,
    text: str,
    start: datetime | None = None,
    end: datetime | None = None,
    sequence: int | None = None,
    answer: Response | None = None,
    comment: str = "",
    occurrence: datetime | None = None,
    rrule: str | None = None,
) -> str | None:
    """The built-in calendar's iCalendar mail (its UID the booking id, as the first invitation's):
    REQUEST (an update) or CANCEL to the attendees, REPLY to the organizer. None when the calendar
    sends its own (Microsoft 365, Google)."""
    if backends.calendar.sends_invitations:
        return None
    from multitool.tools.meeting.invitations import Invitation, Participant, build_invitation

    own = caller_address(ctx)
    uid = event.id
    moved_out = moved_occurrence_of(event.id)
    if moved_out is not None and occurrence is None:
        # A meeting moved out of its series earlier: the guests know it as the series' instance.
        uid, occurrence = moved_out
    names = {a.email.casefold(): a.name for a in event.attendees}
    if method == "REPLY":
        to = [event.organizer]
        attendees = [Participant(own, ctx.caller.name)]
        partstat = {"accepted": "ACCEPTED", "tentative": "TENTATIVE", "declined": "DECLINED"}[str(answer)]
    else:
        to = [a.email for a in event.attendees if a.email.casefold() != own.casefold()]
        attendees = [Participant(email, names.get(email.casefold())) for email in to]
        partstat = "NEEDS-ACTION"
    if not to:
        return None
    calendar = build_invitation(
        Invitation(
            uid=uid,
            title=event.title,
            organizer=Participant(event.organizer, event.organizer_name),
            attendees=attendees,
            start=start or event.start,
            end=end or event.end,
            timezone=event.timezone,
            sequence=event.sequence if sequence is None else sequence,
            method=method,
            partstat=partstat,
            comment=comment or None,
            recurrence_id=occurrence,
            rrule=rrule,
        ),
        stamp=backends.clock(),
    )
    sent = backends.mailer.send(
        Mail(
            to=tuple(to),
            subject=subject,
            text=text,
            invitation=calendar,
            from_name=sender_name(ctx.caller),
            reply_to=reply_to(ctx.caller),
        )
    )
    return sent.message_id


def when_words(start: datetime, end: datetime, zone: str) -> str:
    from zoneinfo import ZoneInfo

    local = ZoneInfo(zone)
    return f"{start.astimezone(local):%A %d %B %Y, %H:%M}-{end.astimezone(local):%H:%M} ({zone})"


def shifted(event: CalendarEvent, shift_minutes: int | None, duration_minutes: int | None) -> Slot:
    """The meeting's new time when the move is relative: later or earlier, and/or a new length."""
    start = event.start + timedelta(minutes=shift_minutes or 0)
    length = timedelta(minutes=duration_minutes) if duration_minutes else event.end - event.start
    return Slot(start=start, end=start + length)
