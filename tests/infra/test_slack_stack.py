"""``-c slack=true``: the Slack function, its route without the JWT authorizer, its two secrets, and IAM
scoped to what it calls; the request URL as an output. On the synthesized template."""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.context import DeployContext
from tests.infra.iam_queries import (
    actions_for_role,
    as_list,
    dynamodb_actions_by_table,
    function_id,
    project_functions,
    resources_for_action,
    role_of_function,
    statements_for_role,
)
from tests.infra.synth import Synthesized
from tests.support.synths import StackSynths

pytestmark = pytest.mark.infra


def _routes(synth: Synthesized) -> dict[str, dict[str, Any]]:
    return {
        r["Properties"]["RouteKey"]: r["Properties"]
        for r in synth.of_type("AWS::ApiGatewayV2::Route").values()
    }


def _ref_of(value: Any) -> str:
    return value["Ref"] if isinstance(value, dict) and "Ref" in value else str(value)


def test_slack_events_is_a_route_without_an_authorizer_and_every_other_route_keeps_the_jwt(
    slack_stack: Synthesized,
) -> None:
    routes = _routes(slack_stack)
    slack = routes.pop("POST /slack/events")
    assert slack.get("AuthorizationType", "NONE") == "NONE"
    assert "AuthorizerId" not in slack
    assert routes
    assert {r["AuthorizationType"] for r in routes.values()} == {"JWT"}
    # It reaches the Slack function, and nothing else does.
    integration = slack_stack.props(slack["Target"]["Fn::Join"][1][1]["Ref"])
    slack_fn = function_id(slack_stack, "Slack")
    assert slack_fn in str(integration["IntegrationUri"])


def test_without_slack_there_is_no_route_function_or_secret(harness_stack: Synthesized) -> None:
    assert "POST /slack/events" not in _routes(harness_stack)
    assert "SlackRequestUrl" not in harness_stack.data["Outputs"]
    assert not any("Slack" in key for key in harness_stack.of_type("AWS::SecretsManager::Secret"))


def test_the_two_secrets_are_read_by_the_slack_function_only(slack_stack: Synthesized) -> None:
    secrets = {
        key for key in slack_stack.of_type("AWS::SecretsManager::Secret") if key.startswith("SlackSecrets")
    }
    assert len(secrets) == 2
    env = slack_stack.props(function_id(slack_stack, "Slack"))["Environment"]["Variables"]
    assert {_ref_of(env["SLACK_BOT_TOKEN_ARN"]), _ref_of(env["SLACK_SIGNING_SECRET_ARN"])} == secrets
    assert not any(key in env for key in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"))  # never a value
    role = role_of_function(slack_stack, function_id(slack_stack, "Slack"))
    assert {
        _ref_of(r) for r in resources_for_action(slack_stack, role, "secretsmanager:GetSecretValue")
    } >= secrets
    for other in ("Orchestrator", "Review"):
        other_role = role_of_function(slack_stack, function_id(slack_stack, other))
        read = {
            _ref_of(r) for r in resources_for_action(slack_stack, other_role, "secretsmanager:GetSecretValue")
        }
        assert not read & secrets, other


def test_the_slack_function_may_invoke_itself_only_and_sends_failed_turns_to_the_queue(
    slack_stack: Synthesized,
) -> None:
    fn = function_id(slack_stack, "Slack")
    role = role_of_function(slack_stack, fn)
    invoke = resources_for_action(slack_stack, role, "lambda:InvokeFunction")
    assert invoke == [{"Fn::GetAtt": [fn, "Arn"]}]
    [config] = [
        c["Properties"]
        for c in slack_stack.of_type("AWS::Lambda::EventInvokeConfig").values()
        if c["Properties"]["FunctionName"] == {"Ref": fn}
    ]
    assert config["MaximumRetryAttempts"] == 0
    assert "OnFailure" in config["DestinationConfig"]


def test_the_slack_functions_table_actions_are_the_turns_and_the_confirms_and_its_event_ledger(
    slack_stack: Synthesized,
) -> None:
    role = role_of_function(slack_stack, function_id(slack_stack, "Slack"))
    by_table = dynamodb_actions_by_table(slack_stack, role)
    limits = next(t for t in by_table if t.startswith("TablesLimits"))
    assert "dynamodb:DeleteItem" in by_table[limits]  # an event's record taken back
    assert "dynamodb:Scan" not in set().union(*by_table.values())
    for statement in statements_for_role(slack_stack, role):
        assert "*" not in as_list(statement["Action"])
        if any(a.startswith("dynamodb:") for a in as_list(statement["Action"])):
            assert "*" not in as_list(statement["Resource"])
    actions = actions_for_role(slack_stack, role)
    assert "bedrock-agentcore:InvokeHarness" in actions  # the turn
    assert "ses:SendEmail" in actions  # the confirm


def test_the_request_url_is_an_output(slack_stack: Synthesized) -> None:
    output = slack_stack.data["Outputs"]["SlackRequestUrl"]
    assert "/slack/events" in str(output["Value"])
    assert {"SlackBotTokenSecretArn", "SlackSigningSecretArn"} <= set(slack_stack.data["Outputs"])


ENTRA_CLIENT = "00001111-aaaa-2222-bbbb-3333cccc4444"
USER_ID_ACTION = "bedrock-agentcore:GetWorkloadAccessTokenForUserId"


@pytest.fixture
def consent_stack(synths: StackSynths) -> Synthesized:
    """Slack with each user's own Microsoft 365 calendar and Jira as the user (cdk-nag runs in the synth)."""
    return synths.get(
        slack="true",
        calendar="microsoft365",
        identityClientId=ENTRA_CLIENT,
        identityTenantId="contoso.onmicrosoft.com",
        jiraAuth="user",
        jiraClientId="atlassian-client",
        jiraSiteUrl="https://team.atlassian.net",
    )


def test_slack_with_each_users_own_accounts_is_a_valid_context() -> None:
    context = DeployContext.from_context(
        {
            "senderEmail": "a@example.org",
            "slack": "true",
            "jiraAuth": "user",
            "jiraClientId": "x",
            "jiraSiteUrl": "https://team.atlassian.net",
        }
    )
    assert context.slack


def test_the_slack_function_gets_user_id_tokens_on_this_workload_and_its_providers_only(
    consent_stack: Synthesized,
) -> None:
    synth = consent_stack
    workload_id = next(iter(synth.of_type("AWS::BedrockAgentCore::WorkloadIdentity")))
    providers = set(synth.of_type("AWS::BedrockAgentCore::OAuth2CredentialProvider"))
    assert len(providers) == 2  # the calendar's and Atlassian's
    fn = function_id(synth, "Slack")
    env = synth.props(fn)["Environment"]["Variables"]
    assert env["IDENTITY_SLACK_USERS"] == "true"
    for key in (
        "IDENTITY_WORKLOAD_NAME",
        "IDENTITY_CREDENTIAL_PROVIDER",
        "IDENTITY_JIRA_CREDENTIAL_PROVIDER",
    ):
        assert env[key], key
    assert env["IDENTITY_PROVIDER"] == "microsoft365"
    assert _ref_of(env["CONNECTIONS_TABLE_NAME"]).startswith("TablesLimits")
    role = role_of_function(synth, fn)
    identity = {
        a for a in actions_for_role(synth, role) if a.startswith("bedrock-agentcore:") and "Token" in a
    }
    # By user id, never by JWT (none reaches it), and it never completes a consent (the page does).
    assert identity == {USER_ID_ACTION, "bedrock-agentcore:GetResourceOauth2Token"}
    workload_arn = {"Fn::GetAtt": [workload_id, "WorkloadIdentityArn"]}
    user_id = resources_for_action(synth, role, USER_ID_ACTION)
    assert workload_arn in user_id
    assert "*" not in json.dumps(user_id)
    tokens = resources_for_action(synth, role, "bedrock-agentcore:GetResourceOauth2Token")
    for provider in providers:
        assert {"Fn::GetAtt": [provider, "CredentialProviderArn"]} in tokens
    assert "*" not in json.dumps(tokens)
    # The two client secrets the token vault's exchange reads (identity.py), besides the Slack secrets.
    client_secrets = {
        key for key in synth.of_type("AWS::SecretsManager::Secret") if key.startswith("Identity")
    }
    assert len(client_secrets) == 2
    read = {_ref_of(r) for r in resources_for_action(synth, role, "secretsmanager:GetSecretValue")}
    assert client_secrets <= read
    limits = next(t for t in dynamodb_actions_by_table(synth, role) if t.startswith("TablesLimits"))
    assert {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"} <= set(
        dynamodb_actions_by_table(synth, role)[limits]
    )


def test_only_the_slack_function_may_get_a_token_by_user_id(consent_stack: Synthesized) -> None:
    slack = function_id(consent_stack, "Slack")
    for other in set(project_functions(consent_stack)) - {slack}:
        role = role_of_function(consent_stack, other)
        assert USER_ID_ACTION not in actions_for_role(consent_stack, role), other
        env = consent_stack.props(other).get("Environment", {}).get("Variables", {})
        assert "IDENTITY_SLACK_USERS" not in env, other


def test_cfn_lint_is_clean_with_each_users_own_accounts(consent_stack: Synthesized) -> None:
    from cfnlint.api import lint

    matches = lint(json.dumps(consent_stack.data), regions=["us-east-1"])
    assert [f"{m.rule.id} {m.message}" for m in matches] == []
