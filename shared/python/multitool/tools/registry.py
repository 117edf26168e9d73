"""The tool registry: every tool, by name, by action string and by action group.

A tool is ONE :class:`multitool.tools.spec.ToolSpec` in its own module (its models, its
``prepare``, its card and its confirm); one :meth:`ToolRegistry.declare` line adds it
(:mod:`multitool.tools` declares the built-in tools), or :meth:`ToolRegistry.register` for
a spec already made (a test's toy tool). Everything else is read from here when it is
needed: the action-group apps and their OpenAPI documents, the Converse and harness tool
specs, the CDK action groups, the batch runner, the card mapper and the review's confirm.
Nothing derived is frozen at import, so a tool registered later is found everywhere.

A declared tool module is imported when a lookup first needs it, not when the registry is:
an action-group function looks its one tool up by its action group (the module's name) and
never loads the other tools' models, cards and confirms; a lookup the loaded tools cannot
answer, and any walk over the registry, loads every declared tool first, so an answer never
depends on what happened to be loaded.

This module imports no tool module, so the layers a tool module imports (cards, review)
can read the registry without an import cycle.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multitool.tools.spec import ToolSpec


class DuplicateTool(ValueError):
    """A tool whose name, action string, action group or path another tool already has."""


class MisdeclaredTool(ValueError):
    """A declared module that holds no ``SPEC``, or whose ``SPEC`` serves another action group."""


class ToolRegistry(Mapping[str, "ToolSpec"]):
    """Tool name (the operationId and Converse tool name) -> its spec, in declaration order."""

    def __init__(self) -> None:
        self._by_name: dict[str, ToolSpec] = {}
        self._by_action: dict[str, ToolSpec] = {}
        self._by_group: dict[str, ToolSpec] = {}
        self._declared: dict[str, str] = {}  # action group -> its module, until it is loaded
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
        module is named after the tool's action group (its Lambda is ``functions/<group>``)."""
        group = module.rpartition(".")[2]
        if group in self._order:
            raise DuplicateTool(f"Another tool already has the action group '{group}'.")
        self._declared[group] = module
        self._order.append(group)

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
            self._version += 1

    def by_action(self, action: str) -> ToolSpec | None:
        """The tool whose payloads (and cards, and drafts) carry this action string."""
        if action not in self._by_action:
            self.load_all()
        return self._by_action.get(action)

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
        if name not in self._by_name:
            self.load_all()
        return self._by_name[name]

    def __iter__(self) -> Iterator[str]:
        self.load_all()
        return iter([self._by_group[group].name for group in self._order])

    def __len__(self) -> int:
        self.load_all()
        return len(self._by_name)


REGISTRY = ToolRegistry()
"""THE registry; :mod:`multitool.tools` declares the built-in tools on import."""
