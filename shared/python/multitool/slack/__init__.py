"""The Slack app: the same cards, edits and confirms as the page, in Slack (docs/slack.md).

Public entry: :func:`aws_slack_app` (the deployed app, built on first use) and
:class:`multitool.slack.app.SlackApp` (``handle(event, context)`` for ``POST /slack/events``,
``run_turn(turn_id, context)`` for the asynchronous invocation a Slack message started), which
``functions/slack/handler.py`` serves and the local server (``multitool serve --slack``) can load.

Modules: :mod:`~multitool.slack.verify` (the signature, before anything is parsed),
:mod:`~multitool.slack.events` (a message or mention starts one turn, once per event id),
:mod:`~multitool.slack.identity` (Slack email -> directory person), :mod:`~multitool.slack.blocks`
(any card as Block Kit, within its limits), :mod:`~multitool.slack.modal` (the Edit modal from the
tool's edits model), :mod:`~multitool.slack.interactions` (Confirm, Edit, Discard through the
reviewer), :mod:`~multitool.slack.web` (the Web API, rate limits retried),
:mod:`~multitool.slack.secrets` (the two secrets, cached).

Environment (besides the orchestrator's, for the turn, and the review function's, for the confirm):

``SLACK_SIGNING_SECRET_ARN``
    Secrets Manager secret holding the app's signing secret (plain string).
``SLACK_BOT_TOKEN_ARN``
    Secrets Manager secret holding the bot token, ``xoxb-…`` (plain string).
``SLACK_SIGNING_SECRET`` / ``SLACK_BOT_TOKEN``
    The values themselves, instead of the secrets: local runs and tests only (the stack sets none).
``SLACK_API_URL``
    The Web API's base URL, default ``https://slack.com/api/`` (a local stand-in's otherwise).
``LIMITS_TABLE_NAME``
    Where each event id is recorded once (``SLACKEVENT#…`` items) and where each card was posted
    (``SLACKCARD#<draft id>``, for marking it replaced by a revision); unset: in memory (local runs).
``PAGE_URL``
    The chat page, linked from a card too long for Slack.
``TURNS_TABLE_NAME`` (the orchestrator's)
    Required: a Slack turn always runs past its request.
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

    from multitool.api.chat_app import aws_chat_turns
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
        from multitool.api.review_app import aws_reviewer

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
