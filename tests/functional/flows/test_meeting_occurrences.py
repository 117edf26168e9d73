"""Cancelling one meeting of a repeating series, or the whole series, on every calendar.

Given a weekly 1:1 the caller organizes (booked on the provider as one series), when a
``cancel_meeting`` or ``move_meeting`` card names one meeting of it and is confirmed, then:

- Microsoft 365: the occurrence's own id is cancelled (``POST .../events/{occurrence id}/cancel``),
  the other meetings stay; for the series, the ``seriesMasterId`` is;
- Google: the instance id is deleted (``events.delete`` of ``{recurringEventId}_{start}``), the
  others stay; for the series, the recurring event is;
- built-in: the series keeps every other meeting (an EXDATE on the booking and on each attendee's
  series item: busy times no longer hold that one), the CANCEL carries its RECURRENCE-ID; a retried
  confirm writes nothing more; the series scope frees the booking.

A move of one meeting is an exception on Microsoft 365 and Google (a PATCH of the occurrence's or
instance's id) and on the built-in calendar a booking of its own plus an EXDATE, its REQUEST carrying
the series' UID and the meeting's RECURRENCE-ID; the series moves by as much on its master, to
another time of its days only. A card whose series scope the user did not say asks for it, and its
confirm is refused until the edits choose one.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from multitool.local.standins.google_server import FakeGoogle
from multitool.local.standins.graph_state import GraphState
from multitool.ports.calendar import Booking
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.recurrence import Recurrence
from multitool.review import InvalidEdits, ItemChangedSince

from tests.functional.flows.test_meeting_changes import card, confirm, ics
from tests.functional.flows.test_meeting_changes import world as world
from tests.support.meeting_providers import (
    ALEX,
    PRIYA,
    World,
    google_suites,
    graph_of_people,
    graph_suites,
    writes,
)
from tests.support.meeting_providers import google as google

MONDAY_11 = datetime(2026, 12, 7, 11, 0, tzinfo=UTC)  # Mon 7 Dec, 11:00 London: after NOW (09:00)
NEXT_MONDAY_11 = MONDAY_11 + timedelta(weeks=1)


def one_on_one(organizer: str, attendee: str) -> Booking:
    return Booking(
        id="one-on-one",
        title="1:1 with Priya",
        organizer=organizer,
        attendees=(organizer, attendee),
        start=MONDAY_11,
        end=MONDAY_11 + timedelta(minutes=30),
        timezone="Europe/London",
        recurrence=Recurrence(frequency="weekly", weekdays=("MO",)),
    )


NEXT_MONDAYS = {"meeting": {"said": "next Monday's 1:1", "fromDay": "2026-12-14", "words": ["1:1"]}}
THE_SERIES = {"meeting": {"said": "the whole 1:1 series", "words": ["1:1"]}, "scope": "series"}


def starts(events: Any) -> list[datetime]:
    return [e.start for e in events if e.title == "1:1 with Priya"]


# -- Microsoft 365 ---------------------------------------------------------------------------------


@pytest.fixture
def graph() -> GraphState:
    return graph_of_people()


@pytest.fixture
def on_graph(drafts: DynamoDraftStore, graph: GraphState) -> World:
    suites = graph_suites(graph)
    suites(ALEX.email).calendar.book(one_on_one(ALEX.email, PRIYA.email))
    graph.requests.clear()
    return World(drafts, suites)


def test_graph_cancels_one_occurrence_by_its_own_id(on_graph: World, graph: GraphState) -> None:
    cancel = on_graph.card("cancel_meeting", NEXT_MONDAYS)
    assert (cancel["scope"], cancel["scopeWords"]) == ("occurrence", "Only Mon 14 Dec")

    on_graph.confirm(cancel["draftId"])

    [master] = graph.events
    [(method, template, _)] = writes(graph)
    assert (method, template) == ("POST", "/users/{user-id}/events/{event-id}/cancel")
    assert graph.notices[-1]["eventId"] == f"{master['id']}_20261214T110000"
    left = on_graph.suites(ALEX.email).calendar.events(ALEX.email, MONDAY_11, MONDAY_11 + timedelta(weeks=3))
    assert starts(left) == [MONDAY_11, MONDAY_11 + timedelta(weeks=2)]
    assert graph.violations == []


def test_graph_cancels_the_series_on_its_master(on_graph: World, graph: GraphState) -> None:
    cancel = on_graph.card("cancel_meeting", THE_SERIES)
    assert cancel["scopeWords"] == "Every meeting of the series"

    on_graph.confirm(cancel["draftId"])

    assert graph.events == []
    assert graph.notices[-1]["action"] == "cancel"
    assert "_" not in graph.notices[-1]["eventId"]  # the series master's id, not an occurrence's
    assert graph.violations == []


# -- Google ------------------------------------------------------------------------------------------


@pytest.fixture
def on_google(drafts: DynamoDraftStore, google: FakeGoogle) -> World:
    suites = google_suites(google)
    suites(ALEX.email).calendar.book(one_on_one(ALEX.email, PRIYA.email))
    google.invitations.clear()
    return World(drafts, suites)


def test_google_deletes_one_instance_and_keeps_the_rest(on_google: World, google: FakeGoogle) -> None:
    cancel = on_google.card("cancel_meeting", NEXT_MONDAYS)

    on_google.confirm(cancel["draftId"])

    [master] = [e for e in google.events_of(ALEX.email) if e["summary"] == "1:1 with Priya"]
    assert master["status"] == "confirmed"
    assert google.invitations == [
        {
            "to": PRIYA.email,
            "eventId": f"{master['id']}_20261214T110000Z",
            "summary": "1:1 with Priya",
            "cancelled": True,
        }
    ]
    calendar = on_google.suites(ALEX.email).calendar
    assert starts(calendar.events(ALEX.email, MONDAY_11, MONDAY_11 + timedelta(weeks=3))) == [
        MONDAY_11,
        MONDAY_11 + timedelta(weeks=2),
    ]
    busy = calendar.busy([PRIYA.email], NEXT_MONDAY_11, NEXT_MONDAY_11 + timedelta(minutes=30))
    assert busy[PRIYA.email] == []


def test_google_deletes_the_recurring_event_for_the_series(on_google: World, google: FakeGoogle) -> None:
    cancel = on_google.card("cancel_meeting", THE_SERIES)

    on_google.confirm(cancel["draftId"])

    [master] = [e for e in google.events_of(ALEX.email) if e["summary"] == "1:1 with Priya"]
    assert master["status"] == "cancelled"
    assert [i["eventId"] for i in google.invitations] == [master["id"]]


# -- built-in ----------------------------------------------------------------------------------------


@pytest.fixture
def builtin(world: dict[str, Any]) -> dict[str, Any]:
    world["calendar"].book(one_on_one("alex@example.com", "priya@example.com"))
    return world


def test_builtin_cancels_one_meeting_with_an_exdate_and_a_cancel_for_its_recurrence_id(
    builtin: dict[str, Any],
) -> None:
    calendar = builtin["calendar"]
    cancel = card(builtin, "cancel_meeting", NEXT_MONDAYS)
    assert cancel["scope"] == "occurrence"

    confirm(builtin, cancel["draftId"])
    confirm(builtin, cancel["draftId"])  # retried: nothing more

    assert calendar.stored("one-on-one").booking.exceptions == (NEXT_MONDAY_11,)
    left = calendar.events("alex@example.com", MONDAY_11, MONDAY_11 + timedelta(weeks=3))
    assert starts(left) == [MONDAY_11, MONDAY_11 + timedelta(weeks=2)]
    busy = calendar.busy(["priya@example.com"], MONDAY_11, MONDAY_11 + timedelta(weeks=3))
    mondays = [i.start for i in busy["priya@example.com"] if i.start.weekday() == 0]
    assert mondays == [MONDAY_11, MONDAY_11 + timedelta(weeks=2)]
    (mail,) = builtin["mailer"].sent
    text = ics(mail)
    assert "METHOD:CANCEL" in text
    assert "RECURRENCE-ID;TZID=Europe/London:20261214T110000" in text


def test_builtin_cancels_the_whole_series(builtin: dict[str, Any]) -> None:
    cancel = card(builtin, "cancel_meeting", THE_SERIES)

    confirm(builtin, cancel["draftId"])

    assert builtin["calendar"].stored("one-on-one") is None
    (mail,) = builtin["mailer"].sent
    assert "METHOD:CANCEL" in ics(mail)
    assert "RECURRENCE-ID" not in ics(mail)


def test_a_series_meeting_named_without_a_day_asks_which_and_the_edits_choose(
    builtin: dict[str, Any],
) -> None:
    cancel = card(builtin, "cancel_meeting", {"meeting": {"said": "the 1:1", "words": ["1:1"]}})
    assert cancel["scope"] is None
    assert any("repeats" in note for note in cancel["notes"])

    with pytest.raises(InvalidEdits):
        confirm(builtin, cancel["draftId"])
    assert builtin["calendar"].stored("one-on-one") is not None

    confirm(builtin, cancel["draftId"], {"scope": "occurrence"})
    assert builtin["calendar"].stored("one-on-one").booking.exceptions == (MONDAY_11,)


# -- moving one meeting of the series, or the series ----------------------------------------------

MOVE_NEXT_MONDAYS = {**NEXT_MONDAYS, "shiftMinutes": 60}
AN_HOUR = timedelta(hours=1)
AFTER_THE_MOVE = [MONDAY_11, NEXT_MONDAY_11 + AN_HOUR, MONDAY_11 + timedelta(weeks=2)]


def test_graph_moves_one_occurrence_by_its_own_id(on_graph: World, graph: GraphState) -> None:
    move = on_graph.card("move_meeting", MOVE_NEXT_MONDAYS)
    assert move["scopeWords"] == "Only Mon 14 Dec"

    on_graph.confirm(move["draftId"])

    master = graph.events[0]
    [(method, template, body)] = writes(graph)
    assert (method, template) == ("PATCH", "/users/{user-id}/events/{event-id}")
    assert body["start"]["dateTime"].startswith("2026-12-14T12:00")
    assert graph.notices[-1]["eventId"] == f"{master['id']}_20261214T110000"
    calendar = on_graph.suites(ALEX.email).calendar
    assert starts(calendar.events(ALEX.email, MONDAY_11, MONDAY_11 + timedelta(weeks=3))) == AFTER_THE_MOVE
    assert graph.violations == []


def test_graph_moves_the_series_on_its_master_by_as_much(on_graph: World, graph: GraphState) -> None:
    move = on_graph.card("move_meeting", {**MOVE_NEXT_MONDAYS, "scope": "series"})

    on_graph.confirm(move["draftId"])

    calendar = on_graph.suites(ALEX.email).calendar
    assert starts(calendar.events(ALEX.email, MONDAY_11, MONDAY_11 + timedelta(weeks=3))) == [
        MONDAY_11 + AN_HOUR + timedelta(weeks=n) for n in (0, 1, 2)
    ]
    assert graph.violations == []


def test_google_moves_one_instance_and_keeps_the_rest(on_google: World, google: FakeGoogle) -> None:
    move = on_google.card("move_meeting", MOVE_NEXT_MONDAYS)

    on_google.confirm(move["draftId"])

    [invitation] = google.invitations
    assert invitation["eventId"].endswith("_20261214T110000Z")
    calendar = on_google.suites(ALEX.email).calendar
    assert starts(calendar.events(ALEX.email, MONDAY_11, MONDAY_11 + timedelta(weeks=3))) == AFTER_THE_MOVE
    busy = calendar.busy([PRIYA.email], NEXT_MONDAY_11, NEXT_MONDAY_11 + 2 * AN_HOUR)
    assert [(i.start, i.end) for i in busy[PRIYA.email]] == [
        (NEXT_MONDAY_11 + AN_HOUR, NEXT_MONDAY_11 + AN_HOUR + timedelta(minutes=30))
    ]


def test_builtin_moves_one_meeting_out_of_the_series_once(builtin: dict[str, Any]) -> None:
    calendar = builtin["calendar"]
    move = card(builtin, "move_meeting", MOVE_NEXT_MONDAYS)
    assert move["scope"] == "occurrence"

    done = confirm(builtin, move["draftId"])
    confirm(builtin, move["draftId"])  # retried: nothing more

    assert done.result["meetingId"] == "one-on-one@20261214T110000Z"
    assert calendar.stored("one-on-one").booking.exceptions == (NEXT_MONDAY_11,)
    moved = calendar.stored("one-on-one@20261214T110000Z").booking
    assert (moved.start, moved.recurrence) == (NEXT_MONDAY_11 + AN_HOUR, None)
    left = calendar.events("alex@example.com", MONDAY_11, MONDAY_11 + timedelta(weeks=3))
    assert starts(left) == AFTER_THE_MOVE
    (mail,) = builtin["mailer"].sent
    text = ics(mail)
    assert "METHOD:REQUEST" in text
    assert "UID:one-on-one\n" in text.replace("\r\n", "\n")
    assert "RECURRENCE-ID;TZID=Europe/London:20261214T110000" in text
    assert "DTSTART;TZID=Europe/London:20261214T120000" in text


def test_a_series_moves_to_another_day_only_one_meeting_at_a_time(builtin: dict[str, Any]) -> None:
    move = card(builtin, "move_meeting", {**NEXT_MONDAYS, "shiftMinutes": 24 * 60, "scope": "series"})

    with pytest.raises(InvalidEdits):
        confirm(builtin, move["draftId"])
    assert builtin["calendar"].stored("one-on-one").booking.start == MONDAY_11


def test_builtin_moves_the_series_by_as_much_and_mails_it_with_its_rule(builtin: dict[str, Any]) -> None:
    move = card(builtin, "move_meeting", {**MOVE_NEXT_MONDAYS, "scope": "series"})

    confirm(builtin, move["draftId"])

    series = builtin["calendar"].stored("one-on-one").booking
    assert (series.start, series.exceptions) == (MONDAY_11 + AN_HOUR, ())
    (mail,) = builtin["mailer"].sent
    text = ics(mail)
    assert "RRULE:FREQ=WEEKLY;BYDAY=MO" in text
    assert "DTSTART;TZID=Europe/London:20261207T120000" in text
    assert "RECURRENCE-ID" not in text


def test_builtin_a_moved_meeting_cancelled_later_is_the_series_instance_to_the_guests(
    builtin: dict[str, Any],
) -> None:
    move = card(builtin, "move_meeting", MOVE_NEXT_MONDAYS)
    confirm(builtin, move["draftId"])
    cancel = card(builtin, "cancel_meeting", NEXT_MONDAYS)
    assert cancel["meeting"]["item"]["id"] == "one-on-one@20261214T110000Z"

    confirm(builtin, cancel["draftId"])

    assert builtin["calendar"].stored("one-on-one@20261214T110000Z") is None
    text = ics(builtin["mailer"].sent[-1]).replace("\r\n", "\n")
    assert "METHOD:CANCEL" in text
    assert "UID:one-on-one\n" in text
    assert "RECURRENCE-ID;TZID=Europe/London:20261214T110000" in text


def test_builtin_two_cards_moving_one_meeting_of_a_series_the_second_is_item_changed(
    builtin: dict[str, Any],
) -> None:
    first = card(builtin, "move_meeting", MOVE_NEXT_MONDAYS, session="s-1")
    second = card(builtin, "move_meeting", {**NEXT_MONDAYS, "shiftMinutes": 120}, session="s-2")
    confirm(builtin, first["draftId"])

    with pytest.raises(ItemChangedSince):
        confirm(builtin, second["draftId"])

    moved = builtin["calendar"].stored("one-on-one@20261214T110000Z").booking
    assert moved.start == NEXT_MONDAY_11 + AN_HOUR
