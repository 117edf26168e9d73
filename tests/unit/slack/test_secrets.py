"""The Slack secrets: read from Secrets Manager at most every five minutes, never shown in a repr."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from multitool.slack.secrets import CACHE_SECONDS, CachedSecret, SlackNotConfigured, SlackSecret

ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:multitool/slack/bot-token-AbCdEf"


def stubbed(*values: str | None) -> tuple[Any, Stubber]:
    client = boto3.client("secretsmanager", region_name="us-east-1")
    stubber = Stubber(client)
    for value in values:
        answer = {"ARN": ARN, "Name": "multitool/slack/bot-token"}
        if value is not None:
            answer["SecretString"] = value
        stubber.add_response("get_secret_value", answer, {"SecretId": ARN})
    stubber.activate()
    return client, stubber


def test_a_value_is_read_once_per_cache_period() -> None:
    client, stubber = stubbed("xoxb-1", "xoxb-2")
    now = [0.0]
    secret = CachedSecret(lambda: client, ARN, name="bot token", clock=lambda: now[0])
    assert secret.get() == "xoxb-1"
    now[0] = CACHE_SECONDS - 1
    assert secret.get() == "xoxb-1"
    now[0] = CACHE_SECONDS
    assert secret.get() == "xoxb-2"  # rotated or pasted after the deploy: read again
    stubber.assert_no_pending_responses()


def test_a_failed_check_reads_the_secret_again_at_most_once_a_minute() -> None:
    client, stubber = stubbed("old", "pasted")
    now = [0.0]
    secret = CachedSecret(lambda: client, ARN, name="signing secret", clock=lambda: now[0])
    assert secret.get() == "old"
    now[0] = 30
    secret.forget()  # a forged request: too soon to ask Secrets Manager again
    assert secret.get() == "old"
    now[0] = 61
    secret.forget()
    assert secret.get() == "pasted"
    stubber.assert_no_pending_responses()


def test_an_empty_secret_is_not_configured_and_names_no_value() -> None:
    client, _ = stubbed(" ")
    with pytest.raises(SlackNotConfigured, match="bot token is empty"):
        CachedSecret(lambda: client, ARN, name="bot token").get()


def test_a_value_never_shows_in_a_repr() -> None:
    assert "xoxb" not in repr(SlackSecret("xoxb-very-secret"))
