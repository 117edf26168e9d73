"""AgentCore Gateway Lambda-target invocations in the real wire shape, for any suite.

The Gateway invokes the target with the tool's arguments as the whole payload and its own ids in
the client context. The context here is built the way Lambda builds it: from ``Invoke``'s
``ClientContext`` parameter (base64 JSON, checked against botocore's Lambda model), decoded into
the runtime's ``ClientContext`` object.
"""

from __future__ import annotations

import base64
import json
import uuid
from dataclasses import dataclass
from typing import Any

import botocore.session
from botocore.model import Shape
from botocore.validate import validate_parameters
from multitool.local.sandbox.lambdas import ClientContext, LambdaContext, encode_client_context
from multitool.tools.gateway_target import (
    GATEWAY_ID_KEY,
    MESSAGE_ID_KEY,
    MESSAGE_VERSION_KEY,
    REQUEST_ID_KEY,
    TARGET_ID_KEY,
    TOOL_NAME_KEY,
)

GATEWAY_ID = "multitool-gw-abc123"
TARGET_IDS = {"email_draft": "EMAILTGT01", "meeting_scheduler": "MEETTGT001", "jira_draft": "JIRATGT001"}


def _invoke_input() -> Shape:
    shape = botocore.session.get_session().get_service_model("lambda").operation_model("Invoke").input_shape
    assert shape is not None  # Invoke takes input
    return shape


_INVOKE = _invoke_input()


def gateway_custom(qualified_tool: str, **extra: str) -> dict[str, str]:
    """The ``custom`` map the Gateway sends with one ``tools/call``."""
    target = qualified_tool.partition("___")[0]
    return {
        TOOL_NAME_KEY: qualified_tool,
        GATEWAY_ID_KEY: GATEWAY_ID,
        TARGET_ID_KEY: TARGET_IDS.get(target, "TARGET0001"),
        REQUEST_ID_KEY: str(uuid.uuid4()),
        MESSAGE_ID_KEY: str(uuid.uuid4()),
        MESSAGE_VERSION_KEY: "1.0",
        **extra,
    }


def gateway_context(custom: dict[str, str], function_name: str = "multitool-email-draft") -> LambdaContext:
    """A Lambda context whose client context is what ``Invoke(ClientContext=...)`` carried."""
    encoded = encode_client_context(custom)
    validate_parameters({"FunctionName": function_name, "ClientContext": encoded, "Payload": b"{}"}, _INVOKE)
    return LambdaContext(function_name, client_context=ClientContext.from_invoke(encoded))


def invoke_target(handler: Any, arguments: Any, custom: dict[str, str]) -> Any:
    """Invoke a handler as the Gateway does: the arguments JSON round-tripped, the context set."""
    payload = json.loads(json.dumps(arguments))
    answer = handler(payload, gateway_context(custom))
    return json.loads(json.dumps(answer))  # what the Gateway reads back is JSON


# --------------------------------------------------------------------------- a harness that uses the Gateway


def _text_result(index: int, tool_use_id: str, text: str, status: str) -> list[dict[str, Any]]:
    """A toolResult block as the harness streams a Gateway answer: the MCP text content."""
    from tests.support.harness_streams import block_stop, checked

    start = {"toolUseId": tool_use_id, "status": status}
    return [
        checked({"contentBlockStart": {"contentBlockIndex": index, "start": {"toolResult": start}}}),
        checked(
            {"contentBlockDelta": {"contentBlockIndex": index, "delta": {"toolResult": [{"text": text}]}}}
        ),
        block_stop(index),
    ]


def gateway_turn_stream(calls: list[tuple[str, str, Any, Any]], final_text: str) -> list[dict[str, Any]]:
    """One InvokeHarness stream in which the harness ran Gateway calls itself.

    ``calls``: ``(toolUseId, qualified tool name, arguments, the Lambda's answer)``. The stream is
    the assistant's ``mcp_tool_use`` blocks, the tool message with one ``toolResult`` each (the
    answer as MCP text), and the final assistant text.
    """
    from tests.support.harness_streams import message_start, message_stop, metadata, text, tool_use

    events: list[dict[str, Any]] = [message_start("assistant")]
    for index, (use_id, name, args, _answer) in enumerate(calls):
        events += tool_use(index, use_id, name, args, kind="mcp_tool_use")
    events += [message_stop("tool_use"), message_start("user")]
    for index, (use_id, _name, _args, answer) in enumerate(calls):
        failed = isinstance(answer, dict) and "error" in answer
        events += _text_result(index, use_id, json.dumps(answer), "error" if failed else "success")
    events += [message_stop("tool_result"), message_start("assistant"), *text(0, final_text)]
    return [*events, message_stop("end_turn"), metadata()]


class GatewayHarness:
    """``invoke_harness`` for a harness whose tool is the Gateway: each scripted turn's calls are
    made through the real Lambda handlers, the way the Gateway invokes them (no caller keys)."""

    def __init__(self, handlers: dict[str, Any], *turns: list[tuple[str, Any]]) -> None:
        self.handlers = handlers
        self.turns = list(turns)
        self.requests: list[dict[str, Any]] = []
        self.answers: list[Any] = []

    def invoke_harness(self, **kwargs: Any) -> dict[str, Any]:
        from multitool.runtimes.offline_harness import validate_invoke_harness

        validate_invoke_harness(kwargs)
        self.requests.append(kwargs)
        assert [tool["type"] for tool in kwargs["tools"]] == ["agentcore_gateway"]
        calls = []
        for number, (name, args) in enumerate(self.turns.pop(0)):
            target = name.partition("___")[0].replace("-", "_")
            answer = invoke_target(self.handlers[target], args, gateway_custom(name))
            self.answers.append(answer)
            calls.append((f"tooluse_gw{number}", name, args, answer))
        return {"stream": iter(gateway_turn_stream(calls, "I drafted it for you to review."))}


MCP_CLIENT_ID = "4mcpclient0example"


def access_token(sub: str, username: str) -> str:
    """A Cognito access token's shape (the Gateway's JWT authorizer verified its signature already)."""

    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    claims = {
        "sub": sub,
        "iss": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Example",
        "client_id": MCP_CLIENT_ID,
        "token_use": "access",
        "scope": "openid multitool/tools",
        "username": username,
        "exp": 1_900_000_000,
    }
    return f"{part({'alg': 'RS256', 'kid': 'k1'})}.{part(claims)}.c2lnbmF0dXJl"


def interceptor_event(body: dict[str, Any], token: str | None) -> dict[str, Any]:
    """The REQUEST interceptor's input as the Gateway sends it (input version 1.0, headers passed)."""
    headers = {"Accept": "application/json", "Mcp-Session-Id": "s-1", "User-Agent": "vscode"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return {
        "interceptorInputVersion": "1.0",
        "mcp": {
            "rawGatewayRequest": {"body": json.dumps(body)},
            "gatewayRequest": {"path": "/mcp", "httpMethod": "POST", "headers": headers, "body": body},
        },
    }


def tools_call(name: str, arguments: dict[str, Any], request_id: int = 7) -> dict[str, Any]:
    """An MCP ``tools/call`` JSON-RPC request."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


@dataclass(frozen=True)
class GatewayUser:
    """The user Gateway's pieces as the stack makes them, seeded: its caller-signing secret and a
    Cognito pool with one user (verified email, a zone)."""

    secret_arn: str
    pool_id: str
    sub: str
    username: str


def seed_user_gateway(secrets: Any, cognito: Any, email: str, secret_name: str = "caller-key") -> GatewayUser:
    """Make the secret and the pool through the given Secrets Manager and Cognito clients."""
    secret = secrets.create_secret(Name=secret_name, SecretString="k" * 64)
    pool = cognito.create_user_pool(PoolName="users")["UserPool"]["Id"]
    user = cognito.admin_create_user(
        UserPoolId=pool,
        Username=email,
        UserAttributes=[
            {"Name": "email", "Value": email},
            {"Name": "email_verified", "Value": "true"},
            {"Name": "zoneinfo", "Value": "Europe/Berlin"},
        ],
    )["User"]
    sub = next(a["Value"] for a in user["Attributes"] if a["Name"] == "sub")
    return GatewayUser(secret["ARN"], pool, sub, user["Username"])
