"""A Step: one stage of a conversation, its handlers, and what they see of the running dispatch."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from multitool.runtimes.flow.calls import ToolCall
from multitool.runtimes.flow.declarations import _build_spec, _StepSpec
from multitool.runtimes.flow.errors import StateError, _json_object


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
