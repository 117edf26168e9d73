"""POST /chat with an Idempotency-Key: a retry replays the first response, over moto DynamoDB.

The offline model is wrapped to count its calls, so "the model ran once" is
observed, not assumed; the drafts and sessions tables show nothing was written
twice.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from multitool.people import Person
from multitool.runtimes import OfflineModel
from multitool.wiring.orchestrator import aws_chat_service

from tests.support.chat_env import offline_chat_env
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body

COMBINED = "Email Kinshuok about the doc and schedule a sync for Thursday"
PEOPLE = [
    Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com", timezone="Asia/Kolkata"),
    Person(id="p2", display_name="Priya Natarajan", email="priya@example.com", timezone="Europe/Berlin"),
]


@pytest.fixture
def env(monkeypatch):
    """Tables in moto (idempotency included), the offline runtime counting its model calls."""
    model_calls: list[str] = []
    original = OfflineModel.converse

    def counting(self: OfflineModel, **kwargs: Any) -> dict[str, Any]:
        last = kwargs["messages"][-1]["content"]
        model_calls.append("text" if any("text" in block for block in last) else "results")
        return original(self, **kwargs)

    monkeypatch.setattr(OfflineModel, "converse", counting)
    with offline_chat_env(monkeypatch, PEOPLE) as environment:
        yield {**environment, "model_calls": model_calls}


def call(body: Any, key: str | None = None, sub: str = "user-1") -> dict[str, Any]:
    from functions.orchestrator.handler import handler

    headers = {"Idempotency-Key": key} if key is not None else None
    return handler(http_api_event("POST", "/chat", body, sub=sub, headers=headers), FakeLambdaContext())


def user_turns(env) -> int:
    """Model runs started by a user message (not the follow-up call with tool results)."""
    return env["model_calls"].count("text")


def count(env, table: str) -> int:
    return env["client"].scan(TableName=env["tables"][table], Select="COUNT")["Count"]


def test_a_retry_with_the_same_key_replays_the_first_response_without_running_the_model(env) -> None:
    # Given a first request that produced two cards
    first = call({"message": COMBINED}, key="retry-1")
    assert first["statusCode"] == 200
    assert user_turns(env) == 1
    drafts = count(env, "DRAFTS_TABLE_NAME")

    # When the client retries it, byte for byte
    second = call({"message": COMBINED}, key="retry-1")

    # Then the stored response comes back (same session, same cards) and nothing ran again
    assert second["statusCode"] == 200
    assert json_body(second) == json_body(first)
    assert len(json_body(second)["clientActions"]) == 2
    assert user_turns(env) == 1
    assert count(env, "DRAFTS_TABLE_NAME") == drafts
    session = env["client"].get_item(
        TableName=env["tables"]["SESSIONS_TABLE_NAME"],
        Key={"sessionId": {"S": json_body(first)["sessionId"]}},
    )["Item"]
    assert session["turns"]["N"] == "1"


def test_the_replay_is_the_first_answer_byte_for_byte(env) -> None:
    # Given a first answer with cards (nested objects whose keys are not in sorted order)
    first = call({"message": COMBINED}, key="bytes-1")
    assert list(json_body(first)) == [
        "message",
        "clientAction",
        "clientActions",
        "clientActionMessages",
        "sessionId",
    ]

    # When the client retries with the same key and body
    second = call({"message": COMBINED}, key="bytes-1")

    # Then the body is the same bytes, not the same JSON re-serialized with other key order
    assert second["statusCode"] == first["statusCode"] == 200
    assert second["body"].encode() == first["body"].encode()
    assert second["headers"]["Content-Type"] == first["headers"]["Content-Type"] == "application/json"
    assert user_turns(env) == 1


def test_the_replay_ignores_json_formatting_of_the_same_body(env) -> None:
    first = call({"message": COMBINED, "timezone": "Europe/Berlin"}, key="fmt-1")
    second = call(f'{{ "timezone": "Europe/Berlin",   "message": "{COMBINED}" }}', key="fmt-1")

    assert json_body(second) == json_body(first)
    assert user_turns(env) == 1


def test_the_same_key_with_a_different_body_is_422_and_runs_nothing(env) -> None:
    call({"message": COMBINED}, key="reused")

    response = call({"message": "File a Jira bug in WEB for the login crash"}, key="reused")

    assert response["statusCode"] == 422
    error = json_body(response)["error"]
    assert error["code"] == "idempotency_key_reused"
    assert "different request body" in error["message"]
    assert "login crash" not in response["body"]
    assert user_turns(env) == 1


def test_another_user_with_the_same_key_is_independent(env) -> None:
    alice = json_body(call({"message": COMBINED}, key="shared-key", sub="alice"))
    bob = json_body(call({"message": COMBINED}, key="shared-key", sub="bob"))

    assert user_turns(env) == 2
    assert alice["sessionId"] != bob["sessionId"]
    for card in bob["clientActions"]:
        item = env["client"].get_item(
            TableName=env["tables"]["DRAFTS_TABLE_NAME"], Key={"id": {"S": card["id"]}}
        )["Item"]
        assert item["owner"]["S"] == "bob"


def test_without_the_header_every_request_runs(env) -> None:
    call({"message": COMBINED, "sessionId": "sess-plain"})
    call({"message": COMBINED, "sessionId": "sess-plain"})

    assert user_turns(env) == 2
    assert count(env, "IDEMPOTENCY_TABLE_NAME") == 0


def test_the_stored_record_uses_powertools_attributes_and_expires(env) -> None:
    call({"message": COMBINED}, key="record-1")

    (item,) = env["client"].scan(TableName=env["tables"]["IDEMPOTENCY_TABLE_NAME"])["Items"]
    assert item["status"]["S"] == "COMPLETED"
    assert "validation" in item  # the body hash Powertools compares on a retry
    assert int(item["expiration"]["N"]) > 0
    assert COMBINED not in item["id"]["S"]  # the key is a hash, not the user's words


def test_a_failed_turn_frees_the_key_for_a_retry(env) -> None:
    bad = call({"message": COMBINED, "sessionId": "sess-x"}, key="after-403", sub="alice")
    assert bad["statusCode"] == 200
    stolen = call({"message": COMBINED, "sessionId": "sess-x"}, key="mallory-1", sub="mallory")
    assert stolen["statusCode"] == 403

    # Mallory's refused request left no record: the same key works for a request she may make.
    again = call({"message": COMBINED}, key="mallory-1", sub="mallory")
    assert again["statusCode"] == 200


def test_a_duplicate_arriving_while_the_first_runs_is_409_with_retry_after(env, monkeypatch) -> None:
    # Given a first request held inside the model call
    entered, release = threading.Event(), threading.Event()
    counting = OfflineModel.converse

    def slow(self: OfflineModel, **kwargs: Any) -> dict[str, Any]:
        entered.set()
        assert release.wait(10)
        return counting(self, **kwargs)

    monkeypatch.setattr(OfflineModel, "converse", slow)
    results: dict[str, dict[str, Any]] = {}
    first = threading.Thread(target=lambda: results.update(first=call({"message": COMBINED}, key="busy-1")))
    first.start()
    assert entered.wait(10)

    # When the duplicate arrives
    duplicate = call({"message": COMBINED}, key="busy-1")
    release.set()
    first.join(10)

    # Then it is told to come back, and the first request completes normally
    assert duplicate["statusCode"] == 409
    assert int(duplicate["headers"]["Retry-After"]) >= 1
    assert json_body(duplicate)["error"]["code"] == "request_in_progress"
    assert results["first"]["statusCode"] == 200
    # and a later retry gets the first response
    assert json_body(call({"message": COMBINED}, key="busy-1")) == json_body(results["first"])


def test_without_an_idempotency_table_the_header_is_accepted_and_every_request_runs(env, monkeypatch) -> None:
    monkeypatch.delenv("IDEMPOTENCY_TABLE_NAME")
    aws_chat_service.cache_clear()

    first = call({"message": COMBINED, "sessionId": "sess-n"}, key="k-1")
    second = call({"message": COMBINED, "sessionId": "sess-n"}, key="k-1")

    assert (first["statusCode"], second["statusCode"]) == (200, 200)
    assert user_turns(env) == 2


@pytest.mark.parametrize("key", ["", "   ", "has space", "x" * 129, "tab\there", "ünï", '"unterminated'])
def test_a_malformed_key_is_400_and_runs_nothing(env, key: str) -> None:
    response = call({"message": COMBINED}, key=key)

    assert response["statusCode"] == 400
    error = json_body(response)["error"]
    assert error["code"] == "bad_request"
    assert "Idempotency-Key" in error["message"]
    assert env["model_calls"] == []
    assert count(env, "IDEMPOTENCY_TABLE_NAME") == 0


def test_a_bad_body_with_a_key_is_400_and_takes_no_record(env) -> None:
    response = call({"message": ""}, key="empty-1")

    assert response["statusCode"] == 400
    assert count(env, "IDEMPOTENCY_TABLE_NAME") == 0


def test_logs_name_the_replay_but_never_the_message_or_the_key(env, capsys, caplog) -> None:
    call({"message": COMBINED}, key="log-key-1")
    call({"message": COMBINED}, key="log-key-1")
    call({"message": "File a Jira bug in WEB for the login crash"}, key="log-key-1")

    records = [json.dumps(record.__dict__, default=str) for record in caplog.records]
    logs = capsys.readouterr().out + "\n".join(records)
    assert "Chat response replayed for a repeated Idempotency-Key" in logs
    assert '"ChatReplays"' in logs  # the metric, in EMF
    for secret in ("Kinshuok", "the doc", "login crash", "log-key-1"):
        assert secret not in logs
