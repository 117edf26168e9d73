"""The AgentCore Gateway Lambda-target wire: tell a Gateway call from an action-group event, and answer it.

The Gateway invokes a Lambda target once per MCP ``tools/call`` with the tool's arguments as the
whole event (a flat JSON object, no envelope). What the call is lives in the Lambda *context*:
``context.client_context.custom`` holds ``bedrockAgentCoreToolName`` (``<target>___<tool>``)
beside the gateway, target, request and MCP message ids. So the two wires are told apart by the
context, never by the arguments: a context carrying any ``bedrockAgentCore*`` key is a Gateway
call; anything else is a Bedrock action-group event (:mod:`multitool.tools.bedrock`).

Who is asking never comes from the arguments either. The AgentCore Gateway passes no user to its
targets, so a call it makes produces an *unclaimed* draft (:data:`multitool.drafts.UNCLAIMED_OWNER`),
in the deployment's default time zone, at the Lambda's clock; only the orchestrator whose own turn
shows the draft in its stream may claim it for its user (:mod:`multitool.runtimes.claims`). An invoker that
verified its caller itself (``multitool mcp``: the local user it serves) names that caller in the
same context, under :data:`CALLER_KEYS`, and signs them (:data:`CALLER_SIGNATURE_KEY`, an HMAC with
the key in the function's ``CALLER_CONTEXT_KEY``). Any principal allowed to invoke the Lambda can
set a client context, so the keys count only with a valid signature: a function without the key (the
stack sets none) or a call without a valid signature ignores them, and the draft is unclaimed.
Through the stack's user Gateway (outside MCP clients, signed in to Cognito) the caller comes in a
signed argument its request interceptor adds instead (:mod:`multitool.ports.agentcore.gateway_caller`).

The answer is the tool's payload, or ``{"error": {"code", "message", "field"}}`` for a call the
tool cannot act on (bad arguments, unknown tool, missing context): a result the model can read and
fix its call from, never an exception or a stack trace.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import msgspec
from aws_lambda_powertools.metrics import MetricUnit
from msgspec.structs import replace

from multitool.drafts import UNCLAIMED_OWNER
from multitool.observability import error_fields, logger, metrics
from multitool.toolkit.context import ToolContext
from multitool.toolkit.errors import InvalidInput, ToolError, ToolFailed, UnknownTool
from multitool.toolkit.spec import ToolSpec
from multitool.tools import REGISTRY, run_calls
from multitool.tools.environment import EnvironmentProvider

GATEWAY_KEY_PREFIX = "bedrockAgentCore"
TOOL_NAME_KEY = "bedrockAgentCoreToolName"
GATEWAY_ID_KEY = "bedrockAgentCoreGatewayId"
TARGET_ID_KEY = "bedrockAgentCoreTargetId"
REQUEST_ID_KEY = "bedrockAgentCoreAwsRequestId"
MESSAGE_ID_KEY = "bedrockAgentCoreMcpMessageId"
MESSAGE_VERSION_KEY = "bedrockAgentCoreMessageVersion"
TARGET_SEPARATOR = "___"
"""Between the target name and the tool name in ``bedrockAgentCoreToolName``."""

CALLER_ID_KEY = "multitoolCallerId"
CALLER_TIMEZONE_KEY = "multitoolCallerTimezone"
CALLER_EMAIL_KEY = "multitoolCallerEmail"
CALLER_NOW_KEY = "multitoolCallerNow"
CALLER_SESSION_KEY = "multitoolCallerSession"
CALLER_KEYS = (CALLER_ID_KEY, CALLER_TIMEZONE_KEY, CALLER_EMAIL_KEY, CALLER_NOW_KEY, CALLER_SESSION_KEY)
"""What an invoker that verified its caller may add to the client context (never the Gateway)."""
CALLER_SIGNATURE_KEY = "multitoolCallerSignature"
"""HMAC-SHA256 (hex) of :func:`signed_caller_text`, with the key only the verifying invoker holds."""

MAX_TOOL_NAME_CHARS = 256


def client_custom(context: Any) -> Mapping[str, Any] | None:
    """``context.client_context.custom``, if the context has one that is a mapping."""
    client_context = getattr(context, "client_context", None)
    custom = getattr(client_context, "custom", None)
    if custom is None and isinstance(client_context, Mapping):
        custom = client_context.get("custom")
    return custom if isinstance(custom, Mapping) else None


def is_gateway_call(context: Any) -> bool:
    """Whether the invocation came through an AgentCore Gateway (its keys are in the client context)."""
    custom = client_custom(context)
    return custom is not None and any(
        isinstance(key, str) and key.startswith(GATEWAY_KEY_PREFIX) for key in custom
    )


def signed_caller_text(custom: Mapping[str, Any]) -> bytes:
    """What a caller signature covers: the caller keys, bound to this one call (request and tool)."""
    covered = {key: custom.get(key) for key in (*CALLER_KEYS, REQUEST_ID_KEY, TOOL_NAME_KEY)}
    return json.dumps(covered, sort_keys=True, separators=(",", ":")).encode()


def sign_caller(custom: Mapping[str, Any], key: bytes) -> dict[str, Any]:
    """``custom`` with its caller signature: what ``multitool mcp`` sends."""
    signature = hmac.new(key, signed_caller_text(custom), hashlib.sha256).hexdigest()
    return {**custom, CALLER_SIGNATURE_KEY: signature}


def signed_by(custom: Mapping[str, Any], key: bytes | None) -> bool:
    """Whether the caller keys in ``custom`` carry a valid signature made with ``key``."""
    signature = custom.get(CALLER_SIGNATURE_KEY)
    if key is None or not isinstance(signature, str):
        return False
    expected = hmac.new(key, signed_caller_text(custom), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)


def tool_name_of(qualified: str) -> str:
    """``<target>___<tool>`` -> ``<tool>``; a name without a target prefix is taken as it is.

    The target name is everything before the LAST separator, so a target whose own name holds
    three underscores still parses; tool names never contain the separator.
    """
    return qualified.rpartition(TARGET_SEPARATOR)[2].strip()


class GatewayCall(msgspec.Struct, frozen=True):
    """What the context says about one Gateway tool call."""

    qualified_name: str
    tool: str
    gateway_id: str
    target_id: str
    request_id: str
    message_id: str
    custom: Mapping[str, Any]

    @classmethod
    def from_context(cls, context: Any) -> GatewayCall:
        custom = client_custom(context)
        if custom is None:
            raise InvalidInput(
                "The Gateway call has no client context; it must name the tool.", field=TOOL_NAME_KEY
            )
        name = custom.get(TOOL_NAME_KEY)
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput(f"The Gateway call's context has no '{TOOL_NAME_KEY}'.", field=TOOL_NAME_KEY)
        if len(name) > MAX_TOOL_NAME_CHARS:
            raise InvalidInput(
                f"The tool name is longer than {MAX_TOOL_NAME_CHARS} characters.", field=TOOL_NAME_KEY
            )

        def text(key: str) -> str:
            value = custom.get(key)
            return value if isinstance(value, str) else ""

        request_id = text(REQUEST_ID_KEY) or str(getattr(context, "aws_request_id", "") or uuid.uuid4())
        return cls(
            qualified_name=name,
            tool=tool_name_of(name),
            gateway_id=text(GATEWAY_ID_KEY),
            target_id=text(TARGET_ID_KEY),
            request_id=request_id,
            message_id=text(MESSAGE_ID_KEY),
            custom=custom,
        )

    def tool_context(
        self, default_timezone: str, caller_key: bytes | None = None, caller_argument: Any = None
    ) -> ToolContext:
        """Who is asking: the verified caller the invoker named and signed, else nobody yet (unclaimed).

        Caller keys without a valid signature are ignored (logged): the draft is then unclaimed, so
        an invoker that names another user gets a draft nobody can confirm, never hers. So is a
        ``caller_argument`` (the user Gateway's interceptor's) that is not signed for this call.
        """
        custom = self.custom
        if caller_argument is not None:
            from multitool.ports.agentcore.gateway_caller import (
                CALLER_EMAIL,
                CALLER_ID,
                CALLER_TIMEZONE,
                verified_caller,
            )

            # The interceptor's caller replaces anything the context says of the caller.
            verified = verified_caller(caller_argument, self.qualified_name, caller_key)
            custom = {k: v for k, v in custom.items() if k not in (*CALLER_KEYS, CALLER_SIGNATURE_KEY)}
            if verified is None:
                logger.warning("Caller argument ignored: not signed for this call", extra={"tool": self.tool})
                metrics.add_metric(name="CallerContextIgnored", unit=MetricUnit.Count, value=1)
            else:
                named = {
                    CALLER_ID_KEY: CALLER_ID,
                    CALLER_EMAIL_KEY: CALLER_EMAIL,
                    CALLER_TIMEZONE_KEY: CALLER_TIMEZONE,
                }
                custom |= {
                    key: verified[field] for key, field in named.items() if verified[field] is not None
                }
            return replace(self, custom=custom)._context(default_timezone, trusted=verified is not None)
        return self._context(default_timezone, trusted=signed_by(custom, caller_key))

    def _context(self, default_timezone: str, *, trusted: bool) -> ToolContext:
        caller = self.custom.get(CALLER_ID_KEY)
        named = any(key in self.custom for key in CALLER_KEYS)
        if named and not trusted:
            logger.warning(
                "Caller context ignored: not signed by this deployment's key",
                extra={"gateway_id": self.gateway_id, "signed": CALLER_SIGNATURE_KEY in self.custom},
            )
            metrics.add_metric(name="CallerContextIgnored", unit=MetricUnit.Count, value=1)
            caller = None
        if caller is None:
            return ToolContext(
                owner=UNCLAIMED_OWNER,
                session_id=f"gateway:{self.request_id}",
                now=datetime.now(UTC),
                timezone=default_timezone,
            )
        attributes = {
            "userId": caller,
            "timezone": self.custom.get(CALLER_TIMEZONE_KEY),
            "userEmail": self.custom.get(CALLER_EMAIL_KEY),
            "now": self.custom.get(CALLER_NOW_KEY),
        }
        session = self.custom.get(CALLER_SESSION_KEY)
        session_id = session if isinstance(session, str) and session else f"gateway:{self.request_id}"
        try:
            return ToolContext.from_session(session_id, attributes, default_timezone=default_timezone)
        except InvalidInput as error:  # name the context key the invoker got wrong
            raise InvalidInput(error.message, field=_caller_key(error.field)) from None


def _caller_key(field: str | None) -> str | None:
    return {
        "sessionAttributes.userId": CALLER_ID_KEY,
        "sessionAttributes.timezone": CALLER_TIMEZONE_KEY,
        "sessionAttributes.userEmail": CALLER_EMAIL_KEY,
        "sessionAttributes.now": CALLER_NOW_KEY,
    }.get(field or "", field)


def _unknown_tool(call: GatewayCall, spec: ToolSpec) -> UnknownTool:
    return UnknownTool(
        f"There is no tool '{call.qualified_name}' on this target. Use: {spec.name}.", field="name"
    )


def answer_gateway_call(
    spec: ToolSpec, event: Any, context: Any, environment: EnvironmentProvider
) -> dict[str, Any]:
    """Run one Gateway call of ``spec``'s Lambda: its payload, or an error body; never raises."""
    try:
        call = GatewayCall.from_context(context)
        if call.tool != spec.name or REGISTRY.get(call.tool) is not spec:
            raise _unknown_tool(call, spec)
        if not isinstance(event, Mapping):
            raise InvalidInput("The tool arguments must be a JSON object.", field="arguments")
        from multitool.ports.agentcore.gateway_caller import CALLER_ARGUMENT

        arguments = dict(event)
        caller_argument = arguments.pop(CALLER_ARGUMENT, None)  # never a tool argument
        tools = environment()
        ctx = call.tool_context(tools.default_timezone, tools.caller_key, caller_argument)
        (outcome,) = run_calls([(spec.name, arguments)], ctx, tools.ports, tools.config)
        if outcome.error is not None:
            raise outcome.error
    except ToolError as error:
        logger.info("Gateway tool call refused", extra={"code": error.code, "field": error.field})
        metrics.add_metric(name="ToolCallsRefused", unit=MetricUnit.Count, value=1)
        return error.to_body()
    except Exception as error:  # the last line of defence: the model always gets a readable result
        logger.error("Unhandled error answering a Gateway call", extra=error_fields(error))
        return ToolFailed().to_body()
    payload = dict(outcome.payload or {})
    metrics.add_metric(name="DraftsProposed", unit=MetricUnit.Count, value=1)
    logger.info(
        "Draft proposed",
        extra={
            "tool": spec.name,
            "draft_id": payload.get("draftId"),
            "gateway_id": call.gateway_id,
            "mcp_message_id": call.message_id,
            "unclaimed": ctx.owner == UNCLAIMED_OWNER,
        },
    )
    return payload
