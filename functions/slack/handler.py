"""HTTP API ``POST /slack/events`` (Slack's events and interactions, no JWT: Slack's signature is the
authentication); and the asynchronous invocations that run a turn a Slack message started and act on
a Confirm or a Discard clicked in Slack.

The app (:func:`multitool.wiring.slack.aws_slack_app`) is built on the first request, so importing this
module reads no environment and no secret.
"""

from __future__ import annotations

from typing import Any

from multitool.api.startup import first_invocation, init_phase

# Loaded on a stack of their own, the collector off until the first invocation ends (startup): the
# app, its wiring, and the chat API's whose turns a message starts (a click loads the review's on its
# first use).
with init_phase("multitool.slack.app", "multitool.wiring.slack", "multitool.wiring.orchestrator"):
    from aws_lambda_powertools.logging import correlation_paths
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from multitool.chat.turn_invocations import turn_id_of
    from multitool.observability import logger, metrics, tracer
    from multitool.slack.app import click_of
    from multitool.wiring.slack import aws_slack_app


@first_invocation  # then what the init and the first invocation made is frozen
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics(capture_cold_start_metric=True)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    app = aws_slack_app()
    turn_id = turn_id_of(event)
    if turn_id is not None:
        return app.run_turn(turn_id, context)
    click = click_of(event)
    if click is not None:
        return app.run_click(click)
    return app.handle(event, context)
