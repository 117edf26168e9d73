"""Prompt caching: cache points where the model caches, after a prefix that is the same for everyone."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import botocore.session
import pytest
from botocore.validate import validate_parameters
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.models import CACHE_POINT, DEFAULT_MODEL_ID, prompt_cache
from multitool.people import Person
from multitool.runtimes import ConverseRuntime, TurnRequest
from multitool.runtimes.product import product_flows
from multitool.runtimes.prompts import CONTRACT, system_prompt
from multitool.tools import REGISTRY, ToolPorts

CLAUDE = [
    DEFAULT_MODEL_ID,
    "global.anthropic.claude-opus-5-5",
    "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
]
NOVA = ["amazon.nova-pro-v1:0", "us.amazon.nova-lite-v1:0"]
UNCACHED = ["meta.llama3-70b-instruct-v1:0", "mistral.mistral-large-2407-v1:0", "offline"]


class RecordingModel:
    """Answers with the scripted replies, then a plain one; keeps each request as it would go on the wire."""

    def __init__(self, *answers: dict[str, Any]) -> None:
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []

    def converse(self, **kwargs: Any) -> dict[str, Any]:
        self.requests.append(json.loads(json.dumps(kwargs)))
        if self.answers:
            return self.answers.pop(0)
        return {
            "output": {"message": {"role": "assistant", "content": [{"text": "Hello."}]}},
            "stopReason": "end_turn",
        }


def ports() -> ToolPorts:
    people = [Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com")]
    return ToolPorts(MemoryDirectory(people), MemoryCalendar(), MemoryDraftStore())


def first_request(model_id: str, request: TurnRequest) -> dict[str, Any]:
    model = RecordingModel()
    ConverseRuntime(model, model_id, product_flows(ports())).run_turn(request)
    return model.requests[0]


def cached_prefix(request: dict[str, Any]) -> bytes:
    """What the cache keys on: the tools, then the system blocks up to the last cache point."""
    system = request["system"]
    last = max(index for index, block in enumerate(system) if "cachePoint" in block)
    prefix = {"tools": request["toolConfig"]["tools"], "system": system[: last + 1]}
    return json.dumps(prefix, ensure_ascii=False, separators=(",", ":")).encode()


BERLIN = TurnRequest(
    "alex", "s-1", "Email Kinshuok about the doc", "Europe/Berlin", datetime(2026, 12, 1, 8, tzinfo=UTC)
)
KOLKATA = TurnRequest(
    "priya",
    "s-2",
    "File a Jira bug in WEB for the crash",
    "Asia/Kolkata",
    datetime(2026, 12, 3, 17, 45, tzinfo=UTC),
)


@pytest.mark.parametrize("model_id", CLAUDE)
def test_claude_requests_cache_the_tools_and_the_standing_prompt_and_fit_converse(model_id: str) -> None:
    request = first_request(model_id, BERLIN)

    validate_parameters(
        request,
        botocore.session.get_session()
        .get_service_model("bedrock-runtime")
        .operation_model("Converse")
        .input_shape,
    )
    tools = request["toolConfig"]["tools"]
    assert tools[-1] == CACHE_POINT
    assert all("toolSpec" in tool for tool in tools[:-1])
    assert {tool["toolSpec"]["name"] for tool in tools[:-1]} == set(REGISTRY)
    standing, point, time = request["system"]
    assert point == CACHE_POINT
    assert all(rule in standing["text"] for rule in CONTRACT)
    # The zone and the time come after the cache point, never inside the cached prefix.
    assert "Europe/Berlin" not in standing["text"]
    assert "2026-12-01" not in standing["text"]
    assert (
        time["text"]
        == "The user's time zone is Europe/Berlin.\nThe current time is 2026-12-01T08:00:00+00:00.\n"
        "The user's numeric dates are day/month (3/1 is 3 January), as dates are written in DE, the "
        "country of the user's time zone Europe/Berlin."
    )
    # What the model reads is the prompt it read before, word for word.
    assert f"{standing['text']}\n{time['text']}" == system_prompt(timezone=BERLIN.timezone, now=BERLIN.now)
    # Two checkpoints of the four a request may hold.
    assert sum("cachePoint" in block for block in [*tools, *request["system"]]) == 2


def test_the_cached_prefix_is_byte_identical_for_two_users_zones_times_and_messages() -> None:
    berlin, kolkata = first_request(DEFAULT_MODEL_ID, BERLIN), first_request(DEFAULT_MODEL_ID, KOLKATA)

    assert berlin["system"] != kolkata["system"]  # the requests differ, after the cache point
    assert cached_prefix(berlin) == cached_prefix(kolkata)
    assert b"Europe/Berlin" not in cached_prefix(berlin)
    assert b"Asia/Kolkata" not in cached_prefix(kolkata)


def test_every_model_call_of_a_turn_sends_the_same_prefix() -> None:
    call = {"toolUse": {"toolUseId": "t1", "name": "create_email_draft", "input": {"to": ["Kinshuok"]}}}
    model = RecordingModel(
        {"output": {"message": {"role": "assistant", "content": [call]}}, "stopReason": "tool_use"}
    )

    ConverseRuntime(model, DEFAULT_MODEL_ID, product_flows(ports(), direct_answers=False)).run_turn(BERLIN)

    assert len(model.requests) == 2
    assert cached_prefix(model.requests[0]) == cached_prefix(model.requests[1])


@pytest.mark.parametrize("model_id", NOVA)
def test_nova_caches_the_system_prompt_only(model_id: str) -> None:
    request = first_request(model_id, BERLIN)

    caching = prompt_cache(model_id)
    assert caching is not None
    assert not caching.tools
    assert all("toolSpec" in tool for tool in request["toolConfig"]["tools"])
    assert [("cachePoint" in block) for block in request["system"]] == [False, True, False]


@pytest.mark.parametrize("model_id", UNCACHED)
def test_a_model_without_prompt_caching_gets_no_cache_point(model_id: str) -> None:
    request = first_request(model_id, BERLIN)

    assert prompt_cache(model_id) is None
    assert "cachePoint" not in json.dumps(request)
    assert "\n".join(block["text"] for block in request["system"]) == system_prompt(
        timezone=BERLIN.timezone, now=BERLIN.now
    )
