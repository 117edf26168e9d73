"""Claiming Gateway-made drafts: the orchestrator gives its user the drafts its own turn made.

A tool called through the AgentCore Gateway learns no user (the harness reaches the Gateway with
its own IAM role), so its draft is stored unclaimed (:data:`multitool.drafts.UNCLAIMED_OWNER`) and
nobody can read, confirm or discard it. The orchestrator authenticated the user and invoked the
harness for them; the draft ids it reads in that invocation's own stream (the ``toolResult`` of a
Gateway call the harness made in this turn) are the drafts of this turn, and it claims exactly
those for its user with one conditional write each. A draft already claimed by anyone else, or
made for a verified caller, is never moved: its card is dropped from this turn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from multitool.drafts import is_unclaimed
from multitool.observability import logger
from multitool.ports.drafts import DraftStore, DraftWriteConflict

DraftClaims = Callable[[str, Iterable[str]], frozenset[str]]
"""``(user_id, draft ids seen in the turn) -> the ids that are now the user's``."""


def claim_drafts(drafts: DraftStore, user_id: str, draft_ids: Iterable[str]) -> frozenset[str]:
    """Claim every unclaimed draft of ``draft_ids`` for ``user_id``; the ids the user owns after it."""
    owned: set[str] = set()
    for draft_id in dict.fromkeys(draft_ids):
        draft = drafts.get(draft_id)
        if draft is not None and is_unclaimed(draft):
            try:
                draft = drafts.claim(draft, user_id)
            except DraftWriteConflict as conflict:
                draft = conflict.stored
        if draft is not None and draft.owner == user_id:
            owned.add(draft_id)
        else:
            logger.warning(
                "A Gateway draft in the turn is not the user's; its card is dropped",
                extra={"draft_id": draft_id},
            )
    return frozenset(owned)


def draft_claims(drafts: DraftStore) -> DraftClaims:
    """The claim step a runtime calls with what its turn's stream showed."""

    def claim(user_id: str, draft_ids: Iterable[str]) -> frozenset[str]:
        return claim_drafts(drafts, user_id, draft_ids)

    return claim
