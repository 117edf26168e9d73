"""Audit port: a record of every side effect (who, what, when, how many recipients), kept for a set time.

The draft is the only other link from a side effect to its user, and it expires after days; the audit
record outlives it by the deployment's ``auditRetentionDays``. It holds ids and counts only, never
content or addresses: the user's ``sub``, the draft id and action, the outcome, the recipient count and
the backend's ids (message id, issue key, booking id).

Item layout (``multitool.ports.tables.AUDIT``, key ``pk``/``sk``, TTL ``expiresAt``): ``pk = USER#<sub>``,
``sk = <ISO 8601 time>#<draft id>``, so one user's records are one ``Query`` (an erasure, a review).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

import msgspec

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

RESULT_IDS = ("messageId", "issueKey", "issueId", "bookingId")
"""The result fields an audit record keeps: ids, never content."""


class AuditEntry(msgspec.Struct, frozen=True):
    user_id: str
    draft_id: str
    action: str
    outcome: str
    at: datetime
    recipients: int = 0
    ids: Mapping[str, str] = msgspec.field(default_factory=dict)

    @classmethod
    def of_result(cls, result: Mapping[str, object] | None, **fields: object) -> AuditEntry:
        ids = {k: str(v) for k, v in (result or {}).items() if k in RESULT_IDS and v is not None}
        return cls(ids=ids, **fields)  # type: ignore[arg-type]


class AuditLog(Protocol):
    def record(self, entry: AuditEntry) -> None:
        """Store ``entry``; raise when it could not be stored (the caller logs, the user is answered)."""
        ...


def audit_key(user_id: str) -> str:
    return f"USER#{user_id}"


class DynamoAuditLog:
    def __init__(self, table_name: str, client: DynamoDBClient, *, retention_days: int) -> None:
        self._table = table_name
        self._client = client
        self._retention = timedelta(days=retention_days)

    def record(self, entry: AuditEntry) -> None:
        self._client.put_item(
            TableName=self._table,
            Item={
                "pk": {"S": audit_key(entry.user_id)},
                "sk": {"S": f"{entry.at.isoformat()}#{entry.draft_id}"},
                "draftId": {"S": entry.draft_id},
                "action": {"S": entry.action},
                "outcome": {"S": entry.outcome},
                "recipients": {"N": str(entry.recipients)},
                **({"ids": {"M": {k: {"S": v} for k, v in entry.ids.items()}}} if entry.ids else {}),
                "expiresAt": {"N": str(int((entry.at + self._retention).timestamp()))},
            },
        )
