"""The move, cancel and answer action groups on real-shaped Bedrock events against moto DynamoDB.

Given the caller's bookings on the built-in calendar, when a Bedrock action-group event names one
as the user said it (the reference an object property, as JSON text like Bedrock's), then the
handler answers the card with the meeting found among the caller's own, from one read of their
calendar and one of everyone's busy times, and stores one draft; another user's booking is never
found; bad input is a clear error naming its field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.ports.calendar import Booking

from tests.support.bedrock_events import (
    LambdaContextStub,
    assert_bedrock_response,
    bedrock_action_event,
    response_body,
    tool_handler,
)
from tests.support.moto_tables import Tables

ME = "kinshuok@example.com"
SESSION = {
    "userId": "user-1",
    "timezone": "Europe/Berlin",
    "now": "2026-12-01T10:00:00+01:00",
    "userEmail": ME,
}
THURSDAY_9 = datetime(2026, 12, 3, 8, 0, tzinfo=UTC)  # 09:00 Berlin


@pytest.fixture
def calls(moto_tables: Tables) -> Iterator[Counter[str]]:
    counted: Counter[str] = Counter()
    calendar = DynamoCalendar(moto_tables.names["BOOKINGS_TABLE_NAME"], moto_tables.client)
    for booking_id, title, organizer, others, start in (
        ("sync", "Weekly sync", ME, ("priya@example.com",), THURSDAY_9),
        ("review", "Design review", "priya@example.com", (ME,), THURSDAY_9 + timedelta(hours=3)),
        (
            "theirs",
            "Private sync",
            "priya@example.com",
            ("zoe.park@example.com",),
            THURSDAY_9 + timedelta(hours=5),
        ),
    ):
        calendar.book(
            Booking(
                id=booking_id,
                title=title,
                organizer=organizer,
                attendees=(organizer, *others),
                start=start,
                end=start + timedelta(minutes=30),
                timezone="Europe/Berlin",
            )
        )
    boto3.setup_default_session(region_name="us-east-1")
    assert boto3.DEFAULT_SESSION is not None
    boto3.DEFAULT_SESSION.events.register(
        "before-call.dynamodb.*", lambda model, **_: counted.update([model.name])
    )
    yield counted
    boto3.DEFAULT_SESSION = None


def invoke(group: str, path: str, properties: dict[str, Any]) -> dict[str, Any]:
    event = bedrock_action_event(group, path, "POST", properties, SESSION)
    response: dict[str, Any] = tool_handler(group)(event, LambdaContextStub())
    assert_bedrock_response(response)
    return response


def test_a_move_event_finds_the_meeting_and_offers_the_shifted_time(calls: Counter[str]) -> None:
    response = invoke(
        "meeting_move",
        "/meeting-moves",
        {
            "meeting": {"said": "my sync with Priya", "people": ["Priya"], "words": ["sync"]},
            "shiftMinutes": 30,
        },
    )

    assert response["response"]["httpStatusCode"] == 200
    payload = response_body(response)
    assert payload["action"] == "show_meeting_move"
    assert payload["meeting"]["status"] == "found"
    assert payload["meeting"]["item"]["id"] == "sync"
    assert payload["slots"] == [{"start": "2026-12-03T09:30:00+01:00", "end": "2026-12-03T10:00:00+01:00"}]
    # the directory (Priya), the caller's days and bookings, everyone's busy times: four batch reads
    assert calls["BatchGetItem"] == 4
    assert calls["PutItem"] == 1


def test_a_cancel_event_of_another_users_meeting_finds_nothing(calls: Counter[str]) -> None:
    response = invoke(
        "meeting_cancel",
        "/meeting-cancellations",
        {"meeting": {"said": "the private sync", "words": ["private"]}},
    )

    payload = response_body(response)
    assert payload["meeting"] == {
        "query": "the private sync",
        "status": "none",
        "item": None,
        "candidates": [],
    }
    assert "Private sync" not in str(payload)


def test_an_answer_event_to_an_invitation_and_bad_input(calls: Counter[str]) -> None:
    answered = invoke(
        "invitation_answer",
        "/invitation-answers",
        {
            "meeting": {"said": "Priya's design review", "people": ["Priya"], "words": ["review"]},
            "response": "tentative",
            "message": "Maybe",
        },
    )
    refused = invoke(
        "invitation_answer", "/invitation-answers", {"meeting": {"said": "the review"}, "response": "perhaps"}
    )
    no_time = invoke("meeting_move", "/meeting-moves", {"meeting": {"said": "the sync"}})

    assert response_body(answered)["meeting"]["item"]["id"] == "review"
    assert (response_body(answered)["response"], response_body(answered)["message"]) == ("tentative", "Maybe")
    assert refused["response"]["httpStatusCode"] == 400
    assert response_body(refused)["error"]["field"] == "response"
    assert no_time["response"]["httpStatusCode"] == 400
    assert "say the new time" in response_body(no_time)["error"]["message"]
