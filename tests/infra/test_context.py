"""Bad context stops synth with one line naming the key and what it accepts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from infra.context import ContextError, DeployContext, Executor, Runtime
from infra.paths import ROOT

pytestmark = pytest.mark.infra

VALID = {"modelId": "anthropic.claude-3-5-sonnet-20241022-v2:0", "senderEmail": "me@example.com"}


def _error(**overrides: Any) -> str:
    with pytest.raises(ContextError) as caught:
        DeployContext.from_context({**VALID, **overrides})
    return str(caught.value)


def test_defaults_deploy_the_agent_with_lambda_executors() -> None:
    settings = DeployContext.from_context(VALID)
    assert settings.runtime is Runtime.AGENT
    assert settings.executor is Executor.LAMBDA
    assert settings.lambda_executors
    assert not settings.tools_in_orchestrator
    assert settings.web_origin == "http://localhost:8000"
    assert settings.idle_session_ttl_seconds == 600


def test_command_line_strings_are_coerced() -> None:
    settings = DeployContext.from_context(
        {
            **VALID,
            "idleSessionTtlSeconds": "900",
            "sandbox": "true",
            "logRetentionDays": "7",
            "runtime": "converse",
        }
    )
    assert (settings.idle_session_ttl_seconds, settings.sandbox, settings.log_retention_days) == (
        900,
        True,
        7,
    )
    assert settings.tools_in_orchestrator
    assert not settings.uses_agent


@pytest.mark.parametrize(
    ("model_id", "profile"),
    [
        ("anthropic.claude-3-5-sonnet-20241022-v2:0", None),
        ("amazon.nova-pro-v1:0", None),
        ("meta.llama3-1-70b-instruct-v1:0", None),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "us"),
        ("global.anthropic.claude-sonnet-4-5-20250929-v1:0", "global"),
        ("apac.amazon.nova-lite-v1:0", "apac"),
    ],
)
def test_model_ids_and_inference_profiles(model_id: str, profile: str | None) -> None:
    model = DeployContext.from_context({**VALID, "modelId": model_id}).model
    assert model.profile_geo == profile
    assert model.foundation_model_id == (model_id.split(".", 1)[1] if profile else model_id)


def test_unknown_runtime_names_key_and_allowed_values() -> None:
    assert _error(runtime="foo") == "Invalid context 'runtime': 'foo'. Allowed: agent, converse."


def test_unknown_executor() -> None:
    assert _error(executor="step") == "Invalid context 'executor': 'step'. Allowed: lambda, return_control."


@pytest.mark.parametrize(
    "bad", ["claude", "anthropic.", "anthropic claude", "arn:aws:iam::1:role/x", "Anthropic.Claude"]
)
def test_malformed_model_id(bad: str) -> None:
    message = _error(modelId=bad)
    assert message.startswith(f"Invalid context 'modelId': {bad!r}. Allowed: a Bedrock model id")
    assert "\n" not in message


def test_missing_sender() -> None:
    with pytest.raises(ContextError) as caught:
        DeployContext.from_context({"modelId": VALID["modelId"]})
    assert str(caught.value) == (
        "Missing context 'senderEmail'. "
        "Allowed: an email address SES can verify, e.g. -c senderEmail=you@example.com."
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("senderEmail", "not-an-address"),
        ("webOrigin", "https://chat.example.com/path"),
        ("idleSessionTtlSeconds", "30"),
        ("logRetentionDays", "8"),
        ("guardrailId", "Bad Id"),
        ("guardrailVersion", "latest"),
        ("throttleBurstLimit", "0"),
        ("defaultTimezone", "Mars/Olympus"),
        ("jiraProjects", "[1, 2]"),
        ("sandbox", "maybe"),
        ("userPoolId", "pool"),
        ("sesConfigurationSet", "has spaces"),
    ],
)
def test_each_bad_value_is_named_with_its_key(key: str, value: str) -> None:
    message = _error(**{key: value})
    assert message.startswith(f"Invalid context '{key}': {value!r}. Allowed: ")
    assert "\n" not in message


def test_user_pool_needs_its_client() -> None:
    assert _error(userPoolId="us-east-1_AbC123").startswith("Missing context 'userPoolClientId'.")


def test_app_exits_with_the_one_line_instead_of_a_traceback() -> None:
    env = {
        **os.environ,
        "CDK_CONTEXT_JSON": json.dumps({**VALID, "runtime": "foo"}),
        "CDK_OUTDIR": str(ROOT / "build" / "bad-context.out"),
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    }
    result = subprocess.run(
        [sys.executable, str(ROOT / "infra" / "app.py")], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert result.stderr.strip() == "Invalid context 'runtime': 'foo'. Allowed: agent, converse."
    assert result.stdout == ""


def test_an_existing_sender_identity_is_a_context_switch() -> None:
    assert DeployContext.from_context(VALID).create_sender_identity is True
    assert (
        DeployContext.from_context({**VALID, "createSenderIdentity": "false"}).create_sender_identity is False
    )
    assert _error(createSenderIdentity="maybe") == (
        "Invalid context 'createSenderIdentity': 'maybe'. Allowed: true (create the SES identity and mail "
        "its verification link), false (senderEmail is already an SES identity in this account and region)."
    )
