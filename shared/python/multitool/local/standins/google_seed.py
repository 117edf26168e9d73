"""The Google stand-in's seed: a week of real-looking meetings for each person in their own zone
(:func:`seeded_week`), and the demo's meetings as Calendar events (:func:`demo_events`), both in
the shape ``events.list`` answers. Apart from the server (:mod:`.google_server`), which only holds
and answers them.
"""

from __future__ import annotations

import base64
import hashlib
import random
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from multitool.people import Person

_ONE_ON_ONES = ("1:1", "Sync", "Catch-up")
_FOCUS = (
    "Design review",
    "Customer call",
    "Roadmap planning",
    "Interview loop",
    "Incident review",
    "Budget check-in",
)


def seeded_week(people: Sequence[Person], week_of: date) -> list[tuple[str, dict[str, Any]]]:
    """A week (Monday to Friday of ``week_of``'s week) of meetings for each person, in their own zone.

    Daily stand-ups at 09:30, a team meeting on Tuesday that crosses zones (the first person's
    afternoon), one-to-ones between colleagues, and a few longer meetings; the same people and
    week always give the same meetings.
    """
    monday = week_of - timedelta(days=week_of.weekday())
    out: list[tuple[str, dict[str, Any]]] = []

    def add(owner: Person, title: str, start: datetime, minutes: int, guests: Sequence[Person] = ()) -> None:
        digest = hashlib.sha256(f"{len(out)}|{owner.email}|{title}|{start.isoformat()}".encode()).digest()
        eid = "seed" + base64.b32hexencode(digest).decode("ascii")[:24].lower()
        end = start + timedelta(minutes=minutes)
        out.append(
            (
                owner.email.casefold(),
                {
                    "kind": "calendar#event",
                    "id": eid,
                    "status": "confirmed",
                    "summary": title,
                    "organizer": {"email": owner.email, "displayName": owner.display_name},
                    "creator": {"email": owner.email},
                    "start": {"dateTime": start.isoformat(), "timeZone": owner.timezone},
                    "end": {"dateTime": end.isoformat(), "timeZone": owner.timezone},
                    "attendees": [
                        {"email": p.email, "displayName": p.display_name, "responseStatus": "accepted"}
                        for p in (owner, *guests)
                    ],
                    "iCalUID": f"{eid}@google.com",
                    "sequence": 0,
                    "etag": f'"{digest.hex()[:16]}"',
                },
            )
        )

    for index, person in enumerate(people):
        zone = ZoneInfo(person.timezone)
        pick = random.Random(f"{person.email}:{monday.isoformat()}")  # noqa: S311 - seed data, not a secret
        for day in range(5):
            moment = monday + timedelta(days=day)
            add(person, "Stand-up", datetime.combine(moment, time(9, 30), zone), 15)
            hour = pick.choice((11, 13, 14, 15, 16))
            add(
                person,
                pick.choice(_FOCUS),
                datetime.combine(moment, time(hour, 0), zone),
                pick.choice((30, 60, 90)),
            )
        colleague = people[(index + 1) % len(people)]
        if colleague is not person:
            when = datetime.combine(monday + timedelta(days=3), time(pick.choice((10, 12)), 0), zone)
            add(
                person,
                f"{pick.choice(_ONE_ON_ONES)}: {person.display_name.split(' ')[0]} / "
                f"{colleague.display_name.split(' ')[0]}",
                when,
                30,
                (colleague,),
            )
    if people:
        host = people[0]
        add(
            host,
            "Team weekly",
            datetime.combine(monday + timedelta(days=1), time(16, 0), ZoneInfo(host.timezone)),
            45,
            people[1:],
        )
    return out


def demo_events(people: Sequence[Person]) -> list[tuple[str, dict[str, Any]]]:
    """The demo's meetings as events on their organizers' calendars (ids as the seeded week's)."""
    from multitool.local.sandbox.demo_meetings import demo_meetings

    names = {p.email.casefold(): p.display_name for p in people}
    out: list[tuple[str, dict[str, Any]]] = []
    for meeting in demo_meetings(people):
        digest = hashlib.sha256(meeting.id.encode()).digest()
        eid = "seed" + base64.b32hexencode(digest).decode("ascii")[:24].lower()
        organizer = meeting.organizer
        out.append(
            (
                organizer.casefold(),
                {
                    "kind": "calendar#event",
                    "id": eid,
                    "etag": f'"{digest.hex()[:16]}"',
                    "status": "confirmed",
                    "summary": meeting.title,
                    "organizer": {
                        "email": organizer,
                        "displayName": names.get(organizer.casefold(), organizer),
                    },
                    "creator": {"email": organizer},
                    "start": {"dateTime": meeting.start.isoformat(), "timeZone": meeting.timezone},
                    "end": {"dateTime": meeting.end.isoformat(), "timeZone": meeting.timezone},
                    "attendees": [
                        {
                            "email": a,
                            "displayName": names.get(a.casefold(), a),
                            "responseStatus": "accepted" if a == organizer else "needsAction",
                        }
                        for a in meeting.attendees
                    ],
                    "iCalUID": f"{eid}@google.com",
                    "sequence": 0,
                },
            )
        )
    return out
