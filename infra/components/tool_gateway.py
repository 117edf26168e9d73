"""The AgentCore Gateway executor: the three action-group Lambdas as MCP tools, for the harness.

``-c executor=gateway`` (with ``runtime=agentcore``) puts an AgentCore Gateway in front of the
action-group Lambdas: one Lambda target per group, its tools read from the committed Gateway tool
schemas (``multitool/schemas/gateway/<group>.json``, generated from the same pydantic models as
the OpenAPI documents), so infra names no tool by hand. The harness gets the Gateway as its tool
source and calls one Lambda per tool call.

Least privilege both ways: the Gateway's role (trusted by AgentCore only for this account's
gateways) may invoke exactly these Lambdas; the Gateway authorizes callers with IAM, so only
principals granted ``bedrock-agentcore:InvokeGateway`` on it (the harness, and callers named with
:meth:`ToolGateway.grant_invoke`) reach the tools. Semantic tool search is off: the model sees
the three tools and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_bedrockagentcore as agentcore
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.nag import acknowledge

SERVICE_PRINCIPAL = "bedrock-agentcore.amazonaws.com"
INSTRUCTIONS = (
    "multitool drafts: an email, a meeting proposal or a Jira ticket, each for the user to review. "
    "Nothing is sent, booked or created until the user confirms the card."
)


def target_name(group: str) -> str:
    """A Gateway target's name (letters, digits and inner hyphens): the action group's, hyphenated."""
    return group.replace("_", "-")


def gateway_tool_definitions(group: str) -> list[dict[str, Any]]:
    """The group's committed Gateway tool definitions (``make schemas`` writes them)."""
    from multitool.schemas.tools import load_tools

    return load_tools(group)


def _schema(node: Mapping[str, Any]) -> agentcore.SchemaDefinition:
    """A committed JSON schema node as the L2's ``SchemaDefinition`` (the Gateway's subset)."""
    return agentcore.SchemaDefinition(
        type=getattr(agentcore.SchemaDefinitionType, str(node["type"]).upper()),
        description=node.get("description"),
        properties={name: _schema(prop) for name, prop in node["properties"].items()}
        if "properties" in node
        else None,
        items=_schema(node["items"]) if "items" in node else None,
        required=list(node["required"]) if "required" in node else None,
    )


def tool_schema(group: str) -> agentcore.ToolSchema:
    return agentcore.ToolSchema.from_inline(
        [
            agentcore.ToolDefinition(
                name=tool["name"],
                description=tool["description"],
                input_schema=_schema(tool["inputSchema"]),
                output_schema=_schema(tool["outputSchema"]) if "outputSchema" in tool else None,
            )
            for tool in gateway_tool_definitions(group)
        ]
    )


class ToolGateway(Construct):
    """An IAM-authorized MCP Gateway whose targets are the given action-group Lambdas."""

    def __init__(
        self, scope: Construct, construct_id: str, *, functions: Mapping[str, lambda_.IFunction]
    ) -> None:
        super().__init__(scope, construct_id)
        stack = cdk.Stack.of(self)
        name = cdk.Names.unique_resource_name(self, max_length=48, separator="-").lower()
        # Trusted by AgentCore for this account's gateways only (the L2's default role also trusts
        # the service without conditions).
        self.role = iam.Role(
            self,
            "Role",
            description="multitool AgentCore Gateway: invokes the action-group Lambdas only",
            assumed_by=iam.ServicePrincipal(
                SERVICE_PRINCIPAL,
                conditions={
                    "StringEquals": {"aws:SourceAccount": stack.account},
                    "ArnLike": {
                        "aws:SourceArn": stack.format_arn(service="bedrock-agentcore", resource="gateway/*")
                    },
                },
            ),
        )
        self.gateway = agentcore.Gateway(
            self,
            "Gateway",
            gateway_name=name,
            description="multitool tools as MCP: email, meeting and Jira drafts for review",
            authorizer_configuration=agentcore.GatewayAuthorizer.using_aws_iam(),
            protocol_configuration=agentcore.McpProtocolConfiguration(
                instructions=INSTRUCTIONS, supported_versions=[agentcore.MCPProtocolVersion.MCP_2025_03_26]
            ),
            role=self.role,
        )
        self.targets: dict[str, agentcore.GatewayTarget] = {}
        for group, function in functions.items():
            # Grants the Gateway's role lambda:InvokeFunction on this function (and its versions).
            self.targets[group] = self.gateway.add_lambda_target(
                f"{_pascal(group)}Target",
                gateway_target_name=target_name(group),
                description=f"multitool {group}",
                lambda_function=function,
                tool_schema=tool_schema(group),
            )
        policy = self.role.node.try_find_child("DefaultPolicy")
        if policy is not None:
            acknowledge(
                policy,
                "The Gateway invokes each target as its function ARN or a qualified version of that same "
                "function (ARN:*), as Lambda's own grantInvoke writes it; no other function is named.",
                *(
                    f"AwsSolutions-IAM5[Resource::<{stack.get_logical_id(_cfn(fn))}.Arn>:*]"
                    for fn in functions.values()
                ),
            )

    @property
    def gateway_arn(self) -> str:
        return self.gateway.gateway_arn

    def grant_invoke(self, grantee: iam.IGrantable) -> None:
        """``bedrock-agentcore:InvokeGateway`` on this Gateway and nothing else."""
        self.gateway.grant_invoke(grantee)


def _cfn(function: lambda_.IFunction) -> cdk.CfnElement:
    child = function.node.default_child
    assert isinstance(child, cdk.CfnElement)
    return child


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))
