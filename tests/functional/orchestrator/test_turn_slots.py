"""A cap on each user's running asynchronous turns: the real orchestrator handler on HTTP API v2 events,
moto DynamoDB, the self-invocation a stubbed real Lambda client. A user at the cap gets 429
``too_many_turns`` with ``Retry-After``; another user is served meanwhile; a turn that ends, fails, or
whose worker never ran frees its place."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from multitool.chat.async_turns import TOO_MANY_TURNS_RETRY_SECONDS
from multitool.chat.turn_store import START_WITHIN_SECONDS
from multitool.people import Person
from multitool.ports.turn_slots import DynamoTurnSlots, SlotsFull, slots_key
from multitool.runtimes import OfflineHarness

from tests.support.chat_env import Launches, offline_chat_env
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body

PEOPLE = [Person(id="p1", display_name="Mei Chen", email="mei@example.com", timezone="Asia/Shanghai")]
ASYNC = {"Prefer": "respond-async"}
CAP = 2


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    with offline_chat_env(monkeypatch, PEOPLE) as environment:
        monkeypatch.setenv("RATE_LIMITS_TABLE_NAME", environment["tables"]["LIMITS_TABLE_NAME"])
        monkeypatch.setenv("RUNNING_TURNS_PER_USER", str(CAP))
        launches = Launches()
        real_client = boto3.client

        def client(service: str, *args: Any, **kwargs: Any) -> Any:
            return launches.client if service == "lambda" else real_client(service, *args, **kwargs)

        monkeypatch.setattr(boto3, "client", client)
        from multitool.wiring.orchestrator import aws_chat_limiter, aws_chat_turns

        for cached in (aws_chat_turns, aws_chat_limiter):
            cached.cache_clear()
        yield {**environment, "launches": launches}
        for cached in (aws_chat_turns, aws_chat_limiter):
            cached.cache_clear()


def handle(event: dict[str, Any]) -> dict[str, Any]:
    from functions.orchestrator.handler import handler

    response: dict[str, Any] = handler(event, FakeLambdaContext())
    return response


def start(env: dict[str, Any], sub: str, *, launched: bool = True) -> dict[str, Any]:
    if launched:
        env["launches"].expect()
    return handle(
        http_api_event("POST", "/chat", {"message": "Email Mei about the launch"}, sub=sub, headers=ASYNC)
    )


def leases(env: dict[str, Any], sub: str) -> dict[str, Any]:
    item = (
        env["client"]
        .get_item(
            TableName=env["tables"]["LIMITS_TABLE_NAME"],
            Key={"pk": {"S": slots_key(sub)}},
            ConsistentRead=True,
        )
        .get("Item", {})
    )
    return dict(item.get("leases", {}).get("M", {}))


def test_a_user_at_the_cap_is_refused_with_429_and_another_user_is_served(env: dict[str, Any]) -> None:
    # Given a user with as many turns running as one user may
    first, second = (start(env, "flooder") for _ in range(CAP))
    assert (first["statusCode"], second["statusCode"]) == (202, 202)

    # When the user starts one more
    refused = start(env, "flooder", launched=False)

    # Then it is refused before anything is stored or launched, with a code and Retry-After
    assert refused["statusCode"] == 429
    error = json_body(refused)["error"]
    assert error["code"] == "too_many_turns"
    assert f"already have {CAP} turns running" in error["message"]
    assert 1 <= int(refused["headers"]["Retry-After"]) <= TOO_MANY_TURNS_RETRY_SECONDS
    turns = env["client"].scan(TableName=env["tables"]["TURNS_TABLE_NAME"], Select="COUNT")["Count"]
    assert turns == CAP
    env["launches"].stubber.assert_no_pending_responses()
    # And another user is served meanwhile
    assert start(env, "someone-else")["statusCode"] == 202
    # And waiting for the answer inline is not a running turn: it is served too
    inline = handle(http_api_event("POST", "/chat", {"message": "hello"}, sub="flooder"))
    assert inline["statusCode"] == 200


def test_a_turn_that_ends_or_fails_frees_its_place(
    env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    launches: Launches = env["launches"]
    for _ in range(CAP):
        assert start(env, "u")["statusCode"] == 202
    first_run, second_run = launches.payload(0), launches.payload(1)
    assert start(env, "u", launched=False)["statusCode"] == 429

    # the first turn runs to its answer: its place is free again
    assert handle(first_run) == {"status": "done"}
    assert len(leases(env, "u")) == CAP - 1
    assert start(env, "u")["statusCode"] == 202
    assert start(env, "u", launched=False)["statusCode"] == 429

    # the second fails (the model refuses): its place is free too
    def throttled(self: OfflineHarness, **kwargs: Any) -> Any:
        raise ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "InvokeHarness")

    monkeypatch.setattr(OfflineHarness, "invoke_harness", throttled)
    assert handle(second_run) == {"status": "failed"}
    assert start(env, "u")["statusCode"] == 202


def test_a_refused_launch_frees_its_place(env: dict[str, Any]) -> None:
    launches: Launches = env["launches"]
    for _ in range(2):  # the client's own retry
        launches.stubber.add_client_error("invoke", "TooManyRequestsException", http_status_code=429)
    for _ in range(CAP):
        assert start(env, "u", launched=False)["statusCode"] == 503
    assert leases(env, "u") == {}
    assert start(env, "u")["statusCode"] == 202


def test_a_turn_whose_worker_never_came_frees_its_place_when_its_lease_ends(env: dict[str, Any]) -> None:
    now = [1_000.0]
    slots = DynamoTurnSlots(
        env["tables"]["LIMITS_TABLE_NAME"], env["client"], per_user=CAP, clock=lambda: now[0]
    )
    # Given two turns whose invocation never starts (places held until the start window ends)
    slots.take("u", "t-never-1", until=now[0] + START_WITHIN_SECONDS)
    now[0] += 10
    slots.take("u", "t-never-2", until=now[0] + START_WITHIN_SECONDS)
    with pytest.raises(SlotsFull) as full:
        slots.take("u", "t-third", until=now[0] + START_WITHIN_SECONDS)
    assert (full.value.running, full.value.free_at) == (CAP, 1_000.0 + START_WITHIN_SECONDS)

    # When the first one's lease has run out, a new turn takes its place (and the stale one is dropped)
    now[0] = 1_000.0 + START_WITHIN_SECONDS + 1
    slots.take("u", "t-third", until=now[0] + START_WITHIN_SECONDS)
    assert set(leases(env, "u")) == {"t-never-2", "t-third"}
    # A place that is no longer held cannot be held longer, and giving it back again is harmless
    assert slots.hold("u", "t-never-1", until=now[0] + 300) is False
    slots.release("u", "t-never-1")
    assert slots.hold("u", "t-third", until=now[0] + 300) is True


def test_racing_starts_never_take_more_places_than_the_cap(env: dict[str, Any]) -> None:
    # Two requests read the same free place; the second write finds the version moved and reads again.
    table = env["tables"]["LIMITS_TABLE_NAME"]
    raced = DynamoTurnSlots(table, env["client"], per_user=1)
    racing = boto3.client("dynamodb")
    real_get = racing.get_item
    reads: list[Any] = []

    def get_then_race(**kwargs: Any) -> Any:
        answer = real_get(**kwargs)
        reads.append(answer)
        if len(reads) == 1:
            raced.take("u", "t-racer", until=10**10)  # lands between this read and its write
        return answer

    racing.get_item = get_then_race  # type: ignore[method-assign]
    slots = DynamoTurnSlots(table, racing, per_user=1)
    with pytest.raises(SlotsFull):
        slots.take("u", "t-mine", until=10**10)
    assert len(reads) == 2  # the write was refused, and the place read again
    assert set(leases(env, "u")) == {"t-racer"}
