"""AgentCore Gateway Lambda-target invocations in the real wire shape, for any suite.

The Gateway invokes the target with the tool's arguments as the whole payload and its own ids in
the client context. The context here is built the way Lambda builds it: from ``Invoke``'s
``ClientContext`` parameter (base64 JSON, checked against botocore's Lambda model), decoded into
the runtime's ``ClientContext`` object.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import botocore.session
from botocore.validate import validate_parameters
from multitool.local.lambdas import ClientContext, LambdaContext, encode_client_context
from multitool.tools.gateway import (
    GATEWAY_ID_KEY,
    MESSAGE_ID_KEY,
    MESSAGE_VERSION_KEY,
    REQUEST_ID_KEY,
    TARGET_ID_KEY,
    TOOL_NAME_KEY,
)

GATEWAY_ID = "multitool-gw-abc123"
TARGET_IDS = {"email_draft": "EMAILTGT01", "meeting_scheduler": "MEETTGT001", "jira_draft": "JIRATGT001"}

_INVOKE = botocore.session.get_session().get_service_model("lambda").operation_model("Invoke").input_shape


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
    validate_parameters(
        {"FunctionName": function_name, "ClientContext": encoded, "Payload": b"{}"}, _INVOKE
    )
    return LambdaContext(function_name, client_context=ClientContext.from_invoke(encoded))


def invoke_target(handler: Any, arguments: Any, custom: dict[str, str]) -> Any:
    """Invoke a handler as the Gateway does: the arguments JSON round-tripped, the context set."""
    payload = json.loads(json.dumps(arguments))
    answer = handler(payload, gateway_context(custom))
    return json.loads(json.dumps(answer))  # what the Gateway reads back is JSON
