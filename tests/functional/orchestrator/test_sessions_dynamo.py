"""The DynamoDB session store against moto: first user owns the id; the conversation is kept, bounded."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws
from multitool.chat.sessions import (
    MAX_HISTORY_BYTES,
    MAX_STORED_TEXT_CHARS,
    DynamoSessionStore,
    SessionNotOwned,
    SessionWriteFailed,
    exchange,
)
from multitool.ports.tables import SESSIONS, create_table

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def store():
    with mock_aws():
        client = boto3.client("dynamodb")
        create_table(client, SESSIONS, "sessions")
        yield DynamoSessionStore("sessions", client, ttl_seconds=3600), client


def item(client, session_id: str) -> dict:
    return client.get_item(TableName="sessions", Key={"sessionId": {"S": session_id}})["Item"]


def test_first_claim_creates_the_session_with_owner_and_ttl(store) -> None:
    sessions, client = store

    sessions.claim("sess-1", "alice", NOW)

    stored = item(client, "sess-1")
    assert stored["owner"]["S"] == "alice"
    assert stored["turns"]["N"] == "1"
    assert int(stored["expiresAt"]["N"]) == int(NOW.timestamp()) + 3600


def test_the_owner_continues_and_the_ttl_moves(store) -> None:
    sessions, client = store
    sessions.claim("sess-1", "alice", NOW)

    later = NOW.replace(hour=10)
    sessions.claim("sess-1", "alice", later)

    stored = item(client, "sess-1")
    assert stored["turns"]["N"] == "2"
    assert stored["createdAt"]["S"] == NOW.isoformat()
    assert int(stored["expiresAt"]["N"]) == int(later.timestamp()) + 3600


def test_another_user_is_refused_and_changes_nothing(store) -> None:
    sessions, client = store
    sessions.claim("sess-1", "alice", NOW)

    with pytest.raises(SessionNotOwned):
        sessions.claim("sess-1", "mallory", NOW)

    stored = item(client, "sess-1")
    assert stored["owner"]["S"] == "alice"
    assert stored["turns"]["N"] == "1"


def test_a_new_session_has_no_history_and_claim_returns_what_was_remembered(store) -> None:
    sessions, client = store
    assert sessions.claim("sess-1", "alice", NOW) == ()
    first = exchange("File a Jira bug in WEB for the login crash", "Done.", [("d_1", "Jira Bug in WEB")])

    sessions.remember("sess-1", "alice", first, NOW.replace(hour=11))

    stored = item(client, "sess-1")
    assert (
        json.loads(stored["history"]["S"])[1]["content"][0]["text"] == "Done.\n[cards: d_1 Jira Bug in WEB]"
    )
    assert int(stored["expiresAt"]["N"]) == int(NOW.replace(hour=11).timestamp()) + 3600
    assert stored["turns"]["N"] == "1"  # remembering is not a turn
    assert sessions.claim("sess-1", "alice", NOW) == first


def test_remember_refuses_another_user_and_keeps_the_owners_history(store) -> None:
    sessions, _ = store
    sessions.claim("sess-1", "alice", NOW)
    sessions.remember("sess-1", "alice", exchange("hello", "hi"), NOW)

    with pytest.raises(SessionNotOwned):
        sessions.remember("sess-1", "mallory", exchange("mine now", "no"), NOW)
    with pytest.raises(SessionNotOwned):
        sessions.remember("sess-unknown", "mallory", exchange("new", "no"), NOW)

    assert sessions.claim("sess-1", "alice", NOW) == exchange("hello", "hi")


def test_the_stored_history_stays_within_its_bound_however_long_the_texts(store) -> None:
    sessions, client = store
    sessions.claim("sess-1", "alice", NOW)
    history = ()
    for number in range(12):
        # Four-byte characters at the longest stored length: the worst case per exchange.
        history = (*history, *exchange(f"{number} " + "\U0001f600" * MAX_STORED_TEXT_CHARS, "🙂" * 5000))
        sessions.remember("sess-1", "alice", history, NOW)

    stored = item(client, "sess-1")
    raw = stored["history"]["S"]
    assert len(raw.encode()) <= MAX_HISTORY_BYTES
    kept = sessions.claim("sess-1", "alice", NOW)
    assert len(kept) >= 2
    assert len(kept) % 2 == 0
    assert kept[-2].text.startswith("11 ")  # the newest exchange survives
    assert len(json.dumps(stored, ensure_ascii=False).encode()) < 100 * 1024  # far below 400 KB


def test_a_damaged_stored_history_is_dropped_not_raised(store) -> None:
    sessions, client = store
    sessions.claim("sess-1", "alice", NOW)
    client.update_item(
        TableName="sessions",
        Key={"sessionId": {"S": "sess-1"}},
        UpdateExpression="SET history = :h",
        ExpressionAttributeValues={":h": {"S": '[{"role": "tool"}]'}},
    )

    assert sessions.claim("sess-1", "alice", NOW) == ()


def test_a_failed_history_write_is_a_typed_error() -> None:
    client = boto3.client("dynamodb")
    stubber = Stubber(client)
    stubber.add_client_error("update_item", "ProvisionedThroughputExceededException", http_status_code=400)
    with stubber, pytest.raises(SessionWriteFailed):
        DynamoSessionStore("sessions", client).remember("sess-1", "alice", exchange("a", "b"), NOW)
