"""API Gateway HTTP API (payload format 2.0) events, as the JWT-authorized API sends them.

``http_api_event("POST", "/chat", {"message": "hi"}, sub="user-1")`` builds the
event a Lambda behind an HTTP API route with a JWT authorizer receives: the
caller's claims sit at ``requestContext.authorizer.jwt.claims``.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from typing import Any

JsonBody = dict[str, Any] | list[Any] | str | bytes | None

# The HTTP API's routes: what infra/components/api.py deploys (tests/infra/test_stack_agent.py), the local
# gateway serves and the OpenAPI document describes (tests/functional/flows/test_http_openapi.py).
ROUTE_KEYS = {
    "POST /chat",
    "GET /turns/{id}",
    "GET /sessions/{id}",
    "GET /actions/{id}",
    "POST /actions/{id}/confirm",
    "POST /actions/{id}/discard",
    "POST /actions/confirm-all",
    "POST /actions/{id}/undo",
    "GET /connections",
    "POST /connections/complete",
    "POST /connections/{provider}/disconnect",
}


def _encode_body(body: JsonBody) -> tuple[str | None, bool]:
    if body is None:
        return None, False
    if isinstance(body, bytes):
        return base64.b64encode(body).decode("ascii"), True
    if isinstance(body, str):
        return body, False
    return json.dumps(body), False


def http_api_event(
    method: str,
    path: str,
    body: JsonBody = None,
    sub: str | None = "user-1",
    path_parameters: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    *,
    query: dict[str, str] | None = None,
    claims: dict[str, Any] | None = None,
    route_key: str | None = None,
) -> dict[str, Any]:
    """An HTTP API v2 event for ``method path``.

    ``body``: a dict/list is JSON-encoded, a str is sent as is (use it for
    malformed JSON), bytes are base64-encoded with ``isBase64Encoded``.
    ``sub=None`` builds an event without an authorizer (an unauthenticated call).
    """
    encoded, is_base64 = _encode_body(body)
    all_headers = {"content-type": "application/json", "host": "api.example.com", "user-agent": "pytest"}
    all_headers.update({k.lower(): v for k, v in (headers or {}).items()})
    now = time.time()
    request_context: dict[str, Any] = {
        "accountId": "123456789012",
        "apiId": "api1234567",
        "domainName": "api1234567.execute-api.us-east-1.amazonaws.com",
        "domainPrefix": "api1234567",
        "http": {
            "method": method.upper(),
            "path": path,
            "protocol": "HTTP/1.1",
            "sourceIp": "203.0.113.10",
            "userAgent": "pytest",
        },
        "requestId": str(uuid.uuid4()),
        "routeKey": route_key or f"{method.upper()} {path}",
        "stage": "$default",
        "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
        "timeEpoch": int(now * 1000),
    }
    if sub is not None:
        jwt_claims: dict[str, Any] = {
            "sub": sub,
            "iss": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_example",
            "token_use": "access",
            "client_id": "exampleclientid",
            "scope": "openid",
        }
        jwt_claims.update(claims or {})
        request_context["authorizer"] = {"jwt": {"claims": jwt_claims, "scopes": None}}
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": request_context["routeKey"],
        "rawPath": path,
        "rawQueryString": "&".join(f"{k}={v}" for k, v in (query or {}).items()),
        "headers": all_headers,
        "requestContext": request_context,
        "isBase64Encoded": is_base64,
    }
    if query:
        event["queryStringParameters"] = dict(query)
    if path_parameters:
        event["pathParameters"] = dict(path_parameters)
    if encoded is not None:
        event["body"] = encoded
    return event


class FakeLambdaContext:
    """The attributes Powertools reads from a Lambda context object."""

    function_name = "orchestrator"
    function_version = "$LATEST"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:orchestrator"
    memory_limit_in_mb = 512
    aws_request_id = "00000000-0000-0000-0000-000000000000"
    log_group_name = "/aws/lambda/orchestrator"
    log_stream_name = "2026/01/01/[$LATEST]0000"

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


def json_body(response: dict[str, Any]) -> Any:
    """The decoded JSON body of a Lambda proxy response."""
    body = response.get("body") or ""
    if response.get("isBase64Encoded"):
        body = base64.b64decode(body).decode()
    return json.loads(body) if body else None
