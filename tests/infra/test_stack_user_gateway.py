"""`-c executor=gateway`: the user Gateway outside MCP clients sign in to (Cognito JWT, interceptor)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cfnlint.api import lint
from cfnlint.schema import PROVIDER_SCHEMA_MANAGER

from infra.components.tool_gateway import target_name
from infra.context import DEFAULT_MCP_CALLBACK_URLS
from tests.infra.iam_queries import actions_for_role, function_id, resources_for_action, role_of_function
from tests.infra.synth import Synthesized
from tests.infra.test_stack_agent import ACTION_GROUP_CONSTRUCTS
from tests.support.synths import StackSynths

pytestmark = pytest.mark.infra

GATEWAY = "AWS::BedrockAgentCore::Gateway"


def _user_gateway(synth: Synthesized) -> tuple[str, dict[str, Any]]:
    ((logical_id, resource),) = (
        (lid, r)
        for lid, r in synth.of_type(GATEWAY).items()
        if r["Properties"]["AuthorizerType"] == "CUSTOM_JWT"
    )
    return logical_id, resource["Properties"]


def _one(synth: Synthesized, resource_type: str, construct_part: str) -> tuple[str, dict[str, Any]]:
    ((logical_id, resource),) = (
        (lid, r) for lid, r in synth.of_type(resource_type).items() if construct_part in lid
    )
    return logical_id, resource["Properties"]


def _pool(synth: Synthesized) -> str:
    ((pool, _),) = synth.of_type("AWS::Cognito::UserPool").items()
    return pool


def test_the_user_gateway_takes_the_pools_access_tokens_for_the_mcp_client_and_scope(
    gateway_stack: Synthesized,
) -> None:
    _, props = _user_gateway(gateway_stack)
    client, _ = _one(gateway_stack, "AWS::Cognito::UserPoolClient", "McpClient")
    jwt = props["AuthorizerConfiguration"]["CustomJWTAuthorizer"]
    assert jwt["DiscoveryUrl"] == {
        "Fn::Join": [
            "",
            [
                "https://cognito-idp.us-east-1.amazonaws.com/",
                {"Ref": _pool(gateway_stack)},
                "/.well-known/openid-configuration",
            ],
        ]
    }
    # Only the MCP client's tokens (not the page's, not the command line's), with the tools scope.
    assert jwt["AllowedClients"] == [{"Ref": client}]
    assert jwt["AllowedScopes"] == ["multitool/tools"]
    assert "AllowedAudience" not in jwt  # a Cognito access token has no aud: client_id and scope bind it
    assert props["ProtocolType"] == "MCP"


def test_the_mcp_client_is_public_code_only_with_the_tools_scope_and_loopback_callbacks(
    gateway_stack: Synthesized,
) -> None:
    _, client = _one(gateway_stack, "AWS::Cognito::UserPoolClient", "McpClient")
    server, resource_server = _one(gateway_stack, "AWS::Cognito::UserPoolResourceServer", "McpResourceServer")
    assert resource_server["Identifier"] == "multitool"
    assert [s["ScopeName"] for s in resource_server["Scopes"]] == ["tools"]
    assert client["GenerateSecret"] is False
    assert client["AllowedOAuthFlows"] == ["code"]
    assert client["AllowedOAuthScopes"] == ["openid", {"Fn::Join": ["", [{"Ref": server}, "/tools"]]}]
    assert client["CallbackURLs"] == list(DEFAULT_MCP_CALLBACK_URLS)
    assert client["ExplicitAuthFlows"] == ["ALLOW_REFRESH_TOKEN_AUTH"]  # no password or SRP from a client
    assert client["EnableTokenRevocation"] is True


def test_the_interceptor_runs_on_every_request_with_the_headers(gateway_stack: Synthesized) -> None:
    _, props = _user_gateway(gateway_stack)
    interceptor = function_id(gateway_stack, "McpCaller")
    assert props["InterceptorConfigurations"] == [
        {
            "InputConfiguration": {"PassRequestHeaders": True},
            "InterceptionPoints": ["REQUEST"],
            "Interceptor": {"Lambda": {"Arn": {"Fn::GetAtt": [interceptor, "Arn"]}}},
        }
    ]
    env = gateway_stack.props(interceptor)["Environment"]["Variables"]
    assert env["USER_POOL_ID"] == {"Ref": _pool(gateway_stack)}
    assert gateway_stack.props(interceptor)["Handler"] == "handler.handler"


def test_the_interceptor_may_read_the_key_and_look_users_up_in_this_pool_only(
    gateway_stack: Synthesized,
) -> None:
    synth = gateway_stack
    interceptor = function_id(synth, "McpCaller")
    role = role_of_function(synth, interceptor)
    secret, _ = _one(synth, "AWS::SecretsManager::Secret", "CallerKey")
    assert actions_for_role(synth, role) - {"logs:CreateLogStream", "logs:PutLogEvents"} - {
        "xray:PutTraceSegments",
        "xray:PutTelemetryRecords",
    } == {"cognito-idp:AdminGetUser", "secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"}
    assert resources_for_action(synth, role, "cognito-idp:AdminGetUser") == [
        {"Fn::GetAtt": [_pool(synth), "Arn"]}
    ]
    assert resources_for_action(synth, role, "secretsmanager:GetSecretValue") == [{"Ref": secret}]


def test_only_the_interceptor_and_the_three_targets_read_the_caller_key(gateway_stack: Synthesized) -> None:
    synth = gateway_stack
    secret, _ = _one(synth, "AWS::SecretsManager::Secret", "CallerKey")
    readers = {
        role
        for role in synth.of_type("AWS::IAM::Role")
        if {"Ref": secret} in resources_for_action(synth, role, "secretsmanager:GetSecretValue")
    }
    targets = {function_id(synth, construct) for construct in ACTION_GROUP_CONSTRUCTS.values()}
    assert readers == {role_of_function(synth, fn) for fn in {*targets, function_id(synth, "McpCaller")}}
    for fn in targets:
        assert synth.props(fn)["Environment"]["Variables"]["CALLER_KEY_SECRET_ARN"] == {"Ref": secret}
        assert "CALLER_CONTEXT_KEY" not in synth.props(fn)["Environment"]["Variables"]


def test_the_user_gateway_role_invokes_the_three_targets_and_the_interceptor_only(
    gateway_stack: Synthesized,
) -> None:
    synth = gateway_stack
    gateway_id, props = _user_gateway(synth)
    role = props["RoleArn"]["Fn::GetAtt"][0]
    (trust,) = synth.props(role)["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "bedrock-agentcore.amazonaws.com"}
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": "123456789012"}
    assert actions_for_role(synth, role) == {"lambda:InvokeFunction"}
    invoked = resources_for_action(synth, role, "lambda:InvokeFunction")
    named = {
        r["Fn::GetAtt"][0] if "Fn::GetAtt" in r else r["Fn::Join"][1][0]["Fn::GetAtt"][0] for r in invoked
    }
    targets = {function_id(synth, construct) for construct in ACTION_GROUP_CONSTRUCTS.values()}
    assert named == {*targets, function_id(synth, "McpCaller")}
    # Nobody is granted InvokeGateway on it: its callers are people with tokens, not IAM principals.
    assert not any(
        {"Fn::GetAtt": [gateway_id, "GatewayArn"]}
        in resources_for_action(synth, r, "bedrock-agentcore:InvokeGateway")
        for r in synth.of_type("AWS::IAM::Role")
    )
    targets_of_gateway = {
        t["Properties"]["Name"]: t["Properties"]["TargetConfiguration"]["Mcp"]["Lambda"]["LambdaArn"]
        for t in synth.of_type("AWS::BedrockAgentCore::GatewayTarget").values()
        if t["Properties"]["GatewayIdentifier"] == {"Fn::GetAtt": [gateway_id, "GatewayIdentifier"]}
    }
    assert targets_of_gateway == {
        target_name(group): {"Fn::GetAtt": [function_id(synth, construct), "Arn"]}
        for group, construct in ACTION_GROUP_CONSTRUCTS.items()
    }


def test_the_outputs_tell_a_client_what_to_configure(gateway_stack: Synthesized) -> None:
    gateway_id, _ = _user_gateway(gateway_stack)
    outputs = gateway_stack.data["Outputs"]
    client, _ = _one(gateway_stack, "AWS::Cognito::UserPoolClient", "McpClient")
    assert outputs["McpUrl"]["Value"] == {"Fn::GetAtt": [gateway_id, "GatewayUrl"]}
    assert outputs["McpClientId"]["Value"] == {"Ref": client}
    assert outputs["McpScope"]["Value"] == "multitool/tools"


def test_the_user_gateways_properties_are_in_cfn_lints_schema_and_lint_clean(
    gateway_stack: Synthesized,
) -> None:
    schema = PROVIDER_SCHEMA_MANAGER.get_resource_schema("us-east-1", GATEWAY).schema
    gateway_id, props = _user_gateway(gateway_stack)
    assert set(props) <= set(schema["properties"])
    assert set(props["AuthorizerConfiguration"]["CustomJWTAuthorizer"]) <= set(
        schema["definitions"]["CustomJWTAuthorizerConfiguration"]["properties"]
    )
    only = {"Resources": {gateway_id: gateway_stack.resources[gateway_id]}}
    template = {**gateway_stack.data, **only, "Outputs": {}}
    matches = [m for m in lint(json.dumps(template), regions=["us-east-1"]) if m.rule.id.startswith("E3")]
    assert [f"{m.rule.id} {m.message}" for m in matches] == []


def test_a_stack_on_an_existing_pool_has_no_user_gateway(synths: StackSynths) -> None:
    synth = synths.get(executor="gateway", userPoolId="us-east-1_Abc123", userPoolClientId="client1")
    assert [r["Properties"]["AuthorizerType"] for r in synth.of_type(GATEWAY).values()] == ["AWS_IAM"]
    assert "McpUrl" not in synth.data["Outputs"]


def test_mcp_callback_urls_are_https_or_localhost_as_cognito_takes_them() -> None:
    from pydantic import ValidationError

    from infra.context import DeployContext

    base = {"senderEmail": "assistant@example.com"}
    given = DeployContext.model_validate(
        {**base, "mcpCallbackUrls": "http://localhost:3334/cb, https://x.example/cb"}
    )
    assert given.mcp_callback_urls == ("http://localhost:3334/cb", "https://x.example/cb")
    for bad in ("http://127.0.0.1:3334/cb", "http://example.com/cb", " , "):
        with pytest.raises(ValidationError, match="mcpCallbackUrls"):
            DeployContext.model_validate({**base, "mcpCallbackUrls": bad})
