"""Connections port: which of a user's own accounts (Microsoft 365, Google Workspace) are connected,
and the consent a user has started but not finished.

The tokens themselves live in AgentCore Identity's token vault, never here. What is kept is what
binds a consent to the user who asked for it: the ``sessionUri`` AgentCore answered with the
authorization URL, so that the callback completing it can check the completing user is the user
who asked (:meth:`Connections.complete`), and whether the user disconnected the account (the next
token request then starts a fresh consent instead of reusing the vault's token).

Item layout (``multitool.ports.tables.LIMITS``, beside the per-user counters):
``pk = CONNECTION#<sub>#<provider>`` with ``owner``, ``provider``, ``status``, ``sessionUri``
(while a consent runs), ``updatedAt`` and ``expiresAt`` (a consent not finished in time is
forgotten; a connected or disconnected account is kept for :data:`KEEP_SECONDS`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

import msgspec
from botocore.exceptions import ClientError

from multitool.ports.tokens import Provider

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

Status = Literal["pending", "completed", "connected", "disconnected"]
PENDING_SECONDS = 15 * 60
"""How long a consent link may wait for the user: past it the callback answers that it expired."""
KEEP_SECONDS = 400 * 24 * 3600


class Connection(msgspec.Struct, frozen=True):
    owner: str
    provider: Provider
    status: Status
    session_uri: str | None = None
    updated_at: int = 0


class ConsentNotFound(Exception):
    """No consent of this user waits for this session: never started, finished, expired, or another user's."""


class Connections(Protocol):
    def get(self, owner: str, provider: Provider) -> Connection | None: ...

    def pending(self, owner: str, provider: Provider, session_uri: str) -> None:
        """``owner`` was given a consent link for ``session_uri``."""
        ...

    def complete(self, owner: str, provider: Provider, session_uri: str) -> None:
        """Mark ``owner``'s consent for ``session_uri`` completed, or raise :class:`ConsentNotFound`."""
        ...

    def connected(self, owner: str, provider: Provider) -> None: ...

    def disconnected(self, owner: str, provider: Provider) -> None: ...

    def of(self, owner: str, providers: Sequence[Provider]) -> list[Connection]: ...


def connection_key(owner: str, provider: Provider) -> str:
    return f"CONNECTION#{owner}#{provider}"


class DynamoConnections:
    def __init__(
        self, table_name: str, client: DynamoDBClient, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._table = table_name
        self._client = client
        self._clock = clock

    def get(self, owner: str, provider: Provider) -> Connection | None:
        item = self._client.get_item(
            TableName=self._table, Key={"pk": {"S": connection_key(owner, provider)}}, ConsistentRead=True
        ).get("Item")
        if item is None:
            return None
        now = int(self._clock())
        if int(item.get("expiresAt", {}).get("N", "0") or 0) <= now:
            # DynamoDB deletes expired items late (within days): an expired item is no item.
            return None
        status: Status = item["status"]["S"]  # type: ignore[assignment]
        uri = item.get("sessionUri", {}).get("S")
        return Connection(owner, provider, status, uri, int(item.get("updatedAt", {}).get("N", "0")))

    def _put(self, owner: str, provider: Provider, status: Status, uri: str | None, keep: int) -> None:
        now = int(self._clock())
        item: dict[str, Any] = {
            "pk": {"S": connection_key(owner, provider)},
            "owner": {"S": owner},
            "provider": {"S": provider},
            "status": {"S": status},
            "updatedAt": {"N": str(now)},
            "expiresAt": {"N": str(now + keep)},
        }
        if uri is not None:
            item["sessionUri"] = {"S": uri}
        self._client.put_item(TableName=self._table, Item=item)

    def pending(self, owner: str, provider: Provider, session_uri: str) -> None:
        self._put(owner, provider, "pending", session_uri, PENDING_SECONDS)

    def complete(self, owner: str, provider: Provider, session_uri: str) -> None:
        now = int(self._clock())
        try:
            # One conditional write: only the owner's own pending consent for this very session
            # completes, once; another user's callback finds no item under its own key.
            self._client.update_item(
                TableName=self._table,
                Key={"pk": {"S": connection_key(owner, provider)}},
                UpdateExpression="SET #status = :completed, updatedAt = :now, expiresAt = :expires",
                ConditionExpression="#status = :pending AND sessionUri = :uri AND expiresAt > :now",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues={
                    ":completed": {"S": "completed"},
                    ":pending": {"S": "pending"},
                    ":uri": {"S": session_uri},
                    ":now": {"N": str(now)},
                    ":expires": {"N": str(now + PENDING_SECONDS)},
                },
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                raise ConsentNotFound(provider) from error
            raise

    def connected(self, owner: str, provider: Provider) -> None:
        self._put(owner, provider, "connected", None, KEEP_SECONDS)

    def disconnected(self, owner: str, provider: Provider) -> None:
        self._put(owner, provider, "disconnected", None, KEEP_SECONDS)

    def of(self, owner: str, providers: Sequence[Provider]) -> list[Connection]:
        found = (self.get(owner, provider) for provider in providers)
        return [connection for connection in found if connection is not None]
