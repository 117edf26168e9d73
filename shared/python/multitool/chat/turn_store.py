"""Turns that outlive their request: the stored turn, its event log, and the invocation that runs it.

``POST /chat`` with ``Prefer: respond-async`` stores a turn (its owner, session and
request) in the turns table, invokes the orchestrator again asynchronously
(``InvocationType=Event``) with only the turn's id, and answers 202 at once. That
second invocation runs the turn with the function's own timeout (minutes, not API
Gateway's 30 s) and appends events to the turn's item as they happen:

- ``{"type": "card", "card": {...}, "caption": "..."}`` as soon as a draft exists;
- ``{"type": "text", "text": "..."}`` as the assistant's text streams, where the runtime streams it;
- ``{"type": "done", "response": {...}}``: the ``POST /chat`` answer, last;
- ``{"type": "failed", "status": 502, "error": {"code", "message"}, "retryAfter"?}``: instead of done.

``GET /turns/{id}?after=N`` answers the events from position ``N``, to the turn's owner only.
One item per turn keeps the ownership check and the read one strongly consistent ``GetItem``;
a turn's few cards stay far below DynamoDB's 400 KB item limit.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import msgspec
from botocore.exceptions import BotoCoreError, ClientError

from multitool.chat.turn_invocations import TURN_EVENT_KEY
from multitool.observability import logger
from multitool.ports.tables import TURNS

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_lambda import LambdaClient

TURN_TTL_SECONDS = 24 * 3600
START_WITHIN_SECONDS = 90
"""A turn whose invocation has not started by then never will (the async event's maximum age is 60 s)."""
LOST_AFTER_SECONDS = 15
"""Past its invocation's end by this much, a turn still running was cut: it is answered as failed."""

TurnStatus = Literal["running", "done", "failed"]


class TurnStoreFailed(Exception):
    """The turns table could not be read or written."""


class TurnLaunchFailed(Exception):
    """The invocation that runs the turn could not be started (the turn is marked failed)."""


def card_event(card: Mapping[str, Any], caption: str) -> dict[str, Any]:
    return {"type": "card", "card": dict(card), "caption": caption}


def text_event(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def done_event(response: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "done", "response": dict(response)}


def failed_event(status: int, code: str, message: str, *, retry_after: int | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "failed", "status": status, "error": {"code": code, "message": message}}
    if retry_after is not None:
        event["retryAfter"] = retry_after
    return event


LOST = failed_event(
    500,
    "turn_lost",
    "The turn stopped before it finished (its invocation ended). Review any drafts shown, then ask again.",
)


class StoredTurn(msgspec.Struct, frozen=True):
    """A turn as the table holds it."""

    turn_id: str
    owner: str
    session_id: str
    status: TurnStatus
    request: dict[str, Any]
    created_at: float
    events: tuple[dict[str, Any], ...] = ()
    deadline: float | None = None
    """When the running invocation ends (epoch seconds); None until it has started."""

    def settled(self, now: float | None = None) -> StoredTurn:
        """The turn as a reader should see it: one still running past its invocation's end has failed."""
        if self.status != "running":
            return self
        moment = time.time() if now is None else now
        limit = (
            self.created_at + START_WITHIN_SECONDS
            if self.deadline is None
            else self.deadline + LOST_AFTER_SECONDS
        )
        if moment <= limit:
            return self
        return StoredTurn(
            self.turn_id,
            self.owner,
            self.session_id,
            "failed",
            self.request,
            self.created_at,
            (*self.events, LOST),
            self.deadline,
        )


def _number(item: Mapping[str, Any], name: str) -> float | None:
    value = item.get(name, {}).get("N")
    return float(value) if value is not None else None


class DynamoTurnStore(msgspec.Struct):
    """Turns in the turns table: one item per turn, its events a list appended to in place."""

    table_name: str
    client: DynamoDBClient
    clock: Callable[[], float] = time.time

    def create(self, turn_id: str, owner: str, session_id: str, request: Mapping[str, Any]) -> None:
        now = self.clock()
        self._call(
            "put_item",
            TableName=self.table_name,
            Item={
                TURNS.partition_key: {"S": turn_id},
                "owner": {"S": owner},
                "sessionId": {"S": session_id},
                "status": {"S": "running"},
                "request": {"S": json.dumps(dict(request), ensure_ascii=False)},
                "events": {"L": []},
                "createdAt": {"N": f"{now:.3f}"},
                "expiresAt": {"N": str(int(now) + TURN_TTL_SECONDS)},
            },
            ConditionExpression="attribute_not_exists(#id)",
            ExpressionAttributeNames={"#id": TURNS.partition_key},
        )

    def start(self, turn_id: str, deadline: float) -> StoredTurn | None:
        """Take the turn to run it, once: None when it is unknown, already taken, or too old to start."""
        now = self.clock()
        try:
            response = self.client.update_item(
                TableName=self.table_name,
                Key={TURNS.partition_key: {"S": turn_id}},
                UpdateExpression="SET deadline = :deadline",
                ConditionExpression=(
                    "attribute_exists(#id) AND attribute_not_exists(deadline) "
                    "AND #status = :running AND createdAt >= :oldest"
                ),
                ExpressionAttributeNames={"#id": TURNS.partition_key, "#status": "status"},
                ExpressionAttributeValues={
                    ":deadline": {"N": f"{deadline:.3f}"},
                    ":running": {"S": "running"},
                    ":oldest": {"N": f"{now - START_WITHIN_SECONDS:.3f}"},
                },
                ReturnValues="ALL_NEW",
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return None
            raise TurnStoreFailed("The turn could not be started.") from error
        except BotoCoreError as error:
            raise TurnStoreFailed("The turn could not be started.") from error
        return _turn(response["Attributes"])

    def append(
        self, turn_id: str, events: Sequence[Mapping[str, Any]], status: TurnStatus = "running"
    ) -> None:
        """Append ``events`` to a running turn; a status other than running ends it."""
        self._call(
            "update_item",
            TableName=self.table_name,
            Key={TURNS.partition_key: {"S": turn_id}},
            UpdateExpression="SET events = list_append(events, :events), #status = :status",
            ConditionExpression="#status = :running",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues={
                ":events": {"L": [{"S": json.dumps(dict(e), ensure_ascii=False)} for e in events]},
                ":status": {"S": status},
                ":running": {"S": "running"},
            },
        )

    def get(self, turn_id: str) -> StoredTurn | None:
        response = self._call(
            "get_item",
            TableName=self.table_name,
            Key={TURNS.partition_key: {"S": turn_id}},
            ConsistentRead=True,
        )
        item = response.get("Item")
        return _turn(item) if item else None

    def _call(self, operation: str, **params: Any) -> Any:
        try:
            return getattr(self.client, operation)(**params)
        except (ClientError, BotoCoreError) as error:
            logger.warning(
                "Turns table call failed", extra={"operation": operation, "error_type": type(error).__name__}
            )
            raise TurnStoreFailed(f"The turns table refused {operation}.") from error


def _turn(item: Mapping[str, Any]) -> StoredTurn:
    status = item["status"]["S"]
    return StoredTurn(
        turn_id=item[TURNS.partition_key]["S"],
        owner=item["owner"]["S"],
        session_id=item["sessionId"]["S"],
        status=status if status in ("running", "done", "failed") else "failed",
        request=json.loads(item["request"]["S"]),
        created_at=_number(item, "createdAt") or 0.0,
        events=tuple(json.loads(entry["S"]) for entry in item.get("events", {}).get("L", [])),
        deadline=_number(item, "deadline"),
    )


class TurnLauncher:
    """Starts the invocation that runs a stored turn: this same function, invoked asynchronously."""

    def __init__(self, client: LambdaClient) -> None:
        self.client = client

    def launch(self, function_name: str, turn_id: str) -> None:
        try:
            response = self.client.invoke(
                FunctionName=function_name,
                InvocationType="Event",
                Payload=json.dumps({TURN_EVENT_KEY: {"turnId": turn_id}}).encode(),
            )
        except (ClientError, BotoCoreError) as error:
            logger.warning("Turn not launched", extra={"error_type": type(error).__name__})
            raise TurnLaunchFailed("The turn could not be started.") from error
        if response.get("StatusCode") != 202:
            raise TurnLaunchFailed(f"The turn's invocation was refused ({response.get('StatusCode')}).")
