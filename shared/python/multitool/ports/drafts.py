"""Drafts port: where proposed cards wait for their owner's decision."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from multitool.drafts import Draft


class DraftStore(Protocol):
    def create_many(self, drafts: Sequence[Draft]) -> list[Draft]:
        """Store new drafts in ONE write; an id that exists already is kept as stored
        (a retried invocation) and the stored draft is returned in its place."""
        ...

    def get(self, draft_id: str) -> Draft | None: ...
