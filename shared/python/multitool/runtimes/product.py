"""The product step: how inline, RETURN_CONTROL and Converse tool calls reach the tools.

One ``@batch`` handler for every tool in :data:`multitool.tools.REGISTRY`, so
all calls of a model response, whatever their mix, run as ONE batch through
:func:`multitool.tools.run_calls`: one directory read, one busy-time read and
one draft write however many calls there are. Each call's payload (or
``{"error": …}`` body) comes back as that call's result. A new tool needs no
change here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from multitool.client_actions import ClientActionError, caption, card_from_payload
from multitool.flow import Flow, Route, Step, ToolCall, batch, stay
from multitool.observability import logger
from multitool.runtimes.base import FlowFactory, TurnProgress, TurnRequest
from multitool.tools import REGISTRY, ToolConfig, ToolContext, ToolPorts, run_calls

TOOL_NAMES: tuple[str, ...] = tuple(sorted(REGISTRY))


class ProductStep(Step):
    """The one step of a chat turn: every tool, batched."""

    id = "product"

    def __init__(
        self,
        ctx: ToolContext,
        ports: ToolPorts,
        config: ToolConfig | None = None,
        progress: TurnProgress | None = None,
    ) -> None:
        self.ctx = ctx
        self.ports = ports
        self.config = config or ToolConfig()
        self.progress = progress

    @batch(TOOL_NAMES)
    def run_batch(self, calls: Sequence[ToolCall]) -> Route:
        """Run every call in one :func:`run_calls`; each call's body is its result."""
        outcomes = run_calls([(call.name, call.args) for call in calls], self.ctx, self.ports, self.config)
        bodies = {call.id: outcome.body for call, outcome in zip(calls, outcomes, strict=True)}
        if self.progress is not None:
            _report_cards(self.progress, bodies.values())
        return stay().with_results(bodies)


def _report_cards(progress: TurnProgress, bodies: Iterable[object]) -> None:
    """Each draft the batch made, as its card, before the model's next step (a failed report skips it)."""
    for body in bodies:
        if not isinstance(body, Mapping) or not isinstance(body.get("action"), str):
            continue
        try:
            card = card_from_payload(body)
            progress.card(card, caption(card))
        except ClientActionError:
            continue  # the turn's answer names this failure
        except Exception as error:  # progress is a courtesy: the turn goes on
            logger.warning("Card progress not reported", extra={"error_type": type(error).__name__})


def product_flow(
    ctx: ToolContext,
    ports: ToolPorts,
    config: ToolConfig | None = None,
    progress: TurnProgress | None = None,
) -> Flow:
    """A flow on the product step for one turn."""
    return Flow(steps=[ProductStep(ctx, ports, config, progress)], start=ProductStep)


def product_flows(ports: ToolPorts, config: ToolConfig | None = None) -> FlowFactory:
    """The flow factory runtimes call once per turn: the turn's context on the product step."""

    def build(request: TurnRequest) -> Flow:
        ctx = ToolContext(
            owner=request.user_id,
            session_id=request.session_id,
            now=request.now or datetime.now(UTC),
            timezone=request.timezone,
            requester_email=request.user_email,
        )
        return product_flow(ctx, ports, config, request.progress)

    return build
