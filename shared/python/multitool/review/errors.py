"""The review's errors: what a confirm, a discard or a read can refuse, each with its code and status.

The errors a tool's own confirm raises (:class:`~multitool.toolkit.errors.InvalidEdits`,
:class:`~multitool.toolkit.errors.NotConfigured`, :class:`~multitool.toolkit.errors.SlotRefused`)
and their base :class:`~multitool.toolkit.errors.ReviewError` are the tool contract's
(:mod:`multitool.toolkit.errors`); these are the reviewer's own.

Every error is a :class:`multitool.errors.ServiceError` and carries what its HTTP answer says:
``code`` and ``status``, the error detail's extra fields (:meth:`ReviewError.detail`), the
headers (:meth:`ReviewError.headers`) and the draft to show as it is now (``draft``). The review
API turns any of them into a response in one generic handler (:mod:`multitool.api.review_app`).
Below everything else in the review (the recipient limits raise them too), so nothing here
imports the rest of the review.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from multitool.errors import RETRY_AFTER
from multitool.ports.tokens import PROVIDER_NAMES, Provider
from multitool.toolkit.errors import ReviewError

if TYPE_CHECKING:
    from multitool.drafts import Draft

# Failures worth retrying as they are (the backend was busy or away) answer 503;
# refusals that need a change (edits, credentials, sender identity) answer 502.
UNAVAILABLE_CODES = frozenset(
    {
        "mail_unavailable",
        "mail_throttled",
        "jira_unavailable",
        "jira_rate_limited",
        "jira_not_configured",
        "provider_throttled",
        "provider_unavailable",
    }
)


def retry_after_header(seconds: float) -> dict[str, str]:
    """``Retry-After`` in whole seconds, at least one."""
    return {RETRY_AFTER: str(max(1, round(seconds)))}


class DraftNotFound(ReviewError):
    """No such draft, or not the caller's: the two are indistinguishable on purpose."""

    code = "not_found"
    status = HTTPStatus.NOT_FOUND


class ReviewConflict(ReviewError):
    """The draft's status does not allow the request; ``draft`` is its current state."""

    status = HTTPStatus.CONFLICT

    def __init__(self, message: str, *, draft: Draft) -> None:
        super().__init__(message)
        self.draft = draft


class ActionInProgress(ReviewConflict):
    code = "in_progress"


class AlreadyDone(ReviewConflict):
    code = "already_done"


class AlreadyDiscarded(ReviewConflict):
    code = "discarded"


class Superseded(ReviewConflict):
    """A revision replaced the draft (``draft.superseded_by``): only the revision can be confirmed."""

    code = "superseded"


class SlotTaken(ReviewConflict):
    """The chosen slot was booked for an attendee since the card was made; nothing was sent.

    ``draft`` is confirmable again (its status as before the confirm, the edits kept): the
    card's other slots, or the same slot once it is free, can be confirmed.
    """

    code = "slot_taken"


class ItemChangedSince(ReviewConflict):
    """The item the card showed (a meeting) changed or went on the provider since: nothing was
    written. ``draft`` is as before the confirm; a card made afresh shows the item as it is."""

    code = "item_changed"


class SideEffectFailed(ReviewError):
    """The backend refused or failed; the draft is ``failed`` with the reason and can be confirmed again."""

    def __init__(self, message: str, *, code: str, draft: Draft, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.failure_code = code
        self.draft = draft
        self.retry_after = retry_after

    @property
    def code(self) -> str:  # type: ignore[override]
        return self.failure_code

    @property
    def status(self) -> int:  # type: ignore[override]
        # The backend's own word decides: busy or away is worth the same confirm again (503).
        unavailable = self.failure_code in UNAVAILABLE_CODES or self.retry_after is not None
        return HTTPStatus.SERVICE_UNAVAILABLE if unavailable else HTTPStatus.BAD_GATEWAY

    def detail(self) -> dict[str, Any]:
        return {"retryable": True}

    def headers(self) -> dict[str, str]:
        return retry_after_header(self.retry_after) if self.retry_after is not None else {}


class ReconnectAccount(ReviewError):
    """The user's own suite has no usable token: nothing happened, the draft stays confirmable
    once the account is (re)connected (``account_not_connected``). The error body names the
    provider and, when the token source offered one, the link that connects the account: what the
    page's connect card shows."""

    code = "account_not_connected"
    status = HTTPStatus.FORBIDDEN

    def __init__(
        self,
        message: str,
        *,
        draft: Draft,
        provider: Provider | None = None,
        authorization_url: str | None = None,
    ) -> None:
        super().__init__(message)
        self.draft = draft
        self.provider = provider
        self.authorization_url = authorization_url

    def detail(self) -> dict[str, Any]:
        if self.provider is None:
            return {}
        detail: dict[str, Any] = {"provider": self.provider, "providerName": PROVIDER_NAMES[self.provider]}
        if self.authorization_url is not None:
            detail["authorizationUrl"] = self.authorization_url
        return detail


class ProviderFailed(ReviewError):
    """The user's suite refused or failed before anything was done; the draft is as it was."""

    def __init__(
        self, message: str, *, code: str, status: int, draft: Draft, retry_after: float | None
    ) -> None:
        super().__init__(message)
        self.failure_code = code
        self.failure_status = status
        self.draft = draft
        self.retry_after = retry_after

    @property
    def code(self) -> str:  # type: ignore[override]
        return self.failure_code

    @property
    def status(self) -> int:  # type: ignore[override]
        return self.failure_status

    def detail(self) -> dict[str, Any]:
        return {"retryable": True}

    def headers(self) -> dict[str, str]:
        return retry_after_header(self.retry_after) if self.retry_after is not None else {}


class AlreadyScheduled(ReviewConflict):
    """The draft is confirmed and waits in its undo window with other content: undo it to change it."""

    code = "scheduled"


class TooLateToUndo(ReviewConflict):
    """The undo window has passed: the side effect is being done or done (``draft`` says which)."""

    code = "too_late_to_undo"


class ScheduleUnavailable(ReviewError):
    """The undo window's queue refused the confirm's message: nothing will be sent, the draft is as it
    was, and the same confirm can be sent again."""

    code = "schedule_unavailable"
    status = HTTPStatus.SERVICE_UNAVAILABLE

    def __init__(self, message: str, *, draft: Draft) -> None:
        super().__init__(message)
        self.draft = draft

    def detail(self) -> dict[str, Any]:
        return {"retryable": True}
