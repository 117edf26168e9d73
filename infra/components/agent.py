"""The Bedrock agent: model, instructions, three action groups, an alias that follows every change.

Built on the L1 resources (``CfnAgent``/``CfnAgentAlias``) so that each action
group's OpenAPI schema is the committed document verbatim (an inline payload),
one Lambda serves exactly one action group, and the executor can switch to
RETURN_CONTROL with one context key.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import aws_cdk as cdk
from aws_cdk import aws_bedrock as bedrock
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.components.model import ModelAccess
from infra.paths import SCHEMAS

ALIAS_NAME = "live"


def agent_instructions() -> str:
    """The prompt contract, owned by the layer: the agent's instructions come from here only."""
    from multitool.prompts import AGENT_INSTRUCTION

    return AGENT_INSTRUCTION


@dataclass(frozen=True)
class ActionGroupSpec:
    name: str
    description: str

    @property
    def schema_path(self) -> Path:
        return SCHEMAS / f"{self.name}.json"

    def schema_text(self) -> str:
        """The committed OpenAPI document, exactly as committed (checked to be JSON)."""
        path = self.schema_path
        if not path.is_file():
            raise FileNotFoundError(
                f"{path.relative_to(SCHEMAS.parents[3])} is missing: run `make schemas` and commit it"
            )
        text = path.read_text(encoding="utf-8")
        json.loads(text)
        return text


ACTION_GROUPS: tuple[ActionGroupSpec, ...] = (
    ActionGroupSpec("email_draft", "Drafts an email for the user to review; never sends."),
    ActionGroupSpec("meeting_scheduler", "Proposes meeting slots for the user to review; never books."),
    ActionGroupSpec("jira_draft", "Drafts a Jira ticket for the user to review; never creates it."),
)


class ChatAgent(Construct):
    """The agent and its ``live`` alias.

    ``executors`` maps an action-group name to the Lambda Bedrock invokes for it;
    ``None`` (RETURN_CONTROL) hands each call back to the orchestrator instead.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        model: ModelAccess,
        executors: dict[str, lambda_.IFunction] | None,
        idle_session_ttl_seconds: int,
        guardrail_id: str | None,
        guardrail_version: str,
    ) -> None:
        super().__init__(scope, construct_id)
        stack = cdk.Stack.of(self)
        self.role = iam.Role(
            self,
            "ServiceRole",
            description="multitool Bedrock agent: invokes its model only",
            assumed_by=iam.ServicePrincipal(
                "bedrock.amazonaws.com",
                conditions={
                    "StringEquals": {"aws:SourceAccount": stack.account},
                    "ArnLike": {"aws:SourceArn": stack.format_arn(service="bedrock", resource="agent/*")},
                },
            ),
        )
        model.grant_invoke(self.role)
        guardrail = None
        if guardrail_id:
            guardrail_arn = (
                guardrail_id
                if guardrail_id.startswith("arn:")
                else stack.format_arn(service="bedrock", resource="guardrail", resource_name=guardrail_id)
            )
            self.role.add_to_policy(
                iam.PolicyStatement(actions=["bedrock:ApplyGuardrail"], resources=[guardrail_arn])
            )
            guardrail = bedrock.CfnAgent.GuardrailConfigurationProperty(
                guardrail_identifier=guardrail_id, guardrail_version=guardrail_version
            )

        instruction = agent_instructions()
        groups = [self._action_group(spec, executors) for spec in ACTION_GROUPS]
        self.agent = bedrock.CfnAgent(
            self,
            "Agent",
            agent_name=cdk.Names.unique_resource_name(self, max_length=100, separator="-"),
            description="multitool: every applicable tool in one turn, each result a card the user confirms",
            agent_resource_role_arn=self.role.role_arn,
            foundation_model=model.model_id,
            instruction=instruction,
            idle_session_ttl_in_seconds=idle_session_ttl_seconds,
            action_groups=groups,
            guardrail_configuration=guardrail,
            auto_prepare=True,
            skip_resource_in_use_check_on_delete=True,
        )
        # The service role's policy must exist before Bedrock prepares the agent with it.
        policy = self.role.node.try_find_child("DefaultPolicy")
        if policy is not None:
            self.agent.node.add_dependency(policy)

        # Any change to what the agent is (model, instructions, schemas, executors, TTL, guardrail)
        # changes the alias description; CloudFormation then updates the alias without a routing
        # configuration, and Bedrock points it at a new version made from the prepared draft.
        fingerprint = agent_fingerprint(
            model.model_id,
            instruction,
            [(spec.name, spec.schema_text(), executors is None) for spec in ACTION_GROUPS],
            idle_session_ttl_seconds,
            guardrail_id,
            guardrail_version,
        )
        self.alias = bedrock.CfnAgentAlias(
            self,
            "Alias",
            agent_id=self.agent.attr_agent_id,
            agent_alias_name=ALIAS_NAME,
            description=f"multitool agent config {fingerprint}",
        )

        for spec in ACTION_GROUPS:
            if executors is not None:
                executors[spec.name].add_permission(
                    "InvokedByAgent",
                    principal=iam.ServicePrincipal("bedrock.amazonaws.com"),
                    action="lambda:InvokeFunction",
                    source_arn=self.agent.attr_agent_arn,
                    source_account=stack.account,
                )

    @property
    def agent_id(self) -> str:
        return self.agent.attr_agent_id

    @property
    def alias_id(self) -> str:
        return self.alias.attr_agent_alias_id

    @property
    def alias_arn(self) -> str:
        return self.alias.attr_agent_alias_arn

    @staticmethod
    def _action_group(
        spec: ActionGroupSpec, executors: dict[str, lambda_.IFunction] | None
    ) -> bedrock.CfnAgent.AgentActionGroupProperty:
        executor = (
            bedrock.CfnAgent.ActionGroupExecutorProperty(custom_control="RETURN_CONTROL")
            if executors is None
            else bedrock.CfnAgent.ActionGroupExecutorProperty(lambda_=executors[spec.name].function_arn)
        )
        return bedrock.CfnAgent.AgentActionGroupProperty(
            action_group_name=spec.name,
            description=spec.description,
            action_group_executor=executor,
            action_group_state="ENABLED",
            api_schema=bedrock.CfnAgent.APISchemaProperty(payload=spec.schema_text()),
        )


def agent_fingerprint(
    model_id: str,
    instruction: str,
    groups: list[tuple[str, str, bool]],
    idle_session_ttl_seconds: int,
    guardrail_id: str | None,
    guardrail_version: str,
) -> str:
    """A short digest of the agent's configuration: it changes exactly when a new version is needed."""
    material = json.dumps(
        [model_id, instruction, groups, idle_session_ttl_seconds, guardrail_id, guardrail_version],
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()[:12]
