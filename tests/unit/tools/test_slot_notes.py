"""Each slot says what it means for each person: their local time (with their day when it is not the
organizer's), their working hours, and, for every candidate of an ambiguous name, their calendar."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.people import Person
from multitool.ports.calendar import Booking
from multitool.toolkit.context import ToolContext
from multitool.tools import ToolPorts, run_calls

# Tuesday 1 December 2026, 14:00 UTC (09:00 in New York).
NOW = datetime(2026, 12, 1, 14, 0, tzinfo=UTC)
JORDAN = Person(
    id="jordan", display_name="Jordan Lee", email="jordan.lee@example.com", timezone="America/New_York"
)
MEI = Person(id="mei", display_name="Mei Tanaka", email="mei.tanaka@example.com", timezone="Asia/Tokyo")
KENJI = Person(id="kenji", display_name="Kenji Sato", email="kenji@example.com", timezone="Asia/Tokyo")
ALEX_CHEN = Person(
    id="alex-chen", display_name="Alex Chen", email="alex.chen@example.com", timezone="America/Los_Angeles"
)
ALEX_MULLER = Person(
    id="alex-muller", display_name="Alex Müller", email="alex.mueller@example.com", timezone="Europe/Berlin"
)
PEOPLE = [JORDAN, MEI, KENJI, ALEX_CHEN, ALEX_MULLER]


def as_jordan() -> ToolContext:
    return ToolContext(
        owner="jordan", session_id="s-1", now=NOW, timezone=JORDAN.timezone, requester_email=JORDAN.email
    )


def propose(attendees: list[str], when: str, bookings: list[Booking] | None = None) -> dict[str, Any]:
    ports = ToolPorts(MemoryDirectory(PEOPLE), MemoryCalendar(bookings or []), MemoryDraftStore())
    call = ("propose_meeting", {"attendees": attendees, "title": "Sync", "when": when})
    (outcome,) = run_calls([call], as_jordan(), ports)
    assert outcome.ok, outcome.body
    body: dict[str, Any] = outcome.body
    return body


def checks_of(payload: dict[str, Any], email: str | None) -> list[dict[str, Any]]:
    return [next(c for c in slot if c["email"] == email) for slot in payload["slotChecks"]]


def test_an_attendee_whose_day_is_another_sees_the_weekday() -> None:
    # Jordan's Tuesday 16:00 in New York is Mei's Wednesday 06:00 in Tokyo
    payload = propose(["Mei"], "2026-12-01T16:00")
    assert payload["slots"][0]["start"] == "2026-12-01T16:00:00-05:00"
    assert payload["slotNotes"][0] == ["Mei Tanaka: Wed 06:00 (Asia/Tokyo), outside their working hours."]
    mei = checks_of(payload, MEI.email)[0]
    assert (mei["local"], mei["timezone"], mei["outsideHours"], mei["busy"]) == (
        "Wed 06:00",
        "Asia/Tokyo",
        True,
        False,
    )


def test_a_slot_outside_the_organizers_hours_says_so() -> None:
    payload = propose(["Mei"], "2026-12-03T01:00")
    assert payload["slots"][0]["start"] == "2026-12-03T01:00:00-05:00"
    assert payload["slotNotes"][0][0] == "Outside your working hours (01:00)."
    assert checks_of(payload, None)[0] == {
        "email": None,
        "name": "you",
        "timezone": "America/New_York",
        "local": "01:00",
        "outsideHours": True,
        "busy": False,
    }


def test_a_named_slot_inside_everyones_hours_is_not_said_to_be_outside() -> None:
    # Jordan asks for 20:00 (Friday 10:00 for Kenji): inside Kenji's hours, outside Jordan's; the other
    # slots are the New York day's compromise, outside Kenji's
    payload = propose(["Kenji"], "2026-12-03T20:00")
    notes = payload["slotNotes"]
    assert notes[0] == ["Outside your working hours (20:00).", "Kenji Sato: Fri 10:00 (Asia/Tokyo)."]
    assert all(
        "outside their working hours" in note for slot in notes[1:] for note in slot if "Kenji" in note
    )
    # and no note for the whole card names Kenji for every slot
    assert not any("Kenji" in note for note in payload["notes"])


def test_every_candidate_of_an_ambiguous_name_is_checked_for_the_page() -> None:
    # Alex Müller is booked at 15:30 New York time; 15:00 in New York is 21:00 in Berlin, 12:00 in Los Angeles
    busy = Booking(
        id="b-1",
        title="Busy",
        organizer="x",
        attendees=(ALEX_MULLER.email,),
        start=datetime(2026, 12, 3, 20, 30, tzinfo=UTC),
        end=datetime(2026, 12, 3, 21, 0, tzinfo=UTC),
    )
    payload = propose(["Alex"], "2026-12-03T15:00", [busy])
    muller, chen = checks_of(payload, ALEX_MULLER.email), checks_of(payload, ALEX_CHEN.email)
    assert (muller[0]["local"], muller[0]["outsideHours"]) == ("21:00", True)
    assert (chen[0]["local"], chen[0]["outsideHours"]) == ("12:00", False)
    # The slots avoid only the settled attendees' bookings: Müller's 15:30 is checked as busy where offered
    offered = [datetime.fromisoformat(s["start"]) for s in payload["slots"]]
    for start, check in zip(offered, muller, strict=True):
        assert check["busy"] == (start <= busy.start < start + timedelta(minutes=30))
    assert any(check["busy"] for check in muller)
    # An unsettled name has no words of its own yet: the page shows them once a candidate is chosen
    assert not any("Alex" in note for slot in payload["slotNotes"] for note in slot)


def test_the_organizer_is_not_an_attendee_of_their_own_meeting() -> None:
    payload = propose(["Mei", "Jordan"], "Thursday")
    assert [a["query"] for a in payload["attendees"]] == ["Mei"]
    assert "You organize this meeting, so you are not also on its attendee list." in payload["notes"]
