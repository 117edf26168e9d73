"""Meeting invitations as iCalendar (RFC 5545) REQUEST messages (iTIP, RFC 5546).

One VCALENDAR with ``METHOD:REQUEST`` and one VEVENT whose UID is the draft id,
so a resent invitation updates the same event in the attendee's calendar
instead of adding a second one. Start and end carry the meeting's time zone
(``TZID``) and the calendar carries the matching VTIMEZONE.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import msgspec

PRODID = "-//multitool//meeting invitation//EN"


class Participant(msgspec.Struct, frozen=True):
    email: str
    name: str | None = None


class Invitation(msgspec.Struct, frozen=True):
    """What an invitation says; :func:`build_invitation` renders it."""

    uid: str
    title: str
    organizer: Participant
    attendees: Sequence[Participant]
    start: datetime
    end: datetime
    timezone: str
    description: str | None = None
    sequence: int = 0
    method: str = "REQUEST"
    """iTIP's method (RFC 5546 3.2): REQUEST (a new meeting or an update: SEQUENCE raised),
    CANCEL (the organizer's cancellation: STATUS:CANCELLED) or REPLY (an attendee's answer)."""
    partstat: str = "NEEDS-ACTION"
    """The attendees' PARTSTAT: NEEDS-ACTION on a request, the answer on a REPLY (its one attendee)."""
    comment: str | None = None
    """A message to the others: the cancellation's reason, the reply's note (RFC 5545 3.8.1.4)."""
    rrule: str | None = None
    """A repeating meeting's RRULE value ('FREQ=WEEKLY;BYDAY=MO'): the VEVENT repeats (RFC 5545 3.8.5.3)."""
    recurrence_id: datetime | None = None
    """For one meeting of a series: its original start. A CANCEL with it cancels that instance only,
    a REQUEST with it changes that instance only (RFC 5546 3.2.5 and 3.2.2; RECURRENCE-ID, RFC 5545
    3.8.4.4)."""


def build_invitation(invitation: Invitation, *, stamp: datetime | None = None) -> bytes:
    """The ``text/calendar`` body for ``invitation`` (its ``method``: REQUEST, CANCEL or REPLY)."""
    # Only a confirmed meeting is rendered, in the review function: the action groups and the
    # orchestrator import this module through the meeting tool and never pay for icalendar.
    from icalendar import Calendar, Event, vCalAddress

    if invitation.start.tzinfo is None or invitation.end.tzinfo is None:
        raise ValueError("Invitation start and end must be time-zone aware")
    if invitation.end <= invitation.start:
        raise ValueError("Invitation end must be after its start")
    zone = ZoneInfo(invitation.timezone)
    event = Event.new(
        uid=invitation.uid,
        summary=invitation.title,
        description=invitation.description,
        start=invitation.start.astimezone(zone),
        end=invitation.end.astimezone(zone),
        stamp=(stamp or datetime.now(UTC)).astimezone(UTC),
        sequence=invitation.sequence,
        organizer=vCalAddress.new(invitation.organizer.email, cn=invitation.organizer.name),
        attendees=[
            vCalAddress.new(
                person.email,
                cn=person.name,
                role="REQ-PARTICIPANT",
                partstat=invitation.partstat,
                rsvp=invitation.method == "REQUEST",
                cutype="INDIVIDUAL",
            )
            for person in invitation.attendees
        ],
    )
    if invitation.recurrence_id is not None:
        event.add("recurrence-id", invitation.recurrence_id.astimezone(zone))
    if invitation.method == "CANCEL":
        event.add(
            "status", "CANCELLED"
        )  # RFC 5546 3.2.5: the event (or the RECURRENCE-ID's instance) is cancelled
    if invitation.comment:
        event.add("comment", invitation.comment)
    if invitation.rrule is not None:
        from icalendar import vRecur

        event.add("rrule", vRecur.from_ical(invitation.rrule))
    calendar = Calendar.new(
        prodid=PRODID, method=invitation.method, uid=f"{invitation.uid}.calendar", subcomponents=[event]
    )
    # Only the rules around the meeting: a full 1970-2038 VTIMEZONE bloats every mail.
    calendar.add_missing_timezones(
        first_date=date(invitation.start.year - 1, 1, 1), last_date=date(invitation.end.year + 2, 1, 1)
    )
    ical: bytes = calendar.to_ical()
    return ical
