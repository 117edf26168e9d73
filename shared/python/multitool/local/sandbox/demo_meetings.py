"""The meetings the demo's requests name, on every calendar the demo runs with.

"Move my sync with Priya to Friday afternoon", "push the 1:1 30 minutes later", "make tomorrow's
standup 15 minutes", "cancel tomorrow's sync with Priya", "accept Mei's offsite planning",
"decline the Friday retro": each finds its meeting among the default user's own, on the built-in
calendar (booked into the local bookings table), the Microsoft 365 stand-in and the Google one.
Their days are counted from the organizer's today and their times are the organizer's local ones:
the demo's user asks in their own zone, and at 01:00 UTC it is still yesterday in New York.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from multitool.people import Person
from multitool.ports.calendar import Booking, Guest

# (id, title, organizer id, attendee ids, days from today (None: next Friday), local start, minutes)
_DEMO: tuple[tuple[str, str, str, tuple[str, ...], int | None, time, int], ...] = (
    # In the default user's afternoons (New York): the mornings their colleagues in Europe share
    # stay free for the meetings the demo proposes.
    ("sync", "Weekly sync", "jordan", ("priya",), 1, time(14, 0), 30),
    ("standup", "Team standup", "jordan", ("priya", "kinshuok", "mei"), 1, time(16, 0), 30),
    ("one-on-one", "1:1 Jordan / Alex", "jordan", ("alex-chen",), 2, time(15, 0), 30),
    ("offsite", "Offsite planning", "mei", ("jordan", "priya"), 3, time(22, 0), 60),
    ("retro", "Sprint retro", "alex-chen", ("jordan", "priya"), None, time(11, 0), 45),
)


def demo_meetings(
    people: Sequence[Person], today: date | None = None, *, now: datetime | None = None
) -> list[Booking]:
    """The demo's meetings among ``people`` (one whose people are not all there is left out), their
    days counted from ``today``, or from the date it is (``now``, else the clock's) where each one's
    organizer is."""
    by_id = {p.id: p for p in people}
    found: list[Booking] = []
    for key, title, organizer_id, guest_ids, days, at, minutes in _DEMO:
        organizer = by_id.get(organizer_id)
        guests = [by_id.get(g) for g in guest_ids]
        if organizer is None or any(g is None for g in guests):
            continue
        zone = ZoneInfo(organizer.timezone or "UTC")
        first = today or (now or datetime.now(UTC)).astimezone(zone).date()
        friday = first + timedelta(days=(4 - first.weekday()) % 7 or 7)
        day = friday if days is None else first + timedelta(days=days)
        start = datetime.combine(day, at, tzinfo=zone)
        found.append(
            Booking(
                id=f"demo-{key}-{day.isoformat()}",
                title=title,
                organizer=organizer.email,
                attendees=(organizer.email, *(g.email for g in guests if g is not None)),
                start=start,
                end=start + timedelta(minutes=minutes),
                timezone=zone.key,
                guests=tuple(Guest(email=g.email, name=g.display_name) for g in guests if g is not None),
            )
        )
    return found
