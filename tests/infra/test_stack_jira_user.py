"""jiraAuth=user: Jira issues are created as each user through AgentCore Identity's Atlassian credential
provider; only the review function may get those tokens, from this workload and this provider. Also
the Gateway executor's refusal of each user's own calendar. cdk-nag (the synth raises on a finding)
and cfn-lint clean."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cfnlint.api import lint
from multitool.local.doctor.findings import expected_outputs, runtime_of_outputs

from infra.context import ContextError, DeployContext
from infra.paths import ROOT
from tests.infra.iam_queries import function_id, project_functions, role_of_function, statements_for_role
from tests.infra.synth import SENDER, Synthesized, cdk_json_context, synthesize

pytestmark = pytest.mark.infra

ATLASSIAN_CLIENT = "aBcD1234eFgH5678iJkL9012mNoP3456"
SITE = "https://example.atlassian.net"
ENTRA_CLIENT = "00001111-aaaa-2222-bbbb-3333cccc4444"


@pytest.fixture(scope="module")
def jira_user_stack(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    return synthesize(
        tmp_path_factory.mktemp("jira-user"), jiraAuth="user", jiraClientId=ATLASSIAN_CLIENT, jiraSiteUrl=SITE
    )


def _env(synth: Synthesized, construct_id: str) -> dict[str, Any]:
    env: dict[str, Any] = synth.props(function_id(synth, construct_id))["Environment"]["Variables"]
    return env


def _identity_statements(synth: Synthesized, construct_id: str) -> list[dict[str, Any]]:
    role = role_of_function(synth, function_id(synth, construct_id))
    found = []
    for statement in statements_for_role(synth, role):
        actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        if (
            any(a.startswith("bedrock-agentcore:") for a in actions)
            or "secretsmanager:GetSecretValue" in actions
        ):
            found.append(statement)
    return found


def test_an_atlassian_credential_provider_reads_its_client_secret_from_the_stacks_secret(
    jira_user_stack: Synthesized,
) -> None:
    ((provider_id, provider),) = jira_user_stack.of_type(
        "AWS::BedrockAgentCore::OAuth2CredentialProvider"
    ).items()
    props = provider["Properties"]
    assert props["CredentialProviderVendor"] == "AtlassianOauth2"
    config = props["Oauth2ProviderConfigInput"]["AtlassianOauth2ProviderConfig"]
    assert config["ClientId"] == ATLASSIAN_CLIENT
    assert config["ClientSecretSource"] == "EXTERNAL"
    secret = jira_user_stack.logical_id(jira_user_stack.stack.identity.jira_client_secret)  # type: ignore[union-attr]
    assert config["ClientSecretConfig"] == {"SecretId": {"Ref": secret}, "JsonKey": "clientSecret"}
    # No organization Jira secret: issues are created with each user's own token.
    assert "JiraSecretArn" not in jira_user_stack.data["Outputs"]
    outputs = jira_user_stack.data["Outputs"]
    assert outputs["JiraCallbackUrl"]["Value"] == {"Fn::GetAtt": [provider_id, "CallbackUrl"]}
    assert outputs["JiraClientSecretArn"]["Value"] == {"Ref": secret}
    assert "IdentityCallbackUrl" not in outputs  # no calendar provider here


def test_the_review_and_the_orchestrator_get_atlassian_tokens_from_this_workload_and_provider(
    jira_user_stack: Synthesized,
) -> None:
    ((workload_id, workload),) = jira_user_stack.of_type("AWS::BedrockAgentCore::WorkloadIdentity").items()
    ((provider_id, _),) = jira_user_stack.of_type("AWS::BedrockAgentCore::OAuth2CredentialProvider").items()
    review = _env(jira_user_stack, "Review")
    assert review["JIRA_AUTH"] == "user"
    assert review["JIRA_SITE_URL"] == SITE
    assert review["IDENTITY_WORKLOAD_NAME"] == workload["Properties"]["Name"]
    assert "IDENTITY_PROVIDER" not in review  # the calendar stays the stack's own
    assert "JIRA_SECRET_ARN" not in review
    provider_name = jira_user_stack.props(provider_id)["Name"]
    assert review["IDENTITY_JIRA_CREDENTIAL_PROVIDER"] == provider_name

    statements = _identity_statements(jira_user_stack, "Review")
    by_action = {
        action: statement["Resource"]
        for statement in statements
        for action in (
            statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        )
    }
    assert "*" not in json.dumps(list(by_action.values()))
    workload_arn = {"Fn::GetAtt": [workload_id, "WorkloadIdentityArn"]}
    assert workload_arn in by_action["bedrock-agentcore:GetWorkloadAccessTokenForJWT"]
    token_resources = by_action["bedrock-agentcore:GetResourceOauth2Token"]
    assert {"Fn::GetAtt": [provider_id, "CredentialProviderArn"]} in token_resources
    assert workload_arn in token_resources
    assert workload_arn in by_action["bedrock-agentcore:CompleteResourceTokenAuth"]
    secret = jira_user_stack.logical_id(jira_user_stack.stack.identity.jira_client_secret)  # type: ignore[union-attr]
    secret_resources = by_action["secretsmanager:GetSecretValue"]
    assert secret_resources in ({"Ref": secret}, [{"Ref": secret}])

    # The orchestrator runs the tools: it reads the issue a card names with the user's own token
    # (never finishing a consent, never with the calendar's provider); no other function may.
    orchestrator = _env(jira_user_stack, "Orchestrator")
    assert (orchestrator["JIRA_AUTH"], orchestrator["JIRA_SITE_URL"]) == ("user", SITE)
    assert orchestrator["IDENTITY_JIRA_CREDENTIAL_PROVIDER"] == provider_name
    assert "IDENTITY_PROVIDER" not in orchestrator
    reading = json.dumps(_identity_statements(jira_user_stack, "Orchestrator"))
    assert json.dumps({"Fn::GetAtt": [provider_id, "CredentialProviderArn"]}) in reading
    assert "bedrock-agentcore:CompleteResourceTokenAuth" not in reading
    callers = {function_id(jira_user_stack, "Review"), function_id(jira_user_stack, "Orchestrator")}
    for other in set(project_functions(jira_user_stack)) - callers:
        role = role_of_function(jira_user_stack, other)
        for statement in statements_for_role(jira_user_stack, role):
            assert "bedrock-agentcore:GetResourceOauth2Token" not in json.dumps(statement["Action"])


def test_cfn_lint_is_clean(jira_user_stack: Synthesized) -> None:
    matches = lint(json.dumps(jira_user_stack.data), regions=["us-east-1"])
    assert [f"{m.rule.id} {m.message}" for m in matches] == []


def test_the_doctor_expects_no_jira_secret_of_a_jira_user_stack(jira_user_stack: Synthesized) -> None:
    outputs = dict.fromkeys(jira_user_stack.data["Outputs"], "set")
    wanted = expected_outputs(runtime_of_outputs(outputs), gateway=False, jira_as_user=True)
    assert set(wanted) <= set(outputs)


@pytest.mark.parametrize(
    ("context", "words"),
    [
        ({"jiraAuth": "user", "jiraSiteUrl": SITE}, "Missing context 'jiraClientId'"),
        ({"jiraAuth": "user", "jiraClientId": ATLASSIAN_CLIENT}, "Missing context 'jiraSiteUrl'"),
        (
            {"jiraClientId": ATLASSIAN_CLIENT},
            "Invalid context 'jiraClientId': it belongs to Jira as each user",
        ),
        ({"jiraAuth": "organization", "jiraSiteUrl": SITE}, "Invalid context 'jiraSiteUrl'"),
        ({"jiraAuth": "bot"}, "Invalid context 'jiraAuth': 'bot'. Allowed: organization"),
        (
            {
                "jiraAuth": "user",
                "jiraClientId": ATLASSIAN_CLIENT,
                "jiraSiteUrl": "http://example.atlassian.net",
            },
            "Invalid context 'jiraSiteUrl'",
        ),
    ],
)
def test_bad_jira_context_is_one_line(context: dict[str, str], words: str) -> None:
    with pytest.raises(ContextError) as raised:
        DeployContext.from_context({"senderEmail": SENDER, **context})
    assert words in str(raised.value)
    assert "\n" not in str(raised.value)


def test_the_gateway_executor_refuses_each_users_own_calendar_naming_the_fix() -> None:
    with pytest.raises(ContextError) as raised:
        DeployContext.from_context(
            {
                "senderEmail": SENDER,
                "executor": "gateway",
                "calendar": "microsoft365",
                "identityClientId": ENTRA_CLIENT,
            }
        )
    assert str(raised.value) == (
        "Invalid context 'executor': executor=gateway cannot use each user's own microsoft365 account "
        "(the tool Lambdas receive no user token); use executor=return_control."
    )


def test_the_classic_agents_lambda_executor_refuses_each_users_own_calendar_too() -> None:
    with pytest.raises(ContextError, match="executor=lambda cannot use each user's own google account"):
        DeployContext.from_context(
            {
                "senderEmail": SENDER,
                "runtime": "agent",
                "calendar": "google",
                "identityClientId": "1234567890-abcdefg.apps.googleusercontent.com",
            }
        )


def test_the_gateway_executor_takes_jira_as_the_user_which_only_the_review_needs() -> None:
    settings = DeployContext.from_context(
        {
            "senderEmail": SENDER,
            "executor": "gateway",
            "jiraAuth": "user",
            "jiraClientId": ATLASSIAN_CLIENT,
            "jiraSiteUrl": SITE,
        }
    )
    assert settings.uses_gateway


def test_cdk_synth_exits_with_the_one_line_for_the_gateway_and_each_users_calendar(tmp_path: Path) -> None:
    context = {
        **cdk_json_context(),
        "senderEmail": SENDER,
        "executor": "gateway",
        "calendar": "google",
        "identityClientId": "1234567890-abcdefg.apps.googleusercontent.com",
    }
    env = {
        **os.environ,
        "CDK_CONTEXT_JSON": json.dumps(context),
        "CDK_OUTDIR": str(tmp_path / "gateway-consent.out"),
    }
    result = subprocess.run(
        [sys.executable, str(ROOT / "infra" / "app.py")], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "Invalid context 'executor': executor=gateway cannot use each user's own google account "
        "(the tool Lambdas receive no user token); use executor=return_control."
    )


@pytest.fixture(scope="module")
def both_stack(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    return synthesize(
        tmp_path_factory.mktemp("jira-user-m365"),
        calendar="microsoft365",
        identityClientId=ENTRA_CLIENT,
        jiraAuth="user",
        jiraClientId=ATLASSIAN_CLIENT,
        jiraSiteUrl=SITE,
    )


def test_with_each_users_calendar_too_the_orchestrator_reads_jira_as_the_user(
    both_stack: Synthesized,
) -> None:
    providers = both_stack.of_type("AWS::BedrockAgentCore::OAuth2CredentialProvider")
    by_vendor = {props["Properties"]["CredentialProviderVendor"]: pid for pid, props in providers.items()}
    assert set(by_vendor) == {"MicrosoftOauth2", "AtlassianOauth2"}
    assert len(both_stack.of_type("AWS::BedrockAgentCore::WorkloadIdentity")) == 1  # one workload for both
    atlassian_arn = {"Fn::GetAtt": [by_vendor["AtlassianOauth2"], "CredentialProviderArn"]}
    microsoft_arn = {"Fn::GetAtt": [by_vendor["MicrosoftOauth2"], "CredentialProviderArn"]}
    identity = both_stack.stack.identity
    assert identity is not None
    assert identity.jira_client_secret is not None
    jira_secret = {"Ref": both_stack.logical_id(identity.jira_client_secret)}

    def granted(construct_id: str) -> str:
        return json.dumps(_identity_statements(both_stack, construct_id))

    orchestrator, review = granted("Orchestrator"), granted("Review")
    assert json.dumps(microsoft_arn) in orchestrator
    # The tools run in the orchestrator: a card that names an existing issue reads it as the user.
    assert json.dumps(atlassian_arn) in orchestrator
    assert "bedrock-agentcore:CompleteResourceTokenAuth" not in orchestrator
    assert json.dumps(microsoft_arn) in review
    assert json.dumps(atlassian_arn) in review
    assert json.dumps(jira_secret) in review
    assert "IDENTITY_JIRA_CREDENTIAL_PROVIDER" in _env(both_stack, "Orchestrator")
    assert _env(both_stack, "Review")["IDENTITY_PROVIDER"] == "microsoft365"
    assert lint(json.dumps(both_stack.data), regions=["us-east-1"]) == []
