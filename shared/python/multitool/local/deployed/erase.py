"""``multitool erase --user SUB``: remove one user's data from a deployment's tables, without a scan.

What a user leaves behind, by table: drafts, sessions, turns and ``/chat`` idempotency records
(each holds a whole reply, which a retry with the same ``Idempotency-Key`` would replay) carry the
user's ``sub`` in ``owner`` and are found through the owner index
(:data:`multitool.ports.tables.OWNER_INDEX`, keys only); the limits table holds the user's token
buckets, running-turn places, the last days' recipient counters and account connections, whose
keys are known. Each is deleted by key (``BatchWriteItem``, 25 at a time, unprocessed items
retried). A mail confirmed and still in its undo window (a ``scheduled`` draft) goes with the other
drafts: its delayed message (:mod:`multitool.ports.undo_queue`) then finds no draft and sends nothing.
The user's bookings (found by their ``owner``, and by the user's meeting drafts for a
booking made before bookings carried one) are released as a cancelled confirm releases them
(:meth:`multitool.ports.aws.dynamo_calendar.DynamoCalendar.release`): the booking goes, and so does
the time it held in each attendee's day.

What is kept, and why (:data:`KEPT`): each audit record, for accountability (that a mail was sent,
a meeting booked, an issue created, when, and to how many), without what links it to the user or
the content: its partition becomes ``ERASED#<SHA-256 of the sub>`` (whoever already knows the sub
can still answer for what was done; nobody can list it back), the draft id and the backend's ids
(message id, issue key, booking id) are dropped. It expires with the audit retention, as before.

Not erased here, and why: the directory is keyed by people, not ``sub`` (an administrator edits
it); so is the builtin mailbox, by address (``BOX#<address>``: the user's mail is also the mail of
whoever they wrote to; an administrator deletes the partition of an address that leaves);
point-in-time recovery can still restore what was deleted for 35 days (docs/deploy.md's
runbook says how to end that early); CloudWatch logs hold the ``sub`` until ``logRetentionDays``;
an idempotency record of a request that never finished holds no reply, only a hash of its body,
and carries no owner when written before this release: it expires with the idempotency window.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from multitool.ports.audit import audit_key
from multitool.ports.aws.dynamo_calendar import BOOKING_PREFIX, DynamoCalendar
from multitool.ports.connections import connection_key
from multitool.ports.quota import quota_key
from multitool.ports.rate import bucket_key
from multitool.ports.tables import ALL_TABLES, AUDIT, BOOKINGS, DRAFTS, LIMITS, OWNER_INDEX, TableSpec
from multitool.ports.tokens import PROVIDER_NAMES
from multitool.ports.turn_slots import slots_key

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

BATCH = 25
RATE_ROUTES = ("chat", "confirm")
COUNTER_DAYS = 3
"""Recipient counters are kept two days after their day: yesterday's, today's and tomorrow's (a
clock ahead) cover every one that can exist."""


ERASED_PREFIX = "ERASED#"
KEPT = {
    AUDIT.logical_name: (
        "kept without the draft and message ids, under a hash of the sub, for accountability "
        "(what was sent, booked or created, when, to how many); they expire with the audit retention"
    )
}
"""What an erase keeps, by table, and why: printed beside the counts."""
STAYS = (
    "Outside these tables: CloudWatch logs hold the sub until logRetentionDays; point-in-time "
    "recovery can restore deleted items for 35 days; mail already sent, calendar events and Jira "
    "issues are with their recipients and providers; the directory entry is an administrator's."
)


@dataclass
class Erased:
    """How many items were (or, with ``dry_run``, would be) deleted, and kept, by table."""

    counts: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def erased_key(sub: str) -> str:
    """The audit partition of an erased user: a hash of the ``sub``, not the ``sub``."""
    return ERASED_PREFIX + hashlib.sha256(sub.encode()).hexdigest()


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


def _audit_items(client: DynamoDBClient, table: str, sub: str) -> Iterator[dict[str, Any]]:
    paginator = client.get_paginator("query")
    for page in paginator.paginate(
        TableName=table,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": audit_key(sub)}},
    ):
        yield from page["Items"]


def _stripped(item: Mapping[str, Any], sub: str, index: int) -> dict[str, Any]:
    """An audit record as kept: what was done, when and to how many; not who by name nor which draft."""
    at = item["sk"]["S"].partition("#")[0]
    kept = {k: item[k] for k in ("action", "outcome", "recipients", "expiresAt") if k in item}
    return {"pk": {"S": erased_key(sub)}, "sk": {"S": f"{at}#{index:06d}"}, **kept}


def _booking_ids(client: DynamoDBClient, table: str, sub: str, draft_ids: list[str]) -> list[str]:
    """The ids of the user's bookings: those carrying the user as ``owner``, and those made for the
    user's meeting drafts (a booking's id is its draft's)."""
    found = [key["pk"]["S"].removeprefix(BOOKING_PREFIX) for key in _owned_keys(client, BOOKINGS, table, sub)]
    for start in range(0, len(draft_ids), 100):
        keys: Any = [
            {"pk": {"S": BOOKING_PREFIX + i}, "sk": {"S": "BOOKING"}} for i in draft_ids[start : start + 100]
        ]
        pending: Any = {table: {"Keys": keys, "ProjectionExpression": "pk"}}
        while pending:
            answer = client.batch_get_item(RequestItems=pending)
            found += [i["pk"]["S"].removeprefix(BOOKING_PREFIX) for i in answer["Responses"].get(table, [])]
            pending = answer.get("UnprocessedKeys") or None
    return sorted(set(found))


def _limit_keys(sub: str, now: datetime) -> Iterator[dict[str, Any]]:
    for route in RATE_ROUTES:
        yield {"pk": {"S": bucket_key(route, sub)}}
    yield {"pk": {"S": slots_key(sub)}}
    for offset in range(-1, COUNTER_DAYS - 1):
        day = (now + timedelta(days=offset)).date().isoformat()
        yield {"pk": {"S": quota_key(sub, day)}}
    for provider in PROVIDER_NAMES:  # the user's own accounts and consents (the tokens are AgentCore's)
        yield {"pk": {"S": connection_key(sub, provider)}}  # type: ignore[arg-type]


def _delete(client: DynamoDBClient, table: str, keys: list[dict[str, Any]]) -> None:
    _write(client, table, [{"DeleteRequest": {"Key": k}} for k in keys])


def _write(client: DynamoDBClient, table: str, requests: list[dict[str, Any]]) -> None:
    for start in range(0, len(requests), BATCH):
        pending: Any = {table: requests[start : start + BATCH]}
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
    draft_ids: list[str] = []
    for spec in ALL_TABLES:
        table = tables.get(spec.env_var)
        if not table:
            continue
        if spec is BOOKINGS:
            erased.counts[spec.logical_name] = _release_bookings(client, table, sub, draft_ids, dry_run)
            continue
        if spec is AUDIT:
            erased.kept[spec.logical_name] = _strip_audit(client, table, sub, dry_run)
            continue
        if spec.owner_index:
            keys = list(_owned_keys(client, spec, table, sub))
            if spec is DRAFTS:
                draft_ids = [k["id"]["S"] for k in keys]
        elif spec is LIMITS:
            keys = list(_limit_keys(sub, moment))  # deleting a key that is not there is a no-op
        else:
            continue
        if not dry_run:
            _delete(client, table, keys)
        erased.counts[spec.logical_name] = len(keys)
    return erased


def _release_bookings(
    client: DynamoDBClient, table: str, sub: str, draft_ids: list[str], dry_run: bool
) -> int:
    ids = _booking_ids(client, table, sub, draft_ids)
    if not dry_run:
        calendar = DynamoCalendar(table, client)
        for booking_id in ids:
            calendar.release(booking_id)
    return len(ids)


def _strip_audit(client: DynamoDBClient, table: str, sub: str, dry_run: bool) -> int:
    """Replace each of the user's audit records by its stripped copy (:func:`_stripped`)."""
    items = list(_audit_items(client, table, sub))
    if not dry_run:
        _write(
            client, table, [{"PutRequest": {"Item": _stripped(item, sub, n)}} for n, item in enumerate(items)]
        )
        _delete(client, table, [{"pk": item["pk"], "sk": item["sk"]} for item in items])
    return len(items)
