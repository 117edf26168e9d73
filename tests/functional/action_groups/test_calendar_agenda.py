"""The agenda card ("what do I have tomorrow?") on real-shaped Bedrock events against moto DynamoDB:
the caller's own meetings in the days asked, a series' meetings among them, nobody else's; and a
confirm of it is refused (a read-only card)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.ports.calendar import Booking
from multitool.ports.recurrence import Recurrence

from tests.functional.review.test_review_api import call
from tests.support.bedrock_events import (
    LambdaContextStub,
    assert_bedrock_response,
    bedrock_action_event,
    response_body,
    tool_handler,
)
from tests.support.moto_tables import Tables

JORDAN = "jordan@example.com"
SESSION = {
    "userId": "user-1",
    "timezone": "America/New_York",
    "now": "2026-12-07T09:00:00-05:00",
    "userEmail": JORDAN,
}
TUESDAY_10 = datetime(2026, 12, 8, 15, tzinfo=UTC)  # 10:00 in New York


def agenda(**properties: Any) -> dict[str, Any]:
    event = bedrock_action_event("calendar_agenda", "/calendar-agenda", "POST", properties, SESSION)
    response: dict[str, Any] = tool_handler("calendar_agenda")(event, LambdaContextStub())
    assert_bedrock_response(response)
    return response


def book(
    tables: Tables, booking_id: str, organizer: str, *attendees: str, start: datetime, **more: Any
) -> None:
    DynamoCalendar(tables.names["BOOKINGS_TABLE_NAME"], tables.client).book(
        Booking(
            id=booking_id,
            title=f"Meeting {booking_id}",
            organizer=organizer,
            attendees=attendees,
            start=start,
            end=start + timedelta(minutes=30),
            timezone="America/New_York",
            **more,
        )
    )


@pytest.fixture
def seeded(moto_tables: Tables) -> Tables:
    book(moto_tables, "mine", JORDAN, JORDAN, "priya@example.com", start=TUESDAY_10)
    book(
        moto_tables,
        "invited",
        "mei@example.com",
        "mei@example.com",
        JORDAN,
        start=TUESDAY_10 + timedelta(hours=2),
    )
    book(
        moto_tables,
        "theirs",
        "mei@example.com",
        "mei@example.com",
        "priya@example.com",
        start=TUESDAY_10 + timedelta(hours=4),
    )
    book(moto_tables, "wednesday", JORDAN, JORDAN, start=TUESDAY_10 + timedelta(days=1))
    book(
        moto_tables,
        "weekly",
        "priya@example.com",
        "priya@example.com",
        JORDAN,
        start=TUESDAY_10 - timedelta(weeks=1, hours=1),  # Tuesdays at 9, from 1 Dec
        recurrence=Recurrence(frequency="weekly", weekdays=("TU",)),
    )
    return moto_tables


def test_tomorrows_agenda_is_the_callers_own_meetings_and_a_series_meeting_that_day(seeded: Tables) -> None:
    response = agenda(when="tomorrow", fromDay="2026-12-08")

    assert response["response"]["httpStatusCode"] == 200
    payload = response_body(response)
    assert payload["action"] == "show_agenda"
    assert (payload["fromDay"], payload["toDay"], payload["timezone"]) == (
        "2026-12-08",
        "2026-12-08",
        "America/New_York",
    )
    assert [(m["title"], m["start"], m["role"], m["recurring"]) for m in payload["meetings"]] == [
        ("Meeting weekly", "2026-12-08T09:00:00-05:00", "attendee", True),
        ("Meeting mine", "2026-12-08T10:00:00-05:00", "organizer", False),
        ("Meeting invited", "2026-12-08T12:00:00-05:00", "attendee", False),
    ]
    assert payload["meetings"][1]["withPeople"] == ["priya@example.com"]
    assert payload["meetings"][2]["withPeople"][0] == "mei@example.com"  # the organizer first
    assert "theirs" not in str(payload)  # another user's meeting never shows


def test_a_window_of_days_is_every_meeting_in_it(seeded: Tables) -> None:
    payload = response_body(agenda(when="this week", fromDay="2026-12-07", toDay="2026-12-11"))

    assert (payload["fromDay"], payload["toDay"]) == ("2026-12-07", "2026-12-11")
    assert [m["title"] for m in payload["meetings"]] == [
        "Meeting weekly",
        "Meeting mine",
        "Meeting invited",
        "Meeting wednesday",
    ]


def test_an_agenda_card_cannot_be_confirmed(seeded: Tables, review_aws: Tables) -> None:
    payload = response_body(agenda(when="tomorrow", fromDay="2026-12-08"))

    response = call("POST", payload["draftId"], "confirm", {})

    assert response["statusCode"] == 409
    body = response["body"]
    assert '"code":"read_only"' in body.replace(" ", "")
    assert "nothing to confirm" in body


# -- free time -------------------------------------------------------------------------------


def free_time(**properties: Any) -> dict[str, Any]:
    event = bedrock_action_event("free_time", "/free-times", "POST", properties, SESSION)
    response: dict[str, Any] = tool_handler("free_time")(event, LambdaContextStub())
    assert_bedrock_response(response)
    return response


def test_free_windows_with_priya_are_within_both_working_days_and_skip_a_series_meeting(
    moto_tables: Tables,
) -> None:
    # Given Jordan and Priya in a meeting at 10:00 New York on Tuesday, and Priya's weekly series at 11:00
    book(moto_tables, "sync", JORDAN, JORDAN, "priya@example.com", start=TUESDAY_10)
    book(
        moto_tables,
        "weekly",
        "mei@example.com",
        "mei@example.com",
        "priya@example.com",
        start=TUESDAY_10 - timedelta(weeks=1) + timedelta(hours=1),
        recurrence=Recurrence(frequency="weekly", weekdays=("TU",)),
    )

    response = free_time(people=["Priya"], when="on Tuesday", fromDay="2026-12-08")

    assert response["response"]["httpStatusCode"] == 200
    payload = response_body(response)
    assert payload["action"] == "show_free_times"
    # Priya's London day (09:00-17:00) ends at 12:00 in New York, where Jordan's starts at 09:00
    assert [(w["start"][11:16], w["end"][11:16]) for w in payload["windows"]] == [
        ("09:00", "10:00"),
        ("10:30", "11:00"),
        ("11:30", "12:00"),
    ]
    assert payload["people"][0]["status"] == "resolved"
