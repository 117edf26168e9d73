"""Drafts port: where proposed cards wait for their owner's decision.

Item layout (``multitool.ports.tables.DRAFTS``, key ``id``, TTL ``expiresAt``): the
draft's camelCase wire form, ``payload``/``edits``/``result`` as maps, times as
ISO 8601 strings, ``expiresAt`` as epoch seconds. Absent optional fields are
not written. Only :func:`_to_item` and :func:`_from_item` know this layout.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.exceptions import ClientError

from multitool.drafts import UNCLAIMED_OWNER, Draft, DraftStatus

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

TRANSACT_LIMIT = 100
_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


class DraftStore(Protocol):
    def create_many(self, drafts: Sequence[Draft]) -> list[Draft]:
        """Store new drafts in ONE write; an id that exists already is kept as stored
        (a retried invocation) and the stored draft is returned in its place."""
        ...

    def get(self, draft_id: str) -> Draft | None: ...

    def replace(self, current: Draft, updated: Draft) -> Draft:
        """Store ``updated`` in place of ``current`` (a status transition), with the version
        one above ``current``'s, only if the stored draft is still ``current``: same version,
        status and owner, in ONE conditional write. Otherwise raise :class:`DraftWriteConflict`."""
        ...

    def claim(self, current: Draft, owner: str) -> Draft:
        """Give an unclaimed draft (:data:`multitool.drafts.UNCLAIMED_OWNER`) its owner, only if it
        is still unclaimed at ``current``'s version, in ONE conditional write; otherwise raise
        :class:`DraftWriteConflict` with the stored draft."""
        ...

    def supersede(self, earlier: Draft, revision: Draft) -> Draft:
        """Store the new draft ``revision`` and mark ``earlier`` superseded by it, in ONE
        transactional write: only if ``revision``'s id is new and the stored ``earlier`` is still
        ``earlier`` (same version, ``proposed``, same owner). Otherwise nothing is written and
        :class:`DraftWriteConflict` carries the stored ``earlier``. Returns ``revision``."""
        ...


class DraftWriteConflict(Exception):
    """The stored draft is no longer the one a transition was computed from."""

    def __init__(self, draft_id: str, stored: Draft | None) -> None:
        super().__init__(f"Draft {draft_id} changed since it was read")
        self.draft_id = draft_id
        self.stored = stored


def next_version(current: Draft, updated: Draft) -> Draft:
    """``updated`` with the version a :meth:`DraftStore.replace` of ``current`` writes."""
    if updated.id != current.id or updated.owner != current.owner:
        raise ValueError("A transition cannot change a draft's id or owner")
    return updated.model_copy(update={"version": current.version + 1})


def claimed(current: Draft, owner: str) -> Draft:
    """``current`` as :meth:`DraftStore.claim` writes it: its owner set, its version one up."""
    if current.owner != UNCLAIMED_OWNER:
        raise DraftWriteConflict(current.id, current)
    return current.model_copy(update={"owner": owner, "version": current.version + 1})


def superseded(earlier: Draft, revision: Draft) -> Draft:
    """``earlier`` as :meth:`DraftStore.supersede` stores it: superseded by ``revision``."""
    if earlier.status is not DraftStatus.PROPOSED:
        raise ValueError("Only a proposed draft can be superseded")
    if revision.owner != earlier.owner or revision.action != earlier.action:
        raise ValueError("A revision has the owner and action of the draft it supersedes")
    marked = earlier.model_copy(
        update={
            "status": DraftStatus.SUPERSEDED,
            "superseded_by": revision.id,
            "updated_at": revision.created_at,
        }
    )
    return next_version(earlier, marked)


def _plain(value: Any) -> Any:
    """Decimals from DynamoDB back to int/float."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | set | tuple):
        return [_plain(v) for v in value]
    return value


def _to_item(draft: Draft) -> dict[str, Any]:
    """The DynamoDB item (attribute-value form) for a draft."""
    # JSON round-trip: floats become Decimal, which the serializer requires.
    wire = json.loads(json.dumps(draft.to_wire()), parse_float=Decimal)
    return {k: _serializer.serialize(v) for k, v in wire.items() if v is not None}


def _from_item(item: Mapping[str, Any]) -> Draft:
    """The draft stored in a DynamoDB item (attribute-value form)."""
    return Draft.model_validate({k: _plain(_deserializer.deserialize(v)) for k, v in item.items()})


def _unique(drafts: Sequence[Draft]) -> list[Draft]:
    return list({d.id: d for d in reversed(drafts)}.values())[::-1]


class DynamoDraftStore:
    """Drafts in DynamoDB: one conditional ``TransactWriteItems`` per batch."""

    def __init__(self, table_name: str, client: DynamoDBClient) -> None:
        self._table = table_name
        self._client = client

    def create_many(self, drafts: Sequence[Draft]) -> list[Draft]:
        """Write every new draft at once; drafts whose id exists come back as stored.

        Identical drafts in one batch (the same call twice) are written once.
        """
        pending = _unique(drafts)
        if len(pending) > TRANSACT_LIMIT:
            raise ValueError(f"At most {TRANSACT_LIMIT} drafts can be written at once.")
        stored: dict[str, Draft] = {}
        while pending:
            existing = self._write_new(pending)
            if existing is None:
                stored.update({d.id: d for d in pending})
                break
            stored.update(existing)
            pending = [d for d in pending if d.id not in existing]
        return [stored[d.id] for d in drafts]

    def _write_new(self, drafts: Sequence[Draft]) -> dict[str, Draft] | None:
        """None when all were written; else the drafts that already exist (nothing written)."""
        if len(drafts) == 1:
            return self._put_one(drafts[0])
        try:
            self._client.transact_write_items(
                TransactItems=[
                    {
                        "Put": {
                            "TableName": self._table,
                            "Item": _to_item(d),
                            "ConditionExpression": "attribute_not_exists(id)",
                            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                        }
                    }
                    for d in drafts
                ]
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise
            reasons: list[Any] = error.response.get("CancellationReasons", [])
            existing: dict[str, Draft] = {}
            missing: list[str] = []
            for draft, reason in zip(drafts, reasons, strict=False):
                if reason.get("Code") == "ConditionalCheckFailed":
                    if reason.get("Item"):
                        existing[draft.id] = _from_item(reason["Item"])
                    else:
                        missing.append(draft.id)
            for draft_id in missing:
                found = self.get(draft_id)
                if found is not None:
                    existing[draft_id] = found
            if not existing:
                raise
            return existing
        return None

    def _put_one(self, draft: Draft) -> dict[str, Draft] | None:
        try:
            self._client.put_item(
                TableName=self._table,
                Item=_to_item(draft),
                ConditionExpression="attribute_not_exists(id)",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            item: Any = error.response.get("Item")
            found = _from_item(item) if item else self.get(draft.id)
            if found is None:
                raise
            return {draft.id: found}
        return None

    def get(self, draft_id: str) -> Draft | None:
        response = self._client.get_item(
            TableName=self._table, Key={"id": {"S": draft_id}}, ConsistentRead=True
        )
        item = response.get("Item")
        return _from_item(item) if item else None

    def replace(self, current: Draft, updated: Draft) -> Draft:
        new = next_version(current, updated)
        self._put_if_unchanged(
            new,
            "#version = :version AND #status = :status AND #owner = :owner",
            {"#version": "version", "#status": "status", "#owner": "owner"},
            {
                ":version": {"N": str(current.version)},
                ":status": {"S": current.status.value},
                ":owner": {"S": current.owner},
            },
        )
        return new

    def claim(self, current: Draft, owner: str) -> Draft:
        new = claimed(current, owner)
        self._put_if_unchanged(
            new,
            "#version = :version AND #owner = :unclaimed",
            {"#version": "version", "#owner": "owner"},
            {":version": {"N": str(current.version)}, ":unclaimed": {"S": UNCLAIMED_OWNER}},
        )
        return new

    def _put_if_unchanged(
        self, new: Draft, condition: str, names: Mapping[str, str], values: Mapping[str, Any]
    ) -> None:
        """Write ``new`` in ONE conditional put; a failed condition is :class:`DraftWriteConflict`
        carrying the draft as stored."""
        try:
            self._client.put_item(
                TableName=self._table,
                Item=_to_item(new),
                ConditionExpression=condition,
                ExpressionAttributeNames=dict(names),
                ExpressionAttributeValues=dict(values),
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            item: Mapping[str, Any] | None = error.response.get("Item")  # type: ignore[assignment]
            raise DraftWriteConflict(new.id, _from_item(item) if item else None) from error

    def supersede(self, earlier: Draft, revision: Draft) -> Draft:
        marked = superseded(earlier, revision)
        try:
            self._client.transact_write_items(
                TransactItems=[
                    {
                        "Put": {
                            "TableName": self._table,
                            "Item": _to_item(revision),
                            "ConditionExpression": "attribute_not_exists(id)",
                        }
                    },
                    {
                        "Put": {
                            "TableName": self._table,
                            "Item": _to_item(marked),
                            "ConditionExpression": (
                                "#version = :version AND #status = :proposed AND #owner = :owner"
                            ),
                            "ExpressionAttributeNames": {
                                "#version": "version",
                                "#status": "status",
                                "#owner": "owner",
                            },
                            "ExpressionAttributeValues": {
                                ":version": {"N": str(earlier.version)},
                                ":proposed": {"S": DraftStatus.PROPOSED.value},
                                ":owner": {"S": earlier.owner},
                            },
                        }
                    },
                ]
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise
            raise DraftWriteConflict(earlier.id, self.get(earlier.id)) from error
        return revision
