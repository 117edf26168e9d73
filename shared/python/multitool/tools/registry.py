"""The tool registry: every tool, by name, by action string and by action group.

A tool is ONE :class:`multitool.tools.base.ToolSpec` in its own module (its models, its
``prepare``, its card and its confirm); one :meth:`ToolRegistry.register` line adds it
(:mod:`multitool.tools` registers the built-in tools). Everything else is read from here
when it is needed: the action-group apps and their OpenAPI documents, the Converse and
harness tool specs, the CDK action groups, the batch runner, the card mapper and the
review's confirm. Nothing derived is frozen at import, so a tool registered later (a test's
toy tool) is found everywhere.

This module imports no tool module, so the layers a tool module imports (cards, review)
can read the registry without an import cycle.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multitool.tools.base import ToolSpec


class DuplicateTool(ValueError):
    """A tool whose name, action string, action group or path another tool already has."""


class ToolRegistry(Mapping[str, "ToolSpec"]):
    """Tool name (the operationId and Converse tool name) -> its spec, in registration order."""

    def __init__(self) -> None:
        self._by_name: dict[str, ToolSpec] = {}
        self._by_action: dict[str, ToolSpec] = {}
        self._by_group: dict[str, ToolSpec] = {}
        self.version = 0
        """Changes on every (un)registration: caches of derived things key on it."""

    def register(self, spec: ToolSpec) -> ToolSpec:
        """Add a tool; its name, action string, action group and path must be its own."""
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
        self.version += 1
        return spec

    def unregister(self, name: str) -> None:
        """Remove a tool (tests that registered one of their own)."""
        spec = self._by_name.pop(name)
        del self._by_action[spec.action]
        del self._by_group[spec.action_group]
        self.version += 1

    def by_action(self, action: str) -> ToolSpec | None:
        """The tool whose payloads (and cards, and drafts) carry this action string."""
        return self._by_action.get(action)

    def by_group(self, group: str) -> ToolSpec | None:
        """The tool an action group serves (one operation per group)."""
        return self._by_group.get(group)

    @property
    def groups(self) -> tuple[str, ...]:
        """The action groups, in registration order."""
        return tuple(self._by_group)

    @property
    def actions(self) -> Mapping[str, ToolSpec]:
        return self._by_action

    def __getitem__(self, name: str) -> ToolSpec:
        return self._by_name[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)


REGISTRY = ToolRegistry()
"""THE registry; :mod:`multitool.tools` registers the built-in tools on import."""
