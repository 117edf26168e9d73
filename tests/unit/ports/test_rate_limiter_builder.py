"""Both APIs' per-user limiters come from one builder: no limits table, no limiter (and no settings
read); a table, a DynamoDB token bucket at the route's rate (tests/functional/flows/test_rate_limits.py
runs both APIs' buckets end to end)."""

from __future__ import annotations

import pytest
from multitool.ports.rate import BucketLimits, DynamoTokenBucket
from multitool.wiring.rate_limits import aws_token_bucket


def test_without_a_limits_table_there_is_no_limiter_and_no_settings_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RATE_LIMITS_TABLE_NAME", raising=False)

    def unread() -> BucketLimits:
        raise AssertionError("the settings were read")

    assert aws_token_bucket(unread) is None


def test_with_a_limits_table_the_bucket_has_the_routes_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATE_LIMITS_TABLE_NAME", "limits")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")

    bucket = aws_token_bucket(lambda: BucketLimits("limits", 30.0, 4))

    assert isinstance(bucket, DynamoTokenBucket)
    assert (bucket._table, bucket._rate, bucket._burst) == ("limits", 0.5, 4.0)
