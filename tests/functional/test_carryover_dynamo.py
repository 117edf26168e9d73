"""The harness step carried in the sessions table (moto): owner only, read once, beside the history."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws
from multitool.runtimes.carryover import CARRY_ATTRIBUTE, CarryFailed, DynamoCarryOver
from multitool.sessions import DynamoSessionStore, exchange
from multitool.tables import SESSIONS, create_table

STEP = [
    {
        "role": "assistant",
        "content": [
            {"toolUse": {"toolUseId": "t1", "name": "create_email_draft", "input": {}, "type": "tool_use"}}
        ],
    },
    {
        "role": "user",
        "content": [
            {"toolResult": {"toolUseId": "t1", "content": [{"json": {"action": "x"}}], "status": "success"}}
        ],
    },
    {"role": "assistant", "content": [{"text": "I drafted an email. Nothing is sent until you confirm."}]},
]


@pytest.fixture
def tables():
    with mock_aws():
        client = boto3.client("dynamodb")
        create_table(client, SESSIONS, "sessions")
        sessions = DynamoSessionStore("sessions", client)
        sessions.claim("sess-1", "alice")
        yield DynamoCarryOver("sessions", client), sessions, client


def test_a_kept_step_is_read_once_by_its_owner(tables) -> None:
    carry, _sessions, client = tables

    carry.keep("alice", "sess-1", STEP)

    assert (
        CARRY_ATTRIBUTE in client.get_item(TableName="sessions", Key={"sessionId": {"S": "sess-1"}})["Item"]
    )
    assert carry.take("alice", "sess-1") == STEP
    assert carry.take("alice", "sess-1") == []
    item = client.get_item(TableName="sessions", Key={"sessionId": {"S": "sess-1"}})["Item"]
    assert CARRY_ATTRIBUTE not in item
    assert item["owner"] == {"S": "alice"}  # the session itself stays


def test_another_user_neither_reads_nor_writes_the_step(tables) -> None:
    carry, _sessions, _client = tables
    carry.keep("alice", "sess-1", STEP)

    assert carry.take("mallory", "sess-1") == []
    with pytest.raises(CarryFailed):
        carry.keep("mallory", "sess-1", STEP)
    with pytest.raises(CarryFailed):
        carry.keep("alice", "no-such-session", STEP)

    assert carry.take("alice", "sess-1") == STEP


def test_the_step_and_the_history_live_side_by_side(tables) -> None:
    carry, sessions, _client = tables
    carry.keep("alice", "sess-1", STEP)

    sessions.remember("sess-1", "alice", exchange("Email Kinshuok", "I drafted an email."))

    assert [m.role for m in sessions.claim("sess-1", "alice")] == ["user", "assistant"]
    assert carry.take("alice", "sess-1") == STEP


def test_a_store_that_cannot_be_read_carries_nothing() -> None:
    client = boto3.client("dynamodb", region_name="us-east-1")
    stubber = Stubber(client)
    stubber.add_client_error("update_item", service_error_code="ProvisionedThroughputExceededException")
    with stubber:
        assert DynamoCarryOver("sessions", client).take("alice", "sess-1") == []
    stubber.assert_no_pending_responses()
