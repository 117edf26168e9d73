"""The product step: how inline, RETURN_CONTROL and Converse tool calls reach the tools.

One ``@batch`` handler for every tool in :data:`multitool.tools.REGISTRY`, so
all calls of a model response, whatever their mix, run as ONE batch through
:func:`multitool.tools.run_calls`: one directory read, one busy-time read and
one draft write however many calls there are. Each call's payload (or
``{"error": …}`` body) comes back as that call's result. A new tool needs no
change here.

When every call of the response made a draft and the turn's cards say it all
(:func:`multitool.runtimes.summary.composed_message`), the route is :func:`direct`: the
runtime answers the user with that message and calls the model no further this
turn. A failed or refused call, or a card the user must clarify, keeps the turn
on the model (:func:`stay`), which reads the results and writes the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from multitool.cards.client_actions import ClientActionError, caption, card_from_payload
from multitool.observability import logger
from multitool.runtimes.base import FlowFactory, TurnProgress, TurnRequest
from multitool.runtimes.flow import Flow, Route, Step, ToolCall, batch, direct, stay
from multitool.runtimes.summary import composed_message
from multitool.toolkit.cards import Card
from multitool.tools import REGISTRY, ToolConfig, ToolContext, ToolPorts, run_calls

TOOL_NAMES: tuple[str, ...] = tuple(sorted(REGISTRY.names))


class ProductStep(Step):
    """The one step of a chat turn: every tool, batched.

    ``direct_answers=False`` keeps every turn on the model after its tool results (the
    behaviour before direct answers, kept measurable for the benchmark).
    """

    id = "product"

    def __init__(
        self,
        ctx: ToolContext,
        ports: ToolPorts,
        config: ToolConfig | None = None,
        progress: TurnProgress | None = None,
        *,
        direct_answers: bool = True,
    ) -> None:
        self.ctx = ctx
        self.ports = ports
        self.config = config or ToolConfig()
        self.progress = progress
        self.direct_answers = direct_answers
        self.cards: list[Card] = []
        """Every card this turn made so far (the flow, and so this step, lives for one turn)."""

    @batch(TOOL_NAMES)
    def run_batch(self, calls: Sequence[ToolCall]) -> Route:
        """Run every call in one :func:`run_calls`; each call's body is its result."""
        outcomes = run_calls([(call.name, call.args) for call in calls], self.ctx, self.ports, self.config)
        bodies = {call.id: outcome.body for call, outcome in zip(calls, outcomes, strict=True)}
        drafted = True
        for outcome in outcomes:
            card = _card(outcome.payload) if outcome.ok else None
            if card is None:
                drafted = False
                continue
            self.cards.append(card)
            if self.progress is not None:
                _report_card(self.progress, card)
        answer = composed_message(self.cards) if drafted and self.direct_answers else None
        route = direct(answer) if answer is not None else stay()
        return route.with_results(bodies)


def _card(payload: object) -> Card | None:
    if not isinstance(payload, dict):
        return None
    try:
        return card_from_payload(payload)
    except ClientActionError:
        return None  # the turn's answer names this failure


def _report_card(progress: TurnProgress, card: Card) -> None:
    """A draft the batch made, as its card, before the model's next step (a failed report skips it)."""
    try:
        progress.card(card, caption(card))
    except Exception as error:  # progress is a courtesy: the turn goes on
        logger.warning("Card progress not reported", extra={"error_type": type(error).__name__})


def product_flow(
    ctx: ToolContext,
    ports: ToolPorts,
    config: ToolConfig | None = None,
    progress: TurnProgress | None = None,
    *,
    direct_answers: bool = True,
) -> Flow:
    """A flow on the product step for one turn."""
    step = ProductStep(ctx, ports, config, progress, direct_answers=direct_answers)
    return Flow(steps=[step], start=ProductStep)


def product_flows(
    ports: ToolPorts, config: ToolConfig | None = None, *, direct_answers: bool = True
) -> FlowFactory:
    """The flow factory runtimes call once per turn: the turn's context on the product step."""

    def build(request: TurnRequest) -> Flow:
        ctx = ToolContext(
            owner=request.user_id,
            session_id=request.session_id,
            now=request.now or datetime.now(UTC),
            timezone=request.timezone,
            requester_email=request.user_email,
            user_token=request.user_token,
            locale=request.locale,
        )
        return product_flow(ctx, ports, config, request.progress, direct_answers=direct_answers)

    return build
