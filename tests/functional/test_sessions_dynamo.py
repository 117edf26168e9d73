"""The DynamoDB session store against moto: one conditional write per turn, first user owns the id."""

from __future__ import annotations

from datetime import UTC, datetime

import boto3
import pytest
from moto import mock_aws
from multitool.sessions import DynamoSessionStore, SessionNotOwned
from multitool.tables import SESSIONS, create_table

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
