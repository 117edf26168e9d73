"""The orchestrator's adapters (``functions/orchestrator``): ``POST /chat``, ``GET /turns/{id}``,
``GET /sessions/{id}`` and the asynchronous invocation that runs a started turn.

The chat service over DynamoDB (sessions, idempotency), the runtime ``RUNTIME`` selects and the
tools' ports (:func:`multitool.wiring.tool_ports.tool_ports`); the turns run past their request on
``TURNS_TABLE_NAME``; each user's /chat bucket on ``RATE_LIMITS_TABLE_NAME``. Each is built on
first use and cached per warm container, never at import time: tests set the environment first
and call ``cache_clear()`` on the factory.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from multitool.api.chat_app import chat_app, run_turn_event
from multitool.ports.rate import BucketLimits, RateLimiter
from multitool.wiring.rate_limits import aws_token_bucket

if TYPE_CHECKING:
    from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

    from multitool.chat.async_turns import ChatTurns
    from multitool.chat.service import ChatService


@functools.cache
def aws_chat_service() -> ChatService:
    """The chat service over DynamoDB and the runtime ``RUNTIME`` selects."""
    import boto3

    from multitool.chat.idempotency import ChatIdempotency
    from multitool.chat.service import ChatService
    from multitool.chat.sessions import DynamoSessionStore
    from multitool.runtimes import AgentCoreRuntime, AwsClients, build_runtime
    from multitool.runtimes.carryover import DynamoCarryOver
    from multitool.runtimes.product import product_flows
    from multitool.settings import ModelBackend
    from multitool.settings.chat import ChatSettings
    from multitool.toolkit.context import ToolConfig
    from multitool.wiring.tool_ports import tool_ports

    settings = ChatSettings.from_env()
    # The function's boto3 session where it has one already (the Slack function's secrets client made
    # it): a second session loads every service's model and endpoint rules again, about 36 ms of CPU
    # for its first client. boto3.client() keeps its session in boto3.DEFAULT_SESSION (boto3/__init__.py).
    clients = AwsClients(boto3.DEFAULT_SESSION)
    dynamodb = clients.dynamodb
    ports = tool_ports(settings, dynamodb)
    runtime = build_runtime(settings, clients, product_flows(ports, ToolConfig.from_settings(settings)))
    idempotency = (
        ChatIdempotency(
            settings.idempotency_table_name,
            dynamodb,
            expires_after_seconds=settings.idempotency_expiry_seconds,
        )
        if settings.idempotency_table_name
        else None
    )
    return ChatService(
        runtime,
        DynamoSessionStore(settings.sessions_table_name, dynamodb),
        max_message_chars=settings.max_message_chars,
        default_timezone=settings.default_timezone,
        idempotency=idempotency,
        # The Bedrock agent keeps the conversation itself, by sessionId.
        history_exchanges=0 if settings.runtime is ModelBackend.AGENT else settings.history_exchanges,
        # A step carried in the sessions item is taken by the session claim: one UpdateItem, not two.
        carry_in_session=isinstance(runtime, AgentCoreRuntime) and isinstance(runtime.carry, DynamoCarryOver),
    )


@functools.cache
def aws_chat_turns(slack_users: bool = False) -> ChatTurns | None:
    """Turns run past their request, on ``TURNS_TABLE_NAME``; None without one (every turn answers inline).

    ``slack_users``: the Slack function's turns, whose tokens need no JWT (``IDENTITY_SLACK_USERS``: the
    vault user id of the Slack user's directory person), so they run past the request with per-user
    consent too."""
    import boto3
    from botocore.config import Config

    from multitool.chat.async_turns import ChatTurns
    from multitool.chat.turn_store import DynamoTurnStore, TurnLauncher
    from multitool.ports.turn_slots import DynamoTurnSlots
    from multitool.settings.chat import ChatSettings

    settings = ChatSettings.from_env()
    if not settings.turns_table_name:
        return None
    identity = settings.identity()
    if identity is not None and not (slack_users and identity.identity_slack_users):
        # Each user's own account needs the user's JWT in the function that runs the tools, and a turn
        # run past its request runs in a later invocation that has none (the JWT is never stored, not
        # even in a turn record): with per-user consent every turn answers inline (RFC 7240 lets a
        # server ignore Prefer: respond-async; the answer then carries no Preference-Applied).
        return None
    service = aws_chat_service()
    # A refused launch answers 503 (the client retries with its Idempotency-Key).
    client = boto3.client("lambda", config=Config(retries={"max_attempts": 2, "mode": "standard"}))
    dynamodb = boto3.client("dynamodb")
    store = DynamoTurnStore(settings.turns_table_name, dynamodb)
    slots = (
        DynamoTurnSlots(settings.rate_limits_table_name, dynamodb, per_user=settings.running_turns_per_user)
        if settings.rate_limits_table_name
        else None
    )
    return ChatTurns(service, store, TurnLauncher(client).launch, slots)


@functools.cache
def aws_chat_limiter() -> RateLimiter | None:
    """Each user's /chat token bucket on ``RATE_LIMITS_TABLE_NAME``; None without one (no per-user limit)."""
    from multitool.settings.chat import ChatSettings

    def limits() -> BucketLimits:
        settings = ChatSettings.from_env()
        return BucketLimits(settings.rate_limits_table_name, settings.chat_per_minute, settings.chat_burst)

    return aws_token_bucket(limits)


def orchestrator_app() -> APIGatewayHttpResolver:
    """The chat API over the deployment's service, turns and limiter (each built on first use)."""
    return chat_app(aws_chat_service, aws_chat_turns, aws_chat_limiter)


def run_turn(turn_id: str, context: Any) -> dict[str, str]:
    """The asynchronous invocation that runs a started turn, on the deployment's turns."""
    return run_turn_event(turn_id, context, aws_chat_turns)
