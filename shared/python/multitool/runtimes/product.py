"""The product step: how RETURN_CONTROL and Converse tool calls reach the tools.

One ``@tool`` handler per tool, and a ``@tools`` group handler for every
non-empty set of tool names, so all calls of a model response run as ONE
batch through :func:`multitool.tools.run_calls`: one directory read, one
busy-time read and one draft write however many calls there are. Each call's
payload (or ``{"error": …}`` body) comes back as that call's result.

The group handlers are generated from :data:`multitool.tools.REGISTRY`: a new
tool needs no change here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from itertools import combinations
from typing import Any

from multitool.flow import Flow, Route, Step, ToolCall, stay, tool, tools
from multitool.runtimes.base import FlowFactory, TurnRequest
from multitool.tools import REGISTRY, ToolConfig, ToolContext, ToolPorts, run_calls

TOOL_NAMES: tuple[str, ...] = tuple(sorted(REGISTRY))


def tool_sets(names: Sequence[str] = TOOL_NAMES) -> Iterator[tuple[str, ...]]:
    """Every non-empty set of tool names, sorted."""
    for size in range(1, len(names) + 1):
        yield from combinations(sorted(names), size)


def _group_handler(names: tuple[str, ...]) -> Callable[[ProductStep, Sequence[ToolCall]], Route]:
    @tools(list(names))
    def handle(self: ProductStep, calls: Sequence[ToolCall]) -> Route:
        return self.run_batch(calls)

    handle.__name__ = handle.__qualname__ = "batch_" + "__".join(names)
    return handle


def _individual_handler(name: str) -> Callable[[ProductStep, Mapping[str, Any]], Route]:
    @tool(name)
    def handle(self: ProductStep, args: Mapping[str, Any]) -> Route:
        call = self.current_call or ToolCall(id=f"{name}-call", name=name, args=args)
        return self.run_batch([call])

    handle.__name__ = handle.__qualname__ = name
    return handle


# Generated once at import: the handlers ProductStep inherits (the flow scans the whole MRO).
_HANDLERS: dict[str, Any] = {
    **{name: _individual_handler(name) for name in TOOL_NAMES},
    **{f"batch_{'__'.join(names)}": _group_handler(names) for names in tool_sets()},
}
_ProductHandlers: type = type("_ProductHandlers", (), _HANDLERS)


class ProductStep(_ProductHandlers, Step):  # type: ignore[misc]  # handlers generated from REGISTRY
    """The one step of a chat turn: every tool, batched."""

    id = "product"

    def __init__(self, ctx: ToolContext, ports: ToolPorts, config: ToolConfig | None = None) -> None:
        self.ctx = ctx
        self.ports = ports
        self.config = config or ToolConfig()

    def run_batch(self, calls: Sequence[ToolCall]) -> Route:
        """Run every call in one :func:`run_calls`; each call's body is its result."""
        outcomes = run_calls([(call.name, call.args) for call in calls], self.ctx, self.ports, self.config)
        bodies = {call.id: outcome.body for call, outcome in zip(calls, outcomes, strict=True)}
        return stay().with_results(bodies)


def product_flow(ctx: ToolContext, ports: ToolPorts, config: ToolConfig | None = None) -> Flow:
    """A flow on the product step for one turn."""
    return Flow(steps=[ProductStep(ctx, ports, config)], start=ProductStep)


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
        return product_flow(ctx, ports, config)

    return build
