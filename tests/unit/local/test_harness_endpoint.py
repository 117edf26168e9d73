"""The InvokeHarness stand-in on loopback: a real boto3 client, the deployed runtime, the offline harness."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.eventstream import EventStreamBuffer
from botocore.exceptions import ClientError
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.local.standins.harness_endpoint import (
    EVENT_STREAM,
    HarnessEndpoint,
    encode_stream,
    request_params,
)
from multitool.people import Person
from multitool.runtimes import AgentCoreRuntime, OfflineHarness, TurnRequest
from multitool.runtimes.agentcore import runtime_session_id
from multitool.runtimes.product import product_flows
from multitool.tools import REGISTRY, ToolPorts

from tests.support import harness_streams as h

PEOPLE = [
    Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com"),
    Person(id="p2", display_name="Priya Natarajan", email="priya@example.com"),
]


@pytest.fixture
def endpoint() -> Iterator[HarnessEndpoint]:
    with HarnessEndpoint(OfflineHarness()) as served:
        yield served


@pytest.fixture
def client(endpoint: HarnessEndpoint, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    return boto3.client("bedrock-agentcore", region_name="us-east-1", endpoint_url=endpoint.url)


def test_the_deployed_runtime_makes_its_cards_through_a_real_client_on_the_stand_in(
    client: Any, endpoint: HarnessEndpoint
) -> None:
    ports = ToolPorts(MemoryDirectory(PEOPLE), MemoryCalendar(), MemoryDraftStore())
    request = TurnRequest(
        "user-1", "sess-1", "Email Kinshuok about the doc and schedule a sync with Priya on Thursday",
        "Europe/Berlin",
    )  # fmt: skip

    results = AgentCoreRuntime(client, h.HARNESS_ARN, product_flows(ports)).run_turn(request)

    made = [card.type for card in results.client_actions]
    assert made == ["show_new_email_draft", "show_meeting_scheduler"]
    first = endpoint.harness.requests[0]
    # The members botocore placed in the query string and the headers arrive as the caller passed them.
    assert first["harnessArn"] == h.HARNESS_ARN
    assert first["runtimeSessionId"] == runtime_session_id("user-1", "sess-1")
    assert first["runtimeUserId"] == "user-1"
    assert [tool["name"] for tool in first["tools"]] == list(REGISTRY)  # every tool, in declaration order


def test_a_request_the_harness_refuses_is_the_services_error_through_the_client(client: Any) -> None:
    result = {"toolResult": {"toolUseId": "t1", "content": [{"text": "done"}]}}

    with pytest.raises(ClientError) as refused:
        client.invoke_harness(
            harnessArn=h.HARNESS_ARN,
            runtimeSessionId=runtime_session_id("u", "s"),
            messages=[{"role": "user", "content": [result]}],
        )

    assert refused.value.response["Error"]["Code"] == "ValidationException"
    assert "toolResult must follow" in refused.value.response["Error"]["Message"]
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def _post(endpoint: HarnessEndpoint, path: str, body: bytes) -> tuple[int, dict[str, str], Any]:
    host, port = endpoint.server_address[:2]
    connection = http.client.HTTPConnection(str(host), port, timeout=10)
    try:
        connection.request("POST", path, body, {"Content-Type": "application/json"})
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), json.loads(answer.read())
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("path", "body", "status", "code", "says"),
    [
        ("/harnesses/invoke?harnessArn=x", b"not json", 400, "ValidationException", "Expecting value"),
        ("/harnesses/invoke?harnessArn=x", b"[]", 400, "ValidationException", "not a JSON object"),
        # botocore's own validator: the session id header is required, an unknown member is refused
        ("/harnesses/invoke?harnessArn=x", b'{"messages": []}', 400, "ValidationException", "SessionId"),
        (
            "/harnesses/invoke?harnessArn=x",
            b'{"messages": [], "color": "red"}',
            400,
            "ValidationException",
            "Unknown parameter",
        ),
        ("/agents/invoke", b"{}", 404, "UnknownOperationException", "Only InvokeHarness"),
    ],
)
def test_bad_requests_are_rest_json_errors_that_name_the_problem(
    endpoint: HarnessEndpoint, path: str, body: bytes, status: int, code: str, says: str
) -> None:
    answered, headers, error = _post(endpoint, path, body)

    assert answered == status
    assert headers["x-amzn-ErrorType"] == code
    assert says in error["message"]
    assert endpoint.harness.requests == []


def test_request_params_place_each_member_where_the_operation_model_puts_it() -> None:
    params = request_params(
        "/harnesses/invoke?harnessArn=arn%3Aaws%3Ax&qualifier=DEFAULT",
        {"X-Amzn-Bedrock-AgentCore-Runtime-Session-Id": "s" * 33, "X-Amzn-Trace-Id": "Root=1"},
        b'{"messages": [], "maxTokens": 100}',
    )

    assert params == {
        "harnessArn": "arn:aws:x",
        "qualifier": "DEFAULT",
        "runtimeSessionId": "s" * 33,
        "traceId": "Root=1",
        "messages": [],
        "maxTokens": 100,
    }


def test_the_encoded_stream_decodes_with_botocores_parser_as_the_events_it_was_made_of() -> None:
    events = h.calls(("t1", "create_email_draft", {"to": ["Kinshuok"]}), pieces=3)

    buffer = EventStreamBuffer()
    buffer.add_data(encode_stream(events))
    decoded = [
        {message.headers[":event-type"]: json.loads(message.payload)}
        for message in buffer
        if message.headers[":message-type"] == "event"
    ]

    assert decoded == events
    assert EVENT_STREAM == "application/vnd.amazon.eventstream"
