"""The HTTP API's committed OpenAPI document: no drift from the code, valid 3.1, every route described."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from multitool.api.openapi import DOCUMENT, render
from multitool.local.sandbox.api_gateway import API_ROUTES
from openapi_spec_validator import validate

from tests.functional.orchestrator.test_chat_api import COMBINED, PEOPLE, call
from tests.support.chat_env import offline_chat_env
from tests.support.http_events import ROUTE_KEYS, json_body


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    return loaded


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


def test_committed_document_matches_the_code() -> None:
    assert DOCUMENT.read_text(encoding="utf-8") == render(), (
        "docs/openapi.json is stale: run `make openapi` and commit it"
    )


def test_document_is_valid_openapi_3_1(document) -> None:
    validate(document)
    assert document["openapi"].startswith("3.1")


def test_document_has_exactly_the_deployed_routes(document) -> None:
    assert {f"{m} {p}" for m, p, _ in operations(document)} == ROUTE_KEYS
    assert {route.route_key for route in API_ROUTES} == ROUTE_KEYS  # the local gateway serves the same


def test_every_route_needs_a_jwt_and_declares_401_and_its_error_bodies(document) -> None:
    assert document["components"]["securitySchemes"]["jwt"] == {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
    }
    assert document["security"] == [{"jwt": []}]
    for _method, _path, operation in operations(document):
        assert "security" not in operation  # none opts out of the document's JWT requirement
        assert operation["description"]
        assert operation["summary"]
        assert operation["operationId"]
        for status, answer in operation["responses"].items():
            assert list(answer["content"]) == ["application/json"], status
        assert {"200", "401", "500"} <= set(operation["responses"])


def test_chat_declares_its_body_idempotency_key_and_retry_after(document) -> None:
    chat = document["paths"]["/chat"]["post"]

    assert chat["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ChatRequest"
    }
    assert [p["name"] for p in chat["parameters"]] == ["Idempotency-Key", "Prefer"]
    for status in ("409", "429", "503"):
        assert chat["responses"][status]["headers"]["Retry-After"]["required"] is True
    assert set(chat["responses"]) == {
        *("200", "202", "400", "401", "403", "409", "413", "422", "429", "500", "502", "503"),
    }


def test_a_started_turn_links_to_get_turn_whose_events_are_told_apart_by_type(document) -> None:
    started = document["paths"]["/chat"]["post"]["responses"]["202"]
    assert started["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/TurnStarted"}
    assert set(started["headers"]) == {"Location", "Preference-Applied"}
    assert started["links"]["GetTurn"]["parameters"] == {"id": "$response.body#/turnId"}
    get_turn = document["paths"]["/turns/{id}"]["get"]
    assert [(p["in"], p["name"]) for p in get_turn["parameters"]] == [("path", "id"), ("query", "after")]
    assert set(get_turn["responses"]) == {"200", "400", "401", "404", "413", "500", "503"}
    items = document["components"]["schemas"]["TurnView"]["properties"]["events"]["items"]
    assert set(items["discriminator"]["mapping"]) == {"card", "text", "done", "failed"}
    for ref in items["discriminator"]["mapping"].values():
        event = document["components"]["schemas"][ref.rsplit("/", 1)[1]]
        assert "type" in event["required"]
    card = document["components"]["schemas"]["CardEvent"]["properties"]["card"]
    assert card["$ref"] == "#/components/schemas/ClientAction"


def test_a_confirm_body_is_one_of_the_tools_edits(document) -> None:
    confirm = document["paths"]["/actions/{id}/confirm"]["post"]
    options = confirm["requestBody"]["content"]["application/json"]["schema"]["anyOf"]

    assert {o["$ref"].rsplit("/", 1)[1] for o in options} == {
        "EmailEdits",
        "MeetingEdits",
        "JiraEdits",
        "MoveEdits",
        "CancelEdits",
        "AnswerEdits",
        "CommentEdits",
        "TransitionEdits",
        "UpdateEdits",
        "LinkEdits",
        "ReplyEdits",
        "ForwardEdits",
    }
    assert "Retry-After" in confirm["responses"]["503"]["headers"]
    # a quota or a user's own rate refuses it with the time to wait
    assert confirm["responses"]["429"]["headers"]["Retry-After"]["required"] is True


def _validator(document: dict[str, Any], schema: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator({**schema, "components": document["components"]})


@pytest.fixture
def env(monkeypatch):
    with offline_chat_env(monkeypatch, PEOPLE) as environment:
        yield environment


def test_a_real_reply_and_a_real_error_match_the_document(env, document) -> None:
    responses = document["paths"]["/chat"]["post"]["responses"]
    reply = call({"message": COMBINED})
    refused = call({"message": "hi", "colour": "blue"})

    assert reply["statusCode"] == 200
    schema = {status: responses[status]["content"]["application/json"]["schema"] for status in ("200", "400")}
    _validator(document, schema["200"]).validate(json_body(reply))
    assert refused["statusCode"] == 400
    _validator(document, schema["400"]).validate(json_body(refused))
    # A card of the wrong type fails: the cards are the registry's, not any object.
    card = {**json_body(reply)["clientActions"][0], "type": "show_nothing"}
    assert not _validator(document, {"$ref": "#/components/schemas/ClientAction"}).is_valid(card)
