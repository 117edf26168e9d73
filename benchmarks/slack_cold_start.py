"""The Slack function's cold start in ``bench_cold_start``: its request, its floor, and Slack's side.

The request is the one a Slack app's cold start meets most: a direct message, signed as Slack signs
it (``event_callback``, ``message.im``), which the function verifies (the signing secret read from
Secrets Manager), answers with ``users.info`` over HTTP to a loopback Web API
(``tests.support.slack_wire.SlackApi``, which checks each call against Slack's published
description), maps to a directory person, and starts as a turn: the session claimed, the event
recorded once, the turn stored, a running-turn place taken, the function invoked asynchronously
(the embedded backend's Invoke endpoint, bound here to do nothing). Each run gets a fresh event
(timestamp, event id, user and channel): Slack's five minutes, the event ledger, the per-user
places and the session's owner would otherwise turn later runs into refusals.

Its floor (``stack, Slack``) does the same with the same stack and no ``multitool`` code: Powertools'
observability, one pydantic model, ``slack_sdk``'s ``SignatureVerifier`` and ``WebClient``
(``users.info``), the two secrets, a directory read, two conditional writes and the asynchronous
invoke.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

PROGRAMS = ("slack", "stack, Slack")
"""The programs whose event is made afresh before each run."""
FUNCTION_NAME = "bench-handler"
"""What the bench's Lambda context names every child (``"bench-" + module``)."""
SIGNING_SECRET = "bench-signing-secret-0123456789abcdef"
BOT_TOKEN = "xoxb-bench-0000"
EMAIL = "jordan.lee@example.com"
"""A person of the embedded backend's seeded directory."""

FLOOR = """\
import json
import os
import time

import boto3
from slack_sdk import WebClient
from slack_sdk.signature import SignatureVerifier

secrets = boto3.client("secretsmanager")
dynamodb = boto3.client("dynamodb")
lambda_client = boto3.client("lambda")


def secret(name: str) -> str:
    return secrets.get_secret_value(SecretId=os.environ[name])["SecretString"]


def start(event: dict, context) -> dict:
    body = event["body"]
    headers = event["headers"]
    verifier = SignatureVerifier(secret("SLACK_SIGNING_SECRET_ARN"))
    if not verifier.is_valid(body, headers["x-slack-request-timestamp"], headers["x-slack-signature"]):
        return {"statusCode": 401, "body": ""}
    envelope = json.loads(body)
    message = envelope["event"]
    web = WebClient(token=secret("SLACK_BOT_TOKEN_ARN"), base_url=os.environ["SLACK_API_URL"])
    email = web.users_info(user=message["user"])["user"]["profile"]["email"]
    person = dynamodb.get_item(
        TableName=os.environ["DIRECTORY_TABLE_NAME"], Key={"pk": {"S": "NAME#" + email}, "sk": {"S": "NAME"}}
    ).get("Item")
    event_id = envelope["event_id"]
    draft = Draft.model_validate({"to": [email], "subject": message["text"][:200], "draftId": event_id})
    dynamodb.put_item(
        TableName=os.environ["LIMITS_TABLE_NAME"],
        Item={"pk": {"S": "EVENT#" + event_id}, "expiresAt": {"N": str(int(time.time()) + 86400)}},
        ConditionExpression="attribute_not_exists(pk)",
    )
    dynamodb.put_item(
        TableName=os.environ["TURNS_TABLE_NAME"],
        Item={"turnId": {"S": "t-" + envelope["event_id"]}, "request": {"S": draft.model_dump_json()},
              "person": {"S": json.dumps(person or {})}},
        ConditionExpression="attribute_not_exists(turnId)",
    )
    metrics.add_metric(name="Turns", unit=MetricUnit.Count, value=1)
    lambda_client.invoke(
        FunctionName=context.function_name, InvocationType="Event",
        Payload=json.dumps({"turn": envelope["event_id"]}).encode(),
    )
    return {"statusCode": 200, "body": ""}


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event, context):
    return start(event, context)
"""

_numbers = itertools.count(1)


def fresh_event() -> dict[str, Any]:
    """A direct message as Slack sends it now, from a Slack user and in a conversation not seen before."""
    from tests.support.slack_wire import dm, envelope, event_request

    n = next(_numbers)
    ts = f"{int(time.time())}.{n:06d}"
    message = dm(f"U0BENCH{n:04d}", "Email Kinshuok about the doc", channel=f"D0BENCH{n:04d}", ts=ts)
    return event_request(envelope(message, event_id=f"Ev0BENCH{n:05d}"), secret=SIGNING_SECRET)


@contextmanager
def slack_side(backend: Any) -> Iterator[Mapping[str, str]]:
    """The Web API on loopback (every user one seeded person), the two secrets in the backend's Secrets
    Manager, the asynchronous Invoke bound to do nothing: the variables the two programs add."""
    import boto3
    from multitool.local.sandbox.embedded import FAKE_CREDENTIALS

    from tests.support.slack_wire import SlackApi, slack_user

    class Workspace(SlackApi):
        def answer(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
            if method == "users.info":
                user = str(params.get("user"))
                return 200, {"ok": True, "user": slack_user(user, EMAIL)}, {}
            return super().answer(method, params)

    secrets = boto3.client(
        "secretsmanager",
        endpoint_url=backend.env["AWS_ENDPOINT_URL_SECRETS_MANAGER"],
        region_name=backend.env["AWS_REGION"],
        aws_access_key_id=FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        aws_session_token=FAKE_CREDENTIALS["AWS_SESSION_TOKEN"],
    )
    stamp = f"{time.time_ns()}"
    signing = secrets.create_secret(Name=f"bench/slack/signing-{stamp}", SecretString=SIGNING_SECRET)["ARN"]
    token = secrets.create_secret(Name=f"bench/slack/token-{stamp}", SecretString=BOT_TOKEN)["ARN"]
    if backend.invocations is not None:
        backend.invocations.bind(lambda _name, _event: None, {FUNCTION_NAME})
    with Workspace() as api:
        yield {
            "SLACK_API_URL": api.url,
            "SLACK_SIGNING_SECRET_ARN": signing,
            "SLACK_BOT_TOKEN_ARN": token,
            "PAGE_URL": "https://chat.example.com/",
        }
        if api.refused:
            raise AssertionError(f"Web API calls Slack's description refuses: {api.refused[:3]}")


def write_fresh(path: Any) -> None:
    path.write_text(json.dumps(fresh_event()), encoding="utf-8")
