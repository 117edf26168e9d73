"""The DynamoDB tables' key schemas, in one place.

The CDK stack, the moto-backed tests and the local server all build tables from
these definitions, so a key name can only be changed here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


class TableSpec(msgspec.Struct, frozen=True):
    """One table's keys, time-to-live attribute and the environment variable naming it."""

    logical_name: str
    partition_key: str
    sort_key: str | None = None
    ttl_attribute: str | None = None
    env_var: str = ""
    owner_index: bool = False
    """Items carry the user's ``sub`` in ``owner``, indexed (:data:`OWNER_INDEX`): one user's items are a
    ``Query``, so erasing a user needs no scan."""


OWNER_INDEX = "byOwner"
OWNER_ATTRIBUTE = "owner"


DRAFTS = TableSpec("Drafts", "id", ttl_attribute="expiresAt", env_var="DRAFTS_TABLE_NAME", owner_index=True)
DIRECTORY = TableSpec("Directory", "pk", "sk", env_var="DIRECTORY_TABLE_NAME")
# A booking item carries its booker's ``sub`` in ``owner`` (the attendee-day items do not: they are
# everyone's busy time, and the booking's release clears its share of them).
BOOKINGS = TableSpec(
    "Bookings", "pk", "sk", ttl_attribute="expiresAt", env_var="BOOKINGS_TABLE_NAME", owner_index=True
)
SESSIONS = TableSpec(
    "Sessions", "sessionId", ttl_attribute="expiresAt", env_var="SESSIONS_TABLE_NAME", owner_index=True
)
# Powertools idempotency's default attribute names; each record also carries the requester's ``sub``
# in ``owner`` (multitool.chat.idempotency), as it holds the reply a retry replays.
IDEMPOTENCY = TableSpec(
    "Idempotency", "id", ttl_attribute="expiration", env_var="IDEMPOTENCY_TABLE_NAME", owner_index=True
)

# A turn that runs past the request: its owner, its request and the events it appends (cards, the reply).
TURNS = TableSpec("Turns", "turnId", ttl_attribute="expiresAt", env_var="TURNS_TABLE_NAME", owner_index=True)

# Per-user counters: recipients mailed per UTC day (``RECIPIENTS#<sub>#<day>``).
LIMITS = TableSpec("Limits", "pk", ttl_attribute="expiresAt", env_var="LIMITS_TABLE_NAME")

# Every side effect (who, what, when, how many recipients), kept for the deployment's audit retention.
AUDIT = TableSpec("Audit", "pk", "sk", ttl_attribute="expiresAt", env_var="AUDIT_TABLE_NAME")

# The builtin mailbox: the mail the system delivered and sent, per address
# (multitool.ports.aws.dynamo_mailbox).
MAILBOX = TableSpec("Mailbox", "pk", "sk", env_var="MAILBOX_TABLE_NAME")

ALL_TABLES: tuple[TableSpec, ...] = (
    DRAFTS,
    DIRECTORY,
    BOOKINGS,
    SESSIONS,
    IDEMPOTENCY,
    TURNS,
    LIMITS,
    AUDIT,
    MAILBOX,
)


def create_table(client: DynamoDBClient, spec: TableSpec, name: str) -> None:
    """Create one on-demand table (tests and the local server; the stack uses CDK)."""
    keys: list[Any] = [{"AttributeName": spec.partition_key, "KeyType": "HASH"}]
    attributes: list[Any] = [{"AttributeName": spec.partition_key, "AttributeType": "S"}]
    if spec.sort_key:
        keys.append({"AttributeName": spec.sort_key, "KeyType": "RANGE"})
        attributes.append({"AttributeName": spec.sort_key, "AttributeType": "S"})
    indexes: list[Any] = []
    if spec.owner_index:
        attributes.append({"AttributeName": OWNER_ATTRIBUTE, "AttributeType": "S"})
        indexes.append(
            {
                "IndexName": OWNER_INDEX,
                "KeySchema": [{"AttributeName": OWNER_ATTRIBUTE, "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        )
    if indexes:
        client.create_table(
            TableName=name,
            KeySchema=keys,
            AttributeDefinitions=attributes,
            BillingMode="PAY_PER_REQUEST",
            GlobalSecondaryIndexes=indexes,
        )
    else:
        client.create_table(
            TableName=name, KeySchema=keys, AttributeDefinitions=attributes, BillingMode="PAY_PER_REQUEST"
        )
    if spec.ttl_attribute:
        client.update_time_to_live(
            TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": spec.ttl_attribute}
        )


def create_all(client: DynamoDBClient, prefix: str = "multitool") -> dict[str, str]:
    """Create every table; returns {env var: table name} to put in a process environment."""
    names: dict[str, str] = {}
    for spec in ALL_TABLES:
        name = f"{prefix}-{spec.logical_name.lower()}"
        create_table(client, spec, name)
        names[spec.env_var] = name
    return names
