"""Drafts: what a tool proposed, stored until its owner confirms or discards it.

A draft's id is derived from (owner, session, action, canonical arguments), so
a retried invocation with the same input in the same session lands on the same
draft instead of creating a second one (the store writes conditionally).

Status moves ``proposed -> executing -> done`` (or ``failed``, retryable), or
``proposed -> discarded``, or ``proposed -> superseded`` when a revision of the
draft (a call naming it in ``revises``) replaces it; every transition is a
conditional write. A superseded draft names its successor (``supersededBy``) and
is never confirmable again.

With a moment to undo (:mod:`multitool.review.reviewer`, a tool whose confirm is ``undoable``),
a confirm moves ``proposed | failed -> scheduled`` instead of ``executing``: the content is
confirmed, the side effect waits until ``dueAt``. ``scheduled -> proposed`` is an undo (nothing
was sent, the edits are kept), ``scheduled -> executing -> done | failed`` the send at due time.
Undo and the send are each one conditional write from ``scheduled``: exactly one of them wins.
"""

import hashlib
import json
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import Field

from multitool.wire import WireModel

DEFAULT_TTL_SECONDS = 7 * 24 * 3600
MAX_DRAFT_ID_CHARS = 64
UNCLAIMED_OWNER = "gateway:unclaimed"
"""The owner of a draft made through the AgentCore Gateway, which knows no user: nobody may read,
confirm or discard it until the orchestrator whose turn made it claims it for its user (a user id
never contains ``:``-prefixed service names like this one)."""


class DraftStatus(StrEnum):
    PROPOSED = "proposed"
    EXECUTING = "executing"
    DONE = "done"
    FAILED = "failed"
    DISCARDED = "discarded"
    SUPERSEDED = "superseded"
    SCHEDULED = "scheduled"


class Confirmer(WireModel):
    """Who confirmed a scheduled draft, as the confirm's token said: the send at due time runs
    without a request, so the mail's sender name and reply-to address are kept here (never a token)."""

    email: str | None = Field(default=None, max_length=320)
    name: str | None = Field(default=None, max_length=256)


class Draft(WireModel):
    """One stored draft (one card)."""

    id: str = Field(min_length=1, max_length=MAX_DRAFT_ID_CHARS)
    owner: str = Field(min_length=1, max_length=256)
    session_id: str = Field(min_length=1, max_length=256)
    action: str = Field(min_length=1, max_length=64, description="Payload action string")
    status: DraftStatus = DraftStatus.PROPOSED
    payload: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    expires_at: int = Field(description="Epoch seconds; the table's TTL attribute")
    edits: dict[str, Any] | None = Field(default=None, description="Fields as the user confirmed them")
    result: dict[str, Any] | None = None
    error: str | None = None
    superseded_by: str | None = Field(default=None, description="The draft that revised this one")
    due_at: datetime | None = Field(default=None, description="A scheduled draft: when it is sent")
    confirmed_by: Confirmer | None = Field(default=None, description="A scheduled draft: who confirmed it")
    progress: dict[str, Any] | None = Field(
        default=None,
        description="What a confirm's side effect did before its last step (the provider draft it made): "
        "kept across tries, so a retried confirm finishes that one instead of starting again",
    )
    version: int = 0


def is_unclaimed(draft: Draft) -> bool:
    """True while a Gateway-made draft waits for the orchestrator of its turn to claim it."""
    return draft.owner == UNCLAIMED_OWNER


def is_expired(draft: Draft, now: datetime) -> bool:
    """True once the draft's TTL has passed: DynamoDB deletes it lazily, but it is gone for users."""
    return draft.expires_at <= now.timestamp()


def canonical_json(value: Any) -> str:
    """Stable JSON text: sorted keys, no whitespace, for hashing."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def draft_id(owner: str, session_id: str, action: str, arguments: Any) -> str:
    """Deterministic draft id: the same input in the same session gives the same id."""
    digest = hashlib.sha256(canonical_json([owner, session_id, action, arguments]).encode()).hexdigest()
    return f"d_{digest[:32]}"


def new_draft(
    *,
    owner: str,
    session_id: str,
    action: str,
    arguments: Any,
    payload: dict[str, Any],
    now: datetime | None = None,
    ttl_seconds: int = DEFAULT_TTL_SECONDS,
) -> Draft:
    """A proposed draft whose id is derived from its input (see :func:`draft_id`)."""
    created = now or datetime.now(UTC)
    identifier = draft_id(owner, session_id, action, arguments)
    return Draft(
        id=identifier,
        owner=owner,
        session_id=session_id,
        action=action,
        payload={**payload, "draftId": identifier},
        created_at=created,
        updated_at=created,
        expires_at=int(created.timestamp()) + ttl_seconds,
    )
