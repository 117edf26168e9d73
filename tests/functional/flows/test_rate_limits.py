"""Per-user rate limits: a flood of /chat turns or confirms from one user is refused with 429 and
Retry-After, and another user is still served (HTTP API v2 events, the real handlers, moto DynamoDB)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from multitool.people import Person
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.rate import DynamoTokenBucket, RateLimited
from multitool.wiring.orchestrator import aws_chat_limiter
from multitool.wiring.review import aws_confirm_limiter, aws_reviewer

from tests.support.chat_env import offline_chat_env
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.review_support import email_draft

PEOPLE = [Person(id="p1", display_name="Mei Chen", email="mei@example.com", timezone="Asia/Shanghai")]


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    with offline_chat_env(monkeypatch, PEOPLE) as environment:
        monkeypatch.setenv("RATE_LIMITS_TABLE_NAME", environment["tables"]["LIMITS_TABLE_NAME"])
        monkeypatch.setenv("SENDER_EMAIL", "assistant@example.com")
        for name, value in (("CHAT_BURST", "3"), ("CHAT_PER_MINUTE", "1"), ("CONFIRMS_BURST", "2")):
            monkeypatch.setenv(name, value)
        for cached in (aws_chat_limiter, aws_confirm_limiter, aws_reviewer):
            cached.cache_clear()
        yield environment
        for cached in (aws_chat_limiter, aws_confirm_limiter, aws_reviewer):
            cached.cache_clear()


def chat(sub: str) -> dict[str, Any]:
    from functions.orchestrator.handler import handler

    response: dict[str, Any] = handler(
        http_api_event("POST", "/chat", {"message": "hello"}, sub=sub), FakeLambdaContext()
    )
    return response


def test_a_flood_of_turns_from_one_user_leaves_another_user_served(env: dict[str, Any]) -> None:
    statuses = [chat("flooder")["statusCode"] for _ in range(5)]
    refused = chat("flooder")
    other = chat("someone-else")

    assert statuses == [200, 200, 200, 429, 429]
    assert refused["statusCode"] == 429
    assert json_body(refused)["error"]["code"] == "rate_limited"
    assert 1 <= int(refused["headers"]["Retry-After"]) <= 60
    assert other["statusCode"] == 200


def test_confirms_have_their_own_bucket_per_user(env: dict[str, Any]) -> None:
    from functions.review.handler import handler

    drafts = DynamoDraftStore(env["tables"]["DRAFTS_TABLE_NAME"], env["client"])
    [draft] = drafts.create_many([email_draft()])

    def confirm(sub: str) -> dict[str, Any]:
        event = http_api_event(
            "POST",
            f"/actions/{draft.id}/confirm",
            {},
            sub=sub,
            path_parameters={"id": draft.id},
            route_key="POST /actions/{id}/confirm",
        )
        response: dict[str, Any] = handler(event, FakeLambdaContext())
        return response

    # a stranger's confirms are 404 and spend only the stranger's own tokens
    assert [confirm("stranger")["statusCode"] for _ in range(3)] == [404, 404, 429]
    limited = confirm("stranger")
    assert json_body(limited)["error"]["code"] == "rate_limited"
    assert "Retry-After" in limited["headers"]
    assert draft.owner != "stranger"
    assert confirm(draft.owner)["statusCode"] != 429


def test_a_bucket_refills_at_its_rate(env: dict[str, Any]) -> None:
    now = [1_000.0]
    bucket = DynamoTokenBucket(
        env["tables"]["LIMITS_TABLE_NAME"], env["client"], per_minute=60, burst=2, clock=lambda: now[0]
    )
    bucket.take("u", "chat")
    bucket.take("u", "chat")
    with pytest.raises(RateLimited) as caught:
        bucket.take("u", "chat")
    assert caught.value.retry_after == pytest.approx(1.0)
    now[0] += 1.0
    bucket.take("u", "chat")  # one token back after a second at 60 a minute
    with pytest.raises(RateLimited):
        bucket.take("u", "chat")
