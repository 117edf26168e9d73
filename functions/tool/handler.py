"""Every tool's Lambda: the Bedrock action group and the AgentCore Gateway target of one tool.

Which tool is the function's ``TOOL_MODULE``, set by the stack per function
(``infra/stack.py``): the module the registry declares for it
(``multitool.tools.email.email_draft``), named after its action group (``email_draft``). The
init loads that module and no other tool's, as each tool's own handler did. The Gateway's calls
are told apart from Bedrock's by the invocation's context. Drafts and cards only: nothing is
sent, booked or changed until the user confirms.
"""

from __future__ import annotations

import os
from typing import Any

from multitool.api.startup import first_invocation, init_phase

TOOL_MODULE = os.environ["TOOL_MODULE"]
ACTION_GROUP = TOOL_MODULE.rpartition(".")[2]

# Loaded on a stack of their own, the collector off until the first invocation ends (startup).
with init_phase("multitool.wiring.action_groups", TOOL_MODULE):
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from multitool.observability import logger, metrics, tracer
    from multitool.tools.apps import handle
    from multitool.wiring.action_groups import tool_app

    app = tool_app(ACTION_GROUP)


@first_invocation  # then what the init and the first invocation made is frozen
@logger.inject_lambda_context(correlation_id_path="sessionId")
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle(app, event, context)
