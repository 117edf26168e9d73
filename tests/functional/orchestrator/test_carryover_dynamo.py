"""The harness step carried in the sessions table (moto): owner only, read once, beside the history."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws
from multitool.chat.sessions import DynamoSessionStore, SessionNotOwned, exchange
from multitool.ports.tables import SESSIONS, create_table
from multitool.runtimes.carryover import CARRY_ATTRIBUTE, CarryFailed, DynamoCarryOver

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


def test_the_session_claim_takes_the_step_with_the_history_in_one_write(tables) -> None:
    carry, sessions, client = tables
    carry.keep("alice", "sess-1", STEP)
    sessions.remember("sess-1", "alice", exchange("Email Kinshuok", "I drafted an email."))
    writes: list[str] = []
    client.meta.events.register("before-call.dynamodb", lambda event_name, **_: writes.append(event_name))

    claimed = sessions.claim_taking_carry("sess-1", "alice")

    assert [m.role for m in claimed.history] == ["user", "assistant"]
    assert claimed.carried == STEP
    assert len(writes) == 1
    item = client.get_item(TableName="sessions", Key={"sessionId": {"S": "sess-1"}})["Item"]
    assert CARRY_ATTRIBUTE not in item
    assert item["turns"] == {"N": "2"}  # still a claim: the turn is counted
    assert sessions.claim_taking_carry("sess-1", "alice").carried == []
    assert carry.take("alice", "sess-1") == []


def test_a_new_session_claimed_taking_the_carry_has_neither(tables) -> None:
    _carry, sessions, client = tables

    claimed = sessions.claim_taking_carry("sess-new", "bob")

    assert (claimed.history, claimed.carried) == ((), [])
    item = client.get_item(TableName="sessions", Key={"sessionId": {"S": "sess-new"}})["Item"]
    assert item["owner"] == {"S": "bob"}


def test_another_users_claim_is_refused_and_leaves_the_step(tables) -> None:
    carry, sessions, _client = tables
    carry.keep("alice", "sess-1", STEP)

    with pytest.raises(SessionNotOwned):
        sessions.claim_taking_carry("sess-1", "mallory")

    assert carry.take("alice", "sess-1") == STEP


def test_the_claim_taking_the_carry_is_a_valid_update_item_request() -> None:
    # Stubber checks the parameters against DynamoDB's service model, then answers as DynamoDB would
    client = boto3.client("dynamodb", region_name="us-east-1")
    stubber = Stubber(client)
    stubber.add_response(
        "update_item",
        {
            "Attributes": {
                "sessionId": {"S": "sess-1"},
                "owner": {"S": "alice"},
                CARRY_ATTRIBUTE: {"S": json.dumps(STEP)},
            }
        },
    )
    with stubber:
        claimed = DynamoSessionStore("sessions", client).claim_taking_carry("sess-1", "alice")
    stubber.assert_no_pending_responses()
    assert (claimed.history, claimed.carried) == ((), STEP)


def test_a_damaged_carried_step_is_dropped_not_raised() -> None:
    client = boto3.client("dynamodb", region_name="us-east-1")
    stubber = Stubber(client)
    stubber.add_response("update_item", {"Attributes": {CARRY_ATTRIBUTE: {"S": '{"not": "messages"}'}}})
    with stubber:
        assert DynamoSessionStore("sessions", client).claim_taking_carry("sess-1", "alice").carried == []
