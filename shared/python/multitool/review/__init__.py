"""Human review: a draft's owner reads it, confirms it (with edits) or discards it.

- :mod:`multitool.review.base`: errors, the caller, addresses, what a tool's confirm is built from;
- :mod:`multitool.review.reviewer`: the :class:`Reviewer` state machine (the states, exactly once);
- each tool's own confirm (edits model, content, side effect) is in its tool module.
"""

# The tool modules import multitool.review.base: the tools load first, so that whichever of the
# two packages is imported first, each tool module finds the review's base complete.
import multitool.tools  # noqa: F401  (isort: keep first)
from multitool.review.base import (
    ActionInProgress,
    ActionReview,
    Address,
    AlreadyDiscarded,
    AlreadyDone,
    Caller,
    DraftNotFound,
    InvalidEdits,
    NotConfigured,
    ReviewConfig,
    ReviewConflict,
    ReviewContext,
    ReviewError,
    SideEffectFailed,
    SlotTaken,
    Superseded,
    name_claim,
)
from multitool.review.reviewer import EXECUTION_LEASE, DraftView, Reviewer

__all__ = [
    "EXECUTION_LEASE",
    "ActionInProgress",
    "ActionReview",
    "Address",
    "AlreadyDiscarded",
    "AlreadyDone",
    "Caller",
    "DraftNotFound",
    "DraftView",
    "InvalidEdits",
    "NotConfigured",
    "ReviewConfig",
    "ReviewConflict",
    "ReviewContext",
    "ReviewError",
    "Reviewer",
    "SideEffectFailed",
    "SlotTaken",
    "Superseded",
    "name_claim",
]
