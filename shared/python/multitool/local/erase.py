"""``multitool erase --user SUB``: remove one user's data from a deployment's tables, without a scan.

What a user leaves behind, by table: drafts, sessions and turns carry the user's ``sub`` in
``owner`` and are found through the owner index (:data:`multitool.ports.tables.OWNER_INDEX`, keys
only); audit records are the user's own partition (``USER#<sub>``); the limits table holds the
user's token buckets and the last days' recipient counters, whose keys are known. Each is deleted
by key (``BatchWriteItem``, 25 at a time, unprocessed items retried).

Not erased here, and why: the directory and bookings are keyed by people and addresses, not by
``sub`` (an administrator edits the directory; bookings expire 30 days after the meeting);
point-in-time recovery can still restore what was deleted for 35 days (docs/deploy.md's runbook
says how to end that early); CloudWatch logs hold the ``sub`` until ``logRetentionDays``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from multitool.ports.audit import audit_key
from multitool.ports.quota import quota_key
from multitool.ports.rate import bucket_key
from multitool.ports.tables import ALL_TABLES, AUDIT, LIMITS, OWNER_INDEX, TableSpec

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

BATCH = 25
RATE_ROUTES = ("chat", "confirm")
COUNTER_DAYS = 3
"""Recipient counters are kept two days after their day: yesterday's, today's and tomorrow's (a
clock ahead) cover every one that can exist."""


@dataclass
class Erased:
    """How many items were (or, with ``dry_run``, would be) deleted, by table."""

    counts: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _owned_keys(client: DynamoDBClient, spec: TableSpec, table: str, sub: str) -> Iterator[dict[str, Any]]:
    paginator = client.get_paginator("query")
    for page in paginator.paginate(
        TableName=table,
        IndexName=OWNER_INDEX,
        KeyConditionExpression="#owner = :sub",
        ExpressionAttributeNames={"#owner": "owner"},
        ExpressionAttributeValues={":sub": {"S": sub}},
    ):
        for item in page["Items"]:
            yield {k: v for k, v in item.items() if k in (spec.partition_key, spec.sort_key)}


def _audit_keys(client: DynamoDBClient, table: str, sub: str) -> Iterator[dict[str, Any]]:
    paginator = client.get_paginator("query")
    for page in paginator.paginate(
        TableName=table,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": audit_key(sub)}},
        ProjectionExpression="pk, sk",
    ):
        yield from page["Items"]


def _limit_keys(sub: str, now: datetime) -> Iterator[dict[str, Any]]:
    for route in RATE_ROUTES:
        yield {"pk": {"S": bucket_key(route, sub)}}
    for offset in range(-1, COUNTER_DAYS - 1):
        day = (now + timedelta(days=offset)).date().isoformat()
        yield {"pk": {"S": quota_key(sub, day)}}


def _delete(client: DynamoDBClient, table: str, keys: list[dict[str, Any]]) -> None:
    for start in range(0, len(keys), BATCH):
        pending: Any = {table: [{"DeleteRequest": {"Key": k}} for k in keys[start : start + BATCH]]}
        for attempt in range(8):
            unprocessed = client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
            if not unprocessed:
                break
            pending = unprocessed
            time.sleep(min(2.0, 0.05 * 2**attempt))
        else:
            raise RuntimeError(f"DynamoDB kept refusing deletes on {table}; run the erase again")


def erase_user(
    client: DynamoDBClient,
    tables: Mapping[str, str],
    sub: str,
    *,
    dry_run: bool = False,
    now: datetime | None = None,
) -> Erased:
    """Delete ``sub``'s items from ``tables`` ({env var: table name}, e.g. ``DRAFTS_TABLE_NAME``)."""
    if not sub.strip() or sub != sub.strip():
        raise ValueError("The user's sub must be a non-empty id without surrounding spaces")
    erased = Erased()
    moment = now or datetime.now(UTC)
    for spec in ALL_TABLES:
        table = tables.get(spec.env_var)
        if not table:
            continue
        if spec.owner_index:
            keys = list(_owned_keys(client, spec, table, sub))
        elif spec is AUDIT:
            keys = list(_audit_keys(client, table, sub))
        elif spec is LIMITS:
            keys = list(_limit_keys(sub, moment))  # deleting a key that is not there is a no-op
        else:
            continue
        if not dry_run:
            _delete(client, table, keys)
        erased.counts[spec.logical_name] = len(keys)
    return erased
