"""Confirming a repeating meeting books one series on every calendar: Microsoft 365 (Graph's
``recurrence``, checked against Graph's description, expanded by the stand-in's getSchedule),
Google (``recurrence`` RRULE lines with the start's time zone, checked against the discovery
document, expanded by the stand-in's freebusy), and the built-in calendar (the series in the
bookings table, the invitation's VEVENT with its RRULE)."""

from __future__ import annotations

import email
import json
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Any

import pytest
import urllib3
from multitool.drafts import DraftStatus
from multitool.local.standins.google_server import FakeGoogle, sandbox_token, start_fake_google
from multitool.local.standins.graph_state import GraphPool, GraphState, WorkingHours
from multitool.people import Person
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.google import workspace as google_workspace
from multitool.ports.google.tokens import FixedTokenSource as GoogleTokens
from multitool.ports.microsoft365 import graph as microsoft365
from multitool.ports.microsoft365.tokens import FixedTokenSource
from multitool.ports.tokens import Account
from multitool.review import Caller, SlotTaken

from tests.functional.review.test_review_api import call
from tests.support.moto_tables import Tables
from tests.support.provider_review import provider_reviewer
from tests.support.review_support import KINSHUOK, OWNER, PRIYA, SLOTS, meeting_draft, resolved

ALEX = Person(
    id="p-alex", display_name="Alex Müller", email="alex.mueller@example.com", timezone="Europe/Berlin"
)
CALLER = Caller(user_id=OWNER, email=ALEX.email, name=ALEX.display_name)
FIRST = {"start": SLOTS[0][0].isoformat(), "end": SLOTS[0][1].isoformat()}  # Thu 3 Dec 2026, 09:00 Berlin
WEEKLY = {"frequency": "weekly", "weekdays": ["TH"]}
EVERY_OTHER_UNTIL = {"frequency": "weekly", "interval": 2, "weekdays": ["TH"], "until": "2027-02-28"}


def series_draft(repeat: dict[str, Any], **kwargs: Any) -> Any:
    return meeting_draft(attendees=[resolved("Priya", PRIYA)], repeat=repeat, **kwargs)


def a_week_later(weeks: int = 1) -> dict[str, str]:
    return {
        "start": (SLOTS[0][0] + timedelta(weeks=weeks)).isoformat(),
        "end": (SLOTS[0][1] + timedelta(weeks=weeks)).isoformat(),
    }


# -- Microsoft 365 ---------------------------------------------------------------------------


@pytest.fixture
def graph() -> GraphState:
    state = GraphState()
    state.add_user(ALEX.display_name, ALEX.email, working=WorkingHours(zone="W. Europe Standard Time"))
    state.add_user(PRIYA.display_name, PRIYA.email, working=WorkingHours(zone="W. Europe Standard Time"))
    state.add_user(KINSHUOK.display_name, KINSHUOK.email, working=WorkingHours(zone="India Standard Time"))
    return state


def graph_reviewer(drafts: DynamoDraftStore, graph: GraphState) -> Any:
    review, _ = provider_reviewer(
        drafts,
        microsoft365.build_suite,
        FixedTokenSource("local-token"),
        http=GraphPool(graph),  # type: ignore[arg-type]
        base_url="http://graph.local/v1.0",
    )
    return review


def test_a_series_confirmed_on_microsoft_365_is_one_recurring_event_in_the_meetings_zone(
    drafts: DynamoDraftStore, graph: GraphState
) -> None:
    [draft] = drafts.create_many([series_draft(EVERY_OTHER_UNTIL)])

    done = graph_reviewer(drafts, graph).confirm(CALLER, draft.id, {"slot": FIRST})

    assert done.status is DraftStatus.DONE
    assert done.result is not None
    assert done.result["repeats"] == "Every other Thursday, 09:00-09:30, until 28 Feb 2027"
    [event] = graph.events
    assert event["recurrence"] == {
        "pattern": {"type": "weekly", "interval": 2, "daysOfWeek": ["thursday"], "firstDayOfWeek": "monday"},
        "range": {"type": "endDate", "startDate": "2026-12-03", "endDate": "2027-02-28"},
    }
    assert event["originalStartTimeZone"] == "W. Europe Standard Time"  # expanded on Berlin's clock
    assert graph.violations == []


def test_a_later_meeting_on_a_series_occurrence_in_outlook_is_slot_taken(
    drafts: DynamoDraftStore, graph: GraphState
) -> None:
    review = graph_reviewer(drafts, graph)
    [series] = drafts.create_many([series_draft(EVERY_OTHER_UNTIL)])
    review.confirm(CALLER, series.id, {"slot": FIRST})
    fifth, off_week = a_week_later(8), a_week_later(7)  # 28 Jan 2027 is its fifth meeting; 21 Jan is not one
    on_it, between = drafts.create_many(
        [
            meeting_draft(attendees=[resolved("Priya", PRIYA)], slots=[_slot(fifth)], session="s-2"),
            meeting_draft(attendees=[resolved("Priya", PRIYA)], slots=[_slot(off_week)], session="s-3"),
        ]
    )

    with pytest.raises(SlotTaken) as taken:
        review.confirm(CALLER, on_it.id, {"slot": fifth})

    assert "Priya Raman" in taken.value.message
    assert review.confirm(CALLER, between.id, {"slot": off_week}).status is DraftStatus.DONE
    assert graph.violations == []


def test_graph_refuses_a_weekly_recurrence_without_days_in_words(graph: GraphState) -> None:
    body = {
        "subject": "Sync",
        "start": {"dateTime": "2026-12-03T09:00:00", "timeZone": "W. Europe Standard Time"},
        "end": {"dateTime": "2026-12-03T09:30:00", "timeZone": "W. Europe Standard Time"},
        "recurrence": {
            "pattern": {"type": "weekly", "interval": 1},
            "range": {"type": "noEnd", "startDate": "2026-12-03"},
        },
    }

    answer = graph.handle(
        "POST",
        f"http://graph.local/v1.0/users/{ALEX.email}/events",
        {"Authorization": "Bearer local-token", "Content-Type": "application/json"},
        json.dumps(body).encode(),
    )

    assert answer.status == 400
    assert answer.body["error"]["message"] == "A weekly recurrence pattern needs daysOfWeek."
    assert graph.events == []


# -- Google ----------------------------------------------------------------------------------


@pytest.fixture
def google() -> Iterator[FakeGoogle]:
    with start_fake_google(people=(ALEX, PRIYA, KINSHUOK), week_of=date(2026, 11, 16)) as server:
        assert server.discovery is not None
        yield server


def google_reviewer(drafts: DynamoDraftStore, google: FakeGoogle) -> Any:
    tokens = GoogleTokens({p.email: sandbox_token(p.email) for p in (ALEX, PRIYA, KINSHUOK)})
    review, _ = provider_reviewer(
        drafts,
        google_workspace.build_suite,
        tokens,
        http=urllib3.PoolManager(),
        base_url=google.url,
        deadline=lambda: 20.0,
    )
    return review


def test_a_series_confirmed_on_google_is_one_event_with_its_rrule_and_zone(
    drafts: DynamoDraftStore, google: FakeGoogle
) -> None:
    [draft] = drafts.create_many([series_draft(EVERY_OTHER_UNTIL)])

    done = google_reviewer(drafts, google).confirm(CALLER, draft.id, {"slot": FIRST})

    assert done.status is DraftStatus.DONE
    [event] = [e for e in google.booked() if e["status"] == "confirmed"]
    # UNTIL: the end of 28 Feb in Berlin, in UTC (RFC 5545 3.3.10)
    assert event["recurrence"] == ["RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TH;UNTIL=20270228T225959Z"]
    assert event["start"]["timeZone"] == event["end"]["timeZone"] == "Europe/Berlin"


def test_a_later_meeting_on_a_series_occurrence_in_google_is_slot_taken(
    drafts: DynamoDraftStore, google: FakeGoogle
) -> None:
    review = google_reviewer(drafts, google)
    [series] = drafts.create_many([series_draft(WEEKLY)])
    review.confirm(CALLER, series.id, {"slot": FIRST})
    third = a_week_later(2)
    [single] = drafts.create_many(
        [meeting_draft(attendees=[resolved("Priya", PRIYA)], slots=[_slot(third)], session="s-2")]
    )

    with pytest.raises(SlotTaken):
        review.confirm(CALLER, single.id, {"slot": third})


def test_google_refuses_a_series_without_a_time_zone_in_words(google: FakeGoogle) -> None:
    body = {
        "summary": "Sync",
        "start": {"dateTime": "2026-12-03T08:00:00Z"},
        "end": {"dateTime": "2026-12-03T08:30:00Z"},
        "recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=TH"],
    }
    pool = urllib3.PoolManager()
    answer = pool.request(
        "POST",
        f"{google.url}/calendar/v3/calendars/primary/events",
        body=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {sandbox_token(ALEX.email)}", "Content-Type": "application/json"},
    )

    assert answer.status == 400
    assert "Missing time zone definition for start time." in answer.data.decode()
    assert google.booked() == []


# -- built-in --------------------------------------------------------------------------------


def test_a_series_confirmed_on_the_builtin_calendar_invites_with_its_rrule_and_holds_every_week(
    review_aws: Tables,
) -> None:
    draft = review_aws.add(meeting_draft(repeat=WEEKLY))

    response = call("POST", draft.id, "confirm", {"slot": FIRST})

    assert response["statusCode"] == 200
    [message] = review_aws.sent()
    parsed = email.message_from_string(message.raw_data)
    [calendar] = [p for p in parsed.walk() if p.get_content_type() == "text/calendar"]
    ics = calendar.get_payload(decode=True)
    assert isinstance(ics, bytes)
    assert b"DTSTART;TZID=Europe/Berlin:20261203T090000" in ics
    assert b"RRULE:FREQ=WEEKLY;BYDAY=TH" in ics
    assert "Every Thursday, 09:00-09:30" in parsed.as_string()
    port = DynamoCalendar(review_aws.names["BOOKINGS_TABLE_NAME"], review_aws.client)
    tenth = SLOTS[0][0] + timedelta(weeks=9)
    busy = port.busy(["kinshuok@example.com"], tenth - timedelta(hours=1), tenth + timedelta(hours=1))
    assert [(i.start, i.end) for i in busy["kinshuok@example.com"]] == [
        (tenth, tenth + timedelta(minutes=30))
    ]


def test_a_series_whose_end_is_before_its_first_meeting_is_a_clear_error_and_books_nothing(
    review_aws: Tables,
) -> None:
    draft = review_aws.add(meeting_draft(repeat={"frequency": "weekly", "until": "2026-12-01"}))

    response = call("POST", draft.id, "confirm", {"slot": FIRST})

    assert response["statusCode"] == 422
    assert "before its first meeting" in json.loads(response["body"])["error"]["message"]
    assert review_aws.sent() == []


def _slot(value: dict[str, str]) -> tuple[datetime, datetime]:
    return (datetime.fromisoformat(value["start"]), datetime.fromisoformat(value["end"]))


# -- the series on the caller's calendar (the events read the agenda and the finder use) ----


def test_a_booked_series_reads_back_as_its_meetings_on_microsoft_365(
    drafts: DynamoDraftStore, graph: GraphState
) -> None:
    [draft] = drafts.create_many([series_draft(EVERY_OTHER_UNTIL)])
    graph_reviewer(drafts, graph).confirm(CALLER, draft.id, {"slot": FIRST})
    suite = microsoft365.build_suite(
        Account(user_id=OWNER, email=ALEX.email),
        FixedTokenSource("local-token"),
        http=GraphPool(graph),  # type: ignore[arg-type]
        base_url="http://graph.local/v1.0",
    )

    events = suite.calendar.events(ALEX.email, SLOTS[0][0], SLOTS[0][0] + timedelta(weeks=5))

    assert [(e.start, e.recurring) for e in events] == [
        (SLOTS[0][0] + timedelta(weeks=n), True) for n in (0, 2, 4)
    ]
    assert {e.series_id for e in events} == {graph.events[0]["id"]}
    assert graph.violations == []


def test_a_booked_series_reads_back_as_its_meetings_on_google(
    drafts: DynamoDraftStore, google: FakeGoogle
) -> None:
    [draft] = drafts.create_many([series_draft(WEEKLY)])
    google_reviewer(drafts, google).confirm(CALLER, draft.id, {"slot": FIRST})
    suite = google_workspace.build_suite(
        Account(user_id=OWNER, email=ALEX.email),
        GoogleTokens({ALEX.email: sandbox_token(ALEX.email)}),
        http=urllib3.PoolManager(),
        base_url=google.url,
        deadline=lambda: 20.0,
    )

    events = suite.calendar.events(ALEX.email, SLOTS[0][0], SLOTS[0][0] + timedelta(weeks=3))

    assert [e.start for e in events] == [SLOTS[0][0] + timedelta(weeks=n) for n in (0, 1, 2)]
    assert all(e.recurring and e.series_id == google_workspace.event_id(draft.id) for e in events)
