"""POST /chat: the orchestrator handler on API Gateway v2 events, over moto DynamoDB and the real tools."""

from __future__ import annotations

import json
from datetime import datetime

import boto3
import pytest
from botocore.stub import Stubber
from multitool.people import Person
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.ports.calendar import Booking
from multitool.runtimes import AwsClients
from multitool.wiring.orchestrator import aws_chat_service

from tests.support.chat_env import offline_chat_env
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body

COMBINED = "Email Kinshuok about the doc and schedule a sync for Thursday"
PEOPLE = [
    Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com", timezone="Asia/Kolkata"),
    Person(id="p2", display_name="Priya Natarajan", email="priya@example.com", timezone="Europe/Berlin"),
    Person(id="p3", display_name="Priya Kapoor", email="priya.kapoor@example.com"),
]


@pytest.fixture
def env(monkeypatch):
    """Tables in moto, the directory seeded, the offline runtime selected; the service rebuilt per test."""
    with offline_chat_env(monkeypatch, PEOPLE) as environment:
        yield environment


def call(body, sub: str | None = "user-1", **kwargs) -> dict:
    from functions.orchestrator.handler import handler

    return handler(http_api_event("POST", "/chat", body, sub=sub, **kwargs), FakeLambdaContext())


def test_combined_message_gives_an_email_card_and_a_meeting_card(env) -> None:
    response = call({"message": COMBINED})

    assert response["statusCode"] == 200
    body = json_body(response)
    assert list(body) == ["message", "clientAction", "clientActions", "clientActionMessages", "sessionId"]
    email, meeting = body["clientActions"]
    assert email["type"] == "show_new_email_draft"
    assert email["to"][0]["person"]["email"] == "kinshuok@example.com"
    assert email["subject"] == "About the doc"
    assert meeting["type"] == "show_meeting_scheduler"
    assert meeting["title"] == "Sync"
    assert meeting["requested"] == "Thursday"
    assert 1 <= len(meeting["slots"]) <= 3
    assert body["clientAction"] == meeting
    assert body["clientActionMessages"][0] == "Draft email to Kinshuok Sharma: About the doc"
    assert body["clientActionMessages"][1].startswith("Meeting 'Sync' with Kinshuok Sharma: ")
    assert "{" not in body["message"]
    # Each card is a stored draft owned by the caller, in the caller's session.
    for card in body["clientActions"]:
        item = env["client"].get_item(
            TableName=env["tables"]["DRAFTS_TABLE_NAME"], Key={"id": {"S": card["id"]}}
        )
        assert item["Item"]["owner"]["S"] == "user-1"
        assert item["Item"]["sessionId"]["S"] == body["sessionId"]
        assert item["Item"]["status"]["S"] == "proposed"


def test_jira_and_email_about_it_with_an_ambiguous_name(env) -> None:
    body = json_body(call({"message": "File a Jira bug in WEB for the login crash and email Priya about it"}))

    ticket, email = body["clientActions"]
    assert (ticket["project"], ticket["issueType"], ticket["summary"]) == ("WEB", "Bug", "Login crash")
    assert email["to"][0]["status"] == "ambiguous"
    assert len(email["to"][0]["candidates"]) == 2
    assert body["clientActionMessages"] == [
        "Jira Bug in WEB: Login crash",
        "Draft email to Priya: Login crash (Priya matches 2 people: pick one)",
    ]


@pytest.mark.parametrize("runtime", ["offline", "offline-converse"], ids=["harness", "converse"])
def test_a_linked_turn_carries_the_mails_links_to_the_ticket_through_either_runtime(
    monkeypatch, runtime
) -> None:
    with offline_chat_env(monkeypatch, PEOPLE, runtime):
        body = json_body(call({"message": "File a WEB bug for the login crash and email Kinshuok about it"}))

    ticket, email = body["clientActions"]
    assert "{{ticket.key}}" in email["body"]
    assert {(link["placeholder"], link["waitsFor"]) for link in email["links"]} == {
        ("{{ticket.key}}", ticket["id"]),
        ("{{ticket.url}}", ticket["id"]),
    }
    assert {link["preview"] for link in email["links"]} == {"WEB-?", "(link to WEB-?)"}
    assert ticket["links"] == []


def test_a_message_without_actions_answers_with_message_and_session_only(env) -> None:
    body = json_body(call({"message": "What can you do?"}))

    assert set(body) == {"message", "sessionId"}
    assert "draft emails" in body["message"]


def test_the_session_continues_for_its_owner_and_is_refused_to_others(env) -> None:
    first = json_body(call({"message": "What can you do?"}, sub="alice"))
    session = first["sessionId"]

    again = call({"message": COMBINED, "sessionId": session}, sub="alice")
    stolen = call({"message": COMBINED, "sessionId": session}, sub="mallory")

    assert again["statusCode"] == 200
    assert json_body(again)["sessionId"] == session
    assert stolen["statusCode"] == 403
    assert json_body(stolen)["error"]["code"] == "session_not_owned"


def test_the_same_message_in_the_same_session_lands_on_the_same_drafts(env) -> None:
    first = json_body(call({"message": COMBINED, "sessionId": "sess-retry"}))
    second = json_body(call({"message": COMBINED, "sessionId": "sess-retry"}))

    assert [c["id"] for c in first["clientActions"]] == [c["id"] for c in second["clientActions"]]


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({}, "message", "message: is missing"),
        ({"message": ""}, "message", "message: must not be empty"),
        ({"message": "   "}, "message", "message: must not be empty"),
        ({"message": 5}, "message", "message: Input should be a valid string"),
        ({"message": ["hi"]}, "message", "message: Input should be a valid string"),
        ({"message": "hi", "sessionId": 7}, "sessionId", "sessionId: Input should be a valid string"),
        ({"message": "hi", "sessionId": "bad id with spaces"}, "sessionId", "sessionId: must be"),
        ({"message": "hi", "timezone": "Mars/Olympus"}, "timezone", "timezone: must be an IANA time zone"),
        ({"message": "hi", "timezone": "Europe"}, "timezone", "IANA time zone"),
        ({"message": "hi", "timezone": "A" * 300}, "timezone", "IANA time zone"),
        ({"message": "hi", "colour": "blue"}, "colour", "colour: Extra inputs are not permitted"),
        ({"message": "x" * 4001}, "message", "the limit is 4000"),
        ('{"message": "unterminated', "body", "body: must be valid JSON"),
        ("", "body", "body: must be valid JSON"),
        ("[1, 2]", "body", "body: must be a JSON object"),
        ('"just a string"', "body", "body: must be a JSON object"),
        (b"\xff\xfe not utf-8", "body", "valid JSON"),
    ],
)
def test_bad_requests_get_400_naming_the_field_as_every_api_does(env, body, field: str, words: str) -> None:
    response = call(body)

    assert response["statusCode"] == 400
    error = json_body(response)["error"]
    assert error["code"] == "bad_request"
    assert words in error["message"]
    assert error["field"] == field
    assert "Traceback" not in response["body"]
    assert "ChatRequest" not in response["body"]


def test_a_bad_idempotency_key_names_the_header(env) -> None:
    response = call({"message": COMBINED}, headers={"Idempotency-Key": "has spaces in it"})

    assert response["statusCode"] == 400
    error = json_body(response)["error"]
    assert error["field"] == "Idempotency-Key"
    assert error["message"].startswith("Idempotency-Key: must be 1-128 visible ASCII characters")


def test_a_request_without_a_user_is_401(env) -> None:
    response = call({"message": COMBINED}, sub=None)

    assert response["statusCode"] == 401
    assert json_body(response)["error"]["code"] == "unauthenticated"


def test_unknown_route_is_404_json(env) -> None:
    from functions.orchestrator.handler import handler

    response = handler(http_api_event("GET", "/nope", None), FakeLambdaContext())

    assert response["statusCode"] == 404
    assert json_body(response)["error"]["code"] == "not_found"


def stub_converse(monkeypatch, code: str, status: int) -> Stubber:
    """A real bedrock-runtime client whose converse() answers with a Bedrock error."""
    client = boto3.client("bedrock-runtime", region_name="us-east-1")
    stubber = Stubber(client)
    stubber.add_client_error(
        "converse", service_error_code=code, service_message="details", http_status_code=status
    )
    stubber.activate()
    monkeypatch.setattr(AwsClients, "bedrock_runtime", property(lambda self: client))
    monkeypatch.setenv("RUNTIME", "converse")
    monkeypatch.setenv("MODEL_ID", "anthropic.claude-3-5-sonnet-20240620-v1:0")
    aws_chat_service.cache_clear()
    return stubber


def test_bedrock_throttling_is_503_with_retry_after(env, monkeypatch) -> None:
    stub_converse(monkeypatch, "ThrottlingException", 429)

    response = call({"message": COMBINED})

    assert response["statusCode"] == 503
    assert int(response["headers"]["Retry-After"]) >= 1
    error = json_body(response)["error"]
    assert error["code"] == "model_busy"
    assert "Retry" in error["message"]
    assert "details" not in response["body"]


def test_bedrock_failure_is_502(env, monkeypatch) -> None:
    stub_converse(monkeypatch, "ValidationException", 400)

    response = call({"message": COMBINED})

    assert response["statusCode"] == 502
    assert json_body(response)["error"]["code"] == "model_failed"


def test_agent_runtime_without_its_ids_is_a_clear_500(env, monkeypatch) -> None:
    monkeypatch.setenv("RUNTIME", "agent")
    aws_chat_service.cache_clear()

    response = call({"message": COMBINED})

    assert response["statusCode"] == 500
    assert json_body(response)["error"]["code"] == "not_configured"


def test_response_body_is_json_with_camel_case_cards(env) -> None:
    response = call({"message": "Schedule a 45 minute review with Priya and Kinshuok next Tuesday"})

    assert response["headers"]["Content-Type"].startswith("application/json")
    card = json.loads(response["body"])["clientActions"][0]
    assert card["durationMinutes"] == 45
    assert [a["query"] for a in card["attendees"]] == ["Priya", "Kinshuok"]


def test_a_token_zoneinfo_that_is_no_time_zone_is_ignored_not_blamed_on_the_request(env) -> None:
    # Cognito's zoneinfo is free text the user edits; the request itself names no time zone.
    response = call({"message": "Email Kinshuok about the doc"}, claims={"zoneinfo": "Central European"})

    assert response["statusCode"] == 200
    assert json_body(response)["clientActions"][0]["type"] == "show_new_email_draft"


def test_a_token_zoneinfo_that_is_a_time_zone_is_the_users(env) -> None:
    response = call(
        {"message": "Schedule a sync with Kinshuok for Thursday"}, claims={"zoneinfo": "Asia/Tokyo"}
    )

    assert response["statusCode"] == 200
    assert json_body(response)["clientActions"][0]["timezone"] == "Asia/Tokyo"


def test_the_callers_own_bookings_count_as_busy_when_the_token_verifies_their_address(env) -> None:
    message = {"message": "Schedule a sync with Kinshuok for Thursday"}
    verified = {"email": "me@example.com", "email_verified": "true"}
    first = json_body(call(message, claims=verified))["clientActions"][0]["slots"][0]
    start, end = datetime.fromisoformat(first["start"]), datetime.fromisoformat(first["end"])
    calendar = DynamoCalendar(env["tables"]["BOOKINGS_TABLE_NAME"], env["client"])
    calendar.book(
        Booking(
            id="b-mine",
            title="1:1",
            organizer="me@example.com",
            attendees=("ME@example.com",),
            start=start,
            end=end,
        )
    )

    slots = json_body(call(message, claims=verified))["clientActions"][0]["slots"]
    unverified = json_body(call(message, claims={**verified, "email_verified": "false"}))["clientActions"][0]

    assert slots
    assert all(
        datetime.fromisoformat(s["end"]) <= start or datetime.fromisoformat(s["start"]) >= end for s in slots
    )
    # An unverified address is whatever the user typed: it never reads anyone's calendar.
    assert unverified["slots"][0] == first


def test_null_bytes_and_controls_in_a_message_are_removed_before_the_turn(env) -> None:
    response = call({"message": "Email Kinshuok\u0000 about the doc\x1b[2J\x07"})

    assert response["statusCode"] == 200
    [card] = json_body(response)["clientActions"]
    assert card["to"][0]["person"]["email"] == "kinshuok@example.com"
    assert card["subject"] == "About the doc"


def test_a_message_of_only_controls_is_the_empty_message_error(env) -> None:
    cleaned, empty = call({"message": "\u0000\x07\r\n"}), call({"message": ""})

    assert cleaned["statusCode"] == empty["statusCode"] == 400
    assert json_body(cleaned)["error"] == json_body(empty)["error"]
