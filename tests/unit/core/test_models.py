"""The default model and what each model family's requests carry, checked against botocore's models."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import botocore.session
import pytest
from botocore.validate import validate_parameters
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.models import (
    DEFAULT_MODEL_ID,
    TOOL_CHOICE,
    converse_inference_config,
    default_max_tokens,
    foundation_model_id,
    harness_temperature,
    model_family,
)
from multitool.people import Person
from multitool.runtimes import ConverseRuntime, TurnRequest
from multitool.runtimes.product import product_flows
from multitool.tools import ToolPorts

NOW = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
REQUEST = TurnRequest("user-1", "sess-1", "Email Kinshuok about the doc", "Europe/Berlin", NOW)
EMAIL = {"to": ["Kinshuok"], "subject": "About the doc", "body": "Please have a look."}

# The Claude 5 family: adaptive thinking always on (no temperature, no forced tool choice).
THINKING_BY_DEFAULT = [
    DEFAULT_MODEL_ID,
    "us.anthropic.claude-sonnet-5-5",
    "global.anthropic.claude-opus-5-5",
    "jp.anthropic.claude-opus-5-5",
    "anthropic.claude-sonnet-5",
]
# Models a user may still pick, which think only when asked: the fixed temperature stays.
THINKING_ON_REQUEST = [
    "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "anthropic.claude-3-5-haiku-20241022-v1:0",
    "us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0",
    "amazon.nova-pro-v1:0",
]


def _input_shape(service: str, operation: str) -> Any:
    return botocore.session.get_session().get_service_model(service).operation_model(operation).input_shape


class ScriptedModel:
    def __init__(self, *responses: dict[str, Any]) -> None:
        self.responses = list(responses)
        self.requests: list[dict[str, Any]] = []

    def converse(self, **kwargs: Any) -> dict[str, Any]:
        self.requests.append(json.loads(json.dumps(kwargs)))
        return self.responses.pop(0)


def _reply(*content: dict[str, Any], stop: str = "end_turn") -> dict[str, Any]:
    return {"output": {"message": {"role": "assistant", "content": list(content)}}, "stopReason": stop}


@pytest.fixture
def ports() -> ToolPorts:
    people = [Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com")]
    return ToolPorts(MemoryDirectory(people), MemoryCalendar(), MemoryDraftStore())


def test_the_default_is_the_global_profile_of_claude_sonnet_5_5() -> None:
    assert DEFAULT_MODEL_ID == "global.anthropic.claude-sonnet-5-5"
    assert foundation_model_id(DEFAULT_MODEL_ID) == "anthropic.claude-sonnet-5-5"
    assert model_family(DEFAULT_MODEL_ID).thinks_by_default


@pytest.mark.parametrize(
    ("model_id", "model"),
    [
        ("global.anthropic.claude-sonnet-5-5", "anthropic.claude-sonnet-5-5"),
        ("us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0", "anthropic.claude-3-5-sonnet-20240620-v1:0"),
        ("anthropic.claude-sonnet-5-5", "anthropic.claude-sonnet-5-5"),
        ("amazon.nova-pro-v1:0", "amazon.nova-pro-v1:0"),
    ],
)
def test_the_foundation_model_of_an_id(model_id: str, model: str) -> None:
    assert foundation_model_id(model_id) == model


@pytest.mark.parametrize("model_id", THINKING_BY_DEFAULT)
def test_a_model_that_thinks_by_default_gets_no_temperature_and_chooses_its_tools(model_id: str) -> None:
    assert model_family(model_id).thinks_by_default
    assert converse_inference_config(model_id, 4096) == {"maxTokens": 4096}
    assert harness_temperature(model_id) is None
    assert default_max_tokens(model_id) == 16384  # its thinking counts against maxTokens


@pytest.mark.parametrize("model_id", THINKING_ON_REQUEST)
def test_an_older_model_keeps_its_fixed_temperature(model_id: str) -> None:
    assert not model_family(model_id).thinks_by_default
    assert converse_inference_config(model_id, 4096) == {"maxTokens": 4096, "temperature": 0}
    assert harness_temperature(model_id) == 0
    assert default_max_tokens(model_id) == 4096


def test_no_model_is_forced_to_call_a_tool() -> None:
    assert TOOL_CHOICE == {"auto": {}}
    validate_parameters(
        {"toolChoice": TOOL_CHOICE, "tools": [{"toolSpec": {"name": "t", "inputSchema": {"json": {}}}}]},
        _input_shape("bedrock-runtime", "Converse").members["toolConfig"],
    )


@pytest.mark.parametrize("model_id", THINKING_BY_DEFAULT + THINKING_ON_REQUEST)
def test_every_converse_request_of_a_turn_is_valid_for_its_model(model_id: str, ports: ToolPorts) -> None:
    # Given a model that thinks before its tool call (Converse returns reasoningContent with a signature)
    thinking = {"reasoningContent": {"reasoningText": {"text": "Draft the email.", "signature": "c2ln"}}}
    call = {"toolUse": {"toolUseId": "t1", "name": "create_email_draft", "input": EMAIL}}
    model = ScriptedModel(_reply(thinking, call, stop="tool_use"), _reply({"text": "Done."}))
    runtime = ConverseRuntime(model, model_id, product_flows(ports, direct_answers=False))

    # When a turn runs to its end
    runtime.run_turn(REQUEST)

    # Then every request fits Converse's input shape and the model's family
    shape = _input_shape("bedrock-runtime", "Converse")
    family = model_family(model_id)
    assert len(model.requests) == 2
    for request in model.requests:
        validate_parameters(request, shape)
        assert request["modelId"] == model_id
        assert request["toolConfig"]["toolChoice"] == {"auto": {}}
        assert ("temperature" in request["inferenceConfig"]) is not family.thinks_by_default
        assert "additionalModelRequestFields" not in request  # thinking is never switched off
    # And the thinking block goes back unchanged before the call it preceded
    assert model.requests[1]["messages"][1]["content"][:2] == [thinking, call]
