"""Bedrock action group `jira_transition`: Jira issues moved to another status (POST /jira-transitions).

Also the AgentCore Gateway target `jira-transition`, told apart by the invocation's context.
Cards only; nothing is changed in Jira until the user confirms.
"""

from __future__ import annotations

from typing import Any

from multitool.api.startup import first_invocation, init_phase

# Loaded on a stack of their own, the collector off until the first invocation ends (startup).
with init_phase("multitool.wiring.action_groups", "multitool.tools.jira_transition.jira_transition"):
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from multitool.observability import logger, metrics, tracer
    from multitool.tools.apps import handle
    from multitool.wiring.action_groups import tool_app

    app = tool_app("jira_transition")


@first_invocation  # then what the init and the first invocation made is frozen
@logger.inject_lambda_context(correlation_id_path="sessionId")
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle(app, event, context)
