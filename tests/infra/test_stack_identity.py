"""identity=microsoft365|google: a workload identity, one OAuth2 credential provider with its client secret
an administrator fills, and the two JWT-receiving functions allowed exactly the identity calls they make,
on this workload and this provider only. cdk-nag (the synth raises on a finding) and cfn-lint clean."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cfnlint.api import lint
from multitool.ports.tables import LIMITS

from infra.context import ContextError, DeployContext
from tests.infra.iam_queries import (
    actions_for_role,
    function_id,
    project_functions,
    role_of_function,
    statements_for_role,
)
from tests.infra.synth import SENDER, Synthesized
from tests.support.synths import StackSynths

pytestmark = pytest.mark.infra

ENTRA_CLIENT = "00001111-aaaa-2222-bbbb-3333cccc4444"
ENTRA_TENANT = "contoso.onmicrosoft.com"
GOOGLE_CLIENT = "1234567890-abcdefg.apps.googleusercontent.com"
IDENTITY_ACTIONS = {
    "bedrock-agentcore:GetWorkloadAccessTokenForJWT",
    "bedrock-agentcore:GetResourceOauth2Token",
}


@pytest.fixture
def microsoft_stack(synths: StackSynths) -> Synthesized:
    return synths.get(
        calendar="microsoft365",  # with identityClientId: each user's own consent (identity implied)
        identityClientId=ENTRA_CLIENT,
        identityTenantId=ENTRA_TENANT,
    )


@pytest.fixture
def google_stack(synths: StackSynths) -> Synthesized:
    return synths.get(
        calendar="google",
        identity="google",  # said explicitly, as before: it agrees with the calendar
        identityClientId=GOOGLE_CLIENT,
    )


def _only(synth: Synthesized, resource_type: str) -> tuple[str, dict[str, Any]]:
    (found,) = synth.of_type(resource_type).items()
    return found


def _env(synth: Synthesized, construct_id: str) -> dict[str, Any]:
    env: dict[str, Any] = synth.props(function_id(synth, construct_id))["Environment"]["Variables"]
    return env


def test_the_default_stack_has_no_identity_resources(harness_stack: Synthesized) -> None:
    assert not harness_stack.of_type("AWS::BedrockAgentCore::WorkloadIdentity")
    assert not harness_stack.of_type("AWS::BedrockAgentCore::OAuth2CredentialProvider")
    for construct_id in ("Orchestrator", "Review"):
        assert not {k for k in _env(harness_stack, construct_id) if k.startswith("IDENTITY_")}
        role = role_of_function(harness_stack, function_id(harness_stack, construct_id))
        assert not {a for a in actions_for_role(harness_stack, role) if "Oauth2" in a or "Workload" in a}


def test_microsoft_provider_reads_its_client_secret_from_the_stacks_secret(
    microsoft_stack: Synthesized,
) -> None:
    _, provider = _only(microsoft_stack, "AWS::BedrockAgentCore::OAuth2CredentialProvider")
    props = provider["Properties"]
    assert props["CredentialProviderVendor"] == "MicrosoftOauth2"
    config = props["Oauth2ProviderConfigInput"]["MicrosoftOauth2ProviderConfig"]
    assert config["ClientId"] == ENTRA_CLIENT
    assert config["TenantId"] == ENTRA_TENANT
    assert config["ClientSecretSource"] == "EXTERNAL"
    assert "ClientSecret" not in config  # never a secret value in the template
    secrets = {
        k: v
        for k, v in microsoft_stack.of_type("AWS::SecretsManager::Secret").items()
        if "OAuth client secret" in v["Properties"].get("Description", "")
    }
    ((secret_id, secret),) = secrets.items()
    assert config["ClientSecretConfig"] == {"SecretId": {"Ref": secret_id}, "JsonKey": "clientSecret"}
    assert secret["Properties"]["GenerateSecretString"]["GenerateStringKey"] == "clientSecret"


def test_google_provider(google_stack: Synthesized) -> None:
    _, provider = _only(google_stack, "AWS::BedrockAgentCore::OAuth2CredentialProvider")
    props = provider["Properties"]
    assert props["CredentialProviderVendor"] == "GoogleOauth2"
    config = props["Oauth2ProviderConfigInput"]["GoogleOauth2ProviderConfig"]
    assert config["ClientId"] == GOOGLE_CLIENT
    assert config["ClientSecretSource"] == "EXTERNAL"


def test_the_page_is_the_only_return_url(microsoft_stack: Synthesized) -> None:
    _, workload = _only(microsoft_stack, "AWS::BedrockAgentCore::WorkloadIdentity")
    (url,) = workload["Properties"]["AllowedResourceOauth2ReturnUrls"]
    web = microsoft_stack.stack.web
    distribution = microsoft_stack.logical_id(web.distribution)
    assert url == {"Fn::Join": ["", ["https://", {"Fn::GetAtt": [distribution, "DomainName"]}, "/"]]}
    for construct_id in ("Orchestrator", "Review"):
        env = _env(microsoft_stack, construct_id)
        assert env["IDENTITY_RETURN_URL"] == url
        assert env["IDENTITY_PROVIDER"] == "microsoft365"
        assert env["CALENDAR"] == "microsoft365"  # the tools' suite is the one users connect
        assert env["IDENTITY_WORKLOAD_NAME"] == workload["Properties"]["Name"]
        assert env["CONNECTIONS_TABLE_NAME"] == {
            "Ref": microsoft_stack.logical_id(microsoft_stack.stack.tables[LIMITS])
        }


def test_the_page_lists_the_users_accounts_only_where_the_stack_connects_them(
    microsoft_stack: Synthesized, harness_stack: Synthesized
) -> None:
    from tests.infra.test_stack_web import _config_json

    assert _config_json(microsoft_stack)["connections"] is True
    assert "connections" not in _config_json(harness_stack)


def test_the_callers_may_use_only_this_workload_and_this_provider(microsoft_stack: Synthesized) -> None:
    workload_id, _ = _only(microsoft_stack, "AWS::BedrockAgentCore::WorkloadIdentity")
    provider_id, _ = _only(microsoft_stack, "AWS::BedrockAgentCore::OAuth2CredentialProvider")
    workload_arn = {"Fn::GetAtt": [workload_id, "WorkloadIdentityArn"]}
    provider_arn = {"Fn::GetAtt": [provider_id, "CredentialProviderArn"]}
    seen: dict[str, set[str]] = {}
    for construct_id in ("Orchestrator", "Review"):
        role = role_of_function(microsoft_stack, function_id(microsoft_stack, construct_id))
        for statement in statements_for_role(microsoft_stack, role):
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            identity = [a for a in actions if a.startswith("bedrock-agentcore:") and ("Token" in a)]
            if not identity:
                continue
            assert "*" not in json.dumps(statement["Resource"])
            resources = statement["Resource"]
            assert workload_arn in resources
            if "bedrock-agentcore:GetResourceOauth2Token" in identity:
                assert provider_arn in resources
            seen.setdefault(construct_id, set()).update(identity)
    assert seen["Orchestrator"] == IDENTITY_ACTIONS
    assert seen["Review"] == IDENTITY_ACTIONS | {"bedrock-agentcore:CompleteResourceTokenAuth"}
    # The tool Lambdas (none here) and every other function: no identity call at all.
    others = set(project_functions(microsoft_stack)) - {
        function_id(microsoft_stack, c) for c in ("Orchestrator", "Review")
    }
    for other in others:
        role = role_of_function(microsoft_stack, other)
        assert not {a for a in actions_for_role(microsoft_stack, role) if "Token" in a}


def test_outputs_name_the_redirect_url_and_the_secret(microsoft_stack: Synthesized) -> None:
    outputs = microsoft_stack.data["Outputs"]
    provider_id, _ = _only(microsoft_stack, "AWS::BedrockAgentCore::OAuth2CredentialProvider")
    assert outputs["IdentityCallbackUrl"]["Value"] == {"Fn::GetAtt": [provider_id, "CallbackUrl"]}
    assert "IdentityClientSecretArn" in outputs


@pytest.mark.parametrize("variant", ["microsoft_stack", "google_stack"])
def test_cfn_lint_is_clean(variant: str, request: pytest.FixtureRequest) -> None:
    synth: Synthesized = request.getfixturevalue(variant)
    matches = lint(json.dumps(synth.data), regions=["us-east-1"])
    assert [f"{m.rule.id} {m.message}" for m in matches] == []


@pytest.mark.parametrize(
    ("context", "words"),
    [
        ({"identity": "microsoft365"}, "Missing context 'identityClientId'"),
        ({"calendar": "microsoft365", "identity": "microsoft365"}, "Missing context 'identityClientId'"),
        ({"identityClientId": ENTRA_CLIENT}, "Invalid context 'identityClientId'"),
        (
            {"identity": "microsoft365", "identityClientId": ENTRA_CLIENT},
            "Invalid context 'identity': identity=microsoft365 connects accounts only calendar=microsoft365 "
            "uses (calendar is builtin)",
        ),
        (
            {"calendar": "microsoft365", "identity": "google", "identityClientId": GOOGLE_CLIENT},
            "(calendar is microsoft365)",
        ),
        (
            {"calendar": "microsoft365", "identity": "off", "identityClientId": ENTRA_CLIENT},
            "Invalid context 'identityClientId'",
        ),
        (
            {"calendar": "google", "identityClientId": GOOGLE_CLIENT, "identityTenantId": "x"},
            "identityTenantId",
        ),
        ({"identity": "slack", "identityClientId": "x"}, "Invalid context 'identity'"),
        ({"identity": "google", "identityClientId": "has spaces"}, "Invalid context 'identityClientId'"),
    ],
)
def test_bad_identity_context_is_one_line(context: dict[str, str], words: str) -> None:
    with pytest.raises(ContextError) as raised:
        DeployContext.from_context({"senderEmail": SENDER, **context})
    assert words in str(raised.value)


@pytest.mark.parametrize("calendar", ["microsoft365", "google"])
def test_a_provider_calendar_with_an_app_is_each_users_own_consent(calendar: str) -> None:
    client = ENTRA_CLIENT if calendar == "microsoft365" else GOOGLE_CLIENT
    settings = DeployContext.from_context(
        {"senderEmail": SENDER, "calendar": calendar, "identityClientId": client}
    )
    assert settings.identity.value == calendar
    explicit = DeployContext.from_context(
        {"senderEmail": SENDER, "calendar": calendar, "identity": calendar, "identityClientId": client}
    )
    assert explicit.identity is settings.identity
    assert DeployContext.from_context({"senderEmail": SENDER, "calendar": calendar}).identity.value == "off"
