"""POST /chat through the AgentCore harness runtime: the real handler, moto DynamoDB, scripted harnesses."""

from __future__ import annotations

import json
import sys
from types import ModuleType
from typing import Any

import boto3
import pytest
from botocore.client import BaseClient
from botocore.stub import Stubber
from multitool.local.sandbox.embedded import BackendChoice, LocalSetupError, function_env, load_seed
from multitool.people import Person
from multitool.runtimes import AwsClients, OfflineHarness, OfflineModel
from multitool.runtimes.agentcore import runtime_session_id
from multitool.runtimes.carryover import CARRY_ATTRIBUTE
from multitool.settings import ModelBackend
from multitool.wiring.orchestrator import aws_chat_service

from tests.support import harness_streams as h
from tests.support.chat_env import offline_chat_env
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body

PEOPLE = [
    Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com", timezone="Asia/Kolkata"),
    Person(id="p2", display_name="Priya Natarajan", email="priya@example.com", timezone="Europe/Berlin"),
]
COMBINED = "Email Kinshuok about the doc and schedule a sync for Thursday"
EMAIL = {"to": ["Kinshuok"], "subject": "About the doc", "body": "Could you have a look?"}
MEETING = {"attendees": ["Kinshuok"], "title": "Sync", "when": "Thursday"}


def call(body: Any, sub: str = "user-1") -> dict[str, Any]:
    from functions.orchestrator.handler import handler

    return handler(http_api_event("POST", "/chat", body, sub=sub), FakeLambdaContext())


@pytest.fixture
def env(monkeypatch):
    with offline_chat_env(monkeypatch, PEOPLE) as environment:
        yield environment


def deployed(monkeypatch, client: Any) -> None:
    """RUNTIME=agentcore with HARNESS_ARN, as the default stack sets it, on ``client``."""
    monkeypatch.setattr(AwsClients, "bedrock_agentcore", property(lambda self: client))
    monkeypatch.setenv("RUNTIME", "agentcore")
    monkeypatch.setenv("HARNESS_ARN", h.HARNESS_ARN)
    aws_chat_service.cache_clear()


COMPOSED = (
    "I drafted an email to Kinshuok Sharma about the doc and found 3 times for a sync with "
    "Kinshuok Sharma on Thursday. Nothing is sent or booked until you confirm."
)


def carried(env: dict[str, Any], session_id: str) -> Any:
    """The session item's carried harness step as stored (None when there is none)."""
    item = env["client"].get_item(
        TableName=env["tables"]["SESSIONS_TABLE_NAME"], Key={"sessionId": {"S": session_id}}
    )["Item"]
    stored = item.get(CARRY_ATTRIBUTE)
    return json.loads(stored["S"]) if stored else None


def test_a_combined_message_through_the_harness_is_answered_from_its_cards(env, monkeypatch) -> None:
    # Given the deployed runtime, and a harness that pauses on two inline calls in one response
    client = h.ScriptedHarness(
        h.calls(("t1", "create_email_draft", EMAIL), ("t2", "propose_meeting", MEETING), pieces=3),
        h.answer("Done."),
    )
    deployed(monkeypatch, client)

    # When the user sends one message with both intents
    response = call({"message": COMBINED, "sessionId": "sess-h"})

    # Then the API answers with both cards and words from them, after ONE harness call
    assert response["statusCode"] == 200
    body = json_body(response)
    assert [a["type"] for a in body["clientActions"]] == ["show_new_email_draft", "show_meeting_scheduler"]
    assert body["message"] == COMPOSED
    assert len(body["clientActionMessages"]) == 2
    assert body["clientAction"] == body["clientActions"][-1]
    (first,) = client.requests
    assert first["runtimeSessionId"] == runtime_session_id("user-1", "sess-h")
    assert first["runtimeUserId"] == "user-1"
    # And the paused step waits in the session's item: toolUse, one toolResult per call, the answer
    step = carried(env, "sess-h")
    assert [m["role"] for m in step] == ["assistant", "user", "assistant"]
    assert [b["toolUse"]["toolUseId"] for b in step[0]["content"] if "toolUse" in b] == ["t1", "t2"]
    assert [b["toolResult"]["toolUseId"] for b in step[1]["content"]] == ["t1", "t2"]
    assert [b["toolResult"]["status"] for b in step[1]["content"]] == ["success", "success"]
    assert step[2] == {"role": "assistant", "content": [{"text": COMPOSED}]}

    # When the user writes again in the same session
    follow_up = call({"message": "Thanks!", "sessionId": "sess-h"})

    # Then that call carries the step before the new message (checked against InvokeHarness),
    # so the harness reads every toolUse answered once and the answer the user saw; the item is cleared
    assert json_body(follow_up)["message"] == "Done."
    second = client.requests[1]
    assert second["messages"] == [*step, {"role": "user", "content": [{"text": "Thanks!"}]}]
    assert [r["toolUseId"] for r in client.tool_results(1)] == ["t1", "t2"]
    assert carried(env, "sess-h") is None


def dynamodb_calls() -> list[tuple[str, dict[str, Any]]]:
    """Every DynamoDB call the chat service's client makes from now on: (operation, parameters)."""
    seen: list[tuple[str, dict[str, Any]]] = []
    client = aws_chat_service().sessions.client  # type: ignore[attr-defined]
    client.meta.events.register(
        "provide-client-params.dynamodb",
        lambda event_name, params, **_: seen.append((event_name.split(".")[-1], dict(params))),
    )
    return seen


def test_the_follow_up_takes_the_carried_step_in_the_session_claims_own_write(env, monkeypatch) -> None:
    # Given a turn answered from its cards, whose paused step waits in the session's item
    client = h.ScriptedHarness(
        h.calls(("t1", "create_email_draft", EMAIL), pieces=1), h.answer("You are welcome.")
    )
    deployed(monkeypatch, client)
    call({"message": "Email Kinshuok about the doc", "sessionId": "sess-c"})
    step = carried(env, "sess-c")
    assert step is not None
    seen = dynamodb_calls()

    # When the user writes again
    follow_up = call({"message": "Thanks!", "sessionId": "sess-c"})

    # Then one conditional UpdateItem claimed the session and removed the step (no separate take),
    # the harness read the step, and the only other write stored the conversation
    assert json_body(follow_up)["message"] == "You are welcome."
    assert client.requests[1]["messages"][:3] == step
    assert [name for name, _ in seen] == ["UpdateItem", "UpdateItem"]
    claim = seen[0][1]
    assert "REMOVE #carry" in claim["UpdateExpression"]
    assert claim["ReturnValues"] == "ALL_OLD"
    assert claim["ExpressionAttributeNames"]["#carry"] == CARRY_ATTRIBUTE
    assert "#history" in seen[1][1]["UpdateExpression"]
    assert carried(env, "sess-c") is None


def test_a_step_the_claim_took_is_kept_again_when_the_harness_fails_before_reading_it(
    env, monkeypatch
) -> None:
    # Given a carried step, and a harness that fails on the next turn
    client = h.ScriptedHarness(
        h.calls(("t1", "create_email_draft", EMAIL), pieces=1),
        [h.message_start(), h.stream_error("runtimeClientError", "down")],
        h.answer("Back."),
    )
    deployed(monkeypatch, client)
    call({"message": "Email Kinshuok about the doc", "sessionId": "sess-f"})
    step = carried(env, "sess-f")

    # When the follow-up fails, Then the step the claim removed is back in the item
    assert call({"message": "Thanks!", "sessionId": "sess-f"})["statusCode"] == 502
    assert carried(env, "sess-f") == step
    # And the turn after that still hands it to the harness
    assert json_body(call({"message": "Thanks!", "sessionId": "sess-f"}))["message"] == "Back."
    assert client.requests[2]["messages"][:3] == step


def test_a_refused_call_keeps_the_harness_turn_on_the_model(env, monkeypatch) -> None:
    # Given a harness response whose meeting call the tool refuses (a day in the past)
    client = h.ScriptedHarness(
        h.calls(
            ("t1", "create_email_draft", EMAIL), ("t2", "propose_meeting", {**MEETING, "when": "yesterday"})
        ),
        h.answer("I drafted the email; pick a later day for the sync."),
    )
    deployed(monkeypatch, client)

    body = json_body(call({"message": COMBINED, "sessionId": "sess-r"}))

    # Then the harness resumes with both results and the model writes the answer; nothing is carried
    assert body["message"] == "I drafted the email; pick a later day for the sync."
    assert len(client.requests) == 2
    assert [r["status"] for r in client.tool_results(1)] == ["success", "error"]
    assert carried(env, "sess-r") is None


def test_harness_throttling_is_503_with_retry_after(env, monkeypatch) -> None:
    # A real client: Stubber checks the request against the InvokeHarness input shape, then answers 429.
    client = boto3.client("bedrock-agentcore", region_name="us-east-1")
    stubber = Stubber(client)
    stubber.add_client_error(
        "invoke_harness",
        service_error_code="ThrottlingException",
        service_message="details",
        http_status_code=429,
    )
    stubber.activate()
    deployed(monkeypatch, client)

    response = call({"message": COMBINED})

    stubber.assert_no_pending_responses()

    assert response["statusCode"] == 503
    assert int(response["headers"]["Retry-After"]) >= 1
    assert json_body(response)["error"]["code"] == "model_busy"


def test_a_harness_failure_is_502_and_hides_the_service_message(env, monkeypatch) -> None:
    deployed(
        monkeypatch, h.ScriptedHarness([h.message_start(), h.stream_error("runtimeClientError", "secret")])
    )

    response = call({"message": COMBINED})

    assert response["statusCode"] == 502
    assert json_body(response)["error"]["code"] == "model_failed"
    assert "secret" not in response["body"]


def test_agentcore_without_its_harness_arn_is_a_clear_500(env, monkeypatch) -> None:
    monkeypatch.setenv("RUNTIME", "agentcore")
    monkeypatch.delenv("HARNESS_ARN", raising=False)
    aws_chat_service.cache_clear()

    response = call({"message": COMBINED})

    assert response["statusCode"] == 500
    assert json_body(response)["error"]["code"] == "not_configured"


def test_the_offline_default_runs_through_the_harness_runtime(env, monkeypatch) -> None:
    seen: list[dict[str, Any]] = []
    original = OfflineHarness.invoke_harness

    def recording(self: OfflineHarness, **kwargs: Any) -> dict[str, Any]:
        seen.append(kwargs)
        return original(self, **kwargs)

    monkeypatch.setattr(OfflineHarness, "invoke_harness", recording)

    body = json_body(call({"message": COMBINED, "sessionId": "sess-o"}))

    assert [a["type"] for a in body["clientActions"]] == ["show_new_email_draft", "show_meeting_scheduler"]
    assert len(seen) == 1  # every call made a draft: answered from the cards, no resume
    assert body["message"].startswith("I drafted an email to Kinshuok Sharma about the doc and found")
    assert seen[0]["runtimeSessionId"] == runtime_session_id("user-1", "sess-o")


def test_offline_converse_keeps_the_converse_loop(monkeypatch) -> None:
    with offline_chat_env(monkeypatch, PEOPLE, runtime="offline-converse"):
        harness_calls: list[Any] = []
        monkeypatch.setattr(OfflineHarness, "invoke_harness", lambda self, **kw: harness_calls.append(kw))
        converse_calls: list[Any] = []
        original = OfflineModel.converse

        def counting(self: OfflineModel, **kwargs: Any) -> dict[str, Any]:
            converse_calls.append(kwargs)
            return original(self, **kwargs)

        monkeypatch.setattr(OfflineModel, "converse", counting)

        body = json_body(call({"message": COMBINED}))

    assert len(body["clientActions"]) == 2
    assert harness_calls == []
    assert len(converse_calls) == 1  # every call made a draft: answered from the cards
    assert "toolConfig" in converse_calls[0]


def test_a_follow_up_through_the_offline_harness_refers_to_the_earlier_ticket(env) -> None:
    first = json_body(call({"message": "File a Jira bug in WEB for the login crash"}))

    second = json_body(call({"message": "Email Priya about it", "sessionId": first["sessionId"]}))

    (email,) = second["clientActions"]
    assert email["subject"] == "Login crash"


# --------------------------------------------------------------------------- choosing locally


def test_the_local_default_is_the_offline_harness_and_a_harness_arn_selects_agentcore() -> None:
    assert BackendChoice.from_options().runtime is ModelBackend.OFFLINE
    assert not BackendChoice.from_options().uses_aws
    assert not BackendChoice.from_options(runtime="offline-converse").uses_aws
    chosen = BackendChoice.from_options(harness_arn=h.HARNESS_ARN)
    assert chosen.runtime is ModelBackend.AGENTCORE
    assert chosen.uses_aws
    env = function_env(
        endpoint="http://127.0.0.1:1",
        tables={},
        seed=load_seed(),
        runtime=chosen,
        region="us-east-1",
        jira_secret_arn="arn:aws:secretsmanager:us-east-1:123456789012:secret:x",
    )
    assert (env["RUNTIME"], env["HARNESS_ARN"]) == ("agentcore", h.HARNESS_ARN)


def test_agentcore_locally_needs_a_harness_arn() -> None:
    with pytest.raises(LocalSetupError, match="harness ARN"):
        BackendChoice.from_options(runtime="agentcore")


# --------------------------------------------------------------------------- the cold-start bench's floor
# ``python -m benchmarks cold_start`` reads the orchestrator against ``stack, chat turn``: the same stack
# with no multitool code, making the DynamoDB calls a session's first turn makes. If the turn gains or
# loses a call, the floor must follow, or the ratio measures the calls instead of multitool's code.


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
