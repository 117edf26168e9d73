"""Session ids: format and ownership (in memory; the DynamoDB store is tested against moto)."""

from __future__ import annotations

import pytest
from multitool.sessions import MemorySessionStore, SessionNotOwned, new_session_id, valid_session_id


def test_new_session_ids_are_valid_and_unique() -> None:
    ids = {new_session_id() for _ in range(200)}

    assert len(ids) == 200
    assert all(valid_session_id(i) for i in ids)


@pytest.mark.parametrize("value", ["", "a", "has space", "x" * 101, "semi;colon", "ünïcode"])
def test_invalid_session_ids_are_refused(value: str) -> None:
    assert not valid_session_id(value)


def test_a_session_belongs_to_its_first_user() -> None:
    store = MemorySessionStore()
    store.claim("sess-1", "alice")
    store.claim("sess-1", "alice")

    with pytest.raises(SessionNotOwned):
        store.claim("sess-1", "bob")
    store.claim("sess-2", "bob")
