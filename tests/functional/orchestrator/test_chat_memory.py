"""Conversation memory through POST /chat: the handler, moto DynamoDB, the offline and Converse runtimes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from multitool.people import Person
from multitool.runtimes import AwsClients
from multitool.wiring.orchestrator import aws_chat_service

from tests.support.chat_env import offline_chat_env
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body

PEOPLE = [
    Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com", timezone="Asia/Kolkata"),
    Person(id="p2", display_name="Priya Natarajan", email="priya@example.com", timezone="Europe/Berlin"),
]


@pytest.fixture
def env(monkeypatch):
    with offline_chat_env(monkeypatch, PEOPLE) as environment:
        yield environment


def call(body: Any, sub: str = "user-1") -> dict[str, Any]:
    from functions.orchestrator.handler import handler

    return handler(http_api_event("POST", "/chat", body, sub=sub), FakeLambdaContext())


def stored_history(env, session_id: str) -> list[dict[str, Any]]:
    item = env["client"].get_item(
        TableName=env["tables"]["SESSIONS_TABLE_NAME"], Key={"sessionId": {"S": session_id}}
    )["Item"]
    history: list[dict[str, Any]] = json.loads(item["history"]["S"])
    return history


def test_a_follow_up_in_the_same_session_refers_to_the_earlier_ticket(env) -> None:
    # Given a first turn that drafted a Jira ticket
    first = json_body(call({"message": "File a Jira bug in WEB for the login crash"}))
    session = first["sessionId"]

    # When the user follows up in the same session
    second = json_body(call({"message": "Email Priya about it", "sessionId": session}))

    # Then "it" is the ticket, and the session holds both exchanges with their cards in words
    (email,) = second["clientActions"]
    assert email["subject"] == "Login crash"
    assert [r["person"]["email"] for r in email["to"]] == ["priya@example.com"]
    history = stored_history(env, session)
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    assert history[2]["content"] == [{"text": "Email Priya about it"}]
    ticket_id, email_id = first["clientActions"][0]["id"], email["id"]
    assert (
        f"[cards: {ticket_id} create_jira_ticket_draft: Jira Bug in WEB: Login crash]"
        in history[1]["content"][0]["text"]
    )
    assert (
        f"[cards: {email_id} create_email_draft: Draft email to Priya Natarajan: Login crash]"
        in history[3]["content"][0]["text"]
    )
    assert all(set(block) == {"text"} for m in history for block in m["content"])


def test_a_new_session_starts_without_memory(env) -> None:
    call({"message": "File a Jira bug in WEB for the login crash", "sessionId": "sess-a"})

    body = json_body(call({"message": "Email Priya about it", "sessionId": "sess-b"}))

    assert body["clientActions"][0]["subject"] == "About it"


def test_another_user_cannot_read_or_extend_the_conversation(env) -> None:
    call({"message": "File a Jira bug in WEB for the login crash", "sessionId": "sess-owned"}, sub="alice")

    stolen = call({"message": "Email Priya about it", "sessionId": "sess-owned"}, sub="mallory")

    assert stolen["statusCode"] == 403
    assert "login crash" not in stolen["body"].lower()
    assert len(stored_history(env, "sess-owned")) == 2


class RecordingBedrock:
    """A bedrock-runtime client stand-in: answers converse() in its response shape, keeps each request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def converse(self, **kwargs: Any) -> dict[str, Any]:
        self.requests.append(json.loads(json.dumps(kwargs)))
        return {
            "output": {
                "message": {"role": "assistant", "content": [{"text": f"Answer {len(self.requests)}."}]}
            },
            "stopReason": "end_turn",
            "usage": {"inputTokens": 10, "outputTokens": 3, "totalTokens": 13},
        }


def test_the_converse_runtime_sends_the_stored_conversation_before_the_new_message(env, monkeypatch) -> None:
    bedrock = RecordingBedrock()
    monkeypatch.setattr(AwsClients, "bedrock_runtime", property(lambda self: bedrock))
    monkeypatch.setenv("RUNTIME", "converse")
    monkeypatch.setenv("MODEL_ID", "anthropic.claude-3-5-sonnet-20240620-v1:0")
    aws_chat_service.cache_clear()

    call({"message": "Hello there", "sessionId": "sess-c"})
    call({"message": "And again", "sessionId": "sess-c"})

    first, second = bedrock.requests
    assert first["messages"] == [{"role": "user", "content": [{"text": "Hello there"}]}]
    assert second["messages"] == [
        {"role": "user", "content": [{"text": "Hello there"}]},
        {"role": "assistant", "content": [{"text": "Answer 1."}]},
        {"role": "user", "content": [{"text": "And again"}]},
    ]


def test_the_agent_runtime_stores_no_conversation(env, monkeypatch) -> None:
    class Agent:
        def invoke_agent(self, **kwargs: Any) -> dict[str, Any]:
            return {"completion": [{"chunk": {"bytes": b"Hello."}}]}

    monkeypatch.setattr(AwsClients, "bedrock_agent_runtime", property(lambda self: Agent()))
    monkeypatch.setenv("RUNTIME", "agent")
    monkeypatch.setenv("AGENT_ID", "AGENT12345")
    monkeypatch.setenv("AGENT_ALIAS_ID", "ALIAS12345")
    aws_chat_service.cache_clear()

    assert call({"message": "Hello there", "sessionId": "sess-agent"})["statusCode"] == 200

    item = env["client"].get_item(
        TableName=env["tables"]["SESSIONS_TABLE_NAME"], Key={"sessionId": {"S": "sess-agent"}}
    )["Item"]
    assert "history" not in item
    assert item["owner"]["S"] == "user-1"
