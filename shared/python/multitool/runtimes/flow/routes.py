"""Routes: where the conversation goes after a handler, and what travels with it.

Handlers build them with :func:`go`, :func:`stay` and :func:`direct`; a foreign object or
mapping with a ``step`` is read into one as well (:func:`_route_from_object`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import msgspec

from multitool.runtimes.flow.calls import ACKNOWLEDGED
from multitool.runtimes.flow.errors import RoutingError, _json_object
from multitool.runtimes.flow.steps import Step

_ROUTE_REQUIREMENT = (
    "It must return a routing result: a non-empty step name, a Step target, "
    "or an object with a non-empty string or Step target in its step property."
)
_EMPTY: Mapping[str, Any] = MappingProxyType({})
_ROUTE_TEXT_FIELDS = ("feedback", "direct", "prompt", "content_type", "message")


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


def _diagnostic(label: str, what: str) -> str:
    return f"{label} returned {what}. {_ROUTE_REQUIREMENT}"


def _default_content(route: Route) -> Any:
    if route.feedback is not None:
        return route.feedback
    if route.message is not None:
        return route.message
    return ACKNOWLEDGED
