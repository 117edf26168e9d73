"""The Google stand-in's event helpers: an event as one attendee sees it, its guests, a change's
bookkeeping (etag, sequence, updated), a series' instances in a window, ``If-Match`` checked as
Calendar checks it, and merged busy blocks. Apart from the server (:mod:`.google_server`), which
holds the events and answers the requests.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from multitool.local.standins.recurring import google_meetings
from multitool.people import Person


def _guests(event: Mapping[str, Any]) -> set[str]:
    return {str(a.get("email", "")).casefold() for a in event.get("attendees") or ()}


def _changed(event: dict[str, Any], *, sequence: bool = True) -> None:
    """A new etag and updated time for every change; the SEQUENCE for the organizer's (RFC 5545)."""
    if sequence:
        event["sequence"] = int(event.get("sequence", 0)) + 1
    event["updated"] = _now()
    event["etag"] = f'"{hashlib.sha256(json.dumps(event, sort_keys=True).encode()).hexdigest()[:16]}"'


def _seen_by(user: str, event: Mapping[str, Any]) -> dict[str, Any]:
    """The event as ``user`` reads it: ``self`` on the organizer and on their own attendee entry."""
    shown = dict(event)
    organizer = dict(event.get("organizer") or {})
    organizer.pop("self", None)
    if str(organizer.get("email", "")).casefold() == user:
        organizer["self"] = True
    shown["organizer"] = organizer
    attendees = []
    for attendee in event.get("attendees") or ():
        entry = {k: v for k, v in attendee.items() if k != "self"}
        if str(entry.get("email", "")).casefold() == user:
            entry["self"] = True
        attendees.append(entry)
    if attendees:
        shown["attendees"] = attendees
    return shown


def _person_json(person: Person) -> dict[str, Any]:
    given, _, family = person.display_name.partition(" ")
    source = {"type": "DOMAIN_PROFILE", "id": person.id}
    return {
        "resourceName": f"people/{person.id}",
        "etag": "%EgUBAi43PRoEAQIFByIM",
        "names": [
            {
                "metadata": {"primary": True, "source": source},
                "displayName": person.display_name,
                "givenName": given,
                "familyName": family or given,
            }
        ],
        "emailAddresses": [{"metadata": {"primary": True, "source": source}, "value": person.email}],
    }


def _instances(
    event: dict[str, Any], window: tuple[datetime, datetime], deleted: Collection[str] = ()
) -> list[dict[str, Any]]:
    """A single event as it is; a recurring one as its instances in ``window`` (but the deleted)."""
    if not event.get("recurrence"):
        return [event]
    zone = event["start"]["timeZone"]
    found = [
        {
            **{k: v for k, v in event.items() if k != "recurrence"},
            "id": f"{event['id']}_{begins.astimezone(UTC):%Y%m%dT%H%M%SZ}",
            "recurringEventId": event["id"],
            "originalStartTime": {"dateTime": begins.isoformat(), "timeZone": zone},
            "start": {"dateTime": begins.isoformat(), "timeZone": zone},
            "end": {"dateTime": ends.isoformat(), "timeZone": zone},
        }
        for begins, ends in google_meetings(event, window)
    ]
    return [e for e in found if e["id"] not in deleted]


def _z(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _now() -> str:
    return _z(datetime.now(UTC).replace(microsecond=0))


def _merge(blocks: Sequence[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    merged: list[tuple[datetime, datetime]] = []
    for start, end in blocks:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
