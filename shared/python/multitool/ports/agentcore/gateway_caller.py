"""Who calls through the user Gateway: the request interceptor names the signed-in user, the target checks.

The stack's second AgentCore Gateway (``executor=gateway``: the one outside MCP clients connect to)
authorizes inbound requests with a JWT authorizer on the stack's Cognito pool. The Gateway passes
no user on to its Lambda targets, and a target's client context is the Gateway's to write, so the
Gateway's REQUEST interceptor (https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/gateway-interceptors-types.html)
carries the caller in the one thing it may change, the ``tools/call`` request's arguments:

- :func:`intercept` (the interceptor Lambda) drops whatever the client put under
  :data:`CALLER_ARGUMENT`, reads the verified token's ``sub`` and the user's verified email and zone,
  and adds them under :data:`CALLER_ARGUMENT` with an expiry and the tool's name, signed with an
  HMAC key only the interceptor and the targets hold (a Secrets Manager secret of the stack).
- :func:`verified_caller` (the target, :mod:`multitool.tools.gateway_target`) takes the argument out
  before the tool sees its arguments and honours it only with a valid signature, for this tool,
  unexpired. A client cannot forge it (it has no key) nor replay one onto another tool or later.

The interceptor reads the token's claims without checking its signature: the Gateway's JWT
authorizer has already verified it (signature, issuer, client, scope) before any interceptor runs,
and only the Gateway may invoke the interceptor. The token itself goes no further: it is never
put in the arguments, logged or passed to a target.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

CALLER_ARGUMENT = "multitoolCaller"
"""The ``tools/call`` argument the interceptor adds (and removes from what a client sends)."""
CALLER_SECONDS = 300
"""How long a signed caller argument is good for: one tool call, sent on at once."""
INTERCEPTOR_VERSION = "1.0"
CALLER_ID = "id"
CALLER_EMAIL = "email"
CALLER_TIMEZONE = "timezone"
CALLER_FIELDS = (CALLER_ID, CALLER_EMAIL, CALLER_TIMEZONE)
"""Who the caller is, in the signed argument (beside ``tool``, ``expires`` and ``signature``)."""


class Profile(msgspec.Struct, frozen=True):
    """What the directory (the Cognito pool) says of the token's user."""

    email: str | None
    timezone: str | None


ProfileLookup = Callable[[Mapping[str, Any]], Profile]
"""The token's claims -> the user's profile (verified email, zone)."""


def _signed_text(caller: Mapping[str, Any]) -> bytes:
    covered = {key: caller.get(key) for key in (*CALLER_FIELDS, "tool", "expires")}
    return json.dumps(covered, sort_keys=True, separators=(",", ":")).encode()


def sign_caller_argument(caller: Mapping[str, Any], key: bytes) -> dict[str, Any]:
    signature = hmac.new(key, _signed_text(caller), hashlib.sha256).hexdigest()
    return {**caller, "signature": signature}


def verified_caller(
    value: Any, tool: str, key: bytes | None, now: float | None = None
) -> dict[str, Any] | None:
    """The caller keys of a signed caller argument for ``tool``; None unless signed, for it, unexpired."""
    if key is None or not isinstance(value, Mapping) or not isinstance(value.get("signature"), str):
        return None
    expected = hmac.new(key, _signed_text(value), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, value["signature"]):
        return None
    expires = value.get("expires")
    if value.get("tool") != tool or not isinstance(expires, int) or expires < (now or time.time()):
        return None
    if not isinstance(value.get(CALLER_ID), str) or not value[CALLER_ID]:
        return None
    return {k: value.get(k) for k in CALLER_FIELDS}


def token_claims(headers: Mapping[str, Any]) -> dict[str, Any] | None:
    """The claims of the request's bearer JWT (already verified by the Gateway); None without one."""
    value = next((v for k, v in headers.items() if str(k).lower() == "authorization"), None)
    if not isinstance(value, str):
        return None
    scheme, _, token = value.strip().partition(" ")
    parts = token.strip().split(".")
    if scheme.lower() != "bearer" or len(parts) != 3:
        return None
    try:
        payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, TypeError):
        return None
    return payload if isinstance(payload, dict) else None


def _passed(body: Any) -> dict[str, Any]:
    return {
        "interceptorOutputVersion": INTERCEPTOR_VERSION,
        "mcp": {"transformedGatewayRequest": {"body": body}},
    }


def intercept(
    event: Mapping[str, Any], *, key: bytes, profile: ProfileLookup, now: float | None = None
) -> dict[str, Any]:
    """The REQUEST interceptor's answer: the request as sent, with a ``tools/call`` naming its caller.

    Anything but a ``tools/call`` passes unchanged. A ``tools/call`` loses any caller argument the
    client wrote; it gets the verified one when the token names a user (``sub``), and none otherwise
    (the target then makes an unclaimed draft, as for any caller it cannot name).
    """
    mcp = event.get("mcp") if isinstance(event, Mapping) else None
    request = mcp.get("gatewayRequest") if isinstance(mcp, Mapping) else None
    body = request.get("body") if isinstance(request, Mapping) else None
    if not isinstance(body, Mapping) or body.get("method") != "tools/call":
        return _passed(body)
    params = body.get("params")
    if not isinstance(params, Mapping) or not isinstance(params.get("name"), str):
        return _passed(body)  # the Gateway answers a malformed call itself
    arguments = params.get("arguments")
    arguments = (
        {k: v for k, v in arguments.items() if k != CALLER_ARGUMENT} if isinstance(arguments, Mapping) else {}
    )
    headers = request.get("headers") if isinstance(request, Mapping) else None
    claims = token_claims(headers) if isinstance(headers, Mapping) else None
    sub = claims.get("sub") if claims else None
    if claims is not None and isinstance(sub, str) and sub:
        found = profile(claims)
        caller = {
            CALLER_ID: sub,
            CALLER_EMAIL: found.email,
            CALLER_TIMEZONE: found.timezone,
            "tool": params["name"],
            "expires": int(now or time.time()) + CALLER_SECONDS,
        }
        arguments[CALLER_ARGUMENT] = sign_caller_argument(caller, key)
    return _passed({**body, "params": {**params, "arguments": arguments}})


def cognito_profile(client: Any, user_pool_id: str) -> ProfileLookup:
    """The user's verified email and zone from the pool (a Cognito access token carries neither):
    ``AdminGetUser`` by the token's ``username``."""

    from botocore.exceptions import BotoCoreError, ClientError

    def lookup(claims: Mapping[str, Any]) -> Profile:
        username = claims.get("username") or claims.get("cognito:username") or claims.get("sub")
        try:
            answer = client.admin_get_user(UserPoolId=user_pool_id, Username=str(username))
        except (ClientError, BotoCoreError) as error:
            # The token's sub is verified either way: the draft is still theirs, in the default zone.
            from multitool.observability import error_fields, logger

            logger.warning("The signed-in user's profile could not be read", extra=error_fields(error))
            return Profile(None, None)
        attributes = {a["Name"]: a.get("Value") for a in answer.get("UserAttributes", [])}
        verified = attributes.get("email_verified") == "true"
        return Profile(attributes.get("email") if verified else None, attributes.get("zoneinfo") or None)

    return lookup


def secret_key(client: Any, secret_arn: str) -> bytes:
    """The caller-signing key: the stack's generated secret, as bytes."""
    return str(client.get_secret_value(SecretId=secret_arn)["SecretString"]).encode()


class Interceptor(msgspec.Struct, frozen=True):
    key: bytes
    profile: ProfileLookup
