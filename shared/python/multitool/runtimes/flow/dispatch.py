"""The flow: its steps, the current one, their shared state, and :meth:`Flow.dispatch`.

Dispatch picks who handles a response's calls (an exact ``@tools`` group, else the ``@tool``
handlers in call order with ``@batch`` handlers taking their calls at once), applies the routes
they answer with, and turns backend failures into error results for the calls concerned.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from multitool.observability import error_fields, logger
from multitool.runtimes.flow.calls import ACKNOWLEDGED, ToolCall, ToolResult, _checked_calls
from multitool.runtimes.flow.declarations import Handler, _StepSpec
from multitool.runtimes.flow.errors import FlowError, RoutingError, _json_object
from multitool.runtimes.flow.routes import (
    Route,
    _default_content,
    _diagnostic,
    _route_from_object,
    _target_id,
)
from multitool.runtimes.flow.steps import Step, _Dispatch

# Returns that can never carry a route; anything else is inspected for a ``step``.
_UNSUPPORTED = (bool, int, float, complex, bytes, bytearray, list, tuple, set, frozenset, type)


class Turn(msgspec.Struct, frozen=True):
    """What one dispatch did.

    ``results`` holds exactly one result per original call id, in call order.
    ``step`` is the step id after routing; ``route`` the last route applied
    (for a group, its one route); ``routes`` all of them in order; ``direct``
    the text for the user when a route answered directly; ``group`` the tool
    set whose group handler took the calls, if one did (or the names of the
    calls, when one ``@batch`` handler took them all).
    """

    results: tuple[ToolResult, ...]
    step: str
    route: Route | None = None
    routes: tuple[Route, ...] = ()
    direct: str | None = None
    messages: tuple[str, ...] = ()
    group: tuple[str, ...] | None = None


class Flow:
    """The steps of a conversation, the current one, and the state they share."""

    def __init__(
        self,
        steps: Iterable[Step | type[Step]],
        start: str | type[Step],
        *,
        state: Mapping[str, Any] | None = None,
        prompt: str | None = None,
        content_type: str | None = None,
    ) -> None:
        self._steps: dict[str, Step] = {}
        for entry in steps:
            instance = entry() if isinstance(entry, type) and issubclass(entry, Step) else entry
            if not isinstance(instance, Step):
                raise ValueError(f"Flow steps must be Step classes or instances, got {entry!r}.")
            step_id = _target_id(type(instance))
            if step_id is None:
                raise ValueError(f"Step {type(instance).__qualname__} needs a non-empty id.")
            if step_id in self._steps:
                raise ValueError(f"Two steps share the id '{step_id}'.")
            self._steps[step_id] = instance
        start_id = _target_id(start)
        if start_id is None or start_id not in self._steps:
            raise ValueError(
                f"The start step {start!r} is not one of the flow's steps: {sorted(self._steps)}."
            )
        for name, text in (("prompt", prompt), ("content_type", content_type)):
            if text is not None and not isinstance(text, str):
                raise ValueError(f"A flow's {name} must be a string or None, got {type(text).__name__}.")
        self._step = start_id
        self._state: dict[str, Any] = _json_object(state or {}, "state")
        self._prompt = prompt
        self._content_type = content_type

    # ----------------------------------------------------------------- persistence

    @classmethod
    def restore(cls, snapshot: Mapping[str, Any], steps: Iterable[Step | type[Step]]) -> Flow:
        """Rebuild a flow from :meth:`snapshot` output (e.g. read back from a session store)."""
        step = snapshot.get("step")
        if not isinstance(step, str):
            raise ValueError(f"A flow snapshot needs a step id, got {step!r}.")
        state = snapshot.get("state", {})
        if not isinstance(state, Mapping):
            raise ValueError(f"A flow snapshot's state must be a mapping, got {type(state).__name__}.")
        return cls(
            steps,
            start=step,
            state=state,
            prompt=snapshot.get("prompt"),
            content_type=snapshot.get("content_type"),
        )

    def snapshot(self) -> dict[str, Any]:
        """Everything needed to continue next turn, as JSON-serializable data."""
        return {
            "step": self._step,
            "state": self.state,
            "prompt": self._prompt,
            "content_type": self._content_type,
        }

    # ----------------------------------------------------------------- inspection

    @property
    def step(self) -> str:
        """The current step id."""
        return self._step

    @property
    def current(self) -> Step:
        """The current step instance."""
        return self._steps[self._step]

    @property
    def state(self) -> dict[str, Any]:
        """A JSON-serializable copy of the flow's state."""
        return _json_object(self._state, "state")

    @property
    def prompt(self) -> str | None:
        """The prompt a route set for the next model call, if any (cleared on a step change)."""
        return self._prompt

    @property
    def content_type(self) -> str | None:
        """The content type a route set for the answer, if any (cleared on a step change)."""
        return self._content_type

    def exposed_tools(self) -> tuple[str, ...]:
        """The tool names the current step offers the model."""
        return type(self.current).exposed_tools()

    # ----------------------------------------------------------------- dispatch

    def dispatch(self, calls: Iterable[ToolCall | Mapping[str, Any]]) -> Turn:
        """Run one model response's tool calls on the current step and apply the outcome."""
        batch = _checked_calls(calls)
        step = self._steps[self._step]
        if not batch:
            return Turn(results=(), step=self._step)
        spec = type(step)._spec
        if spec.groups:
            first = batch[0].name
            if all(call.name == first for call in batch):
                key: tuple[str, ...] = (first,)
            else:
                key = tuple(sorted({call.name for call in batch}))
            group = spec.groups.get(key)
            if group is not None:
                return self._dispatch_group(step, group, key, batch)
        return self._dispatch_each(step, spec, batch)

    def _dispatch_group(
        self, step: Step, handler: Handler, key: tuple[str, ...], batch: tuple[ToolCall, ...]
    ) -> Turn:
        running = _Dispatch(self._state)
        step._dispatch = running
        try:
            returned = self._call_many(step, handler, key, batch, "Group tool handler failed")
        finally:
            step._dispatch = None
        if isinstance(returned, _Failed):
            return Turn(
                results=tuple(ToolResult(call.id, returned.content, True) for call in batch),
                step=self._step,
                group=key,
            )
        route = self._route_from(returned, f"Group tool handler for [{', '.join(key)}]", batch)
        writes = running.scratch or {}
        writes.update(route.state)
        fallback = _default_content(route)
        results = route.results
        return self._commit(
            tuple(ToolResult(call.id, results.get(call.id, fallback)) for call in batch),
            (route,),
            writes,
            key,
        )

    def _dispatch_each(self, step: Step, spec: _StepSpec, batch: tuple[ToolCall, ...]) -> Turn:
        running = _Dispatch(self._state)
        handlers = spec.tools
        whole: tuple[str, ...] | None = None  # the tool names, when one @batch took every call
        results: dict[str, ToolResult] = {}
        routes: list[Route] = []
        step._dispatch = running
        try:
            for call in batch:
                if call.id in results:
                    continue  # answered by its @batch handler
                handler = handlers.get(call.name)
                batch_key = spec.batch_of.get(call.name) if handler is None else None
                if batch_key is not None:
                    covered = tuple(c for c in batch if spec.batch_of.get(c.name) == batch_key)
                    if len(covered) == len(batch):
                        whole = tuple(sorted({c.name for c in covered}))
                    route = self._run_batch(step, spec.batches[batch_key], batch_key, covered, results)
                    if route is not None:
                        routes.append(route)
                    continue
                if handler is None:
                    logger.warning("Unknown tool", extra={"step": self._step, "tool": call.name})
                    results[call.id] = ToolResult(call.id, f"Unknown tool: {call.name}", True)
                    continue
                running.call = call
                running.scratch = None
                try:
                    returned = handler(step, call.args)
                except FlowError:
                    raise
                except Exception as exc:
                    logger.error(
                        "Tool handler failed",
                        extra={
                            "step": self._step,
                            "tools": [call.name],
                            "call_id": call.id,
                            **error_fields(exc),
                        },
                    )
                    results[call.id] = ToolResult(call.id, _failure_content(f"Tool {call.name}", exc), True)
                    continue
                route = (
                    None
                    if returned is None
                    else self._route_from(returned, f"Tool handler for {call.name}", (call,))
                )
                if running.scratch:
                    running.writes.update(running.scratch)
                if route is None:
                    results[call.id] = ToolResult(call.id, ACKNOWLEDGED)
                    continue
                if route.state:
                    running.writes.update(route.state)
                routes.append(route)
                results[call.id] = ToolResult(call.id, route.results.get(call.id, _default_content(route)))
        finally:
            step._dispatch = None
        return self._commit(tuple(results[call.id] for call in batch), tuple(routes), running.writes, whole)

    def _run_batch(
        self,
        step: Step,
        handler: Handler,
        key: tuple[str, ...],
        calls: tuple[ToolCall, ...],
        results: dict[str, ToolResult],
    ) -> Route | None:
        """Run a ``@batch`` handler once for its calls; their results go into ``results``."""
        running = step._running("a batch")
        running.call = None
        running.scratch = None
        returned = self._call_many(step, handler, key, calls, "Batch tool handler failed")
        if isinstance(returned, _Failed):
            results.update({call.id: ToolResult(call.id, returned.content, True) for call in calls})
            return None
        route = self._route_from(returned, f"Batch handler for [{', '.join(key)}]", calls)
        if running.scratch:
            running.writes.update(running.scratch)
        running.writes.update(route.state)
        fallback = _default_content(route)
        results.update({call.id: ToolResult(call.id, route.results.get(call.id, fallback)) for call in calls})
        return route

    def _call_many(
        self, step: Step, handler: Handler, key: tuple[str, ...], calls: tuple[ToolCall, ...], failed: str
    ) -> object:
        """What a group or batch handler returned, or :class:`_Failed` when it raised (logged)."""
        try:
            return handler(step, calls)
        except FlowError:
            raise
        except Exception as exc:
            # Type and place only: the exception's text may quote what the user wrote.
            logger.error(
                failed,
                extra={
                    "step": self._step,
                    "tools": list(key),
                    "call_ids": [c.id for c in calls],
                    **error_fields(exc),
                },
            )
            return _Failed(_failure_content(f"Tools [{', '.join(key)}]", exc))

    def _commit(
        self,
        results: tuple[ToolResult, ...],
        routes: tuple[Route, ...],
        writes: Mapping[str, Any],
        group: tuple[str, ...] | None,
    ) -> Turn:
        origin = self._step
        step_id, prompt, content_type = origin, self._prompt, self._content_type
        messages: list[str] = []
        answers: list[str] = []
        for route in routes:
            target = origin if route.step is None else _target_id(route.step)
            if target != step_id:
                # A prompt or content type belongs to the step it was set for.
                step_id, prompt, content_type = target or origin, None, None
            if route.prompt is not None:
                prompt = route.prompt
            if route.content_type is not None:
                content_type = route.content_type
            if route.message is not None:
                messages.append(route.message)
            if route.direct is not None:
                answers.append(route.direct)
        if writes:
            self._state.update(writes)
        self._step, self._prompt, self._content_type = step_id, prompt, content_type
        return Turn(
            results=results,
            step=step_id,
            route=routes[-1] if routes else None,
            routes=routes,
            direct="\n\n".join(answers) if answers else None,
            messages=tuple(messages),
            group=group,
        )

    def _route_from(self, value: object, label: str, batch: Sequence[ToolCall]) -> Route:
        """Validate a handler's return and turn it into a route; nothing is applied here."""
        if type(value) is Route:
            route = value
        elif value is None:
            raise RoutingError(_diagnostic(label, "None"))
        elif isinstance(value, str) or (isinstance(value, type) and issubclass(value, Step)):
            if _target_id(value) is None:
                raise RoutingError(_diagnostic(label, "an empty step name"))
            route = Route(step=value)
        elif isinstance(value, Route):
            route = value
        elif isinstance(value, _UNSUPPORTED):
            raise RoutingError(_diagnostic(label, f"an unsupported {type(value).__name__} result"))
        else:
            route = _route_from_object(value, label)
        if route.step is not None:
            target = _target_id(route.step)
            if target not in self._steps:
                raise RoutingError(_diagnostic(label, f"an unknown step '{target}'"))
        if route.results:
            known = {call.id for call in batch}
            strays = [call_id for call_id in route.results if call_id not in known]
            if strays:
                raise RoutingError(f"{label} returned results for call ids that are not its calls: {strays}.")
        return route


class _Failed(msgspec.Struct, frozen=True):
    """A group or batch handler raised: every one of its calls gets this error content."""

    content: str


def _failure_content(label: str, exc: Exception) -> str:
    # The exception text may hold backend details; it goes to the log, not to the model.
    return f"{label} failed ({type(exc).__name__}). The request was not completed."
