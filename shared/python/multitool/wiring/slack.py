"""The Slack function's adapters (``functions/slack``): the app over the deployment's tables,
secrets and Slack (its environment: :mod:`multitool.slack`), the orchestrator's turns
(:mod:`multitool.wiring.orchestrator`) and, from the first click on, the review function's reviewer
(:mod:`multitool.wiring.review`). Built on first use, never at import: no environment and no secret
is read until the first request.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

    from multitool.chat.async_turns import ChatTurns
    from multitool.ports.drafts import DraftStore
    from multitool.review.reviewer import Reviewer
    from multitool.slack.app import SlackApp


@functools.cache
def aws_slack_app() -> SlackApp:
    """The app over the deployment's tables, secrets and Slack; built on first use, never at import."""
    import boto3

    from multitool.ports.directory import DynamoDirectory
    from multitool.slack.app import SlackApp
    from multitool.slack.events import (
        CardPlaces,
        DynamoCardPlaces,
        EventHandler,
        EventLedger,
        Ledger,
        MemoryCardPlaces,
        MemoryLedger,
    )
    from multitool.slack.identity import SlackPerson, who_is
    from multitool.slack.interactions import InteractionHandler
    from multitool.slack.secrets import CachedSecret, FixedSecret
    from multitool.slack.web import DEFAULT_API_URL, SlackWeb, web_client
    from multitool.wiring.orchestrator import aws_chat_turns

    env = os.environ

    def slack_turns() -> ChatTurns | None:
        return aws_chat_turns(slack_users=True)

    secrets = functools.cache(lambda: boto3.client("secretsmanager"))

    @functools.cache
    def dynamodb() -> DynamoDBClient:
        # The turns' own client where there is one: one client less to make in a cold start.
        turns = slack_turns()
        return turns.store.client if turns is not None else boto3.client("dynamodb")

    def secret(value_var: str, arn_var: str, name: str) -> CachedSecret | FixedSecret:
        if env.get(arn_var):
            return CachedSecret(secrets, env[arn_var], name=name)
        return FixedSecret(env.get(value_var, ""), name=name)

    signing = secret("SLACK_SIGNING_SECRET", "SLACK_SIGNING_SECRET_ARN", "signing secret")
    token = secret("SLACK_BOT_TOKEN", "SLACK_BOT_TOKEN_ARN", "bot token")
    api_url = env.get("SLACK_API_URL") or DEFAULT_API_URL
    clients: dict[str, SlackWeb] = {}

    def web() -> SlackWeb:
        value = token.get()  # cached: a rotated token makes a new client
        if value not in clients:
            clients.clear()
            clients[value] = SlackWeb(web_client(value, api_url))
        return clients[value]

    limits = env.get("LIMITS_TABLE_NAME")
    memory = MemoryLedger()

    def ledger() -> Ledger:
        return EventLedger(limits, dynamodb()) if limits else memory

    remembered = MemoryCardPlaces()

    def places() -> CardPlaces:
        return DynamoCardPlaces(limits, dynamodb()) if limits else remembered

    directory = functools.cache(lambda: DynamoDirectory(env["DIRECTORY_TABLE_NAME"], dynamodb()))

    def reviewer() -> Reviewer:
        # Loaded by the first click, never by an event (the usual cold start).
        from multitool.wiring.review import aws_reviewer

        return aws_reviewer()

    def drafts() -> DraftStore:
        return reviewer().drafts

    lambda_client = functools.cache(lambda: boto3.client("lambda"))

    def launch(function_name: str, event: Mapping[str, Any]) -> None:
        answer = lambda_client().invoke(
            FunctionName=function_name, InvocationType="Event", Payload=json.dumps(event).encode()
        )
        if answer.get("StatusCode") != 202:
            raise RuntimeError(f"the click's invocation was refused ({answer.get('StatusCode')})")

    def identify(team: str, user: str) -> SlackPerson | None:
        return who_is(web(), directory(), team, user)

    page_url = env.get("PAGE_URL") or None
    return SlackApp(
        signing,
        EventHandler(web, directory, slack_turns, ledger),
        InteractionHandler(web, reviewer, drafts, identify, page_url=page_url),
        web,
        slack_turns,
        places=places,
        launch=launch,
        page_url=page_url,
    )
