"""Bad context stops synth with one line naming the key and what it accepts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from multitool.deployment import CALENDARS, Identity, JiraAuth, OutsideRecipients
from multitool.models import DEFAULT_MODEL_ID, PROFILE_PREFIXES

from infra import context_words
from infra.context import ContextError, DeployContext, Executor, Runtime
from infra.geography import GEOGRAPHIES
from infra.paths import ROOT

pytestmark = pytest.mark.infra

VALID = {"modelId": "anthropic.claude-3-5-sonnet-20241022-v2:0", "senderEmail": "me@example.com"}


def _error(**overrides: Any) -> str:
    with pytest.raises(ContextError) as caught:
        DeployContext.from_context({**VALID, **overrides})
    return str(caught.value)


def test_defaults_deploy_the_agentcore_harness_with_inline_functions() -> None:
    settings = DeployContext.from_context(VALID)
    assert settings.runtime is Runtime.AGENTCORE
    assert settings.resolved_executor is Executor.RETURN_CONTROL
    assert not settings.uses_agent
    assert settings.uses_harness
    assert not settings.lambda_executors
    assert settings.tools_in_orchestrator
    assert settings.web_origin is None  # no localhost CORS origin unless asked
    assert settings.idle_session_ttl_seconds == 600


def test_cdk_json_defaults_to_the_harness_and_sets_no_executor() -> None:
    # The executor follows the runtime unless given: a cdk.json 'lambda' would break the default.
    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    assert context["runtime"] == "agentcore"
    assert "executor" not in context


def test_the_default_model_is_the_layers_and_cdk_json_names_it() -> None:
    # One place for the model: multitool.models; cdk.json and an unset modelId both name it.
    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    assert context["modelId"] == DEFAULT_MODEL_ID == "global.anthropic.claude-sonnet-5-5"
    settings = DeployContext.from_context({"senderEmail": "me@example.com"})
    assert settings.model_id == DEFAULT_MODEL_ID
    assert settings.model.is_global_profile
    assert settings.model.foundation_model_id == "anthropic.claude-sonnet-5-5"


def test_the_layer_and_the_deploy_know_the_same_profile_prefixes() -> None:
    assert tuple(GEOGRAPHIES) == PROFILE_PREFIXES


@pytest.mark.parametrize("region", ["us-east-1", "eu-west-1", "ap-south-1", "sa-east-1", "ca-central-1"])
def test_the_default_global_profile_is_accepted_in_every_commercial_region(region: str) -> None:
    DeployContext.from_context({"senderEmail": "me@example.com"}).check_model_region(region)


def test_the_classic_agent_still_defaults_to_lambda_executors() -> None:
    settings = DeployContext.from_context({**VALID, "runtime": "agent"})
    assert settings.uses_agent
    assert settings.resolved_executor is Executor.LAMBDA
    assert settings.lambda_executors
    assert not settings.tools_in_orchestrator
    returned = DeployContext.from_context({**VALID, "runtime": "agent", "executor": "return_control"})
    assert returned.tools_in_orchestrator


def test_the_harness_runs_tools_inline_or_through_the_gateway() -> None:
    settings = DeployContext.from_context({**VALID, "runtime": "agentcore", "executor": "return_control"})
    assert settings.resolved_executor is Executor.RETURN_CONTROL
    assert not settings.uses_gateway
    gateway = DeployContext.from_context({**VALID, "executor": "gateway"})
    assert gateway.resolved_executor is Executor.GATEWAY
    assert gateway.uses_gateway
    assert gateway.lambda_executors
    assert not gateway.tools_in_orchestrator
    assert _error(runtime="agentcore", executor="lambda") == (
        "Invalid context 'executor': 'lambda'. Allowed with runtime=agentcore: return_control "
        "(the harness hands every call back to the orchestrator as an inline function, one batch per "
        "model response) or gateway (the harness calls one action-group Lambda per call through an "
        "AgentCore Gateway)."
    )


def test_the_classic_agent_has_no_gateway_executor() -> None:
    assert _error(runtime="agent", executor="gateway") == (
        "Invalid context 'executor': 'gateway'. Allowed with runtime=agent: "
        "lambda (one action-group Lambda per tool) or return_control."
    )


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
        ("global.anthropic.claude-sonnet-5-5", "global"),
        ("us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0", "us-gov"),
        ("apac.amazon.nova-lite-v1:0", "apac"),
    ],
)
def test_model_ids_and_inference_profiles(model_id: str, profile: str | None) -> None:
    model = DeployContext.from_context({**VALID, "modelId": model_id}).model
    assert model.profile_geo == profile
    assert model.foundation_model_id == (model_id.split(".", 1)[1] if profile else model_id)


def test_unknown_runtime_names_key_and_allowed_values() -> None:
    assert (
        _error(runtime="foo")
        == "Invalid context 'runtime': 'foo'. Allowed: agentcore (the default), agent or converse."
    )


def test_unknown_executor() -> None:
    assert _error(executor="step") == (
        "Invalid context 'executor': 'step'. Allowed: return_control (the default) or gateway "
        "(runtime=agentcore), lambda (the default) or return_control (runtime=agent)."
    )


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


@pytest.mark.parametrize(
    ("key", "bad"),
    [
        ("idleSessionTtlSeconds", "5401"),
        ("throttleRateLimit", "0"),
        ("orchestratorMemory", "10241"),
        ("runningTurnsPerUser", "101"),
        ("undoSeconds", "901"),
        ("auditRetentionDays", "0"),
        ("recipientsPerDay", "100001"),
        ("outsideRecipientsPerDay", "-1"),
        ("dailyTokenAlarm", "999"),
    ],
)
def test_a_number_out_of_range_is_answered_with_the_fields_own_bounds(key: str, bad: str) -> None:
    field = next(f for name, f in DeployContext.model_fields.items() if (f.alias or name) == key)
    bounds = [str(getattr(m, kind)) for m in field.metadata for kind in ("ge", "le") if hasattr(m, kind)]
    message = _error(**{key: bad})
    assert message.startswith(f"Invalid context '{key}': {bad!r}. Allowed: ")
    assert bounds
    assert all(bound in message for bound in bounds)
    assert "{" not in message


@pytest.mark.parametrize(
    ("key", "values", "default"),
    [
        ("runtime", [r.value for r in Runtime], "agentcore"),
        ("calendar", list(CALENDARS), "builtin"),
        ("identity", [i.value for i in Identity], "off"),
        ("jiraAuth", [j.value for j in JiraAuth], "organization"),
        ("outsideRecipients", [o.value for o in OutsideRecipients], "capped"),
    ],
)
def test_a_choice_lists_every_value_of_the_vocabulary_and_marks_the_default(
    key: str, values: list[str], default: str
) -> None:
    allowed = _error(**{key: "nope"}).split("Allowed: ", 1)[1]
    assert [v for v in values if v in allowed] == values
    assert f"{default} (the default" in allowed


def test_a_vocabulary_value_without_its_words_stops_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    # A calendar added to multitool.deployment but not worded here (or the reverse) is refused at import.
    unworded = {k: v for k, v in context_words._CHOICES["calendar"].items() if k != "google"}
    monkeypatch.setitem(context_words._CHOICES, "calendar", unworded)
    with pytest.raises(ValueError, match="context 'calendar': the values"):
        context_words.allowed(DeployContext.model_fields)


def test_a_range_stated_in_words_and_not_from_its_field_stops_the_app(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(
        context_words._WORDS, "idleSessionTtlSeconds", "a whole number of seconds from 60 to 5400"
    )
    with pytest.raises(
        ValueError, match=r"context 'idleSessionTtlSeconds': its words and its field disagree"
    ):
        context_words.allowed(DeployContext.model_fields)


def test_an_executor_without_its_words_stops_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(
        context_words._EXECUTOR_WORDS, Runtime.AGENT, {Executor.LAMBDA: "one Lambda per tool"}
    )
    with pytest.raises(ValueError, match="executor with runtime=agent"):
        context_words.executors_of(Runtime.AGENT)


def test_user_pool_needs_its_client() -> None:
    assert _error(userPoolId="us-east-1_AbC123").startswith("Missing context 'userPoolClientId'.")


def test_app_exits_with_the_one_line_instead_of_a_traceback() -> None:
    env = {
        **os.environ,
        "CDK_CONTEXT_JSON": json.dumps({**VALID, "runtime": "foo"}),
        "CDK_OUTDIR": str(ROOT / "build" / "bad-context.out"),
    }
    result = subprocess.run(
        [sys.executable, str(ROOT / "infra" / "app.py")], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert (
        result.stderr.strip()
        == "Invalid context 'runtime': 'foo'. Allowed: agentcore (the default), agent or converse."
    )
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


# --- inference profile geography (a `us.` profile exists only in US regions) -----------------------

PROFILE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"


def _region_error(model_id: str, region: str) -> str:
    settings = DeployContext.from_context({**VALID, "modelId": model_id})
    with pytest.raises(ContextError) as caught:
        settings.check_model_region(region)
    return str(caught.value)


@pytest.mark.parametrize(
    ("region", "prefixes"),
    [
        ("eu-west-1", "eu. or global."),
        ("eu-central-2", "eu. or global."),
        ("ap-northeast-1", "jp., apac. or global."),
        ("ap-southeast-2", "au., apac. or global."),
        ("ap-south-1", "apac. or global."),
        ("ca-central-1", "ca. or global."),
        ("sa-east-1", "global."),
        ("us-gov-west-1", "us-gov."),
    ],
)
def test_a_us_profile_outside_the_us_names_the_prefix_of_the_stack_region(region: str, prefixes: str) -> None:
    message = _region_error(PROFILE, region)
    assert message.startswith(
        f"Invalid context 'modelId': {PROFILE!r}. The us. inference profile exists only in US regions and "
        f"this stack deploys to {region}: use the {prefixes} profile of the model"
    )
    first = prefixes.split(" ")[0].rstrip(",")
    assert f"(e.g. -c modelId={first}{MODEL})" in message
    assert "\n" not in message


def test_the_message_names_each_geography_by_its_own_regions() -> None:
    message = _region_error(f"jp.{MODEL}", "eu-west-1")
    assert "The jp. inference profile exists only in Japan regions" in message


@pytest.mark.parametrize(
    ("model_id", "region"),
    [
        (PROFILE, "us-east-1"),
        (PROFILE, "us-west-2"),
        (f"eu.{MODEL}", "eu-west-1"),
        (f"global.{MODEL}", "eu-west-1"),
        (f"global.{MODEL}", "sa-east-1"),
        (f"apac.{MODEL}", "ap-northeast-1"),
        (f"jp.{MODEL}", "ap-northeast-3"),
        (f"au.{MODEL}", "ap-southeast-4"),
        (f"us-gov.{MODEL}", "us-gov-east-1"),
        (MODEL, "eu-west-1"),  # a foundation-model id is the region's own model: nothing to check
    ],
)
def test_a_profile_of_the_stack_regions_geography_is_accepted(model_id: str, region: str) -> None:
    DeployContext.from_context({**VALID, "modelId": model_id}).check_model_region(region)


def test_no_geographic_profile_in_china_regions() -> None:
    message = _region_error(PROFILE, "cn-north-1")
    assert message.startswith(
        f"Invalid context 'modelId': {PROFILE!r}. The us. inference profile exists only"
    )
    assert "cn-north-1 has no cross-region inference profile: use a foundation-model id" in message


def test_an_unresolved_region_is_not_guessed() -> None:
    # Env-agnostic synth (no account/region): the app warns instead; the check runs when the region is known.
    DeployContext.from_context({**VALID, "modelId": PROFILE}).check_model_region(None)


def test_the_app_refuses_a_us_profile_in_an_eu_stack_before_building_anything() -> None:
    import aws_cdk as cdk

    from infra.app import build_app

    app = cdk.App(context={**VALID, "modelId": PROFILE})
    with pytest.raises(ContextError, match=r"this stack deploys to eu-west-1: use the eu\. or global\."):
        build_app(app, cdk.Environment(account="123456789012", region="eu-west-1"))
    assert app.node.try_find_child("Multitool") is None


def test_the_app_reads_the_region_from_cdk_default_region_without_an_account(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import aws_cdk as cdk

    from infra.app import build_app

    monkeypatch.delenv("CDK_DEFAULT_ACCOUNT", raising=False)
    monkeypatch.setenv("CDK_DEFAULT_REGION", "ap-southeast-2")
    with pytest.raises(ContextError, match=r"deploys to ap-southeast-2: use the au\., apac\. or global\."):
        build_app(cdk.App(context={**VALID, "modelId": PROFILE}))


def test_an_env_agnostic_app_warns_that_the_profile_region_is_unchecked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import aws_cdk as cdk

    from infra.app import build_app

    monkeypatch.delenv("CDK_DEFAULT_ACCOUNT", raising=False)
    monkeypatch.delenv("CDK_DEFAULT_REGION", raising=False)
    _, stack = build_app(cdk.App(context={**VALID, "modelId": PROFILE, "runtime": "converse"}))
    warnings = [str(entry.data) for entry in stack.node.metadata if entry.type == "aws:cdk:warning"]
    assert any("No deploy region is known" in w and "profile-region-unchecked" in w for w in warnings)
