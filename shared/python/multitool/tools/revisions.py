"""Revisions: a call naming a card in ``revises`` makes a new draft that supersedes that card.

"Make it 45 minutes" after a meeting card is a new ``propose_meeting`` call with every
field of the revised meeting and ``revises`` set to the earlier card's draft id. Its new
draft is stored and the earlier one marked ``superseded`` in ONE transactional write
(:meth:`multitool.ports.drafts.DraftStore.supersede`), so the user never holds two
confirmable cards for one action. Only a ``proposed`` draft of the same owner, the same session
(the conversation that made the card; a Gateway call's own one for an unclaimed draft) and the same
tool can be superseded; anything else is a :class:`CannotRevise` the model reads and
can act on. A retried revision lands on the revision already stored.
"""

from __future__ import annotations

from datetime import datetime

from multitool.drafts import Draft, DraftStatus, is_expired
from multitool.ports.drafts import DraftStore, DraftWriteConflict
from multitool.toolkit.errors import ToolError
from multitool.toolkit.registry import REGISTRY

_ATTEMPTS = 3


class CannotRevise(ToolError):
    """The card named in ``revises`` cannot be superseded by this call."""

    code = "cannot_revise"
    status = 409

    def __init__(self, message: str) -> None:
        super().__init__(message, field="revises")


def _noun(action: str) -> str:
    tool = REGISTRY.by_action(action)
    return tool.nouns[0] if tool is not None else "a card"


def _refusal(earlier: Draft | None, revision: Draft, earlier_id: str, now: datetime) -> CannotRevise | None:
    """Why ``revision`` cannot supersede ``earlier``, or None when it can."""
    # Another session's card is "not found" too: a card id seen elsewhere (another conversation, or
    # another Gateway caller's unclaimed draft, whose owner is the same placeholder) revises nothing.
    if (
        earlier is None
        or earlier.owner != revision.owner
        or earlier.session_id != revision.session_id
        or is_expired(earlier, now)
    ):
        return CannotRevise(
            f"There is no card '{earlier_id}' to revise: pass the draftId of one of the user's cards "
            "from this conversation, or leave revises out to make a new card."
        )
    if earlier.action != revision.action:
        tool = REGISTRY.by_action(earlier.action)
        how = f"revise it with {tool.name}" if tool is not None else "it cannot be revised by this tool"
        return CannotRevise(
            f"Card '{earlier_id}' is {_noun(earlier.action)}, not {_noun(revision.action)}: {how}, "
            "or leave revises out to make a new card."
        )
    if earlier.status is DraftStatus.SUPERSEDED:
        return CannotRevise(
            f"Card '{earlier_id}' was already replaced by '{earlier.superseded_by}': "
            "revise that card instead."
        )
    if earlier.status is not DraftStatus.PROPOSED:
        return CannotRevise(
            f"Card '{earlier_id}' is {earlier.status.value} and can no longer be revised; "
            "leave revises out to make a new card."
        )
    return None


def store_revision(drafts: DraftStore, revision: Draft, earlier_id: str, now: datetime) -> Draft:
    """``revision`` stored in place of the card ``earlier_id`` (now superseded), or :class:`CannotRevise`."""
    for _ in range(_ATTEMPTS):
        earlier = drafts.get(earlier_id)
        if (
            earlier is not None
            and earlier.superseded_by == revision.id
            and earlier.owner == revision.owner
            and earlier.session_id == revision.session_id
        ):
            stored = drafts.get(revision.id)  # this very call, retried: its revision is stored already
            if stored is not None:
                return stored
        refusal = _refusal(earlier, revision, earlier_id, now)
        if refusal is not None:
            raise refusal
        assert earlier is not None
        try:
            return drafts.supersede(earlier, revision)
        except DraftWriteConflict:
            continue  # the card changed since it was read: decide again on what is stored now
    raise CannotRevise(f"Card '{earlier_id}' is changing right now; try the revision again shortly.")
