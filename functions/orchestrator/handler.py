"""HTTP API `POST /chat` and `GET /turns/{id}`; and the asynchronous invocation that runs a started turn.

The app is built here once over the adapters :mod:`multitool.wiring.orchestrator` chooses; its
service (settings, clients, runtime) is built on the first request, so importing this module reads
no environment.
"""

from __future__ import annotations

from typing import Any

from multitool.api.startup import first_invocation, init_phase

# Loaded on a stack of their own, the collector off until the first invocation ends (startup).
with init_phase("multitool.wiring.orchestrator"):
    from aws_lambda_powertools.logging import correlation_paths
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from multitool.chat.turn_invocations import turn_id_of
    from multitool.observability import logger, metrics, tracer
    from multitool.wiring.orchestrator import orchestrator_app, run_turn

    app = orchestrator_app()


@first_invocation  # then what the init and the first invocation made is frozen
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics(capture_cold_start_metric=True)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    turn_id = turn_id_of(event)
    if turn_id is not None:
        return run_turn(turn_id, context)
    return app.resolve(event, context)
