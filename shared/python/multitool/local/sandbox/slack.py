"""``multitool serve --slack``: the Slack app served locally against the Slack stand-in.

The stand-in (:mod:`multitool.local.standins.slack_server`) plays Slack: a workspace of the seeded
people, the Web API, and the app's request URL called as Slack calls it. This module connects the two
the way a deployment connects the app to Slack:

* the signing secret and the bot token are put in (embedded) Secrets Manager, and the function gets
  their ARNs (``SLACK_SIGNING_SECRET_ARN``, ``SLACK_BOT_TOKEN_ARN``), as the stack sets them: the app
  reads them through the same cached Secrets Manager reads as deployed;
* ``SLACK_API_URL`` points the app's ``slack_sdk.WebClient`` at the stand-in's Web API;
* ``POST /slack/events`` of the local server (:data:`multitool.local.sandbox.api_gateway.SLACK_ROUTES`, no JWT
  authorizer) runs ``functions/slack/handler.py``, which may invoke itself asynchronously for a turn
  (:data:`multitool.local.sandbox.api_gateway.SLACK_ASYNC_INVOKED`);
* ``PAGE_URL`` is the local chat page, where a card too long for Slack links (and where a consent
  started from Slack comes back, with ``--consent``: ``IDENTITY_SLACK_USERS``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from multitool.local.standins.slack_server import DEFAULT_PORT, SlackStandIn

if TYPE_CHECKING:
    from multitool.local.sandbox.embedded import Embedded

SIGNING_SECRET_NAME = "multitool/local/slack-signing-secret"  # noqa: S105 - a name
BOT_TOKEN_NAME = "multitool/local/slack-bot-token"  # noqa: S105 - a name


def put_secret(secrets: Any, name: str, value: str) -> str:
    """``name`` holding ``value`` (made, or its value replaced when kept data holds it); its ARN."""
    try:
        return str(secrets.create_secret(Name=name, SecretString=value)["ARN"])
    except secrets.exceptions.ResourceExistsException:
        return str(secrets.put_secret_value(SecretId=name, SecretString=value)["ARN"])


def slack_env(stand_in: SlackStandIn, secrets: Any, page_url: str) -> dict[str, str]:
    """The Slack function's settings for ``stand_in``, its two secrets stored in ``secrets``."""
    workspace = stand_in.workspace
    env = {
        "SLACK_SIGNING_SECRET_ARN": put_secret(secrets, SIGNING_SECRET_NAME, workspace.signing_secret),
        "SLACK_BOT_TOKEN_ARN": put_secret(secrets, BOT_TOKEN_NAME, workspace.bot_token),
        "SLACK_API_URL": stand_in.api_url,
        "PAGE_URL": page_url,
    }
    if os.environ.get("IDENTITY_WORKLOAD_NAME"):
        # --consent: a Slack user's own account by their directory person's vault user id, as the stack
        # sets it on the Slack function. Locally every function shares this process's environment; the
        # page's requests carry their JWT, which the token source uses first.
        env["IDENTITY_SLACK_USERS"] = "true"
    return env


def start_slack(running: Embedded, server_url: str, *, port: int = DEFAULT_PORT) -> SlackStandIn:
    """The Slack stand-in for the app served at ``server_url``, wired as :mod:`this module <.>` says:
    started with ``running`` and stopped with it (see :func:`slack_banner` for what to tell the user)."""
    import boto3

    from multitool.local.sandbox.embedded import FAKE_CREDENTIALS

    server_url = server_url.rstrip("/")
    request_url = f"{server_url}/slack/events"
    try:
        stand_in = SlackStandIn(running.seed.people, request_url=request_url, port=port, retries=1)
    except OSError:  # the usual port is taken (another serve): any free one
        stand_in = SlackStandIn(running.seed.people, request_url=request_url, retries=1)
    running.enter(stand_in)
    secrets = boto3.client(
        "secretsmanager",
        endpoint_url=running.endpoint,
        region_name=running.env["AWS_REGION"],
        aws_access_key_id=FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        aws_session_token=FAKE_CREDENTIALS["AWS_SESSION_TOKEN"],
    )
    env = slack_env(stand_in, secrets, server_url)
    running.env.update(env)
    os.environ.update(env)  # read by the in-process Slack function on first use, after this
    return stand_in


def slack_banner(stand_in: SlackStandIn) -> str:
    """The line ``serve --slack`` prints: the workspace's page, and how ``multitool slack`` finds it."""
    cli = "multitool slack"
    if stand_in.server.server_address[1] != DEFAULT_PORT:  # not where `multitool slack` looks
        cli = f"MULTITOOL_SLACK_URL={stand_in.url} multitool slack"
    return (
        f"Slack: a local Slack workspace at {stand_in.url} (act as any seeded person there, or with "
        f'`{cli} say --as priya "..."`); the app\'s request URL is {stand_in.sender.request_url}.'
    )
