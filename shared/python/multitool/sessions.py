"""Chat sessions and who owns them.

A session id belongs to the first user who uses it: the store claims it with
one conditional write (``attribute_not_exists(sessionId) OR owner = :me``), so
a second user presenting the same id is refused instead of joining another
person's conversation (and its drafts).
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from botocore.exceptions import ClientError

from multitool.tables import SESSIONS

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

SESSION_TTL_SECONDS = 24 * 3600
# Bedrock's sessionId rule: 2-100 characters of [0-9a-zA-Z._:-].
SESSION_ID_PATTERN = re.compile(r"^[0-9a-zA-Z._:-]{2,100}$")


class SessionError(Exception):
    """A session that cannot be used; the message says why."""


class SessionNotOwned(SessionError):
    """The session id belongs to another user."""


def new_session_id() -> str:
    """A fresh, unguessable session id."""
    return f"s-{secrets.token_urlsafe(18)}"


def valid_session_id(value: str) -> bool:
    return bool(SESSION_ID_PATTERN.match(value))


class SessionStore(Protocol):
    def claim(self, session_id: str, user_id: str, now: datetime | None = None) -> None:
        """Record a turn in ``session_id`` for ``user_id``; :class:`SessionNotOwned` if another owns it."""
        ...


class MemorySessionStore:
    """In-memory sessions for unit tests and benchmarks."""

    def __init__(self) -> None:
        self.owners: dict[str, str] = {}
        self.writes = 0

    def claim(self, session_id: str, user_id: str, now: datetime | None = None) -> None:
        self.writes += 1
        owner = self.owners.setdefault(session_id, user_id)
        if owner != user_id:
            raise SessionNotOwned("This session belongs to another user.")


class DynamoSessionStore:
    """Sessions in the DynamoDB sessions table (``sessionId`` key, ``expiresAt`` TTL)."""

    def __init__(
        self, table_name: str, client: DynamoDBClient, ttl_seconds: int = SESSION_TTL_SECONDS
    ) -> None:
        self.table_name = table_name
        self.client = client
        self.ttl_seconds = ttl_seconds

    def claim(self, session_id: str, user_id: str, now: datetime | None = None) -> None:
        moment = now or datetime.now(UTC)
        try:
            self.client.update_item(
                TableName=self.table_name,
                Key={SESSIONS.partition_key: {"S": session_id}},
                UpdateExpression=(
                    "SET #owner = if_not_exists(#owner, :owner), createdAt = if_not_exists(createdAt, :now), "
                    "updatedAt = :now, expiresAt = :expires ADD turns :one"
                ),
                ConditionExpression="attribute_not_exists(#key) OR #owner = :owner",
                ExpressionAttributeNames={"#owner": "owner", "#key": SESSIONS.partition_key},
                ExpressionAttributeValues={
                    ":owner": {"S": user_id},
                    ":now": {"S": moment.isoformat()},
                    ":expires": {"N": str(int(moment.timestamp()) + self.ttl_seconds)},
                    ":one": {"N": "1"},
                },
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                raise SessionNotOwned("This session belongs to another user.") from None
            raise
