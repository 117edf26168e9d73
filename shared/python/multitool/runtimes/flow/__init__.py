"""Batch dispatch: run one model response's tool calls on the current step.

A model that acts on several intents in one message answers with several tool
calls at once. This module decides which code handles them and where the
conversation goes next:

- ``@tool`` marks a :class:`Step` method that handles one call of a tool
  (``def get_weather(self, args) -> Route | None``). The call's id is
  available to the handler as ``self.current_call``.
- ``@tools(["a", "b"])`` marks a method that receives *all* calls of a
  response whose distinct tool-name set is exactly ``{a, b}``
  (``def batch(self, calls) -> Route``). A matching group handler is
  authoritative, even for one call: the individual handlers are neither run
  afterwards nor used as a fallback, so work that collapsed into one backend
  operation is never replayed call by call.
- ``@batch(["a", "b", "c"])`` marks a method that receives every call of
  these tools in a response at once, whatever their mix and number; the step
  exposes them without per-tool handlers. An exact ``@tools`` set wins.
- Handlers answer with a route: :func:`go`, :func:`stay` or :func:`direct`.

:meth:`Flow.dispatch` is atomic with respect to programming errors: when a
handler returns something that is not a route (:class:`RoutingError`), no
state, prompt or step change from the turn is applied. Backend failures (any
other exception) become error results for the calls concerned.

The flow's state is plain JSON, so a Lambda can persist :meth:`Flow.snapshot`
after a turn and :meth:`Flow.restore` it for the next one.

The contract is one package of a few modules, each name importable from here: ``calls``
(:class:`ToolCall`, :class:`ToolResult`), ``declarations`` (``@tool``, ``@tools``, ``@batch``),
``steps`` (:class:`Step`), ``routes`` (:func:`go`, :func:`stay`, :func:`direct`), ``dispatch``
(:class:`Flow`, :class:`Turn`) and ``errors``.
"""

from multitool.runtimes.flow.calls import ACKNOWLEDGED, ToolCall, ToolResult
from multitool.runtimes.flow.declarations import batch, tool, tools
from multitool.runtimes.flow.dispatch import Flow, Turn
from multitool.runtimes.flow.errors import FlowError, RoutingError, StateError, ToolsDeclarationError
from multitool.runtimes.flow.routes import Route, direct, go, stay
from multitool.runtimes.flow.steps import Step

__all__ = [
    "ACKNOWLEDGED",
    "Flow",
    "FlowError",
    "Route",
    "RoutingError",
    "StateError",
    "Step",
    "ToolCall",
    "ToolResult",
    "ToolsDeclarationError",
    "Turn",
    "batch",
    "direct",
    "go",
    "stay",
    "tool",
    "tools",
]
