"""Through POST /chat with the offline model: too many intents, and asking again after a confirm."""

from __future__ import annotations

import pytest
from multitool.people import Person
from multitool.tools.base import MAX_CALLS_PER_BATCH

from tests.chat_env import offline_chat_env
from tests.http_events import FakeLambdaContext, http_api_event, json_body

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
