"""Through POST /chat with the offline model: too many intents, and asking again after a confirm."""

from __future__ import annotations

from datetime import datetime

import pytest
from multitool.people import Person
from multitool.toolkit.context import MAX_CALLS_PER_BATCH

from tests.support.chat_env import offline_chat_env
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body

PEOPLE = [Person(id="p1", display_name="Mei Chen", email="mei@example.com", timezone="Asia/Shanghai")]


@pytest.fixture
def env(monkeypatch):
    with offline_chat_env(monkeypatch, PEOPLE) as environment:
        yield environment


def chat(body, sub: str = "user-1") -> dict:
    from functions.orchestrator.handler import handler

    response = handler(http_api_event("POST", "/chat", body, sub=sub), FakeLambdaContext())
    assert response["statusCode"] == 200, response["body"]
    return json_body(response)


def test_thirty_intents_make_the_first_drafts_the_limit_allows_and_say_the_limit_once(env) -> None:
    clauses = [f"email Mei about topic {i}" for i in range(1, 31)]
    message = "E" + " and ".join(clauses)[1:]

    body = chat({"message": message})

    cards = body["clientActions"]
    assert len(cards) == MAX_CALLS_PER_BATCH
    assert [c["subject"] for c in cards] == [f"About topic {i}" for i in range(1, MAX_CALLS_PER_BATCH + 1)]
    assert body["message"].count(f"At most {MAX_CALLS_PER_BATCH} tool calls") == 1
    assert "26 to 30" in body["message"]
    assert "not run" in body["message"]


SENDER = "assistant@example.com"
LAUNCH = "Email Mei about the launch"


def review(method: str, draft_id: str, verb: str = "", body=None) -> dict:
    from functions.review.handler import handler

    path = f"/actions/{draft_id}" + (f"/{verb}" if verb else "")
    route = "/actions/{id}" + (f"/{verb}" if verb else "")
    event = http_api_event(
        method, path, body, sub="user-1", path_parameters={"id": draft_id}, route_key=f"{method} {route}"
    )
    response = handler(event, FakeLambdaContext())
    return {"http": response["statusCode"], **json_body(response)}


@pytest.fixture
def mail(env, monkeypatch):
    import boto3
    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.ses.models import ses_backends
    from multitool.wiring.review import aws_reviewer

    sesv2 = boto3.client("sesv2")
    sesv2.create_email_identity(EmailIdentity=SENDER)
    monkeypatch.setenv("SENDER_EMAIL", SENDER)
    monkeypatch.delenv("JIRA_SECRET_ARN", raising=False)
    monkeypatch.delenv("SANDBOX", raising=False)
    aws_reviewer.cache_clear()
    yield lambda: list(ses_backends[DEFAULT_ACCOUNT_ID][sesv2.meta.region_name].sent_messages)
    aws_reviewer.cache_clear()


def test_asking_again_after_a_confirm_proposes_a_fresh_draft_and_retries_land_on_it(env, mail) -> None:
    # Given an email the user asked for and confirmed
    (first,) = chat({"message": LAUNCH, "sessionId": "s-launch"})["clientActions"]
    confirmed = review("POST", first["id"], "confirm", {})
    assert (confirmed["http"], confirmed["status"]) == (200, "done")
    assert len(mail()) == 1

    # When the same message comes again in the same session, and once more (a retry)
    (again,) = chat({"message": LAUNCH, "sessionId": "s-launch"})["clientActions"]
    (retried,) = chat({"message": LAUNCH, "sessionId": "s-launch"})["clientActions"]

    # Then it is a new proposal the user confirms on its own; the sent one stays done
    assert again["id"] != first["id"]
    assert retried["id"] == again["id"]
    fresh = review("GET", again["id"])
    assert (fresh["http"], fresh["status"], fresh["retryable"]) == (200, "proposed", True)
    old = review("GET", first["id"])
    assert (old["status"], old["result"]) == ("done", confirmed["result"])
    assert len(mail()) == 1  # asking again sent nothing
    second = review("POST", again["id"], "confirm", {})
    assert (second["status"], len(mail())) == ("done", 2)
    assert second["result"]["messageId"] != confirmed["result"]["messageId"]


def test_a_part_of_the_day_in_the_message_narrows_the_meeting_slots(env) -> None:
    # Given a user in Mei's zone who asks for a meeting on a weekday morning
    body = chat({"message": "Schedule a sync with Mei on Thursday morning", "timezone": "Asia/Shanghai"})

    # Then the stand-in passes the part of the day on, and every slot lies in the morning hours
    (meeting,) = body["clientActions"]
    assert meeting["requested"] == "Thursday morning"
    hours = [datetime.fromisoformat(slot["start"]).hour for slot in meeting["slots"]]
    assert hours
    assert all(9 <= hour < 12 for hour in hours)
    # And the window the model resolved the morning to is on the card (the time contract's values)
    (window,) = meeting["times"]
    assert window.endswith("T09:00/12:00")
