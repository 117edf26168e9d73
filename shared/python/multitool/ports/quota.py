"""Recipient quota port: how many addresses a user has mailed today, counted before each send.

Item layout (``multitool.ports.tables.LIMITS``, key ``pk``, TTL ``expiresAt``): one item per user and
UTC day, ``pk = RECIPIENTS#<sub>#<YYYY-MM-DD>``, numbers ``total`` and ``outside``. A spend is ONE
``UpdateItem`` that adds both counts only if the stored ones leave room for them, so two confirms
racing for the last places cannot both get them. The item expires a day after its day ends.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
from botocore.exceptions import ClientError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

_KEEP = timedelta(days=2)


class Spend(msgspec.Struct, frozen=True):
    """How many recipients one side effect mails: all of them, and those outside the domains."""

    total: int
    outside: int


class QuotaRefused(Exception):
    """The spend would pass a limit; nothing was counted. ``used_*`` are the counts before it."""

    def __init__(self, *, used_total: int, used_outside: int) -> None:
        super().__init__(f"quota refused at {used_total} ({used_outside} outside)")
        self.used_total = used_total
        self.used_outside = used_outside


class RecipientQuota(Protocol):
    def spend(
        self, user_id: str, day: str, spend: Spend, *, per_day: int, outside_per_day: int | None
    ) -> None:
        """Count ``spend`` against ``user_id``'s ``day`` if both limits leave room, in ONE
        conditional write; else raise :class:`QuotaRefused` and count nothing."""
        ...

    def refund(self, user_id: str, day: str, spend: Spend) -> None:
        """Give back a spend whose side effect did not happen."""
        ...


def quota_key(user_id: str, day: str) -> str:
    return f"RECIPIENTS#{user_id}#{day}"


def expires_at(day: str) -> int:
    """Epoch seconds a day's counter may be deleted at: a day after the day ends."""
    start = datetime.combine(date.fromisoformat(day), time(), tzinfo=UTC)
    return int((start + _KEEP).timestamp())


def refuses_outright(spend: Spend, *, per_day: int, outside_per_day: int | None) -> bool:
    """A spend larger than a whole day's limit: refused without a write."""
    return spend.total > per_day or (outside_per_day is not None and spend.outside > outside_per_day)


class DynamoRecipientQuota:
    """The daily counters in DynamoDB (the limits table)."""

    def __init__(self, table_name: str, client: DynamoDBClient) -> None:
        self._table = table_name
        self._client = client

    def spend(
        self, user_id: str, day: str, spend: Spend, *, per_day: int, outside_per_day: int | None
    ) -> None:
        if refuses_outright(spend, per_day=per_day, outside_per_day=outside_per_day):
            raise QuotaRefused(used_total=0, used_outside=0)
        condition = "(attribute_not_exists(#total) OR #total <= :room)"
        values: dict[str, Any] = {
            ":total": {"N": str(spend.total)},
            ":outside": {"N": str(spend.outside)},
            ":room": {"N": str(per_day - spend.total)},
            ":expires": {"N": str(expires_at(day))},
        }
        if outside_per_day is not None:
            condition += " AND (attribute_not_exists(#outside) OR #outside <= :outsideRoom)"
            values[":outsideRoom"] = {"N": str(outside_per_day - spend.outside)}
        try:
            self._client.update_item(
                TableName=self._table,
                Key={"pk": {"S": quota_key(user_id, day)}},
                UpdateExpression="SET #expires = :expires ADD #total :total, #outside :outside",
                ConditionExpression=condition,
                ExpressionAttributeNames={"#total": "total", "#outside": "outside", "#expires": "expiresAt"},
                ExpressionAttributeValues=values,
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            item: dict[str, Any] = error.response.get("Item") or {}  # type: ignore[assignment]
            raise QuotaRefused(
                used_total=int(item.get("total", {}).get("N", "0")),
                used_outside=int(item.get("outside", {}).get("N", "0")),
            ) from error

    def refund(self, user_id: str, day: str, spend: Spend) -> None:
        self._client.update_item(
            TableName=self._table,
            Key={"pk": {"S": quota_key(user_id, day)}},
            UpdateExpression="ADD #total :total, #outside :outside",
            ExpressionAttributeNames={"#total": "total", "#outside": "outside"},
            ExpressionAttributeValues={
                ":total": {"N": str(-spend.total)},
                ":outside": {"N": str(-spend.outside)},
            },
        )
