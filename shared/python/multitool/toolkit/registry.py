"""The tool registry: every tool, by name, by action string and by action group.

A tool is ONE :class:`multitool.toolkit.spec.ToolSpec` in its own module (its models, its
``prepare``, its card and its confirm); one :meth:`ToolRegistry.declare` line adds it
(:mod:`multitool.tools` declares the built-in tools), or :meth:`ToolRegistry.register` for
a spec already made (a test's toy tool). Everything else is read from here when it is
needed: the action-group apps and their OpenAPI documents, the Converse and harness tool
specs, the CDK action groups, the batch runner, the card mapper and the review's confirm.
Nothing derived is frozen at import, so a tool registered later is found everywhere.

A declared tool module is imported when a lookup first needs it, not when the registry is:
an action-group function looks its one tool up by its action group (the module's name) and
never loads the other tools' models, cards and confirms. A lookup by tool name or action
string loads the one tool the committed index names for it (``make schemas`` writes each
tool's name, action string and action group beside its harness tool spec,
:func:`multitool.toolkit.model_specs.committed_index`), so the orchestrator loads the tools a
turn calls and the review function the tool of the draft it reads. A lookup neither the loaded
tools nor the index can answer, and any walk over the registry, loads every declared tool
first, so an answer never depends on what happened to be loaded, and a stale index costs
time, never a wrong answer.

This module imports no tool module: the tool contract (:mod:`multitool.toolkit`) sits below
the tools, so the cards and the review read the registry without importing any tool.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

from multitool.toolkit.model_specs import IndexEntry, committed_index

if TYPE_CHECKING:
    from multitool.toolkit.spec import ToolSpec

Index = Callable[[], Mapping[str, IndexEntry]]
"""Where a registry reads what the declared tools are called before it imports them."""


def _no_index() -> Mapping[str, IndexEntry]:
    return {}


class DuplicateTool(ValueError):
    """A tool whose name, action string, action group or path another tool already has."""


class MisdeclaredTool(ValueError):
    """A declared module that holds no ``SPEC``, or whose ``SPEC`` serves another action group."""


class ToolRegistry(Mapping[str, "ToolSpec"]):
    """Tool name (the operationId and Converse tool name) -> its spec, in declaration order."""

    def __init__(self, index: Index = _no_index) -> None:
        self._index = index
        self._by_name: dict[str, ToolSpec] = {}
        self._by_action: dict[str, ToolSpec] = {}
        self._by_group: dict[str, ToolSpec] = {}
        self._declared: dict[str, str] = {}  # action group -> its module, until it is loaded
        self._modules: dict[str, str] = {}  # action group -> its module, for every declared tool
        self._order: list[str] = []  # action groups in declaration order, however they load
        self._version = 0
        # Loading is check-import-add: two threads (the local server's concurrent first
        # requests) must not both load one tool. Re-entrant: a loading tool may read the registry.
        self._lock = threading.RLock()

    @property
    def version(self) -> int:
        """Changes on every (un)registration: caches of derived things key on it.

        Only what derives from every tool reads it, so it loads the declared ones first."""
        self.load_all()
        return self._version

    def declare(self, module: str) -> None:
        """Add the tool a module holds as ``SPEC``, loaded when a lookup first needs it. The
        module is named after the tool's action group (its Lambda runs ``functions/tool`` with this
        module as ``TOOL_MODULE``)."""
        group = module.rpartition(".")[2]
        if group in self._order:
            raise DuplicateTool(f"Another tool already has the action group '{group}'.")
        self._declared[group] = module
        self._modules[group] = module
        self._order.append(group)

    def module(self, group: str) -> str | None:
        """The module a declared tool's action group names (its function loads it first), without
        loading it; None for a tool registered from a spec, or no tool."""
        return self._modules.get(group)

    def register(self, spec: ToolSpec) -> ToolSpec:
        """Add a tool; its name, action string, action group and path must be its own."""
        with self._lock:
            self.load_all()
            return self._add(spec)

    def _add(self, spec: ToolSpec) -> ToolSpec:
        taken = [
            f"{what} '{value}'"
            for what, value, index in (
                ("name", spec.name, self._by_name),
                ("action", spec.action, self._by_action),
                ("action group", spec.action_group, self._by_group),
            )
            if value in index
        ]
        if any(s.api_path == spec.api_path for s in self._by_name.values()):
            taken.append(f"path '{spec.api_path}'")
        if taken:
            raise DuplicateTool(f"Another tool already has the {', '.join(taken)}.")
        self._by_name[spec.name] = spec
        self._by_action[spec.action] = spec
        self._by_group[spec.action_group] = spec
        if spec.action_group not in self._order:
            self._order.append(spec.action_group)
        self._version += 1
        return spec

    def _load(self, group: str) -> None:
        with self._lock:
            if group in self._declared:  # another thread may have loaded it meanwhile
                self._load_declared(group)

    def _load_declared(self, group: str) -> None:
        module = self._declared[group]
        spec: ToolSpec | None = getattr(importlib.import_module(module), "SPEC", None)
        if spec is None:
            raise MisdeclaredTool(f"{module} is declared as a tool but holds no SPEC.")
        if spec.action_group != group:
            raise MisdeclaredTool(
                f"{module} is declared as action group '{group}' but its SPEC serves "
                f"'{spec.action_group}': name the module after its action group."
            )
        # Checked against the tools loaded so far; a clash with one still declared shows when
        # that one loads (every walk over the registry loads them all).
        self._add(spec)
        del self._declared[group]

    def load_all(self) -> None:
        """Import every declared tool now: a function that serves every tool does it while it
        initialises, rather than in its first request."""
        with self._lock:
            for group in list(self._declared):
                self._load_declared(group)

    def unregister(self, name: str) -> None:
        """Remove a tool (tests that registered one of their own)."""
        with self._lock:
            spec = self._by_name.pop(name)
            del self._by_action[spec.action]
            del self._by_group[spec.action_group]
            self._order.remove(spec.action_group)
            self._modules.pop(spec.action_group, None)
            self._version += 1

    def _indexed(self, group: str) -> IndexEntry | None:
        """What the index says of a declared group's tool, if it speaks of that very module."""
        entry = self._index().get(group)
        return entry if entry is not None and entry.module == self._declared.get(group) else None

    def _find(
        self, found: dict[str, ToolSpec], value: str, of: Callable[[IndexEntry], str]
    ) -> ToolSpec | None:
        """``found[value]``, loading the declared tool the index names for it, else every tool."""
        if value not in found:
            with self._lock:
                for group in list(self._declared):
                    entry = self._indexed(group)
                    if entry is not None and of(entry) == value:
                        self._load_declared(group)
                        break
                if value not in found:
                    self.load_all()
        return found.get(value)

    def by_action(self, action: str) -> ToolSpec | None:
        """The tool whose payloads (and cards, and drafts) carry this action string."""
        return self._find(self._by_action, action, lambda entry: entry.action)

    def by_name(self, name: str) -> ToolSpec | None:
        """The tool of this name (the operationId and the model's tool name)."""
        return self._find(self._by_name, name, lambda entry: entry.name)

    @property
    def names(self) -> tuple[str, ...]:
        """Every tool's name in declaration and registration order, read from the index for a tool
        not loaded yet."""
        return tuple(tool.name for tool in self.described())

    def described(self) -> list[ToolSpec | IndexEntry]:
        """Each tool in order: its spec if loaded, else what the index says of it (every tool loads
        first when the index lacks one). What describes the tools to a model reads this."""
        with self._lock:
            entries: dict[str, IndexEntry] = {}
            for group in self._declared:
                entry = self._indexed(group)
                if entry is None:
                    self.load_all()
                    entries.clear()
                    break
                entries[group] = entry
            return [self._by_group.get(group) or entries[group] for group in self._order]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names

    def by_group(self, group: str) -> ToolSpec | None:
        """The tool an action group serves (one operation per group): loads that tool only."""
        if group in self._declared:
            self._load(group)
        return self._by_group.get(group)

    @property
    def groups(self) -> tuple[str, ...]:
        """The action groups, in declaration and registration order."""
        self.load_all()
        return tuple(self._order)

    @property
    def actions(self) -> Mapping[str, ToolSpec]:
        self.load_all()
        return {self._by_group[group].action: self._by_group[group] for group in self._order}

    def __getitem__(self, name: str) -> ToolSpec:
        spec = self.by_name(name)
        if spec is None:
            raise KeyError(name)
        return spec

    def __iter__(self) -> Iterator[str]:
        self.load_all()
        return iter([self._by_group[group].name for group in self._order])

    def __len__(self) -> int:
        self.load_all()
        return len(self._by_name)


REGISTRY = ToolRegistry(committed_index)
"""THE registry; :mod:`multitool.tools` declares the built-in tools on import."""
