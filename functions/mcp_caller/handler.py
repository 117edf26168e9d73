"""The user Gateway's REQUEST interceptor: each ``tools/call`` names its signed-in user to the target.

Nothing else changes in a request; the bearer token is read, never logged or passed on
(:mod:`multitool.ports.agentcore.gateway_caller`).
"""

from __future__ import annotations

from typing import Any

from multitool.api.startup import first_invocation, init_phase

# Loaded on a stack of their own, the collector off until the first invocation ends (startup).
with init_phase("multitool.wiring.interceptor", "multitool.observability"):
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from multitool.observability import logger, metrics, tracer
    from multitool.ports.agentcore.gateway_caller import intercept
    from multitool.wiring.interceptor import aws_interceptor


@first_invocation  # then what the init and the first invocation made is frozen
@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    interceptor = aws_interceptor()
    return intercept(event, key=interceptor.key, profile=interceptor.profile)
