"""Editing a card by chat through POST /chat, then reviewing both cards through /actions.

The real orchestrator and review handlers run on moto DynamoDB and SES, with the offline
model behind the offline harness (``offline``, the AgentCore runtime's code) and run by the
Converse loop (``offline-converse``): each edit is a new card that replaces the earlier one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from multitool.people import Person
from multitool.wiring.review import aws_reviewer

from tests.support.chat_env import offline_chat_env
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body

SENDER = "assistant@example.com"
PEOPLE = [
    Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com", timezone="Asia/Kolkata"),
    Person(id="p2", display_name="Priya Natarajan", email="priya@example.com", timezone="Europe/London"),
    Person(id="p3", display_name="Zoe Park", email="zoe@example.com", timezone="Europe/Berlin"),
]


@pytest.fixture(params=["offline", "offline-converse"])
def env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    with offline_chat_env(monkeypatch, PEOPLE, runtime=request.param) as environment:
        boto3.client("sesv2").create_email_identity(EmailIdentity=SENDER)
        monkeypatch.setenv("SENDER_EMAIL", SENDER)
        monkeypatch.delenv("JIRA_SECRET_ARN", raising=False)
        aws_reviewer.cache_clear()
        yield environment
        aws_reviewer.cache_clear()


def chat(message: str, session: str | None = None, sub: str = "user-1") -> dict[str, Any]:
    from functions.orchestrator.handler import handler

    body: dict[str, Any] = {"message": message, **({"sessionId": session} if session else {})}
    response = handler(http_api_event("POST", "/chat", body, sub=sub), FakeLambdaContext())
    assert response["statusCode"] == 200, response["body"]
    answer: dict[str, Any] = json_body(response)
    return answer


def review(method: str, draft_id: str, verb: str = "", body: Any = None) -> dict[str, Any]:
    from functions.review.handler import handler

    path = f"/actions/{draft_id}" + (f"/{verb}" if verb else "")
    route = "/actions/{id}" + (f"/{verb}" if verb else "")
    event = http_api_event(
        method, path, body, sub="user-1", path_parameters={"id": draft_id}, route_key=f"{method} {route}"
    )
    response: dict[str, Any] = handler(event, FakeLambdaContext())
    return response


def only_card(answer: dict[str, Any]) -> dict[str, Any]:
    (card,) = answer["clientActions"]
    return card


def test_four_edits_by_chat_each_replace_the_card_before(env: dict[str, Any]) -> None:
    first = chat("Schedule a sync with Priya on Thursday")
    session = first["sessionId"]
    sync = only_card(first)
    assert sync["durationMinutes"] == 30

    longer = only_card(chat("make it 45 minutes", session))
    bigger = only_card(chat("add Kinshuok", session))
    moved = only_card(chat("move it to Friday", session))

    assert (longer["revises"], longer["durationMinutes"]) == (sync["id"], 45)
    assert bigger["revises"] == longer["id"]
    assert [a["person"]["email"] for a in bigger["attendees"]] == [
        "priya@example.com",
        "kinshuok@example.com",
    ]
    assert bigger["durationMinutes"] == 45
    assert moved["revises"] == bigger["id"]
    assert moved["requested"] == "Friday"
    assert {slot["start"][:10] for slot in moved["slots"]} != {slot["start"][:10] for slot in bigger["slots"]}
    assert len(moved["attendees"]) == 2

    mail = only_card(chat("email zoe about the offsite", session))
    renamed = chat("change the subject to Launch", session)
    subject = only_card(renamed)
    assert [r["person"]["email"] for r in mail["to"]] == ["zoe@example.com"]
    assert (subject["revises"], subject["subject"]) == (mail["id"], "Launch")
    assert "replaces the earlier card" in renamed["message"]


def test_a_replaced_card_is_shown_as_superseded_and_refused_with_409(env: dict[str, Any]) -> None:
    first = chat("Email Priya about the launch")
    earlier = only_card(first)
    revised = only_card(chat("change the subject to Launch day", first["sessionId"]))

    shown = json_body(review("GET", earlier["id"]))
    confirmed = review("POST", earlier["id"], "confirm", {})
    discarded = review("POST", earlier["id"], "discard")
    done = review("POST", revised["id"], "confirm", {})

    assert (shown["status"], shown["supersededBy"], shown["retryable"]) == (
        "superseded",
        revised["id"],
        False,
    )
    for refused in (confirmed, discarded):
        assert refused["statusCode"] == 409
        error = json_body(refused)["error"]
        assert error["code"] == "superseded"
        assert revised["id"] in error["message"]
    assert done["statusCode"] == 200
    assert json_body(done)["status"] == "done"


def test_an_edit_with_no_card_to_change_says_so(env: dict[str, Any]) -> None:
    answer = chat("make it 45 minutes")

    assert answer.get("clientActions", []) == []
    assert "no card in this conversation" in answer["message"]


def test_the_conversation_names_each_card_by_id_and_tool_for_the_model(env: dict[str, Any]) -> None:
    first = chat("Schedule a sync with Priya on Thursday")
    card = only_card(first)

    item = env["client"].get_item(
        TableName=env["tables"]["SESSIONS_TABLE_NAME"], Key={"sessionId": {"S": first["sessionId"]}}
    )["Item"]

    assert f"[cards: {card['id']} propose_meeting: " in item["history"]["S"]


def test_a_past_day_reaches_the_meeting_tool_as_written_and_its_refusal_is_shown(env: dict[str, Any]) -> None:
    answer = chat("schedule a meeting with Kinshuok yesterday")

    assert answer.get("clientActions", []) == []
    assert "'yesterday' is " in answer["message"]
    assert "which is in the past" in answer["message"]


def test_a_request_missing_a_day_is_asked_about_not_guessed(env: dict[str, Any]) -> None:
    answer = chat("Email zoe about the offsite and schedule a sync with Priya")

    (card,) = answer["clientActions"]
    assert [r["person"]["email"] for r in card["to"]] == ["zoe@example.com"]
    assert "For the meeting, tell me when to meet." in answer["message"]


def test_an_email_readdressed_and_copied_and_a_ticket_moved_retyped_and_lowered_by_chat(
    env: dict[str, Any],
) -> None:
    # Given an email card
    first = chat("Email Priya about the launch")
    session = first["sessionId"]
    mail = only_card(first)

    # When it is sent to someone else instead, then someone is copied in
    readdressed = only_card(chat("actually send it to Zoe instead", session))
    copied = only_card(chat("and cc Kinshuok on it", session))

    # Then each card replaces the one before, with the recipients asked for
    assert (readdressed["revises"], copied["revises"]) == (mail["id"], readdressed["id"])
    assert [r["person"]["email"] for r in readdressed["to"]] == ["zoe@example.com"]
    assert [r["person"]["email"] for r in copied["to"]] == ["zoe@example.com"]
    assert [r["person"]["email"] for r in copied["cc"]] == ["kinshuok@example.com"]
    assert copied["subject"] == mail["subject"] == "About the launch"

    # Given a ticket card in the same conversation
    ticket = only_card(chat("File a bug in WEB for the login crash", session))
    assert (ticket["project"], ticket["issueType"], ticket["priority"]) == ("WEB", "Bug", "Medium")

    # When its type, project and priority change by chat, one of them to a type Jira does not have
    refused = chat("actually make it an epic", session)
    moved = only_card(chat("put it in OPS instead", session))
    story = only_card(chat("actually make it a story", session))
    lowered = only_card(chat("lower the priority to low", session))

    # Then the refusal is said and changes nothing; each card is the one before with one change
    assert "clientActions" not in refused
    assert "no issue type 'Epic'" in refused["message"]
    assert (moved["revises"], moved["project"], moved["issueType"]) == (ticket["id"], "OPS", "Bug")
    assert (story["revises"], story["issueType"], story["project"]) == (moved["id"], "Story", "OPS")
    assert (lowered["revises"], lowered["priority"], lowered["issueType"]) == (story["id"], "Low", "Story")
    assert lowered["summary"] == ticket["summary"] == "Login crash"


def test_a_weekly_meeting_made_every_other_week_by_chat_keeps_its_day(env: dict[str, Any]) -> None:
    first = chat("Set up a weekly 1:1 with Priya every monday at 11am")
    session = first["sessionId"]
    weekly = only_card(first)
    assert weekly["repeat"]["weekdays"] == ["MO"]
    assert weekly["series"][0]["words"].startswith("Every Monday, 11:00")

    every_other = only_card(chat("actually make it every other week", session))

    assert every_other["revises"] == weekly["id"]
    assert (every_other["repeat"]["interval"], every_other["repeat"]["weekdays"]) == (2, ["MO"])
    assert every_other["series"][0]["words"].startswith("Every other Monday, 11:00")
    assert every_other["series"][0]["rule"] == "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO"
