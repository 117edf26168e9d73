"""Human review: a draft's owner reads it, confirms it (with edits) or discards it.

- :mod:`multitool.review.errors`: what a confirm, a discard or a read can refuse (the errors a tool's
  own confirm raises are the tool contract's, :mod:`multitool.toolkit.errors`);
- :mod:`multitool.review.limits`: whom a confirm may mail, and how many a day;
- :mod:`multitool.review.reviewer`: the ``Reviewer`` state machine (the states, exactly once), imported
  from there: only the review function runs it, so the action-group functions never load it;
- what a tool's confirm is built from (the caller, addresses, ``ActionReview``) is the tool contract's
  :mod:`multitool.toolkit.confirm`, named here too for the review's callers; each tool's own confirm
  (edits model, content, side effect) is in its tool's package.
"""

from multitool.review.errors import (
    ActionInProgress,
    AlreadyDiscarded,
    AlreadyDone,
    DraftNotFound,
    ItemChangedSince,
    ReviewConflict,
    SideEffectFailed,
    SlotTaken,
    Superseded,
)
from multitool.toolkit.confirm import ActionReview, Address, Caller, ReviewConfig, ReviewContext, name_claim
from multitool.toolkit.errors import InvalidEdits, NotConfigured, ReviewError

__all__ = [
    "ActionInProgress",
    "ActionReview",
    "Address",
    "AlreadyDiscarded",
    "AlreadyDone",
    "Caller",
    "DraftNotFound",
    "InvalidEdits",
    "ItemChangedSince",
    "NotConfigured",
    "ReviewConfig",
    "ReviewConflict",
    "ReviewContext",
    "ReviewError",
    "SideEffectFailed",
    "SlotTaken",
    "Superseded",
    "name_claim",
]
