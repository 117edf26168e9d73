"""Messages the offline model and the tools once read wrong without a word, through POST /chat.

The real orchestrator runs on moto with the offline model (behind the harness and under the
Converse loop), its clock pinned: each case is the card (or the answer) the user sees.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from multitool.people import Person
from multitool.wiring.orchestrator import aws_chat_service

from tests.support.chat_env import offline_chat_env
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body

NOW = datetime.fromisoformat("2026-12-07T15:00:00+00:00")
"""A Monday: 10:00 in New York, 15:00 in London."""
PEOPLE = [
    Person(id="mei", display_name="Mei Tanaka", email="mei@example.com", timezone="America/New_York"),
    Person(id="priya", display_name="Priya Natarajan", email="priya@example.com", timezone="Europe/London"),
    Person(id="jordan", display_name="Jordan Lee", email="jordan@example.com", timezone="America/New_York"),
]


@pytest.fixture(params=["offline", "offline-converse"])
def env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    with offline_chat_env(monkeypatch, PEOPLE, runtime=request.param) as environment:
        aws_chat_service().clock = lambda: NOW
        yield environment


def chat(
    message: str, timezone: str, session: str | None = None, claims: dict[str, Any] | None = None
) -> dict[str, Any]:
    from functions.orchestrator.handler import handler

    body: dict[str, Any] = {
        "message": message,
        "timezone": timezone,
        **({"sessionId": session} if session else {}),
    }
    event = http_api_event("POST", "/chat", body, sub="user-1", claims=claims)
    response = handler(event, FakeLambdaContext())
    assert response["statusCode"] == 200, response["body"]
    answer: dict[str, Any] = json_body(response)
    return answer


def only_card(answer: dict[str, Any]) -> dict[str, Any]:
    (card,) = answer["clientActions"]
    return card


def test_tonight_at_8_is_proposed_at_20_00(env: dict[str, Any]) -> None:
    card = only_card(chat("sync with Mei tonight at 8", "America/New_York"))
    assert card["slots"][0]["start"] == "2026-12-07T20:00:00-05:00"


def test_tonight_at_9_at_3pm_in_london_is_not_refused_as_past(env: dict[str, Any]) -> None:
    answer = chat("meet jordan tonight at 9", "Europe/London")
    assert "passed" not in answer["message"]
    assert only_card(answer)["slots"][0]["start"] == "2026-12-07T21:00:00Z"


@pytest.mark.parametrize(
    ("message", "said"),
    [
        (
            "schedule a sync with Priya Thursday at 25:00",
            "'25:00' in 'Thursday at 25:00' is not a time of day",
        ),
        ("meet Priya on Feb 30", "'Feb 30' is not a day of the calendar: February 2027 has 28 days"),
        ("meet Priya on Feb 30 at 3pm", "'Feb 30' is not a day of the calendar: February 2027 has 28 days"),
    ],
)
def test_an_impossible_time_is_answered_naming_what_is_impossible(
    env: dict[str, Any], message: str, said: str
) -> None:
    answer = chat(message, "America/New_York")
    assert not answer.get("clientActions")
    assert said in answer["message"]
    assert "2026-12-03" not in answer["message"]
    assert "Pass times" not in answer["message"]


def test_an_address_given_for_a_named_person_is_the_one_recipient(env: dict[str, Any]) -> None:
    card = only_card(chat("Send an email to Priya at priya@gmail.com about the trip", "Europe/London"))
    assert [r["person"]["email"] for r in card["to"]] == ["priya@gmail.com"]
    assert card["body"].startswith("Hi Priya,")


def test_a_ticket_summary_holds_no_sign_off_and_is_not_cut_mid_phrase(env: dict[str, Any]) -> None:
    slow = only_card(chat("make a jira in OPS for the vpn being slow thanks", "Europe/London"))
    signup = chat(
        "file a bug in OPS: the signup form rejects emails with a plus sign, high priority", "Europe/London"
    )
    assert slow["summary"] == "Vpn being slow"
    assert only_card(signup)["summary"] == "Signup form rejects emails with a plus sign"
    assert only_card(signup)["priority"] == "High"
    assert "did not understand" not in signup["message"]


def test_moving_a_meeting_to_another_day_keeps_the_hours_asked_for(env: dict[str, Any]) -> None:
    first = chat("schedule a sync with Priya tomorrow afternoon", "Europe/London")
    moved = only_card(chat("move it to Wednesday", "Europe/London", first["sessionId"]))
    assert moved["revises"] == only_card(first)["id"]
    assert moved["requested"] == "Wednesday afternoon"
    assert {slot["start"][:10] for slot in moved["slots"]} == {"2026-12-09"}
    assert all("13:00" <= slot["start"][11:16] < "17:00" for slot in moved["slots"])
    assert not any(note.startswith("No time was asked for") for note in moved["notes"])


def test_moving_a_meeting_to_another_day_and_time_takes_the_new_time(env: dict[str, Any]) -> None:
    first = chat("schedule a sync with Priya tomorrow afternoon", "Europe/London")
    moved = only_card(chat("move it to Wednesday at 10am", "Europe/London", first["sessionId"]))
    assert moved["slots"][0]["start"] == "2026-12-09T10:00:00Z"


@pytest.mark.parametrize(
    ("timezone", "claims", "start", "note"),
    [
        # Priya in London, no locale said: day/month, as her zone's country writes dates
        (
            "Europe/London",
            None,
            "2027-10-12T10:00:00+01:00",
            "as dates are written in GB, the country of your",
        ),
        # Jordan in New York: month/day
        (
            "America/New_York",
            None,
            "2026-12-10T10:00:00-05:00",
            "as dates are written in US, the country of your",
        ),
        # the sign-in's locale over the zone's country
        (
            "America/New_York",
            {"locale": "en-GB"},
            "2027-10-12T10:00:00-04:00",
            "as dates are written in en-GB",
        ),
        # neither says: month/day, and the card says the order is not known
        ("UTC", None, "2026-12-10T10:00:00Z", "which comes first in your dates is not known"),
    ],
)
def test_a_numeric_date_is_read_in_the_users_order_and_the_card_says_how(
    env: dict[str, Any], timezone: str, claims: dict[str, Any] | None, start: str, note: str
) -> None:
    card = only_card(chat("meeting with Mei on 12/10 at 10am", timezone, claims=claims))
    assert card["slots"][0]["start"] == start
    assert any(note in each and "'12/10' read as" in each for each in card["notes"]), card["notes"]
