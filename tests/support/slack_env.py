"""The Slack function as its functional tests run it: moto with the chat's and the review's tables, the
offline model, SES with the sender verified, the Web API on loopback, the self-invoke stubbed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from multitool.people import Person
from slack_sdk.models.blocks import Block

from tests.support.chat_env import Launches, offline_chat_env
from tests.support.http_events import FakeLambdaContext
from tests.support.slack_wire import BOT_TOKEN, SIGNING_SECRET, slack_api, slack_user

SENDER = "assistant@example.com"
ALEX = "U0ALEX001"
STRANGER = "U0NOBODY1"
COMBINED = "Email Kinshuok about the doc and schedule a sync with Priya on Thursday"
PEOPLE = [
    Person(id="p-alex", display_name="Alex Weber", email="alex@example.com", timezone="Europe/Berlin"),
    Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com", timezone="Asia/Kolkata"),
    Person(id="p2", display_name="Priya Natarajan", email="priya@example.com", timezone="Europe/Berlin"),
    Person(
        id="p-zoe-m", display_name="Zoë Müller", email="zoe.mueller@example.com", timezone="Europe/Berlin"
    ),
    Person(id="p-zoe-p", display_name="Zoe Park", email="zoe.park@example.com", timezone="America/New_York"),
]


@pytest.fixture
def slack(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    with offline_chat_env(monkeypatch, PEOPLE) as environment, slack_api() as api:
        api.users[ALEX] = slack_user(ALEX, "alex@example.com")
        api.users[STRANGER] = slack_user(STRANGER, "someone@elsewhere.example")
        launches = Launches()
        real_client = boto3.client

        def client(service: str, *args: Any, **kwargs: Any) -> Any:
            return launches.client if service == "lambda" else real_client(service, *args, **kwargs)

        monkeypatch.setattr(boto3, "client", client)
        monkeypatch.setenv("SLACK_SIGNING_SECRET", SIGNING_SECRET)
        monkeypatch.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
        monkeypatch.setenv("SLACK_API_URL", api.url)
        monkeypatch.setenv("PAGE_URL", "https://chat.example.com/")
        monkeypatch.setenv("SENDER_EMAIL", SENDER)
        boto3.client("sesv2").create_email_identity(EmailIdentity=SENDER)
        from multitool.wiring.orchestrator import aws_chat_turns
        from multitool.wiring.review import aws_reviewer
        from multitool.wiring.slack import aws_slack_app

        caches = (aws_chat_turns, aws_slack_app, aws_reviewer)
        for cache in caches:
            cache.cache_clear()
        yield {**environment, "api": api, "launches": launches}
        for cache in caches:
            cache.cache_clear()
        # Every Web API call the app made is one Slack's published description accepts.
        assert api.refused == []


def handle(event: dict[str, Any]) -> dict[str, Any]:
    from functions.slack.handler import handler

    return handler(event, FakeLambdaContext())


def run_launched(slack: dict[str, Any]) -> dict[str, Any]:
    """The asynchronous invocation the start launched, run as Lambda would run it."""
    payload = json.loads(slack["launches"].sent[-1]["Payload"])
    return handle(payload)


def assert_valid_blocks(blocks: list[dict[str, Any]]) -> None:
    """Every block parses as Block Kit's model and dumps back as sent (the SDK checks its limits)."""
    assert len(blocks) <= 50
    for block in blocks:
        parsed = Block.parse(block)
        assert parsed is not None
        assert parsed.to_dict() == block
