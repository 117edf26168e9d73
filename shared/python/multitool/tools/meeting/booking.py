"""What confirming a meeting proposal does: book the chosen slot, then send the invitation.

The booking comes first and re-checks every tracked attendee's time (a slot taken since is a
``409 slot_taken``, nothing sent); a failed invitation releases the time again. The
``meeting_scheduler`` tool's confirm (:mod:`.meeting_scheduler` holds its spec and names
:data:`REVIEW`): only a confirm imports it, never the action group or the orchestrator, which only
propose. It reads the proposal's payload (:mod:`.payload`), never the phrase reader that made it.
"""

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from pydantic import Field, StringConstraints, TypeAdapter

from multitool.observability import error_fields, logger
from multitool.ports.calendar import Booking, Guest
from multitool.ports.calendar import SlotTaken as SlotTakenInCalendar
from multitool.ports.mail import Mail
from multitool.ports.recurrence import Recurrence, RecurrenceProblem, rrule_line, rule_words
from multitool.ports.recurrence import check as check_rule
from multitool.text import CLEAN_SINGLE_LINE
from multitool.toolkit.common import is_external
from multitool.toolkit.confirm import (
    ActionReview,
    Address,
    Backends,
    Recipients,
    ReviewContext,
    addresses,
    reply_to,
    sender_name,
)
from multitool.toolkit.context import MAX_ATTENDEES, MAX_TITLE_CHARS
from multitool.toolkit.errors import InvalidEdits, SlotRefused
from multitool.tools.meeting.invitations import Invitation, Participant, build_invitation
from multitool.tools.meeting.payload import MeetingPayload
from multitool.tools.meeting.slots import Slot
from multitool.wire import WireModel
from multitool.zones import iana_zone

_OFFERED = TypeAdapter(tuple[Slot, ...])
"""The slots the card offered (its payload's ``slots``)."""

# Edited text follows the policy of multitool.text (constraints first: the cleaning after them runs first).
Title = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TITLE_CHARS), CLEAN_SINGLE_LINE]


class MeetingEdits(WireModel):
    """``slot`` must be one of the proposed slots (they were checked against everyone's calendar)."""

    attendees: Recipients | None = Field(default=None, min_length=1, max_length=MAX_ATTENDEES)
    title: Title | None = None
    slot: Slot | None = None


class MeetingContent(WireModel):
    title: Title
    attendees: tuple[Address, ...]
    start: datetime
    end: datetime
    timezone: str
    repeat: Recurrence | None = None
    """How it repeats: start and end are then the first meeting's (the card's rule, never edited)."""


def meeting_not_started(content: MeetingContent, ctx: ReviewContext, backends: Backends) -> None:
    if content.start <= backends.clock():
        raise InvalidEdits("This slot has already started; choose a later one.", field="slot")


def _organizer(ctx: ReviewContext) -> Participant:
    if ctx.caller.email:
        return Participant(ctx.caller.email, ctx.caller.name)
    return Participant(ctx.config.sender_email, "multitool")


def _tracked_attendees(content: MeetingContent, ctx: ReviewContext) -> tuple[str, ...]:
    """Whose time the booking holds: attendees the directory knows, and the verified organizer.

    An external address (a bare address on the card, or one typed in an edit that the card did
    not offer) is invited but not tracked: its calendar is not ours to know or to hold.
    """
    directory = {
        p.email.casefold() for p in (*ctx.people.values(), *ctx.addresses.values()) if not is_external(p)
    }
    tracked = [a.email for a in content.attendees if a.email.casefold() in directory]
    if ctx.caller.email and ctx.caller.email.casefold() not in {t.casefold() for t in tracked}:
        tracked.append(ctx.caller.email)
    return tuple(tracked)


def _local_times(content: MeetingContent, ctx: ReviewContext) -> str:
    """Each invitee's own local time, one line each, for everyone the directory places in another zone.

    The invitation's text is one copy for all: Priya in London reads her own time in it, not only
    the organizer's New York one (an address outside the directory has no zone to say).
    """
    known = {
        p.email.casefold(): p for p in (*ctx.people.values(), *ctx.addresses.values()) if not is_external(p)
    }
    lines: list[str] = []
    for attendee in content.attendees:
        person = known.get(attendee.email.casefold())
        zone = iana_zone(person.timezone) if person is not None and person.timezone else None
        if zone is None or zone.key == content.timezone:
            continue
        start, end = content.start.astimezone(zone), content.end.astimezone(zone)
        lines.append(
            f"For {attendee.name or attendee.email}: {start:%A %d %B %Y, %H:%M}-{end:%H:%M} ({zone.key})\n"
        )
    return "".join(lines)


def _slot_words(start: datetime, end: datetime, zone: ZoneInfo) -> str:
    return f"{start.astimezone(zone):%a %d %b %H:%M}-{end.astimezone(zone):%H:%M}"


def _slot_taken_message(
    taken: SlotTakenInCalendar,
    content: MeetingContent,
    tracked: Sequence[str],
    ctx: ReviewContext,
    backends: Backends,
) -> str:
    """Who is booked now, and which of the card's other slots are still free for everyone tracked."""
    zone = ZoneInfo(content.timezone)
    names = {a.email.casefold(): a.name or a.email for a in content.attendees}
    if ctx.caller.email:  # the organizer is tracked too: named as themselves, not by address
        names.setdefault(ctx.caller.email.casefold(), ctx.caller.name or "you")
    who = ", ".join(sorted(names.get(email.casefold(), email) for email in taken.busy))
    message = (
        f"{_slot_words(content.start, content.end, zone)} is no longer free: {who} "
        f"{'is' if len(taken.busy) == 1 else 'are'} booked then. Nothing was sent."
    )
    offered = _OFFERED.validate_python(ctx.draft.payload.get("slots", ()))
    others = [s for s in offered if s.start != content.start and s.start > backends.clock()]
    if not others:
        return f"{message} Ask for new times."
    busy = backends.calendar.busy(tracked, min(s.start for s in others), max(s.end for s in others))
    held = [interval for intervals in busy.values() for interval in intervals]
    free = [s for s in others if not any(i.start < s.end and s.start < i.end for i in held)]
    if not free:
        return f"{message} The card's other slots are taken too; ask for new times."
    return f"{message} Still free: {', '.join(_slot_words(s.start, s.end, zone) for s in free)}."


def book_and_invite(content: MeetingContent, ctx: ReviewContext, backends: Backends) -> dict[str, Any]:
    """Book first, then send: a refused slot sends nothing, and a failed send releases the time.

    The booking's id is the draft id, so a confirm that runs again (a retry after a failed send,
    a takeover after the lease) books the same booking again (a no-op) or moves it to the newly
    chosen slot; the invitation keeps the draft id as its UID, so a second send updates the
    same event in the attendees' calendars.
    """
    organizer = _organizer(ctx)
    tracked = _tracked_attendees(content, ctx)
    when = f"{content.start:%A %d %B %Y, %H:%M}-{content.end:%H:%M} ({content.timezone})\n"
    repeats = _repeats(content)
    if repeats:
        when = f"{repeats} ({content.timezone}), from {when}"
    when += _local_times(content, ctx)
    # The organizer is the invitation's ORGANIZER, never also one of its attendees.
    invited = [a for a in content.attendees if a.email.casefold() != organizer.email.casefold()]
    # A calendar that sends its own invitations (Microsoft 365, Google Workspace) gets everyone
    # invited, named, on the event: its provider mails them, and nothing is mailed from here.
    provider_invites = backends.calendar.sends_invitations
    try:
        backends.calendar.book(
            Booking(
                id=ctx.draft.id,
                title=content.title,
                organizer=organizer.email,
                attendees=tracked,
                start=content.start,
                end=content.end,
                timezone=content.timezone,
                guests=tuple(Guest(email=a.email, name=a.name) for a in invited),
                description=f"{content.title}\nWhen: {when}" if provider_invites else "",
                owner=ctx.caller.user_id,
                recurrence=content.repeat,
            )
        )
    except SlotTakenInCalendar as taken:
        raise SlotRefused(_slot_taken_message(taken, content, tracked, ctx, backends)) from taken
    if provider_invites:
        return {
            "bookingId": ctx.draft.id,
            "invitedBy": "calendar",
            "title": content.title,
            "start": content.start.isoformat(),
            "end": content.end.isoformat(),
            "timezone": content.timezone,
            "attendees": [a.email for a in content.attendees],
            **({"repeats": repeats} if repeats else {}),
        }
    invitation = build_invitation(
        Invitation(
            uid=ctx.draft.id,
            title=content.title,
            organizer=organizer,
            attendees=[Participant(a.email, a.name) for a in invited],
            start=content.start,
            end=content.end,
            timezone=content.timezone,
            rrule=rrule_line(content.repeat, content.start, ZoneInfo(content.timezone))
            if content.repeat
            else None,
        ),
        stamp=backends.clock(),
    )
    # The organizer (a verified caller) gets the invitation too: it is how the meeting reaches
    # their own calendar.
    recipients = [a.email for a in content.attendees]
    if ctx.caller.email and ctx.caller.email.casefold() not in {r.casefold() for r in recipients}:
        recipients.append(ctx.caller.email)
    try:
        sent = backends.mailer.send(
            Mail(
                to=tuple(recipients),
                subject=f"Invitation: {content.title}",
                text=f"You are invited to {content.title}.\nWhen: {when}",
                invitation=invitation,
                from_name=sender_name(ctx.caller),
                reply_to=reply_to(ctx.caller),
            )
        )
    except BaseException:
        _release_after_failed_send(ctx.draft.id, backends)
        raise
    return {
        "messageId": sent.message_id,
        "bookingId": ctx.draft.id,
        "title": content.title,
        "start": content.start.isoformat(),
        "end": content.end.isoformat(),
        "timezone": content.timezone,
        "attendees": recipients,
        **({"repeats": repeats} if repeats else {}),
    }


def _repeats(content: MeetingContent) -> str | None:
    """The series' rule in words ('Every Monday, 11:00-11:30'); None for a single meeting."""
    if content.repeat is None:
        return None
    return rule_words(content.repeat, content.start, content.end, ZoneInfo(content.timezone))


def meeting_recipients(content: MeetingContent, ctx: ReviewContext) -> list[tuple[str, str]]:
    """Whom the invitation mails, for the recipient limits: every attendee but the requester, whose
    own verified address only gets a copy."""
    own = ctx.caller.email.casefold() if ctx.caller.email else None
    return [
        (f"attendees[{i}]", a.email) for i, a in enumerate(content.attendees) if a.email.casefold() != own
    ]


def _release_after_failed_send(booking_id: str, backends: Backends) -> None:
    """Give the time back when the invitation did not go out (the draft is then ``failed``)."""
    try:
        backends.calendar.release(booking_id)
    except Exception as error:
        # The send's failure is what the caller sees; the booking stays until the draft is
        # confirmed again (which books the same id: a no-op or a move).
        logger.error(
            "Booking not released after a failed send", extra={"draft_id": booking_id, **error_fields(error)}
        )


def meeting_content(
    edits: MeetingEdits, confirmed: MeetingContent | None, ctx: ReviewContext
) -> MeetingContent:
    payload = MeetingPayload.model_validate(ctx.draft.payload)
    attendees = addresses(
        edits.attendees, confirmed.attendees if confirmed else None, payload.attendees, "attendees", ctx
    )
    if edits.slot is not None:
        chosen = edits.slot
        if chosen.start.utcoffset() is None or chosen.end.utcoffset() is None:
            raise InvalidEdits(
                "The slot's start and end must carry a UTC offset (e.g. 2026-12-03T09:00:00+01:00 or ...Z).",
                field="slot",
            )
        # A slot is an instant: the same moment written in any offset is the same slot.
        slot = next(
            (
                s
                for s in payload.slots
                if s.start.timestamp() == chosen.start.timestamp()
                and s.end.timestamp() == chosen.end.timestamp()
            ),
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
    if payload.repeat is not None:
        try:
            check_rule(payload.repeat, start, zone)
        except RecurrenceProblem as problem:
            raise InvalidEdits(str(problem), field="slot") from None
    return MeetingContent(
        title=edits.title or (confirmed.title if confirmed else payload.title),
        attendees=attendees,
        start=start.astimezone(zone),
        end=end.astimezone(zone),
        timezone=payload.timezone,
        repeat=payload.repeat,
    )


# Not undoable: the confirm checks every tracked attendee's time and holds the slot in the same
# conditional write that books it (Calendar.book), so that of two confirms for one person's time
# exactly one wins before anything is sent. Waiting would either hold a slot for a meeting that may
# be undone or tell the user "scheduled" for a slot another confirm can take meanwhile; and in the
# user's own suite the provider books and invites in one call (Graph's event create, Calendar's
# events.insert with sendUpdates), so the invitation cannot wait apart from the booking.
REVIEW = ActionReview(
    MeetingEdits,
    MeetingContent,
    meeting_content,
    book_and_invite,
    meeting_not_started,
    recipients=meeting_recipients,
)
