"""Human review: a draft's owner reads it, confirms it (with edits) or discards it.

- :mod:`multitool.review.errors`: what a confirm, a discard or a read can refuse;
- :mod:`multitool.toolkit.confirm`: the caller, addresses, what a tool's confirm is built from;
- :mod:`multitool.review.reviewer`: the ``Reviewer`` state machine (the states, exactly once), imported
  from there: only the review function runs it, so the action-group functions never load it;
- each tool's own confirm (edits model, content, side effect) is in its tool module.
"""

from multitool.review.errors import (
    ActionInProgress,
    AlreadyDiscarded,
    AlreadyDone,
    DraftNotFound,
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
