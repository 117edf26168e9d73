"""Calendar port: busy times, and bookings made by confirmed meetings.

The DynamoDB adapter (:mod:`multitool.ports.aws.dynamo_calendar`) reads bookings
confirmed through this system; the Microsoft 365 and Google Workspace adapters
read the suite's own free/busy and book events there (their providers then send
the invitations: :attr:`Calendar.sends_invitations`). Only the people a booking
names are tracked:
the review books directory people and the verified organizer, never external
addresses (their calendars are not ours to know), so nothing stops a double
booking of someone outside the directory.
"""

from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from typing import ClassVar, Literal, NamedTuple, Protocol

from pydantic import Field

from multitool.ports.recurrence import Recurrence
from multitool.wire import WireModel


class Response(StrEnum):
    """An attendee's answer to an invitation, in the words every provider maps to."""

    ACCEPTED = "accepted"
    TENTATIVE = "tentative"
    DECLINED = "declined"
    NONE = "none"
    """Not answered yet (Graph ``notResponded``/``none``, Google ``needsAction``)."""
    ORGANIZER = "organizer"


class Interval(WireModel):
    start: datetime
    end: datetime


class Guest(WireModel):
    email: str
    name: str | None = None


class Booking(WireModel):
    id: str = Field(min_length=1)
    title: str
    organizer: str
    attendees: tuple[str, ...] = Field(description="Attendee email addresses")
    start: datetime
    end: datetime
    timezone: str = "UTC"
    guests: tuple[Guest, ...] = Field(
        default=(),
        description="Everyone invited, with names, outside addresses too: what a calendar that "
        "sends its own invitations puts on the event",
    )
    description: str = ""
    owner: str | None = Field(
        default=None,
        description="The sub of the user who booked it: how an erasure finds the user's bookings",
    )
    recurrence: Recurrence | None = Field(
        default=None,
        description="How the meeting repeats: start and end are then its first meeting's, and the "
        "rule repeats it on the wall clock of ``timezone``",
    )
    responses: dict[str, Response] = Field(
        default_factory=dict,
        description="Attendees' answers by casefolded address (the built-in calendar records them)",
    )
    exceptions: tuple[datetime, ...] = Field(
        default=(),
        description="A series' meetings taken out of it, by their start (iCalendar EXDATE, RFC 5545 "
        "3.8.5.1): one occurrence cancelled, or moved to a booking of its own",
    )


class EventAttendee(WireModel):
    email: str
    name: str | None = None
    response: Response = Response.NONE


class CalendarEvent(WireModel):
    """One event of the caller's own calendar, as a card shows it and a confirm re-checks it.

    ``version`` is the provider's own mark of this state of the event (Graph ``changeKey``,
    Google ``etag``, the built-in booking's version number): a confirm writes only over the
    version its card was made from. ``sequence`` is the iCalendar SEQUENCE of the event as it
    stands (RFC 5545 3.8.7.4): an update or a cancellation goes out with it raised.
    """

    id: str = Field(min_length=1)
    title: str
    start: datetime
    end: datetime
    timezone: str = "UTC"
    organizer: str = Field(description="The organizer's address")
    organizer_name: str | None = None
    attendees: tuple[EventAttendee, ...] = Field(default=(), description="Everyone invited but the organizer")
    role: Literal["organizer", "attendee"] = Field(description="The caller's part in it")
    response: Response = Field(default=Response.NONE, description="The caller's own answer")
    version: str = ""
    sequence: int = 0
    recurring: bool = Field(default=False, description="An occurrence of a repeating meeting")
    series_id: str | None = Field(default=None, description="The repeating meeting's id, for an occurrence")
    rrule: str | None = Field(
        default=None,
        description="A built-in series' RRULE value: an update of the whole series is mailed with it "
        "(the calendars that send their own invitations keep theirs)",
    )

    @property
    def people(self) -> tuple[str, ...]:
        """Every address on it: the organizer and the attendees."""
        return (self.organizer, *(a.email for a in self.attendees))


Scope = Literal["occurrence", "series"]
"""What a move or cancel of a repeating meeting's occurrence acts on: that one meeting, or them all."""


class Calendar(Protocol):
    sends_invitations: ClassVar[bool]
    """True when :meth:`book` makes an event the provider itself sends to the guests (Graph,
    Google Calendar): the confirm then sends no invitation mail of its own. The same holds for
    :meth:`move`, :meth:`cancel` and :meth:`respond`: the provider mails the update, the
    cancellation or the answer; the built-in calendar's confirm mails them as iCalendar."""
    proposes_new_times: ClassVar[bool]
    cancellation_message: ClassVar[bool]
    """True when :meth:`cancel` carries the message in the provider's own cancellation (Graph's
    Comment); Google's ``events.delete`` takes none, so the confirm mails it."""
    """True when an attendee's answer can carry a new time for the organizer (Graph's
    ``proposedNewTime`` on tentativelyAccept and decline); Google Calendar's API has none."""

    def busy(self, emails: Sequence[str], start: datetime, end: datetime) -> Mapping[str, Sequence[Interval]]:
        """Busy intervals per email address overlapping [start, end), in one read."""
        ...

    def book(self, booking: Booking) -> None:
        """Store a confirmed meeting so its time counts as busy for its attendees.

        Raises :class:`SlotTaken` when an attendee is busy then with another booking, and
        writes nothing. Booking an id again at the same time with the same attendees is a
        no-op (a retried confirm); at another time or with other attendees it moves.
        """
        ...

    def release(self, booking_id: str) -> None:
        """Remove a booking and its busy time (a no-op when there is none)."""
        ...

    def events(self, email: str, start: datetime, end: datetime) -> Sequence[CalendarEvent]:
        """The events of ``email`` (the caller: organizer or attendee) overlapping [start, end),
        earliest first, in one logical read. Never anyone else's: a provider calendar reads the
        signed-in account's own and refuses another address."""
        ...

    def event(self, email: str, event_id: str) -> CalendarEvent | None:
        """One of the caller's events as it stands now (None: gone, cancelled, or not theirs)."""
        ...

    def move(
        self, email: str, shown: CalendarEvent, start: datetime, end: datetime, scope: Scope = "series"
    ) -> CalendarEvent:
        """Move the organizer's event, as the card showed it (``shown.version``), to [start, end).

        For an occurrence of a series (``shown.recurring``), ``scope`` says which: ``occurrence``
        moves that meeting only (the provider's exception; the built-in calendar takes it out of the
        series and books it on its own, :func:`moved_occurrence_id`), ``series`` moves every meeting
        by as much as this one moves (its first meeting's start and length).

        Reads the event first: already at that time, nothing is written (a retried confirm); gone,
        or changed since ``shown`` (another version), :class:`EventChanged` and nothing is written.
        :class:`SlotTaken` when a tracked attendee is booked then (the built-in calendar). Answers
        the event as moved (its version and SEQUENCE raised)."""
        ...

    def cancel(self, email: str, shown: CalendarEvent, message: str, scope: Scope = "series") -> None:
        """Cancel the organizer's event as the card showed it, telling the attendees ``message``
        (the provider's own cancellation); :class:`EventChanged` when it is gone or changed. For an
        occurrence of a series (``shown.recurring``), ``scope`` says which: ``occurrence`` cancels
        that meeting only (the rest of the series stays), ``series`` every meeting of it."""
        ...

    def respond(
        self,
        email: str,
        shown: CalendarEvent,
        response: Response,
        message: str,
        proposed: Interval | None = None,
    ) -> CalendarEvent:
        """An attendee's answer (accepted, tentative, declined) with a message to the organizer and,
        where :attr:`proposes_new_times`, a new time; :class:`EventChanged` when it is gone or
        changed. Answering again as already answered writes nothing."""
        ...


class EventChanged(Exception):
    """The event is gone, or changed since the card showed it: nothing was written."""

    def __init__(self, gone: bool) -> None:
        super().__init__("The meeting is no longer on the calendar." if gone else "The meeting changed.")
        self.gone = gone


class NotOrganizer(Exception):
    """Only the organizer moves or cancels a meeting; only an attendee answers it."""


def moved_occurrence_id(series_id: str, original_start: datetime) -> str:
    """The built-in booking id of a series' meeting moved on its own: one per series and original
    start, so a retried confirm finds the booking it made (and a second card moving the same meeting
    elsewhere finds it taken)."""
    return f"{series_id}@{original_start.astimezone(UTC):%Y%m%dT%H%M%SZ}"


def moved_occurrence_of(booking_id: str) -> tuple[str, datetime] | None:
    """The series and original start a :func:`moved_occurrence_id` names; None for any other id."""
    series_id, at, stamp = booking_id.rpartition("@")
    if not at or not series_id:
        return None
    try:
        return series_id, datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None


def checked(current: CalendarEvent | None, shown: CalendarEvent) -> CalendarEvent:
    """The event as it stands, when it is still the one the card showed; else :class:`EventChanged`."""
    if current is None:
        raise EventChanged(gone=True)
    if current.version != shown.version:
        raise EventChanged(gone=False)
    return current


def checked_as(
    current: CalendarEvent | None, shown: CalendarEvent, role: Literal["organizer", "attendee"]
) -> CalendarEvent:
    """:func:`checked`, and the caller is ``role`` on it (the organizer moves and cancels, an attendee
    answers); else :class:`NotOrganizer`."""
    event = checked(current, shown)
    if event.role != role:
        raise NotOrganizer(shown.id)
    return event


class MoveTarget(NamedTuple):
    """What a provider's move writes: the event (the meeting, or its series) and its new times."""

    id: str
    start: datetime
    end: datetime
    series: CalendarEvent | None = None
    """The series as read, when the move is the whole series' (its version is its own)."""


def move_target(
    current: CalendarEvent | None,
    shown: CalendarEvent,
    start: datetime,
    end: datetime,
    scope: Scope,
    read: Callable[[str], CalendarEvent | None],
) -> MoveTarget:
    """A provider move's check and target, after the re-read (``current``, not already at the
    time): the card's meeting, still as shown and the caller's as organizer; then the meeting at
    [start, end), or, for the series of an occurrence, the series (``read`` on ``series_id``) with
    its first meeting moved by as much. :class:`EventChanged` when either is gone or changed."""
    checked_as(current, shown, "organizer")
    if scope != "series" or not shown.series_id:
        return MoveTarget(shown.id, start, end)
    series = read(shown.series_id)
    if series is None:
        raise EventChanged(gone=True)
    first = series.start + (start - shown.start)
    return MoveTarget(shown.series_id, first, first + (end - start), series)


def cancel_target(current: CalendarEvent | None, shown: CalendarEvent, scope: Scope) -> str:
    """A provider cancel's check and target, after the re-read (``current``): the card's meeting,
    still as shown and the caller's as organizer (the occurrence shown is what is checked, either
    way); then the id to cancel: the meeting's, or its series' for ``series``."""
    checked_as(current, shown, "organizer")
    return shown.series_id if scope == "series" and shown.series_id else shown.id


def already_at(current: CalendarEvent | None, start: datetime, end: datetime) -> bool:
    """The event is at [start, end) already: a move confirmed again has nothing left to do."""
    return current is not None and (current.start.timestamp(), current.end.timestamp()) == (
        start.timestamp(),
        end.timestamp(),
    )


class SlotTaken(Exception):
    """The time is no longer free: ``busy`` maps each attendee booked then to the overlapping intervals."""

    def __init__(self, busy: Mapping[str, Sequence[Interval]]) -> None:
        super().__init__(f"{len(busy)} attendee(s) already booked at that time")
        self.busy = dict(busy)


class BookingContention(RuntimeError):
    """The attendee-days kept changing under concurrent bookings; the same booking can be tried again."""


def utc_days(start: datetime, end: datetime) -> Iterator[date]:
    """Every UTC date that [start, end) touches."""
    day = start.astimezone(UTC).date()
    last = (end.astimezone(UTC) - timedelta(microseconds=1)).date()
    while day <= last:
        yield day
        day += timedelta(days=1)


def overlaps(interval: Interval, start: datetime, end: datetime) -> bool:
    return interval.start < end and start < interval.end


def booking_event(booking: Booking, email: str, version: int) -> CalendarEvent | None:
    """A built-in booking as ``email`` sees it: None when they are neither its organizer nor on it.

    The booking's ``version`` (1 when booked, raised by every write) is the event's version, and
    its SEQUENCE is one less: the first invitation goes out with SEQUENCE 0 (RFC 5545 3.8.7.4).
    """
    own = email.casefold()
    organizer = booking.organizer.casefold() == own
    if not organizer and own not in {a.casefold() for a in booking.attendees}:
        return None
    named = {g.email.casefold(): g.name for g in booking.guests}
    others = [a for a in booking.attendees if a.casefold() != booking.organizer.casefold()]
    return CalendarEvent(
        id=booking.id,
        title=booking.title,
        start=booking.start,
        end=booking.end,
        timezone=booking.timezone,
        organizer=booking.organizer,
        attendees=tuple(
            EventAttendee(
                email=a,
                name=named.get(a.casefold()),
                response=booking.responses.get(a.casefold(), Response.NONE),
            )
            for a in others
        ),
        role="organizer" if organizer else "attendee",
        response=Response.ORGANIZER if organizer else booking.responses.get(own, Response.NONE),
        version=str(version),
        sequence=max(version - 1, 0),
        rrule=_rrule_of(booking),
    )


def _rrule_of(booking: Booking) -> str | None:
    if booking.recurrence is None:
        return None
    from zoneinfo import ZoneInfo

    from multitool.ports.recurrence import rrule_line

    return rrule_line(booking.recurrence, booking.start, ZoneInfo(booking.timezone))


def meetings_of(booking: Booking, start: datetime, end: datetime) -> list[Interval]:
    """A booking's meetings overlapping [start, end): itself, or a series' meetings then (but the
    ones taken out of it)."""
    if booking.recurrence is None:
        held = Interval(start=booking.start, end=booking.end)
        return [held] if overlaps(held, start, end) else []
    from zoneinfo import ZoneInfo

    from multitool.ports.recurrence import between

    zone = ZoneInfo(booking.timezone)
    skipped = {moment.timestamp() for moment in booking.exceptions}
    return [
        Interval(start=s.astimezone(UTC), end=e.astimezone(UTC))
        for s, e in between(booking.recurrence, booking.start, booking.end, zone, (start, end))
        if s.timestamp() not in skipped
    ]
