"""The review's errors: what a confirm, a discard or a read can refuse, each with its code.

Mapped to HTTP in one place, :mod:`multitool.api.review_app`. Below everything else in the
review (the recipient limits raise them too), so nothing here imports the rest of the review.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from multitool.drafts import Draft


class ReviewError(Exception):
    code: ClassVar[str] = "review_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class DraftNotFound(ReviewError):
    """No such draft, or not the caller's: the two are indistinguishable on purpose."""

    code = "not_found"


class InvalidEdits(ReviewError):
    code = "invalid_edits"

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


class ReviewConflict(ReviewError):
    """The draft's status does not allow the request; ``draft`` is its current state."""

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


class SlotRefused(Exception):
    """Raised by a confirm's side effect when the calendar refused the slot: nothing happened.

    The reviewer restores the draft and answers :class:`SlotTaken` with this message.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotConfigured(ReviewError):
    """The side effect has no backend in this deployment (e.g. no Jira secret)."""

    code = "not_configured"


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
