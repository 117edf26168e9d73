"""What a caller sees of an action: ``GET /actions/{id}`` and every confirm or discard answer.

Apart from the reviewer so what reads it (the confirm in order, :mod:`multitool.review.links`)
needs not the reviewer.
"""

from datetime import datetime
from typing import Any

from pydantic import Field

# A module, not its names: client_actions reads the registry, whose tools import this package.
from multitool.cards import client_actions
from multitool.drafts import Draft, DraftStatus
from multitool.wire import WireModel


class DraftView(WireModel):
    """``GET /actions/{id}`` and every confirm/discard answer."""

    id: str
    action: str
    status: DraftStatus
    card: dict[str, Any] | None = Field(description="The card as /chat returned it")
    edits: dict[str, Any] | None = Field(description="The content as last confirmed")
    result: dict[str, Any] | None = None
    error: str | None = None
    retryable: bool = Field(description="A confirm can be sent (again)")
    superseded_by: str | None = Field(default=None, description="The draft that revised this one")
    due_at: datetime | None = Field(
        default=None, description="A scheduled action: when it is sent unless undone before"
    )
    undo_until: datetime | None = Field(
        default=None, description="A scheduled action: POST /actions/{id}/undo cancels it until then"
    )
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, draft: Draft) -> "DraftView":
        try:
            card: dict[str, Any] | None = client_actions.card_from_payload(draft.payload).to_wire()
        except ValueError:
            card = None
        return cls(
            id=draft.id,
            action=draft.action,
            status=draft.status,
            card=card,
            edits=draft.edits,
            result=draft.result,
            error=draft.error,
            retryable=draft.status in (DraftStatus.PROPOSED, DraftStatus.FAILED),
            superseded_by=draft.superseded_by,
            due_at=draft.due_at if draft.status is DraftStatus.SCHEDULED else None,
            undo_until=draft.due_at if draft.status is DraftStatus.SCHEDULED else None,
            created_at=draft.created_at,
            updated_at=draft.updated_at,
        )
