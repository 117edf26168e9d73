"""`-c executor=gateway`: the action-group Lambdas behind an AgentCore Gateway the harness calls."""

from __future__ import annotations

from typing import Any

import pytest
from multitool.schemas.tools import load_tools
from multitool.tools import REGISTRY

from infra.components.tool_gateway import target_name
from tests.infra.iam_queries import (
    actions_for_role,
    dynamodb_actions_by_table,
    function_id,
    resources_for_action,
    role_of_function,
    statements_for_role,
)
from tests.infra.synth import Synthesized
from tests.infra.test_stack_agent import (
    ACTION_GROUP_CONSTRUCTS,
    CHAT_TABLE_ACTIONS,
    TOOL_TABLE_ACTIONS,
    expected_table_actions,
)

pytestmark = pytest.mark.infra


def _gateway(synth: Synthesized) -> tuple[str, dict[str, Any]]:
    """The harness's Gateway (IAM); test_stack_user_gateway.py has the user Gateway for MCP clients."""
    ((logical_id, resource),) = (
        (lid, r)
        for lid, r in synth.of_type("AWS::BedrockAgentCore::Gateway").items()
        if r["Properties"]["AuthorizerType"] == "AWS_IAM"
    )
    return logical_id, resource["Properties"]


def _function_ids(synth: Synthesized) -> dict[str, str]:
    return {group: function_id(synth, construct) for group, construct in ACTION_GROUP_CONSTRUCTS.items()}


def _harness(synth: Synthesized) -> dict[str, Any]:
    ((_, resource),) = synth.of_type("AWS::BedrockAgentCore::Harness").items()
    properties: dict[str, Any] = resource["Properties"]
    return properties


def _pascal_schema(node: dict[str, Any]) -> dict[str, Any]:
    """A committed Gateway schema node as CloudFormation spells it (PascalCase keys)."""
    out: dict[str, Any] = {"Type": node["type"]}
    if "description" in node:
        out["Description"] = node["description"]
    if "properties" in node:
        out["Properties"] = {name: _pascal_schema(prop) for name, prop in node["properties"].items()}
    if "items" in node:
        out["Items"] = _pascal_schema(node["items"])
    if "required" in node:
        out["Required"] = node["required"]
    return out


def test_one_iam_authorized_mcp_gateway_without_semantic_search(gateway_stack: Synthesized) -> None:
    _, props = _gateway(gateway_stack)
    assert props["AuthorizerType"] == "AWS_IAM"
    assert props["ProtocolType"] == "MCP"
    assert "SearchType" not in props["ProtocolConfiguration"]["Mcp"]
    assert not gateway_stack.of_type("AWS::BedrockAgent::Agent")


def test_each_action_group_lambda_is_a_target_with_its_committed_tool_schema(
    gateway_stack: Synthesized,
) -> None:
    gateway_id, _ = _gateway(gateway_stack)
    targets = {
        t["Properties"]["Name"]: t["Properties"]
        for t in gateway_stack.of_type("AWS::BedrockAgentCore::GatewayTarget").values()
        if t["Properties"]["GatewayIdentifier"] == {"Fn::GetAtt": [gateway_id, "GatewayIdentifier"]}
    }
    functions = _function_ids(gateway_stack)
    assert set(targets) == {target_name(group) for group in REGISTRY.groups}
    for group in REGISTRY.groups:
        target = targets[target_name(group)]
        assert target["GatewayIdentifier"] == {"Fn::GetAtt": [gateway_id, "GatewayIdentifier"]}
        assert target["CredentialProviderConfigurations"] == [{"CredentialProviderType": "GATEWAY_IAM_ROLE"}]
        lambda_config = target["TargetConfiguration"]["Mcp"]["Lambda"]
        assert lambda_config["LambdaArn"] == {"Fn::GetAtt": [functions[group], "Arn"]}
        expected = [
            {
                "Name": tool["name"],
                "Description": tool["description"],
                "InputSchema": _pascal_schema(tool["inputSchema"]),
            }
            for tool in load_tools(group)
        ]
        assert lambda_config["ToolSchema"]["InlinePayload"] == expected
        assert [tool["Name"] for tool in expected] == [
            spec.name for spec in REGISTRY.values() if spec.action_group == group
        ]


def test_the_gateway_role_trusts_agentcore_for_this_accounts_gateways_and_invokes_only_the_tools(
    gateway_stack: Synthesized,
) -> None:
    synth = gateway_stack
    _, props = _gateway(synth)
    role = props["RoleArn"]["Fn::GetAtt"][0]
    (trust,) = synth.props(role)["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "bedrock-agentcore.amazonaws.com"}
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": "123456789012"}
    assert trust["Condition"]["ArnLike"]["aws:SourceArn"]["Fn::Join"][1][-1].endswith(":gateway/*")
    assert actions_for_role(synth, role) == {"lambda:InvokeFunction"}
    invoked = resources_for_action(synth, role, "lambda:InvokeFunction")
    functions = set(_function_ids(synth).values())
    named = {
        r["Fn::GetAtt"][0] if "Fn::GetAtt" in r else r["Fn::Join"][1][0]["Fn::GetAtt"][0] for r in invoked
    }
    assert named == functions
    assert len(invoked) == 2 * len(functions)  # each function, and its versions (ARN:*)


def test_only_the_harness_may_invoke_the_gateway(gateway_stack: Synthesized) -> None:
    synth = gateway_stack
    gateway_id, _ = _gateway(synth)
    harness_role = _harness(synth)["ExecutionRoleArn"]["Fn::GetAtt"][0]
    callers = {
        role
        for role in synth.of_type("AWS::IAM::Role")
        if "bedrock-agentcore:InvokeGateway" in actions_for_role(synth, role)
    }
    assert callers == {harness_role}
    assert resources_for_action(synth, harness_role, "bedrock-agentcore:InvokeGateway") == [
        {"Fn::GetAtt": [gateway_id, "GatewayArn"]}
    ]


def test_the_harness_has_only_the_gateway_as_its_tools(gateway_stack: Synthesized) -> None:
    gateway_id, _ = _gateway(gateway_stack)
    harness = _harness(gateway_stack)
    assert harness["Tools"] == [
        {
            "Type": "agentcore_gateway",
            "Name": "multitool",
            "Config": {
                "AgentCoreGateway": {
                    "GatewayArn": {"Fn::GetAtt": [gateway_id, "GatewayArn"]},
                    "OutboundAuth": {"AwsIam": {}},
                }
            },
        }
    ]
    assert harness["AllowedTools"] == ["@multitool"]


def test_the_orchestrator_gets_the_gateway_and_may_only_claim_drafts(gateway_stack: Synthesized) -> None:
    synth = gateway_stack
    gateway_id, _ = _gateway(synth)
    orchestrator = function_id(synth, "Orchestrator")
    env = synth.props(orchestrator)["Environment"]["Variables"]
    assert env["RUNTIME"] == "agentcore"
    assert env["GATEWAY_ARN"] == {"Fn::GetAtt": [gateway_id, "GatewayArn"]}
    role = role_of_function(synth, orchestrator)
    claim = {"DRAFTS": {"dynamodb:GetItem", "dynamodb:PutItem"}}
    assert dynamodb_actions_by_table(synth, role) == expected_table_actions(
        synth, {**CHAT_TABLE_ACTIONS, **claim}
    )
    assert "bedrock-agentcore:InvokeGateway" not in actions_for_role(synth, role)
    # Its only Lambda call is the invocation of itself that runs a turn past the request.
    assert {a for a in actions_for_role(synth, role) if a.startswith("lambda:")} == {"lambda:InvokeFunction"}
    assert resources_for_action(synth, role, "lambda:InvokeFunction") == [
        {"Fn::GetAtt": [orchestrator, "Arn"]}
    ]


def test_the_action_group_lambdas_get_exactly_the_tool_grants(gateway_stack: Synthesized) -> None:
    for group, construct in ACTION_GROUP_CONSTRUCTS.items():
        role = role_of_function(gateway_stack, function_id(gateway_stack, construct))
        assert dynamodb_actions_by_table(gateway_stack, role) == expected_table_actions(
            gateway_stack, TOOL_TABLE_ACTIONS
        ), group
        statements = statements_for_role(gateway_stack, role)
        assert not any("ses:" in str(s["Action"]) or "bedrock" in str(s["Action"]) for s in statements)
    outputs = gateway_stack.data["Outputs"]
    assert {"GatewayArn", "GatewayUrl", "HarnessArn"} <= set(outputs)
