"""GET /sessions/{id}: the orchestrator reads a session's conversation back for its owner (moto DynamoDB)."""

from __future__ import annotations

import pytest
from multitool.people import Person

from tests.support.chat_env import offline_chat_env
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body

COMBINED = "Email Kinshuok about the doc and schedule a sync for Thursday"
PEOPLE = [
    Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com", timezone="Asia/Kolkata"),
    Person(id="p2", display_name="Priya Natarajan", email="priya@example.com", timezone="Europe/Berlin"),
]


@pytest.fixture
def env(monkeypatch):
    with offline_chat_env(monkeypatch, PEOPLE) as environment:
        yield environment


def chat(body: dict, sub: str = "alice") -> dict:
    from functions.orchestrator.handler import handler

    response = handler(http_api_event("POST", "/chat", body, sub=sub), FakeLambdaContext())
    assert response["statusCode"] == 200, response
    return json_body(response)


def read_session(session_id: str, sub: str | None = "alice") -> dict:
    from functions.orchestrator.handler import handler

    event = http_api_event(
        "GET",
        f"/sessions/{session_id}",
        sub=sub,
        path_parameters={"id": session_id},
        route_key="GET /sessions/{id}",
    )
    return handler(event, FakeLambdaContext())


def test_the_owner_reads_back_every_exchange_with_its_cards_in_order(env) -> None:
    # Given two turns in one session: a question, then two cards
    first = chat({"message": "What can you do?"})
    session = first["sessionId"]
    second = chat({"message": COMBINED, "sessionId": session})

    # When the owner reads the session
    response = read_session(session)

    # Then it holds both exchanges, oldest first, each card by its id and the caption the reply gave it
    assert response["statusCode"] == 200
    assert response["headers"]["Cache-Control"] == "no-store"
    body = json_body(response)
    assert body["sessionId"] == session
    asked, combined = body["exchanges"]
    assert asked == {"message": "What can you do?", "reply": first["message"], "cards": []}
    assert combined["message"] == COMBINED
    assert combined["reply"] == second["message"]
    assert combined["cards"] == [
        {"id": card["id"], "caption": caption}
        for card, caption in zip(second["clientActions"], second["clientActionMessages"], strict=True)
    ]


def test_another_users_session_and_an_unknown_one_are_404_alike(env) -> None:
    session = chat({"message": COMBINED})["sessionId"]

    for response in (read_session(session, sub="mallory"), read_session("s-never-started")):
        assert response["statusCode"] == 404
        error = json_body(response)["error"]
        assert error == {"code": "not_found", "message": "No such session for this user."}
    # and reading it changed nothing for its owner
    assert len(json_body(read_session(session))["exchanges"]) == 1


def test_a_malformed_session_id_is_400_naming_it(env) -> None:
    response = read_session("a b!")

    assert response["statusCode"] == 400
    assert json_body(response)["error"]["field"] == "id"


def test_without_a_user_it_is_401(env) -> None:
    assert read_session("s-abc", sub=None)["statusCode"] == 401
