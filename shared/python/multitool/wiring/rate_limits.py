"""A route's per-user token bucket on the deployment's limits table (the chat's and the confirms')."""

from __future__ import annotations

import os
from collections.abc import Callable

from multitool.ports.rate import RATE_LIMITS_TABLE, BucketLimits, DynamoTokenBucket


def aws_token_bucket(limits: Callable[[], BucketLimits]) -> DynamoTokenBucket | None:
    """A route's per-user buckets on the deployment's limits table over the Lambda's own DynamoDB
    client; None without a table (no per-user limit).

    The table is looked for before ``limits`` reads the Lambda's settings: an app built around its
    own service (a test, the local server) needs no other setting.
    """
    if not os.environ.get(RATE_LIMITS_TABLE):
        return None
    table_name, per_minute, burst = limits()
    if not table_name:
        return None
    import boto3  # the Lambda's client, made on first use, never at import

    return DynamoTokenBucket(table_name, boto3.client("dynamodb"), per_minute=per_minute, burst=burst)
