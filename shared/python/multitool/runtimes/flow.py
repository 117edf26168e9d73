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
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar, overload

import msgspec

from multitool.observability import error_fields, logger

__all__ = [
    "ACKNOWLEDGED",
    "Flow",
    "FlowError",
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

ACKNOWLEDGED = "OK"
"""Result content for a call whose handler returned nothing to say."""

_ROUTE_REQUIREMENT = (
    "It must return a routing result: a non-empty step name, a Step target, "
    "or an object with a non-empty string or Step target in its step property."
)
_TOOL_MARK = "__multitool_tool__"
_TOOLS_MARK = "__multitool_tools__"
_BATCH_MARK = "__multitool_batch__"
_EMPTY: Mapping[str, Any] = MappingProxyType({})
# Returns that can never carry a route; anything else is inspected for a ``step``.
_UNSUPPORTED = (bool, int, float, complex, bytes, bytearray, list, tuple, set, frozenset, type)
_ROUTE_TEXT_FIELDS = ("feedback", "direct", "prompt", "content_type", "message")

_F = TypeVar("_F", bound=Callable[..., Any])
Handler = Callable[..., Any]


class FlowError(Exception):
    """A programming error against the dispatch contract; never turned into a tool result."""


class ToolsDeclarationError(FlowError, TypeError):
    """A Step's ``@tool`` / ``@tools`` declarations are inconsistent (raised at class definition)."""


class RoutingError(FlowError, ValueError):
    """A handler returned something that is not a route, or a route to an unknown step."""


class StateError(FlowError, TypeError):
    """State that is not JSON, or state written outside a dispatch."""


# --------------------------------------------------------------------------- calls and results


class ToolCall(msgspec.Struct, frozen=True):
    """One tool call of a model response, as the model sent it."""

    id: str
    name: str
    args: Mapping[str, Any]

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip():
            raise ValueError(f"A tool call needs a non-empty string id, got {self.id!r}.")
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"Tool call {self.id!r} needs a non-empty string name, got {self.name!r}.")
        if not isinstance(self.args, Mapping):
            raise ValueError(
                f"Tool call {self.id!r} ({self.name}) args must be a mapping, got {type(self.args).__name__}."
            )

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, call_id: str | None = None) -> ToolCall:
        """Build a call from a plain mapping.

        Accepts ``{"id", "name", "args"}``, a Converse ``toolUse`` block
        (``{"toolUseId", "name", "input"}``, optionally wrapped in ``{"toolUse": ...}``)
        and a Bedrock ``functionInvocationInput`` (``{"function", "parameters": [{"name", "value"}]}``,
        optionally wrapped). Return-control inputs carry no per-call id: pass ``call_id=``.
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"A tool call must be a mapping, got {type(data).__name__}.")
        for wrapper in ("toolUse", "functionInvocationInput"):
            inner = data.get(wrapper)
            if isinstance(inner, Mapping):
                data = inner
                break
        given_id = call_id if call_id is not None else data.get("id", data.get("toolUseId"))
        name = data.get("name", data.get("function"))
        if "args" in data:
            args = data["args"]
        elif "input" in data:
            args = data["input"]
        elif "parameters" in data:
            args = _parameters_to_args(data["parameters"], given_id)
        else:
            args = {}
        return cls(id=given_id, name=name, args=args)


def _parameters_to_args(parameters: object, call_id: object) -> dict[str, Any]:
    if not isinstance(parameters, Sequence) or isinstance(parameters, str):
        raise ValueError(f"Tool call {call_id!r} parameters must be a list of {{name, value}} entries.")
    args: dict[str, Any] = {}
    for entry in parameters:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise ValueError(f"Tool call {call_id!r} has a parameter without a name: {entry!r}.")
        args[entry["name"]] = entry.get("value")
    return args


class ToolResult(msgspec.Struct, frozen=True):
    """The answer to one tool call; every call of a response gets exactly one."""

    call_id: str
    content: Any
    is_error: bool = False


# --------------------------------------------------------------------------- routes


class Route(msgspec.Struct, frozen=True):
    """Where the conversation goes after a handler, and what travels with it.

    ``step`` is the target step id or Step class; ``None`` means the step that
    handled the calls (what :func:`stay` and :func:`direct` build). Build routes
    with :func:`go`, :func:`stay` and :func:`direct`; refine them with the
    ``with_*`` methods, which return new routes.
    """

    step: str | type[Step] | None = None
    feedback: str | None = None
    direct: str | None = None
    state: Mapping[str, Any] = msgspec.field(default_factory=lambda: _EMPTY)
    prompt: str | None = None
    content_type: str | None = None
    message: str | None = None
    results: Mapping[str, Any] = msgspec.field(default_factory=lambda: _EMPTY)

    def __post_init__(self) -> None:
        if self.step is not None and _target_id(self.step) is None:
            raise RoutingError(
                f"A route target must be a non-empty step id or a Step class with an id, got {self.step!r}."
            )
        for name in _ROUTE_TEXT_FIELDS:
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise RoutingError(f"A route's {name} must be a string, got {type(value).__name__}.")
        if self.direct is not None and not self.direct.strip():
            raise RoutingError("direct() needs non-empty text for the user.")
        if self.state is not _EMPTY:
            msgspec.structs.force_setattr(
                self, "state", MappingProxyType(_json_object(self.state, "route state"))
            )
        if self.results is not _EMPTY:
            if not isinstance(self.results, Mapping) or not all(
                isinstance(key, str) and key for key in self.results
            ):
                raise RoutingError("A route's results must map non-empty call ids to contents.")
            msgspec.structs.force_setattr(self, "results", MappingProxyType(dict(self.results)))

    @property
    def kind(self) -> str:
        """``"direct"``, ``"stay"`` or ``"go"``."""
        if self.direct is not None:
            return "direct"
        return "stay" if self.step is None else "go"

    def with_state(self, state: Mapping[str, Any]) -> Route:
        """Also write ``state`` (JSON values) to the flow's state when applied."""
        return msgspec.structs.replace(self, state={**self.state, **state})

    def with_prompt(self, prompt: str) -> Route:
        """Replace the prompt for the next model call."""
        return msgspec.structs.replace(self, prompt=prompt)

    def with_content_type(self, content_type: str) -> Route:
        """Set the content type of the answer (e.g. ``"application/json"``)."""
        return msgspec.structs.replace(self, content_type=content_type)

    def with_message(self, message: str) -> Route:
        """Attach a message for the user; also the calls' result content when there is no feedback."""
        return msgspec.structs.replace(self, message=message)

    def with_results(self, results: Mapping[str, Any]) -> Route:
        """Per-call result contents by call id (e.g. each call's draft payload)."""
        return msgspec.structs.replace(self, results={**self.results, **results})


def go(target: str | type[Step], *, feedback: str | None = None) -> Route:
    """Move to ``target`` (a registered step id or a Step class)."""
    if target is None:
        raise RoutingError("go() needs a target: a non-empty step id or a Step class, got None.")
    return Route(step=target, feedback=feedback)


def stay(feedback: str | None = None) -> Route:
    """Remain on the current step; ``feedback`` goes back to the model as the calls' result."""
    return Route(feedback=feedback)


def direct(text: str) -> Route:
    """Answer the user with ``text``; no further model call this turn."""
    return Route(direct=text)


def _target_id(target: object) -> str | None:
    """The step id a route target names, or None when it names none."""
    if isinstance(target, str):
        return target if target.strip() else None
    if isinstance(target, type) and issubclass(target, Step):
        step_id = target.id
        return step_id if isinstance(step_id, str) and step_id.strip() else None
    return None


# --------------------------------------------------------------------------- declarations


@overload
def tool(target: _F, /) -> _F: ...
@overload
def tool(target: str | None = None, /) -> Callable[[_F], _F]: ...
def tool(target: _F | str | None = None, /) -> _F | Callable[[_F], _F]:
    """Mark a Step method as the handler of one call: ``@tool`` (name = method name) or ``@tool("name")``."""
    if callable(target):
        setattr(target, _TOOL_MARK, target.__name__)
        return target
    if target is not None and (not isinstance(target, str) or not target.strip()):
        raise ToolsDeclarationError("@tool requires a non-empty tool name.")

    def mark(fn: _F) -> _F:
        setattr(fn, _TOOL_MARK, target if target is not None else fn.__name__)
        return fn

    return mark


def _declared_names(decorator: str, names: Iterable[str]) -> tuple[str, ...]:
    if isinstance(names, str):
        raise ToolsDeclarationError(f"{decorator} takes a list of tool names, not the string {names!r}.")
    declared = list(names)
    if not declared:
        raise ToolsDeclarationError(f"{decorator} requires at least one tool name.")
    if not all(isinstance(name, str) and name.strip() for name in declared):
        raise ToolsDeclarationError(f"{decorator} requires non-empty tool names.")
    seen: set[str] = set()
    for name in declared:
        if name in seen:
            raise ToolsDeclarationError(f"{decorator} cannot declare tool '{name}' more than once.")
        seen.add(name)
    return tuple(sorted(declared))


def tools(names: Iterable[str]) -> Callable[[_F], _F]:
    """Mark a Step method as the group handler for exactly this set of tool names.

    Dispatch metadata only: it exposes nothing to the model.
    """
    key = _declared_names("@tools", names)

    def mark(fn: _F) -> _F:
        setattr(fn, _TOOLS_MARK, key)
        return fn

    return mark


def batch(names: Iterable[str]) -> Callable[[_F], _F]:
    """Mark a Step method as the one handler of every call of these tools in a response.

    ``def run(self, calls) -> Route``. The step exposes these tools, and whatever mix and
    number of their calls a response holds, the method receives all of them at once, in call
    order (a response that an exact ``@tools`` set matches goes to that group instead). Use it
    where every call of a response collapses into one backend operation and no per-tool
    handler is wanted.
    """
    key = _declared_names("@batch", names)

    def mark(fn: _F) -> _F:
        setattr(fn, _BATCH_MARK, key)
        return fn

    return mark


class _StepSpec(msgspec.Struct, frozen=True):
    """A Step class's dispatch table, computed once when the class is defined."""

    tools: Mapping[str, Handler]
    groups: Mapping[tuple[str, ...], Handler]
    exposed: tuple[str, ...]
    batches: Mapping[tuple[str, ...], Handler] = msgspec.field(default_factory=dict)
    batch_of: Mapping[str, tuple[str, ...]] = msgspec.field(default_factory=dict)


_Mark = tuple[str, str | None, tuple[str, ...] | None, tuple[str, ...] | None]


def _marks(klass: type) -> list[_Mark]:
    """(attribute, @tool name, @tools key, @batch key) of each handler a class itself declares."""
    marks: list[_Mark] = []
    for attr, value in vars(klass).items():
        mark: _Mark = (
            attr,
            getattr(value, _TOOL_MARK, None),
            getattr(value, _TOOLS_MARK, None),
            getattr(value, _BATCH_MARK, None),
        )
        if mark[1:] == (None, None, None):
            continue
        if inspect.iscoroutinefunction(value):
            raise ToolsDeclarationError(
                f"{klass.__qualname__}.{attr} is async; tool handlers must be synchronous."
            )
        marks.append(mark)
    return marks


def _claim(own: dict[Any, str], mark: Any, label: str, owner: str, attr: str) -> None:
    if mark in own:
        raise ToolsDeclarationError(f"{label} is declared by both {owner}.{own[mark]} and {owner}.{attr}.")
    own[mark] = attr


def _build_spec(cls: type) -> _StepSpec:
    tool_attrs: dict[str, str] = {}
    group_attrs: dict[tuple[str, ...], str] = {}
    batch_attrs: dict[tuple[str, ...], str] = {}
    for klass in reversed(cls.__mro__):
        owner = klass.__qualname__
        own_tools: dict[str, str] = {}
        own_groups: dict[tuple[str, ...], str] = {}
        own_batches: dict[tuple[str, ...], str] = {}
        for attr, tool_name, group_key, batch_key in _marks(klass):
            if tool_name is not None:
                _claim(own_tools, tool_name, f"@tool '{tool_name}'", owner, attr)
            if group_key is not None:
                _claim(own_groups, group_key, f"@tools({list(group_key)!r})", owner, attr)
            if batch_key is not None:
                _claim(own_batches, batch_key, f"@batch({list(batch_key)!r})", owner, attr)
        # A subclass's registration for the same tool or set replaces the inherited one; a batch
        # replaces every inherited batch it shares a tool with.
        tool_attrs.update(own_tools)
        group_attrs.update(own_groups)
        for key in own_batches:
            for inherited in [k for k in batch_attrs if set(k) & set(key)]:
                del batch_attrs[inherited]
        batch_attrs.update(own_batches)
    # Resolve through the class so an undecorated override keeps the inherited registration.
    resolved_tools = {name: getattr(cls, attr, None) for name, attr in tool_attrs.items()}
    resolved_groups = {key: getattr(cls, attr, None) for key, attr in group_attrs.items()}
    resolved_batches = {key: getattr(cls, attr, None) for key, attr in batch_attrs.items()}
    handlers = {name: fn for name, fn in resolved_tools.items() if callable(fn)}
    groups = {key: fn for key, fn in resolved_groups.items() if callable(fn)}
    batches = {key: fn for key, fn in resolved_batches.items() if callable(fn)}
    batch_of = {name: key for key in batches for name in key}
    for name in batch_of.keys() & handlers.keys():
        raise ToolsDeclarationError(
            f"Tool '{name}' has both a @tool handler ({cls.__qualname__}.{tool_attrs[name]}) and a "
            f"@batch handler ({cls.__qualname__}.{batch_attrs[batch_of[name]]}); give it one."
        )
    exposed = tuple(handlers) + tuple(name for key in batches for name in key)
    return _StepSpec(tools=handlers, groups=groups, exposed=exposed, batches=batches, batch_of=batch_of)


# --------------------------------------------------------------------------- steps


class _Dispatch:
    """What a step's handlers see of the running dispatch."""

    __slots__ = ("base", "call", "scratch", "writes")

    def __init__(self, base: Mapping[str, Any]) -> None:
        self.base = base
        self.writes: dict[str, Any] = {}
        self.scratch: dict[str, Any] | None = None
        self.call: ToolCall | None = None


class Step:
    """One stage of a conversation: the tools it exposes and how their calls are handled.

    Subclasses set ``id`` and declare handlers with ``@tool`` and ``@tools``;
    registrations are inherited. Give a step its collaborators (backends,
    ports) through ``__init__`` and hand the instance to :class:`Flow`.
    """

    id: ClassVar[str] = ""
    _spec: ClassVar[_StepSpec] = _StepSpec(tools={}, groups={}, exposed=())
    _dispatch: _Dispatch | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._spec = _build_spec(cls)

    @classmethod
    def exposed_tools(cls) -> tuple[str, ...]:
        """The tool names this step offers the model: its ``@tool`` handlers."""
        return cls._spec.exposed

    @classmethod
    def tool_groups(cls) -> tuple[tuple[str, ...], ...]:
        """The sorted tool-name sets that have a ``@tools`` group handler."""
        return tuple(cls._spec.groups)

    @property
    def current_call(self) -> ToolCall | None:
        """The call an individual ``@tool`` handler is running for (None in group handlers)."""
        running = self._dispatch
        return running.call if running is not None else None

    @property
    def state(self) -> Mapping[str, Any]:
        """The flow's state as this handler sees it, including this turn's writes so far."""
        running = self._running("state")
        return MappingProxyType({**running.base, **running.writes, **(running.scratch or {})})

    def save_state(self, values: Mapping[str, Any]) -> None:
        """Write JSON values to the flow's state; applied when the handler returns a valid route."""
        running = self._running("save_state()")
        checked = _json_object(values, "state")
        if running.scratch is None:
            running.scratch = checked
        else:
            running.scratch.update(checked)

    def _running(self, what: str) -> _Dispatch:
        running = self._dispatch
        if running is None:
            raise StateError(
                f"{type(self).__name__}.{what} is only available while the step handles tool calls."
            )
        return running


# --------------------------------------------------------------------------- the flow


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


def _route_from_object(value: object, label: str) -> Route:
    """A route from a foreign object or mapping with a ``step`` (and optional route fields)."""
    if isinstance(value, Mapping):
        fields: Mapping[str, Any] = value
    else:
        fields = {name: getattr(value, name) for name in _FOREIGN_FIELDS if hasattr(value, name)}
    if "step" not in fields:
        raise RoutingError(_diagnostic(label, "an object without step"))
    step = fields["step"]
    if _target_id(step) is None:
        raise RoutingError(_diagnostic(label, "an object with an invalid step"))
    options: dict[str, Any] = {}
    for name in _FOREIGN_FIELDS[1:]:
        option = fields.get(name)
        if option is None:
            continue
        expected: type = Mapping if name in ("state", "results") else str
        if not isinstance(option, expected):
            raise RoutingError(f"{label} returned an object with an invalid {name}: {option!r}.")
        options[name] = option
    return Route(step=step, **options)


_FOREIGN_FIELDS = ("step", "feedback", "direct", "state", "prompt", "content_type", "message", "results")


# --------------------------------------------------------------------------- helpers


def _diagnostic(label: str, what: str) -> str:
    return f"{label} returned {what}. {_ROUTE_REQUIREMENT}"


def _default_content(route: Route) -> Any:
    if route.feedback is not None:
        return route.feedback
    if route.message is not None:
        return route.message
    return ACKNOWLEDGED


def _failure_content(label: str, exc: Exception) -> str:
    # The exception text may hold backend details; it goes to the log, not to the model.
    return f"{label} failed ({type(exc).__name__}). The request was not completed."


def _checked_calls(calls: Iterable[ToolCall | Mapping[str, Any]]) -> tuple[ToolCall, ...]:
    if isinstance(calls, str | bytes | Mapping) or not isinstance(calls, Iterable):
        raise ValueError(f"dispatch() takes a list of tool calls, got {type(calls).__name__}.")
    checked: list[ToolCall] = []
    seen: set[str] = set()
    for position, item in enumerate(calls, start=1):
        if isinstance(item, ToolCall):
            call = item
        elif isinstance(item, Mapping):
            call = ToolCall.from_mapping(item)
        else:
            raise ValueError(
                f"Tool call #{position} must be a ToolCall or a mapping, got {type(item).__name__}."
            )
        if call.id in seen:
            raise ValueError(f"Two tool calls share the id '{call.id}'.")
        seen.add(call.id)
        checked.append(call)
    return tuple(checked)


def _json_object(values: object, what: str) -> dict[str, Any]:
    """A deep copy of ``values`` restricted to JSON: string keys, JSON scalars, lists, objects."""
    if not isinstance(values, Mapping):
        raise StateError(f"{what} must be a mapping, got {type(values).__name__}.")
    return {_json_key(key, what): _json_value(value, f"{what}[{key!r}]") for key, value in values.items()}


def _json_key(key: object, what: str) -> str:
    if not isinstance(key, str):
        raise StateError(f"{what} keys must be strings, got {key!r}.")
    return key


def _json_value(value: object, where: str) -> Any:
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, Mapping):
        return {_json_key(key, where): _json_value(item, f"{where}[{key!r}]") for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(item, f"{where}[{index}]") for index, item in enumerate(value)]
    raise StateError(f"{where} is not JSON-serializable: {type(value).__name__}.")
