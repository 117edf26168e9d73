"""Running-turn slots port: at most N asynchronous turns of one user run at once.

A turn past its request runs for minutes on the orchestrator's reserved concurrency; without a cap
per user, one user's stream of ``Prefer: respond-async`` requests would hold every execution. Each
running turn holds a place, a lease that ends by itself, so a worker that dies (timed out, crashed,
never started) cannot keep a place: its lease runs out when its turn is answered as lost.

Item layout (``multitool.ports.tables.LIMITS``): ``pk = TURNS#<sub>`` with ``leases``, a map of turn id ->
epoch seconds the place is held until, and ``v``, a version. Taking a place is a consistent
``GetItem``, then ONE ``PutItem`` of the live leases plus the new one, conditioned on ``v`` being what
was read: two racing requests never both take the last place. Holding it longer and giving it back are
one ``UpdateItem`` each on the turn's own map entry. The item expires once its last lease has.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from botocore.exceptions import BotoCoreError, ClientError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

_ATTEMPTS = 3
_KEEP_AFTER_SECONDS = 3600


class SlotsFull(Exception):
    """The user runs ``running`` turns, the most allowed; a place frees by ``free_at`` at the latest."""

    def __init__(self, running: int, free_at: float) -> None:
        super().__init__(f"{running} turns running")
        self.running = running
        self.free_at = free_at


class SlotsUnavailable(Exception):
    """The limits table could not be read or written: no place was taken."""


class TurnSlots(Protocol):
    def take(self, user_id: str, turn_id: str, *, until: float) -> None:
        """Hold a place for ``turn_id`` until ``until`` (epoch seconds), or raise :class:`SlotsFull`."""
        ...

    def hold(self, user_id: str, turn_id: str, *, until: float) -> bool:
        """Hold ``turn_id``'s place longer; False when it no longer holds one."""
        ...

    def release(self, user_id: str, turn_id: str) -> None:
        """Give ``turn_id``'s place back (nothing when it holds none)."""
        ...


def slots_key(user_id: str) -> str:
    return f"TURNS#{user_id}"


def _is_conflict(error: ClientError) -> bool:
    return error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


class DynamoTurnSlots:
    def __init__(
        self,
        table_name: str,
        client: DynamoDBClient,
        *,
        per_user: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._table = table_name
        self._client = client
        self._per_user = per_user
        self._clock = clock

    def take(self, user_id: str, turn_id: str, *, until: float) -> None:
        key = {"pk": {"S": slots_key(user_id)}}
        for _ in range(_ATTEMPTS):
            try:
                item: Mapping[str, Any] = self._client.get_item(
                    TableName=self._table, Key=key, ConsistentRead=True
                ).get("Item", {})
            except (ClientError, BotoCoreError) as error:
                raise SlotsUnavailable("The running turns could not be read.") from error
            now = self._clock()
            live = {
                turn: float(lease["N"])
                for turn, lease in item.get("leases", {}).get("M", {}).items()
                if float(lease["N"]) > now
            }
            if len(live) >= self._per_user:
                raise SlotsFull(len(live), min(live.values()))
            live[turn_id] = until
            seen = item.get("v", {}).get("N")
            stored: dict[str, Any] = {
                **key,
                "leases": {"M": {turn: {"N": f"{lease:.3f}"} for turn, lease in live.items()}},
                "v": {"N": str(int(seen or 0) + 1)},
                "expiresAt": {"N": str(int(max(live.values())) + _KEEP_AFTER_SECONDS)},
            }
            condition: dict[str, Any] = (
                {"ConditionExpression": "attribute_not_exists(pk)"}
                if seen is None
                else {
                    "ConditionExpression": "#v = :seen",
                    "ExpressionAttributeNames": {"#v": "v"},
                    "ExpressionAttributeValues": {":seen": {"N": seen}},
                }
            )
            try:
                self._client.put_item(TableName=self._table, Item=stored, **condition)
            except ClientError as error:
                if _is_conflict(error):
                    continue  # another turn took or gave back a place since the read: read again
                raise SlotsUnavailable("The running turns could not be written.") from error
            except BotoCoreError as error:
                raise SlotsUnavailable("The running turns could not be written.") from error
            return
        raise SlotsUnavailable("The running turns kept changing while a place was taken.")

    def hold(self, user_id: str, turn_id: str, *, until: float) -> bool:
        try:
            self._client.update_item(
                TableName=self._table,
                Key={"pk": {"S": slots_key(user_id)}},
                UpdateExpression="SET leases.#turn = :until, expiresAt = :expires ADD v :one",
                ConditionExpression="attribute_exists(leases.#turn)",
                ExpressionAttributeNames={"#turn": turn_id},
                ExpressionAttributeValues={
                    ":until": {"N": f"{until:.3f}"},
                    # Never earlier than another lease's: the longest one is at most the function's timeout.
                    ":expires": {"N": str(int(until) + _KEEP_AFTER_SECONDS)},
                    ":one": {"N": "1"},
                },
            )
        except ClientError as error:
            if _is_conflict(error):
                return False
            raise SlotsUnavailable("The running turn's place could not be held.") from error
        except BotoCoreError as error:
            raise SlotsUnavailable("The running turn's place could not be held.") from error
        return True

    def release(self, user_id: str, turn_id: str) -> None:
        try:
            self._client.update_item(
                TableName=self._table,
                Key={"pk": {"S": slots_key(user_id)}},
                UpdateExpression="REMOVE leases.#turn ADD v :one",
                ConditionExpression="attribute_exists(leases.#turn)",
                ExpressionAttributeNames={"#turn": turn_id},
                ExpressionAttributeValues={":one": {"N": "1"}},
            )
        except ClientError as error:
            if _is_conflict(error):
                return  # already given back, or its lease ran out and was dropped
            raise SlotsUnavailable("The running turn's place could not be given back.") from error
        except BotoCoreError as error:
            raise SlotsUnavailable("The running turn's place could not be given back.") from error
