"""The calendar port's read of the caller's own events, on every calendar: the built-in one
(DynamoDB against moto, and the in-memory one), Microsoft 365 (Graph's calendarView, every request
checked against the committed description) and Google (events.list on the stand-in, checked
against the discovery document).

Given meetings the caller organizes, meetings they are invited to and meetings of other people,
when the port reads the caller's window, then it answers exactly the caller's own, with their
part in each (organizer or attendee), everyone's responses and the provider's version, and never
another user's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
import urllib3
from multitool.local.sandbox.embedded import load_seed
from multitool.local.sandbox.memory import MemoryCalendar
from multitool.local.standins.google_server import FakeGoogle, sandbox_token, start_fake_google
from multitool.local.standins.graph_state import GraphPool, GraphState
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.ports.calendar import Booking, Calendar, Guest, Response
from multitool.ports.google.tokens import FixedTokenSource as GoogleTokens
from multitool.ports.google.workspace import build_suite
from multitool.ports.microsoft365 import graph as microsoft365
from multitool.ports.microsoft365.graph import GraphCalendar
from multitool.ports.microsoft365.graph_http import GraphHttp
from multitool.ports.microsoft365.tokens import FixedTokenSource
from multitool.ports.tokens import Account, ProviderRefused

from tests.support.moto_tables import Counted
from tests.support.moto_tables import dynamo as dynamo

ALEX = "alex.mueller@example.com"
PRIYA = "priya.patel@example.com"
MEI = "mei.tanaka@example.com"
THURSDAY = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


def booking(
    booking_id: str, organizer: str, *others: str, start: datetime = THURSDAY, **more: Any
) -> Booking:
    return Booking(
        id=booking_id,
        title=f"Meeting {booking_id}",
        organizer=organizer,
        attendees=(organizer, *others),
        start=start,
        end=start + timedelta(minutes=30),
        timezone="Europe/Berlin",
        **more,
    )


SYNC = booking("sync", ALEX, PRIYA, guests=(Guest(email=PRIYA, name="Priya Patel"),))
PRIYAS = booking(
    "priyas", PRIYA, ALEX, start=THURSDAY + timedelta(hours=2), responses={ALEX: Response.ACCEPTED}
)
NOT_ALEXS = booking("private", PRIYA, MEI, start=THURSDAY + timedelta(hours=4))
LATER = booking("later", ALEX, MEI, start=THURSDAY + timedelta(days=20))


def builtin_calendars(dynamo: Counted) -> list[Calendar]:
    table = DynamoCalendar(dynamo.names["BOOKINGS_TABLE_NAME"], dynamo.client)
    memory = MemoryCalendar()
    for calendar in (table, memory):
        for each in (SYNC, PRIYAS, NOT_ALEXS, LATER):
            calendar.book(each)
    return [table, memory]


def test_the_builtin_calendar_reads_the_callers_own_bookings_only(dynamo: Counted) -> None:
    for calendar in builtin_calendars(dynamo):
        dynamo.calls.clear()

        events = calendar.events(ALEX, THURSDAY - timedelta(hours=1), THURSDAY + timedelta(days=1))

        assert [e.id for e in events] == ["sync", "priyas"]
        sync, priyas = events
        assert (sync.role, sync.response, sync.organizer) == ("organizer", Response.ORGANIZER, ALEX)
        assert [(a.email, a.name, a.response) for a in sync.attendees] == [
            (PRIYA, "Priya Patel", Response.NONE)
        ]
        assert (priyas.role, priyas.response) == ("attendee", Response.ACCEPTED)
        assert (sync.version, sync.sequence, sync.timezone) == ("1", 0, "Europe/Berlin")
        if isinstance(calendar, DynamoCalendar):
            # One read of the caller's attendee-days, one of the bookings they hold.
            assert dynamo.calls == Counter({"BatchGetItem": 2})


def test_the_builtin_calendar_reads_one_event_as_it_stands_and_never_anothers(dynamo: Counted) -> None:
    for calendar in builtin_calendars(dynamo):
        calendar.book(
            SYNC.model_copy(
                update={"start": THURSDAY + timedelta(hours=1), "end": THURSDAY + timedelta(hours=2)}
            )
        )

        moved = calendar.event(ALEX, "sync")

        assert moved is not None
        assert (moved.start, moved.version, moved.sequence) == (THURSDAY + timedelta(hours=1), "2", 1)
        assert calendar.event(ALEX, "private") is None  # Priya's and Mei's: not Alex's to see
        assert calendar.event(ALEX, "nothing") is None


# -- Microsoft 365: calendarView ---------------------------------------------------------------


@pytest.fixture
def graph() -> GraphState:
    state = GraphState()
    for name, mail in (("Alex Müller", ALEX), ("Priya Patel", PRIYA), ("Mei Tanaka", MEI)):
        state.add_user(name, mail)
    return state


def graph_calendar(state: GraphState, email: str = ALEX) -> GraphCalendar:
    return GraphCalendar(
        GraphHttp(
            Account("user-1", email),
            FixedTokenSource("local-token"),
            http=GraphPool(state),  # type: ignore[arg-type]
            base_url="http://graph.local/v1.0",
            deadline=lambda: 60.0,
            jitter=lambda: 0.0,
        )
    )


def seed_graph(state: GraphState) -> dict[str, dict[str, Any]]:
    return {
        "sync": state.add_event(
            ALEX, "Sync", THURSDAY, THURSDAY + timedelta(minutes=30), [PRIYA], zone="Europe/Berlin"
        ),
        "priyas": state.add_event(
            PRIYA, "Budget", THURSDAY + timedelta(hours=2), THURSDAY + timedelta(hours=3), [ALEX]
        ),
        "private": state.add_event(PRIYA, "Private", THURSDAY, THURSDAY + timedelta(hours=1), [MEI]),
    }


def test_graph_reads_the_calendar_view_of_the_callers_own_mailbox(graph: GraphState) -> None:
    made = seed_graph(graph)
    made["priyas"]["attendees"][0]["status"] = {"response": "tentativelyAccepted"}

    events = graph_calendar(graph).events(ALEX, THURSDAY - timedelta(hours=1), THURSDAY + timedelta(days=1))

    assert [e.title for e in events] == ["Sync", "Budget"]
    sync, budget = events
    assert (sync.role, sync.version, sync.timezone) == (
        "organizer",
        made["sync"]["changeKey"],
        "Europe/Berlin",
    )
    assert (budget.role, budget.response, budget.organizer) == ("attendee", Response.TENTATIVE, PRIYA)
    assert not graph.violations
    method, template, _ = graph.requests[-1]
    assert (method, template) == ("GET", "/users/{user-id}/calendarView")


def test_graph_follows_the_next_link_of_a_long_calendar_view(
    graph: GraphState, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed_graph(graph)
    monkeypatch.setattr(microsoft365, "CALENDAR_VIEW_PAGE", 1)

    events = graph_calendar(graph).events(ALEX, THURSDAY - timedelta(hours=1), THURSDAY + timedelta(days=1))

    assert [e.title for e in events] == ["Sync", "Budget"]
    assert [t for _, t, _ in graph.requests].count("/users/{user-id}/calendarView") == 2
    assert not graph.violations


def test_graph_rereads_one_event_and_says_none_when_it_is_gone(graph: GraphState) -> None:
    made = seed_graph(graph)
    calendar = graph_calendar(graph)

    found = calendar.event(ALEX, made["sync"]["id"])
    graph.events.remove(made["sync"])

    assert found is not None
    assert found.title == "Sync"
    assert calendar.event(ALEX, made["sync"]["id"]) is None
    assert calendar.event(ALEX, made["private"]["id"]) is None  # not on Alex's calendar
    assert not graph.violations


def test_a_provider_calendar_reads_only_the_signed_in_users_own(graph: GraphState) -> None:
    with pytest.raises(ProviderRefused, match="only your own calendar"):
        graph_calendar(graph).events(PRIYA, THURSDAY, THURSDAY + timedelta(days=1))
    assert graph.requests == []


# -- Google: events.list on the stand-in --------------------------------------------------------

WEEK = date(2026, 12, 7)
SEED = load_seed()
JORDAN = next(p for p in SEED.people if p.id == "jordan")


@pytest.fixture(scope="module")
def google() -> Iterator[FakeGoogle]:
    with start_fake_google(people=SEED.people, week_of=WEEK) as server:
        assert server.discovery is not None
        yield server


def google_calendar(google: FakeGoogle, email: str) -> Any:
    tokens = GoogleTokens({p.email: sandbox_token(p.email) for p in SEED.people})
    suite = build_suite(
        Account(user_id=email, email=email),
        tokens,
        http=urllib3.PoolManager(),
        base_url=google.url,
        deadline=lambda: 20.0,
    )
    return suite.calendar


def test_google_lists_the_users_own_events_and_their_invitations(google: FakeGoogle) -> None:
    monday = datetime(2026, 12, 7, tzinfo=UTC)
    calendar = google_calendar(google, JORDAN.email)

    events = calendar.events(JORDAN.email, monday, monday + timedelta(days=7))

    seeded = list(google.events_of(JORDAN.email))
    assert {e.id for e in events if e.role == "organizer"} == {e["id"] for e in seeded}
    invited = [e for e in events if e.role == "attendee"]
    assert invited, "the colleague's one-to-one and the team weekly are on Jordan's calendar too"
    for event in invited:
        assert JORDAN.email not in {event.organizer}
        assert event.version.startswith('"')
    everyone = {p for e in events for p in e.people}
    assert JORDAN.email in everyone
    other = next(p for p in SEED.people if p.email != JORDAN.email)
    theirs_only = [
        e["id"]
        for e in google.events_of(other.email)
        if JORDAN.email not in {a["email"] for a in e.get("attendees", ())}
    ]
    assert not {e.id for e in events} & set(theirs_only)
    assert [e.start for e in events] == sorted(e.start for e in events)


def test_google_rereads_one_event_as_it_stands(google: FakeGoogle) -> None:
    calendar = google_calendar(google, JORDAN.email)
    seeded = google.events_of(JORDAN.email)[0]

    found = calendar.event(JORDAN.email, seeded["id"])

    assert found is not None
    assert (found.id, found.title, found.role) == (seeded["id"], seeded["summary"], "organizer")
    assert calendar.event(JORDAN.email, "nosuchevent0") is None
