"""Rate limit port: a token bucket per user and route, so one user cannot take the API from the others.

The HTTP API's stage throttle is shared by every user; this bucket is each user's own: ``burst``
requests at once, refilled at ``per_minute``. Item layout (``multitool.ports.tables.LIMITS``):
``pk = BUCKET#<route>#<sub>`` with ``tokens`` (a decimal) and ``at`` (epoch seconds of the last
take). A take is a consistent ``GetItem`` and ONE ``PutItem`` conditioned on ``at`` being what was
read, so two concurrent requests never spend the same token; the item expires once the bucket would
be full again.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from botocore.exceptions import ClientError

from multitool.errors import RETRY_AFTER, ServiceError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

_ATTEMPTS = 3


class RateLimited(ServiceError):
    """The user's bucket is empty; ``retry_after`` seconds until it holds a token again.

    Answers 429 with ``Retry-After`` in whole seconds, rounded up so a client that waits it finds a token.
    """

    code = "rate_limited"
    status = HTTPStatus.TOO_MANY_REQUESTS

    def __init__(self, route: str, retry_after: float) -> None:
        super().__init__(f"rate limited on {route}")
        self.route = route
        self.retry_after = retry_after

    @property
    def seconds(self) -> int:
        return max(1, math.ceil(self.retry_after))

    def public_message(self) -> str:
        return (
            f"You are sending {self.route} requests faster than this deployment allows one user; "
            f"try again in {self.seconds} s. Other users are not affected."
        )

    def headers(self) -> dict[str, str]:
        return {RETRY_AFTER: str(self.seconds)}


RATE_LIMITS_TABLE = "RATE_LIMITS_TABLE_NAME"


class BucketLimits(NamedTuple):
    """Where a route's buckets live and how fast they refill (a Lambda's settings say)."""

    table_name: str | None
    per_minute: float
    burst: int


class RateLimiter(Protocol):
    def take(self, user_id: str, route: str) -> None:
        """Spend one of ``user_id``'s tokens for ``route``, or raise :class:`RateLimited`."""
        ...


def bucket_key(route: str, user_id: str) -> str:
    return f"BUCKET#{route}#{user_id}"


class DynamoTokenBucket:
    def __init__(
        self,
        table_name: str,
        client: DynamoDBClient,
        *,
        per_minute: float,
        burst: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._table = table_name
        self._client = client
        self._rate = per_minute / 60.0
        self._burst = float(burst)
        self._clock = clock

    def take(self, user_id: str, route: str) -> None:
        key = {"pk": {"S": bucket_key(route, user_id)}}
        for _ in range(_ATTEMPTS):
            item: dict[str, Any] = self._client.get_item(
                TableName=self._table, Key=key, ConsistentRead=True
            ).get("Item", {})
            now = self._clock()
            seen = item.get("at", {}).get("N")
            tokens = self._burst
            if seen is not None:
                stored = float(item.get("tokens", {}).get("N", "0"))
                tokens = min(self._burst, stored + max(0.0, now - float(seen)) * self._rate)
            if tokens < 1:
                raise RateLimited(route, (1 - tokens) / self._rate)
            left = tokens - 1
            refilled_at = now + (self._burst - left) / self._rate
            item = {
                **key,
                "tokens": {"N": f"{left:.6f}"},
                "at": {"N": f"{now:.6f}"},
                "expiresAt": {"N": str(int(refilled_at) + 60)},
            }
            try:
                if seen is None:
                    self._client.put_item(
                        TableName=self._table, Item=item, ConditionExpression="attribute_not_exists(pk)"
                    )
                else:
                    self._client.put_item(
                        TableName=self._table,
                        Item=item,
                        ConditionExpression="#at = :seen",
                        ExpressionAttributeNames={"#at": "at"},
                        ExpressionAttributeValues={":seen": {"N": seen}},
                    )
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                    raise
                continue  # another request took a token since the read: read again
            return
        raise RateLimited(route, 1.0)
