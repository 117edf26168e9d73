"""The cold-start bench's floor for the orchestrator does the I/O of the turn it is the floor of.

``python -m benchmarks cold_start`` reads the orchestrator against ``stack, chat turn``: the same stack
(boto3, pydantic, Powertools) with no multitool code, making the DynamoDB calls the first turn of a
session makes. If the turn gains or loses a call, the floor must follow, or the ratio measures the
calls instead of multitool's code: this test runs both on moto and compares what they called.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import pytest
from botocore.client import BaseClient

from tests.functional.orchestrator.test_chat_agentcore import COMBINED, EMAIL, MEETING, PEOPLE, call, deployed
from tests.support import harness_streams as h
from tests.support.chat_env import offline_chat_env
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Any:
    with offline_chat_env(monkeypatch, PEOPLE) as environment:
        yield environment


def recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every AWS call any botocore client makes from now on: (service, operation)."""
    seen: list[tuple[str, str]] = []
    original = BaseClient._make_api_call

    def recording(client: BaseClient, operation: str, params: dict[str, Any]) -> Any:
        seen.append((client.meta.service_model.service_name, operation))
        return original(client, operation, params)

    monkeypatch.setattr(BaseClient, "_make_api_call", recording)
    return seen


def harness() -> h.ScriptedHarness:
    """The harness's answer to the bench's message: the email and the meeting, in one response."""
    return h.ScriptedHarness(
        h.calls(("t1", "create_email_draft", EMAIL), ("t2", "propose_meeting", MEETING)), h.answer("Done.")
    )


def test_the_orchestrators_floor_makes_the_dynamodb_calls_of_a_sessions_first_turn(
    env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmarks.bench_cold_start import FLOORS, REFERENCES

    # Given the deployed runtime on a harness that asks for both tools, and the bench's floor program
    deployed(monkeypatch, harness())
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "bench")
    floor = ModuleType("bench_chat_turn_floor")  # a module of its own, as the bench's child imports it
    monkeypatch.setitem(sys.modules, floor.__name__, floor)
    exec(compile(REFERENCES[FLOORS["orchestrator"]], "floor", "exec"), vars(floor))
    floor.agentcore = harness()

    # When the orchestrator answers the first turn of a session, and then the floor the same request
    seen = recorded(monkeypatch)
    answered = call({"message": COMBINED, "sessionId": "s-turn"}, sub="jordan")
    turn = [operation for service, operation in seen if service == "dynamodb"]
    seen.clear()
    event = http_api_event("POST", "/chat", {"message": COMBINED, "sessionId": "s-floor"}, sub="jordan")
    floored = floor.handler(event, FakeLambdaContext())

    # Then both answered with two cards, and the floor made the turn's DynamoDB calls, in its order
    assert answered["statusCode"] == floored["statusCode"] == 200
    assert len(json_body(answered)["clientActions"]) == len(json_body(floored)["clientActions"]) == 2
    assert turn == [
        "UpdateItem",  # the session claimed
        "BatchGetItem",  # the directory: who the names are
        "BatchGetItem",  # their calendars
        "TransactWriteItems",  # the drafts
        "UpdateItem",  # the harness step carried to the next turn
        "UpdateItem",  # the history
    ]
    assert [operation for service, operation in seen if service == "dynamodb"] == turn
