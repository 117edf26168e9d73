"""The Converse loop with a scripted model client and in-memory ports."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from botocore.exceptions import ClientError, ReadTimeoutError
from msgspec.structs import replace
from multitool.chat.sessions import converse_messages, exchange
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.people import Person
from multitool.runtimes import AgentRuntime, ConverseRuntime, ModelBusy, ModelFailed, TurnRequest
from multitool.runtimes.converse import (
    ROUNDS_EXHAUSTED,
    default_tool_specs,
    tool_specs_from_openapi,
    tool_specs_from_registry,
)
from multitool.runtimes.product import product_flows
from multitool.runtimes.prompts import EVERY_TOOL, NO_JSON, RAW_NAMES
from multitool.tools import REGISTRY, ToolPorts

NOW = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
REQUEST = TurnRequest(
    "user-1", "sess-1", "Email Kinshuok about the doc and schedule a sync", "Europe/Berlin", NOW
)


class ScriptedModel:
    """Answers converse() with the next scripted response; records every request."""

    def __init__(self, *responses) -> None:
        self.responses = list(responses)
        self.requests: list[dict] = []

    def converse(self, **kwargs):
        self.requests.append(json.loads(json.dumps(kwargs, default=str)))
        answer = self.responses.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def reply(*content, stop="end_turn") -> dict:
    return {"output": {"message": {"role": "assistant", "content": list(content)}}, "stopReason": stop}


def use(call_id: str, name: str, args) -> dict:
    return {"toolUse": {"toolUseId": call_id, "name": name, "input": args}}


EMAIL = {"to": ["Kinshuok"], "subject": "About the doc", "body": "Please have a look."}
MEETING = {"attendees": ["Kinshuok"], "title": "Sync", "when": "Thursday"}


@pytest.fixture
def ports() -> ToolPorts:
    people = [Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com")]
    return ToolPorts(MemoryDirectory(people), MemoryCalendar(), MemoryDraftStore())


def runtime(
    model: ScriptedModel, ports: ToolPorts, *, direct_answers: bool = True, **kwargs
) -> ConverseRuntime:
    flows = product_flows(ports, direct_answers=direct_answers)
    return ConverseRuntime(model, "anthropic.claude-test", flows, **kwargs)


def test_a_response_whose_calls_all_made_drafts_is_answered_from_the_cards_in_one_model_call(ports) -> None:
    # Given a model that answers the combined request with an email and a meeting call, and says
    # beside them what it could not do
    model = ScriptedModel(
        reply(
            {"text": "I did not understand 'water the plants'."},
            use("t1", "create_email_draft", EMAIL),
            use("t2", "propose_meeting", MEETING),
            stop="tool_use",
        ),
    )
    # When the turn runs
    results = runtime(model, ports).run_turn(REQUEST)
    # Then one model call made both cards in one batch, and the answer says what each card holds
    assert len(model.requests) == 1
    assert [c.type for c in results.client_actions] == ["show_new_email_draft", "show_meeting_scheduler"]
    assert ports.directory.reads == 1
    assert ports.drafts.writes == 1
    # and what the model wrote beside the calls follows, never dropped
    assert results.message == (
        "I drafted an email to Kinshuok Sharma about the doc and found 3 times for a sync with "
        "Kinshuok Sharma on Thursday. Nothing is sent or booked until you confirm."
        "\n\nI did not understand 'water the plants'."
    )


def test_two_tool_uses_in_one_response_give_two_cards_and_one_batch(ports) -> None:
    model = ScriptedModel(
        reply(
            {"text": "On it."},
            use("t1", "create_email_draft", EMAIL),
            use("t2", "propose_meeting", MEETING),
            stop="tool_use",
        ),
        reply({"text": "Drafted both. "}, {"text": '{"action": "show_new_email_draft", "draftId": "d_1"}'}),
    )

    results = runtime(model, ports, direct_answers=False).run_turn(REQUEST)

    assert [c.type for c in results.client_actions] == ["show_new_email_draft", "show_meeting_scheduler"]
    assert results.message == "Drafted both."
    assert ports.directory.reads == 1
    assert ports.drafts.writes == 1
    # The second request carries one toolResult per toolUseId, with the payloads as JSON.
    tool_results = [b["toolResult"] for b in model.requests[1]["messages"][-1]["content"]]
    assert [r["toolUseId"] for r in tool_results] == ["t1", "t2"]
    assert tool_results[0]["content"][0]["json"]["action"] == "show_new_email_draft"
    assert "status" not in tool_results[0]
    assert model.requests[1]["messages"][1]["role"] == "assistant"


def test_request_uses_real_converse_parameters_and_the_prompt_contract(ports) -> None:
    model = ScriptedModel(reply({"text": "Hello."}))

    runtime(model, ports).run_turn(REQUEST)

    request = model.requests[0]
    assert set(request) == {"modelId", "messages", "system", "toolConfig", "inferenceConfig"}
    assert request["modelId"] == "anthropic.claude-test"
    system = "\n".join(block["text"] for block in request["system"] if "text" in block)
    for rule in (EVERY_TOOL, RAW_NAMES, NO_JSON):
        assert rule in system
    assert "Europe/Berlin" in system
    names = {t["toolSpec"]["name"] for t in request["toolConfig"]["tools"] if "toolSpec" in t}
    assert names == set(REGISTRY)


def test_a_bad_call_gets_an_error_result_and_the_others_survive(ports) -> None:
    model = ScriptedModel(
        reply(
            use("t1", "create_email_draft", EMAIL),
            use("t2", "propose_meeting", {"attendees": ["Kinshuok"], "title": "Sync", "when": "yesterday"}),
            use("t3", "teleport", {}),
            use("t4", "create_email_draft", "not an object"),
            stop="tool_use",
        ),
        reply({"text": "Some of it worked."}),
    )

    results = runtime(model, ports).run_turn(REQUEST)

    assert [c.type for c in results.client_actions] == ["show_new_email_draft"]
    tool_results = [b["toolResult"] for b in model.requests[1]["messages"][-1]["content"]]
    assert [r["toolUseId"] for r in tool_results] == ["t1", "t2", "t3", "t4"]
    assert [r.get("status") for r in tool_results] == [None, "error", "error", "error"]
    assert "error" in tool_results[1]["content"][0]["json"]


def test_several_rounds_keep_every_card(ports) -> None:
    model = ScriptedModel(
        reply(use("t1", "create_email_draft", EMAIL), stop="tool_use"),
        reply(use("t2", "propose_meeting", MEETING), stop="tool_use"),
        reply({"text": "Both done."}),
    )

    results = runtime(model, ports, direct_answers=False).run_turn(REQUEST)

    assert len(results.client_actions) == 2
    assert len(model.requests) == 3


def test_round_limit_stops_the_loop_and_keeps_the_cards(ports) -> None:
    model = ScriptedModel(
        reply(use("t1", "create_email_draft", EMAIL), stop="tool_use"),
        reply(use("t2", "create_email_draft", EMAIL), stop="tool_use"),
    )

    results = runtime(model, ports, max_rounds=2, direct_answers=False).run_turn(REQUEST)

    assert len(model.requests) == 2
    assert len(results.client_actions) == 1  # the same draft twice is one card
    assert results.message == ROUNDS_EXHAUSTED


def client_error(code: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "secret details"}}, "Converse")


@pytest.mark.parametrize(
    "code", ["ThrottlingException", "ServiceUnavailableException", "ModelNotReadyException"]
)
def test_throttling_is_model_busy(ports, code: str) -> None:
    with pytest.raises(ModelBusy) as raised:
        runtime(ScriptedModel(client_error(code)), ports).run_turn(REQUEST)

    assert raised.value.retry_after > 0
    assert "secret details" not in str(raised.value)


def test_timeouts_are_model_busy(ports) -> None:
    with pytest.raises(ModelBusy):
        runtime(ScriptedModel(ReadTimeoutError(endpoint_url="https://bedrock")), ports).run_turn(REQUEST)


@pytest.mark.parametrize("code", ["ValidationException", "AccessDeniedException", "ModelErrorException"])
def test_other_bedrock_errors_are_model_failed(ports, code: str) -> None:
    with pytest.raises(ModelFailed):
        runtime(ScriptedModel(client_error(code)), ports).run_turn(REQUEST)


def test_a_response_without_a_message_is_model_failed(ports) -> None:
    with pytest.raises(ModelFailed):
        runtime(ScriptedModel({"stopReason": "end_turn"}), ports).run_turn(REQUEST)


REF = "#/components/schemas/"
NAME = {"type": "string", "maxLength": 320}


def test_tool_specs_come_from_openapi_with_refs_inlined() -> None:
    document = {
        "openapi": "3.0.3",
        "paths": {
            "/email-drafts": {
                "post": {
                    "operationId": "create_email_draft",
                    "description": "Draft an email.",
                    "requestBody": {
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/EmailArgs"}}
                        }
                    },
                }
            }
        },
        "components": {
            "schemas": {
                "EmailArgs": {
                    "type": "object",
                    "properties": {"to": {"type": "array", "items": {"$ref": REF + "Name"}}},
                },
                "Name": dict(NAME),
            }
        },
    }

    specs = tool_specs_from_openapi([document])

    assert specs == [
        {
            "toolSpec": {
                "name": "create_email_draft",
                "description": "Draft an email.",
                "inputSchema": {
                    "json": {
                        "type": "object",
                        "properties": {
                            "to": {"type": "array", "items": {"type": "string", "maxLength": 320}}
                        },
                    }
                },
            }
        }
    ]


def test_default_tool_specs_cover_every_tool_without_refs() -> None:
    specs = default_tool_specs()

    assert {s["toolSpec"]["name"] for s in specs} == set(REGISTRY)
    assert "$ref" not in json.dumps(specs)
    assert all(s["toolSpec"]["description"] for s in specs)
    assert {s["toolSpec"]["name"] for s in tool_specs_from_registry()} == set(REGISTRY)


def test_the_conversation_so_far_comes_before_the_new_message_and_is_not_mutated(ports) -> None:
    history = converse_messages(
        exchange(
            "Email Kinshuok about the doc",
            "I prepared an email draft for you to review.",
            [("d_1", "Draft email to Kinshuok Sharma: About the doc")],
        )
    )
    model = ScriptedModel(
        reply(use("t1", "propose_meeting", MEETING), stop="tool_use"),
        reply({"text": "Proposed."}),
    )

    results = runtime(model, ports, direct_answers=False).run_turn(
        replace(REQUEST, message="also schedule a sync", history=history)
    )

    first, second = model.requests
    assert first["messages"] == [
        *history,
        {"role": "user", "content": [{"text": "also schedule a sync"}]},
    ]
    # The tool round still pairs: assistant toolUse, then the user's toolResult, after the history.
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user", "assistant", "user"]
    assert "toolResult" in second["messages"][-1]["content"][0]
    assert [c.type for c in results.client_actions] == ["show_meeting_scheduler"]
    assert len(history) == 2  # the caller's history is untouched
    assert history[1]["content"][0]["text"].endswith(
        "[cards: d_1 Draft email to Kinshuok Sharma: About the doc]"
    )


def test_the_agent_runtime_sends_no_history_bedrock_keeps_it_by_session_id() -> None:
    class Agent:
        def __init__(self) -> None:
            self.calls: list[dict] = []

        def invoke_agent(self, **kwargs):
            self.calls.append(kwargs)
            return {"completion": [{"chunk": {"bytes": b"Hello."}}]}

    agent = Agent()
    request = replace(REQUEST, history=converse_messages(exchange("earlier", "answer")))

    AgentRuntime(agent, "AGENT", "ALIAS", lambda _r: None).run_turn(request)  # type: ignore[arg-type]

    (call,) = agent.calls
    assert call["sessionId"] == "sess-1"
    assert call["inputText"] == REQUEST.message
    assert "earlier" not in str(call)


GUARDRAIL = {"guardrailIdentifier": "gr0abc123def", "guardrailVersion": "2"}


def test_a_guardrail_goes_with_every_model_call_of_the_turn_in_the_shape_converse_takes(ports) -> None:
    import botocore.session
    from botocore.validate import validate_parameters

    # Given a Converse runtime with a guardrail, and a model that calls a tool, then answers
    model = ScriptedModel(
        reply(use("t1", "create_email_draft", EMAIL), stop="tool_use"), reply({"text": "Drafted it."})
    )
    loop = runtime(model, ports, direct_answers=False, guardrail=GUARDRAIL)

    # When a turn runs
    loop.run_turn(REQUEST)

    # Then each request carries the guardrail, and botocore's Converse input shape accepts it
    shape = botocore.session.get_session().get_service_model("bedrock-runtime").operation_model("Converse")
    assert len(model.requests) == 2
    for request in model.requests:
        assert request["guardrailConfig"] == GUARDRAIL
        validate_parameters(request, shape.input_shape)


def test_without_a_guardrail_the_request_names_none(ports) -> None:
    model = ScriptedModel(reply({"text": "Hello."}))
    runtime(model, ports).run_turn(REQUEST)
    assert "guardrailConfig" not in model.requests[0]


def test_an_answer_the_guardrail_blocked_is_the_reply_and_runs_no_call(ports) -> None:
    # Given a guardrail that intervenes: Converse answers its blocked-output words, stopReason
    # guardrail_intervened (a call the model had planned is not in the answer)
    blocked = "Sorry, I can't help with that request."
    model = ScriptedModel(reply({"text": blocked}, stop="guardrail_intervened"))

    # When the turn runs
    results = runtime(model, ports, guardrail=GUARDRAIL).run_turn(REQUEST)

    # Then the reply is the guardrail's words, there is no card, and no draft was written
    assert results.message == blocked
    assert results.client_actions == ()
    assert len(model.requests) == 1
