"""A harness turn answered without resuming: its paused step, carried into the next turn.

``InvokeHarness`` always runs the agent loop: a resume that carries the ``toolResult``
blocks makes a model call, and the service has no operation that only appends messages
to a session (``maxIterations`` counts model calls; with memory disabled, as deployed,
there is no AgentCore Memory to write events into either). So when a turn answers the
user straight from its cards, the harness session ends at the user's message and the
paused ``toolUse`` step is left unanswered (the harness keeps the completed conversation,
not a paused step).

The runtime keeps that step instead, as three Converse messages: the assistant's
``toolUse`` message, the user message of one ``toolResult`` per ``toolUseId``, and the
assistant message the user saw. The next turn sends them before its user message, so the
model reads the same history as if it had written the answer itself: every ``toolUse``
answered once, roles alternating, no model call spent on the summary.

Stores: :class:`MemoryCarryOver` (the offline harness, tests) and
:class:`DynamoCarryOver`, an attribute of the chat session's item in the sessions table,
written only for the session's owner and far below DynamoDB's item limit
(:data:`MAX_CARRY_BYTES`; a larger step is resumed on the model instead).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from botocore.exceptions import BotoCoreError, ClientError

from multitool.observability import logger
from multitool.ports.tables import SESSIONS

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

CARRY_ATTRIBUTE = "harnessCarry"
MAX_CARRY_BYTES = 100 * 1024
"""The largest step kept: with the history (64 KiB) the item stays far below 400 KB."""

Messages = list[dict[str, Any]]


class CarryFailed(Exception):
    """The step could not be kept; the turn resumes the harness instead."""


class CarryOver(Protocol):
    """Where a directly answered harness turn leaves its paused step for the next turn."""

    def keep(self, user_id: str, session_id: str, messages: Sequence[Mapping[str, Any]]) -> None:
        """Store the step (replacing any); :class:`CarryFailed` when it cannot be stored."""
        ...

    def take(self, user_id: str, session_id: str) -> Messages:
        """The step kept for this session, removed from the store; ``[]`` when there is none."""
        ...


def carry_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The step as stored: compact JSON; :class:`CarryFailed` when it is larger than the limit."""
    text = json.dumps(list(messages), ensure_ascii=False, separators=(",", ":"), default=str)
    if len(text.encode()) > MAX_CARRY_BYTES:
        raise CarryFailed(f"The step is larger than {MAX_CARRY_BYTES} bytes.")
    return text


def parse_carry(text: str | None) -> Messages:
    """A stored step, checked to be Converse messages; anything else is dropped (logged), never raised."""
    if not text:
        return []
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, list) or not all(
        isinstance(m, dict) and m.get("role") in ("user", "assistant") and isinstance(m.get("content"), list)
        for m in value
    ):
        logger.warning("Carried harness step dropped: not a list of messages")
        return []
    return value


class MemoryCarryOver:
    """Steps in a dict, per (user, session): the offline harness keeps its sessions in memory too."""

    def __init__(self) -> None:
        self.steps: dict[tuple[str, str], str] = {}

    def keep(self, user_id: str, session_id: str, messages: Sequence[Mapping[str, Any]]) -> None:
        self.steps[(user_id, session_id)] = carry_text(messages)

    def take(self, user_id: str, session_id: str) -> Messages:
        return parse_carry(self.steps.pop((user_id, session_id), None))


class DynamoCarryOver:
    """Steps in the sessions table: attribute ``harnessCarry`` of the session's item, owner only.

    Both operations are one conditional ``UpdateItem`` (the orchestrator's only action on the
    table): ``take`` removes the attribute and reads its old value in the same write.
    """

    def __init__(self, table_name: str, client: DynamoDBClient) -> None:
        self.table_name = table_name
        self.client = client

    def keep(self, user_id: str, session_id: str, messages: Sequence[Mapping[str, Any]]) -> None:
        text = carry_text(messages)
        try:
            self.client.update_item(
                TableName=self.table_name,
                Key={SESSIONS.partition_key: {"S": session_id}},
                UpdateExpression="SET #carry = :carry",
                ConditionExpression="#owner = :owner",
                ExpressionAttributeNames={"#owner": "owner", "#carry": CARRY_ATTRIBUTE},
                ExpressionAttributeValues={":owner": {"S": user_id}, ":carry": {"S": text}},
            )
        except (ClientError, BotoCoreError) as error:
            raise CarryFailed("The harness step could not be stored.") from error

    def take(self, user_id: str, session_id: str) -> Messages:
        try:
            response = self.client.update_item(
                TableName=self.table_name,
                Key={SESSIONS.partition_key: {"S": session_id}},
                UpdateExpression="REMOVE #carry",
                ConditionExpression="#owner = :owner",
                ExpressionAttributeNames={"#owner": "owner", "#carry": CARRY_ATTRIBUTE},
                ExpressionAttributeValues={":owner": {"S": user_id}},
                ReturnValues="UPDATED_OLD",
            )
        except (ClientError, BotoCoreError) as error:
            code = error.response.get("Error", {}).get("Code", "") if isinstance(error, ClientError) else ""
            # Not this user's session (or no session item): nothing of theirs is carried.
            if code != "ConditionalCheckFailedException":
                logger.warning("Carried harness step not read", extra={"error_type": type(error).__name__})
            return []
        stored = response.get("Attributes", {}).get(CARRY_ATTRIBUTE, {})
        return parse_carry(stored.get("S"))
