"""HTTP API `review`: GET /actions/{id}, POST /actions/{id}/confirm, /undo and /discard; and the undo
queue's batches (an SQS event source mapping): the confirmed mails whose undo window has passed.

The only function that sends mail, books meetings and creates Jira issues, once
per draft, for the draft's owner; its adapters are :mod:`multitool.wiring.review`'s.
"""

from __future__ import annotations

from typing import Any

from multitool.api.startup import first_invocation, init_phase

# Loaded on a stack of their own, the collector off until the first invocation ends (startup).
with init_phase("multitool.wiring.review"):
    from aws_lambda_powertools.logging import correlation_paths
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from multitool.api.due_sends import is_queue_event
    from multitool.observability import logger, metrics, tracer
    from multitool.wiring.review import review_function_app, undo_queue_handler

    app = review_function_app()
    due = undo_queue_handler()


@first_invocation  # then what the init and the first invocation made is frozen
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if is_queue_event(event):
        return due(event, context)
    return app.resolve(event, context)
