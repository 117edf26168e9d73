"""Draft status transitions are conditional writes: DynamoDB (moto) and the in-memory fake agree."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from moto import mock_aws
from multitool.drafts import Draft, DraftStatus, new_draft
from multitool.local.sandbox.memory import MemoryDraftStore
from multitool.ports.drafts import DraftStore, DraftWriteConflict, DynamoDraftStore
from multitool.ports.tables import DRAFTS, create_table

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(params=["dynamodb", "memory"])
def store(request: pytest.FixtureRequest) -> Iterator[DraftStore]:
    if request.param == "memory":
        yield MemoryDraftStore()
        return
    with mock_aws():
        client: Any = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, DRAFTS, "drafts")
        yield DynamoDraftStore("drafts", client)


def _draft() -> Draft:
    return new_draft(
        owner="user-1",
        session_id="s-1",
        action="show_new_email_draft",
        arguments={"to": ["Kin"]},
        payload={"action": "show_new_email_draft", "subject": "Doc", "body": "Hi", "to": [], "cc": []},
        now=NOW,
    )


def test_a_transition_bumps_the_version_and_keeps_edits_and_result(store: DraftStore) -> None:
    [draft] = store.create_many([_draft()])
    executing = draft.model_copy(update={"status": DraftStatus.EXECUTING, "edits": {"subject": "Doc v2"}})

    written = store.replace(draft, executing)
    done = store.replace(
        written, written.model_copy(update={"status": DraftStatus.DONE, "result": {"n": 1.5}})
    )

    stored = store.get(draft.id)
    assert stored == done
    assert stored is not None
    assert (stored.status, stored.version) == (DraftStatus.DONE, 2)
    assert stored.edits == {"subject": "Doc v2"}
    assert stored.result == {"n": 1.5}


def test_a_transition_from_a_stale_read_is_a_conflict_carrying_the_stored_draft(store: DraftStore) -> None:
    [draft] = store.create_many([_draft()])
    first = store.replace(draft, draft.model_copy(update={"status": DraftStatus.EXECUTING}))

    with pytest.raises(DraftWriteConflict) as caught:
        store.replace(draft, draft.model_copy(update={"status": DraftStatus.DISCARDED}))

    assert caught.value.stored == first
    assert store.get(draft.id) == first


def test_a_transition_cannot_change_the_owner(store: DraftStore) -> None:
    [draft] = store.create_many([_draft()])
    with pytest.raises(ValueError, match="owner"):
        store.replace(draft, draft.model_copy(update={"owner": "user-2"}))


def test_a_missing_draft_is_a_conflict(store: DraftStore) -> None:
    draft = _draft()
    with pytest.raises(DraftWriteConflict):
        store.replace(draft, draft.model_copy(update={"status": DraftStatus.EXECUTING}))
