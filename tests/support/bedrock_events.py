"""Bedrock action-group events and Lambda contexts in the real wire shape, for any suite.

Property values are strings, as Bedrock sends them: arrays as JSON text.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

AGENT = {"alias": "TSTALIASID", "name": "multitool", "version": "DRAFT", "id": "AGENT12345"}

_TYPES = {bool: "boolean", int: "integer", float: "number", list: "array", tuple: "array", dict: "object"}


def wire_property(name: str, value: Any) -> dict[str, str]:
    """One ``{"name", "type", "value"}`` entry; non-strings become JSON text like Bedrock's."""
    kind = _TYPES.get(type(value), "string")
    if isinstance(value, str):
        text = value
    elif isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = json.dumps(value)
    return {"name": name, "type": kind, "value": text}


def bedrock_action_event(
    action_group: str,
    api_path: str,
    method: str = "POST",
    properties: Mapping[str, Any] | None = None,
    session_attributes: Mapping[str, str] | None = None,
    *,
    session_id: str = "session-1",
    input_text: str = "Email Kinshuok about the doc and schedule a sync for Thursday",
    parameters: list[dict[str, str]] | None = None,
    prompt_session_attributes: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """An OpenAPI-style action-group Lambda event (messageVersion 1.0)."""
    event: dict[str, Any] = {
        "messageVersion": "1.0",
        "agent": dict(AGENT),
        "sessionId": session_id,
        "inputText": input_text,
        "actionGroup": action_group,
        "apiPath": api_path,
        "httpMethod": method,
        "parameters": parameters or [],
        "sessionAttributes": dict(session_attributes or {}),
        "promptSessionAttributes": dict(prompt_session_attributes or {}),
    }
    if properties is not None:
        event["requestBody"] = {
            "content": {
                "application/json": {"properties": [wire_property(k, v) for k, v in properties.items()]}
            }
        }
    return event


@dataclass
class LambdaContextStub:
    """The attributes Powertools' logger reads from a Lambda context."""

    function_name: str = "multitool-test"
    memory_limit_in_mb: int = 256
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:multitool-test"
    aws_request_id: str = "00000000-0000-0000-0000-000000000000"

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 30_000


@functools.cache
def tool_handler(group: str) -> Callable[[dict[str, Any], Any], Any]:
    """The deployed handler of one tool's function: ``functions/tool/handler.py`` with the tool's
    ``TOOL_MODULE``, as the stack sets it (one module per group, kept as a warm environment keeps it)."""
    from multitool.local.sandbox.lambdas import load_handler

    return load_handler(Path(__file__).resolve().parents[2] / "functions", group)


def response_body(response: Mapping[str, Any]) -> Any:
    """The decoded JSON body of an action-group response."""
    return json.loads(response["response"]["responseBody"]["application/json"]["body"])


def assert_bedrock_response(response: Any) -> None:
    """The shape Bedrock requires of an action-group Lambda's answer."""
    assert isinstance(response, dict)
    assert response["messageVersion"] == "1.0"
    inner = response["response"]
    assert set(inner) >= {"actionGroup", "apiPath", "httpMethod", "httpStatusCode", "responseBody"}
    assert isinstance(inner["actionGroup"], str)
    assert isinstance(inner["apiPath"], str)
    assert isinstance(inner["httpMethod"], str)
    assert isinstance(inner["httpStatusCode"], int)
    assert isinstance(inner["responseBody"]["application/json"]["body"], str)
    json.loads(inner["responseBody"]["application/json"]["body"])
    assert isinstance(response.get("sessionAttributes", {}), dict)
    assert isinstance(response.get("promptSessionAttributes", {}), dict)


def sample_people() -> list[Any]:
    """A small directory: one Kinshuok, two people answering to 'Zoe' (one accented), one alias."""
    from multitool.people import Person

    return [
        Person(
            id="p-kin", display_name="Kinshuok Dutta", email="kinshuok@example.com", timezone="Asia/Kolkata"
        ),
        Person(
            id="p-zoe-m", display_name="Zoë Müller", email="zoe.mueller@example.com", timezone="Europe/Berlin"
        ),
        Person(
            id="p-zoe-p", display_name="Zoe Park", email="zoe.park@example.com", timezone="America/New_York"
        ),
        Person(
            id="p-pri",
            display_name="Priya Raman",
            email="priya@example.com",
            timezone="Europe/London",
            aliases=("PR", "Pri"),
        ),
    ]
