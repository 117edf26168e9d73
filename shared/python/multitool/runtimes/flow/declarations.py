"""``@tool``, ``@tools`` and ``@batch``: what a Step declares, read once into its dispatch table.

The decorators only mark methods; :func:`_build_spec` reads the marks of a Step class and its
bases when the class is defined, so an inconsistent declaration fails at import, not mid-turn.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar, overload

import msgspec

from multitool.runtimes.flow.errors import ToolsDeclarationError

_TOOL_MARK = "__multitool_tool__"
_TOOLS_MARK = "__multitool_tools__"
_BATCH_MARK = "__multitool_batch__"

_F = TypeVar("_F", bound=Callable[..., Any])
Handler = Callable[..., Any]


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
