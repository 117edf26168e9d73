"""The tool contract's one error model: what a tool call refuses, and what a tool's confirm refuses.

Every error is a :class:`multitool.errors.ServiceError` carrying its ``code`` and ``status``:

- :class:`ToolError` and its kinds: a call the tool cannot act on, its message written for the
  model to fix its call (whichever wire carries it: action group, Gateway, in-process);
- :class:`ReviewError` and the kinds a tool's own confirm raises (:class:`InvalidEdits`,
  :class:`NotConfigured`; :class:`SlotRefused` when the calendar refused the slot). The review's
  other refusals (a draft not found, a conflict, a failed side effect) are the reviewer's, in
  :mod:`multitool.review.errors`, built on :class:`ReviewError`.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import TYPE_CHECKING, Any, ClassVar

from multitool.errors import ServiceError

if TYPE_CHECKING:
    from multitool.drafts import Draft

# -- a tool call's errors ------------------------------------------------------


class ToolError(ServiceError):
    """A call the tool cannot act on; the message is written for the model to fix its call.

    A :class:`multitool.errors.ServiceError` like every error an API answers: its code, its status
    and its ``field`` in the detail, whichever wire (action group, Gateway, in-process) carries it.
    """

    code: ClassVar[str] = "invalid_input"
    status: ClassVar[int] = 400

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def detail(self) -> dict[str, Any]:
        return {"field": self.field} if self.field is not None else {}

    def to_body(self) -> dict[str, Any]:
        """The tool's answer to a call: ``{"error": {"code", "message", "field"?}}``."""
        return {"error": {"code": self.code, "message": self.public_message(), **self.detail()}}


class InvalidInput(ToolError):
    code = "invalid_input"
    status = 400


class UnknownTool(ToolError):
    code = "unknown_tool"
    status = 404


class UnknownProject(ToolError):
    code = "unknown_project"
    status = 404


class UnknownIssueType(ToolError):
    code = "unknown_issue_type"
    status = 422


class UnparseableDate(ToolError):
    code = "unparseable_date"
    status = 422


class DateInPast(ToolError):
    code = "date_in_past"
    status = 422


class UnknownTimeZone(ToolError):
    code = "unknown_time_zone"
    status = 422


class InvalidRecurrence(ToolError):
    """A repeating meeting's rule the series cannot hold (an end before its first meeting)."""

    code = "invalid_recurrence"
    status = 422


class NoFreeSlot(ToolError):
    code = "no_free_slot"
    status = 422


class ItemChanged(ToolError):
    """The item a card names changed or went away on the provider after the card was made: its
    confirm wrote nothing."""

    code: ClassVar[str] = "item_changed"
    status: ClassVar[int] = 409


class ToolFailed(ToolError):
    """The tool's own code failed unexpectedly on this call (logged by type and place only)."""

    code = "internal_error"
    status = 500

    def __init__(self, message: str = "The tool failed unexpectedly; try again once.") -> None:
        super().__init__(message)


class SuiteRefused(ToolError):
    """The caller's own suite (Microsoft 365, Google Workspace) refused or failed the read: its
    words, code and status as the provider error has them (``account_not_connected``: connect)."""

    def __init__(self, message: str, *, code: str, status: int) -> None:
        super().__init__(message)
        self.suite_code = code
        self.suite_status = status

    @property
    def code(self) -> str:  # type: ignore[override]
        return self.suite_code

    @property
    def status(self) -> int:  # type: ignore[override]
        return self.suite_status


class BackendUnavailable(ToolError):
    """A port failed (throttling, network); the call can be retried as is."""

    code = "backend_unavailable"
    status = 503


# -- a confirm's errors --------------------------------------------------------


class ReviewError(ServiceError):
    """What a confirm, a discard or a read of a draft refuses; the review API answers every one of
    them in one handler (:mod:`multitool.api.review_app`)."""

    code: ClassVar[str] = "review_error"
    status: ClassVar[int] = HTTPStatus.BAD_REQUEST
    draft: Draft | None = None
    """The draft as the failure left it, shown beside the error (a conflict, a failed side effect)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def detail(self) -> dict[str, Any]:
        """The error detail's fields beside ``code`` and ``message`` (``field``, ``retryable``)."""
        return {}

    def headers(self) -> dict[str, str]:
        return {}


class NothingToConfirm(ReviewError):
    """A confirm of a card that only shows something (an agenda, free times): it does nothing."""

    code = "read_only"
    status = HTTPStatus.CONFLICT


class InvalidEdits(ReviewError):
    code = "invalid_edits"
    status = HTTPStatus.UNPROCESSABLE_ENTITY

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field

    def detail(self) -> dict[str, Any]:
        return {"field": self.field}


class NotConfigured(ReviewError):
    """The side effect has no backend in this deployment (e.g. no Jira secret)."""

    code = "not_configured"
    status = HTTPStatus.SERVICE_UNAVAILABLE


class SlotRefused(Exception):
    """Raised by a confirm's side effect when the calendar refused the slot: nothing happened.

    The reviewer restores the draft and answers :class:`multitool.review.errors.SlotTaken` with this
    message.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
