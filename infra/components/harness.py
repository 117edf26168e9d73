"""The Bedrock agent for every account: an AgentCore managed harness whose tools are inline functions.

Agents Classic stopped accepting new customers on 2026-07-30; the AgentCore harness is its successor.
The harness runs the model loop; each tool is an ``inline_function`` (return of control), so every
call of one model response comes back to the orchestrator, which runs them as one batch and answers
with ``toolResult`` blocks in the next ``InvokeHarness``. The tools, their input schemas and the
system prompt come from the layer (``multitool``): infra names no tool by hand.

With ``executor=gateway`` the harness's one tool is the AgentCore Gateway
(:mod:`infra.components.tool_gateway`): the harness runs every call itself, one Lambda per call, reaching
the Gateway with its execution role (``InvokeGateway`` on that Gateway only).

There is no L2 construct for the harness; this builds ``CfnHarness`` (AWS::BedrockAgentCore::Harness).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_bedrockagentcore as agentcore
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from aws_cdk import custom_resources as cr
from constructs import Construct

from infra.components.model import ModelAccess
from infra.components.roles import NarrowedRole
from infra.components.tool_gateway import ToolGateway
from infra.nag import acknowledge

SERVICE_PRINCIPAL = "bedrock-agentcore.amazonaws.com"
# Calling InvokeHarness is authorized as both actions, on the harness ARN ("IAM permissions model",
# https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/harness-security.html). The
# orchestrator names the user (runtimeUserId, sent as X-Amzn-Bedrock-AgentCore-Runtime-User-Id),
# which AgentCore Runtime authorizes as InvokeAgentRuntimeForUser on the same resource.
INVOKE_ACTIONS = (
    "bedrock-agentcore:InvokeHarness",
    "bedrock-agentcore:InvokeAgentRuntime",
    "bedrock-agentcore:InvokeAgentRuntimeForUser",
)
LOG_GROUP_PREFIX = "/aws/bedrock-agentcore/runtimes/"
# The construct id of aws-cdk-lib's AwsCustomResource provider (custom-resources, aws-custom-resource.ts).
AWS_CUSTOM_RESOURCE_PROVIDER = "AWS679f53fac002430cb0da5b7982bd2287"
# What aws-cdk-lib's LogRetention grants its provider on '*' (aws-logs, log-retention.ts).
RETENTION_ACTIONS = frozenset({"logs:PutRetentionPolicy", "logs:DeleteRetentionPolicy"})
# An AgentCore Runtime writes its standard (stdout/stderr, `[runtime-logs] <UUID>` streams) and OTEL
# structured logs to `/aws/bedrock-agentcore/runtimes/<agent_id>-<endpoint_name>` ("View observability
# data", https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/observability-view.html); a
# harness is invoked on its runtime's default endpoint, DEFAULT.
RUNTIME_ENDPOINT = "DEFAULT"
LOG_ACTIONS = ("logs:CreateLogGroup", "logs:DescribeLogStreams", "logs:CreateLogStream", "logs:PutLogEvents")
# What the harness's runtime itself needs besides its model and log groups, as AWS's harness execution
# role policy lists it ("Security and access controls", execution role policy,
# https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/harness-security.html; the same
# statements as the AgentCore Runtime execution role,
# https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-permissions.html). Left out:
# the built-in browser and code interpreter sessions, which allowedTools keeps off.
ECR_PUBLIC_TOKEN = "ecr-public:GetAuthorizationToken"  # noqa: S105 (an IAM action): image on ECR Public
BEARER_TOKEN = "sts:GetServiceBearerToken"  # noqa: S105 (an IAM action): ECR Public's pull token
XRAY_ACTIONS = (
    "xray:PutTraceSegments",
    "xray:PutTelemetryRecords",
    "xray:GetSamplingRules",
    "xray:GetSamplingTargets",
)
METRICS_ACTION = "cloudwatch:PutMetricData"
METRICS_NAMESPACE = "bedrock-agentcore"
DESCRIBE_LOG_GROUPS = "logs:DescribeLogGroups"
WORKLOAD_TOKEN_ACTIONS = (
    "bedrock-agentcore:GetWorkloadAccessToken",
    "bedrock-agentcore:GetWorkloadAccessTokenForJWT",
)

# Limits per InvokeHarness call. With inline functions the harness pauses at the first response that
# calls a tool, so one call is one or two model iterations; 5 matches the Converse loop's round limit
# and stops a runaway loop long before the service default (75). API Gateway cuts the request at 30 s
# and the orchestrator runs 30 s, so one invocation may not outlive 25 s (service default: 3600 s).
MAX_ITERATIONS = 5
TIMEOUT_SECONDS = 25


def harness_system_prompt() -> str:
    """The prompt contract, owned by the layer: the same instruction the Classic agent gets."""
    from multitool.runtimes.prompts import AGENT_INSTRUCTION

    return AGENT_INSTRUCTION


def registry_tool_specs() -> tuple[dict[str, Any], ...]:
    """The registry's tools as Converse tool specs (name, description, inputSchema.json)."""
    from multitool.runtimes.converse import default_tool_specs

    return default_tool_specs()


def model_max_tokens(model_id: str) -> int:
    """The answer budget the Converse loop gives the same model (more for one that thinks by default)."""
    from multitool.models import default_max_tokens

    return default_max_tokens(model_id)


def harness_model(model_id: str) -> agentcore.CfnHarness.HarnessBedrockModelConfigProperty:
    """The harness's Bedrock model: ConverseStream, and a fixed temperature only where the model
    accepts one (a model that thinks by default refuses it; :mod:`multitool.models`)."""
    from multitool.models import harness_temperature

    return agentcore.CfnHarness.HarnessBedrockModelConfigProperty(
        model_id=model_id, api_format="converse_stream", temperature=harness_temperature(model_id)
    )


def inline_tools(specs: Sequence[dict[str, Any]]) -> list[agentcore.CfnHarness.HarnessToolProperty]:
    """Each Converse tool spec as a harness ``inline_function`` tool with the same name, description
    and JSON schema (a plain object: CloudFormation takes ``InputSchema`` verbatim)."""
    tools = []
    for spec in specs:
        tool = spec["toolSpec"]
        tools.append(
            agentcore.CfnHarness.HarnessToolProperty(
                type="inline_function",
                name=tool["name"],
                config=agentcore.CfnHarness.HarnessToolConfigurationProperty(
                    inline_function=agentcore.CfnHarness.HarnessInlineFunctionConfigProperty(
                        description=tool["description"], input_schema=tool["inputSchema"]["json"]
                    )
                ),
            )
        )
    return tools


def gateway_tool(gateway: ToolGateway) -> tuple[agentcore.CfnHarness.HarnessToolProperty, str]:
    """The Gateway as a harness tool (IAM outbound auth), and the ``allowedTools`` entry for its tools."""
    from multitool.runtimes.harness_gateway import GATEWAY_TOOL, GATEWAY_TOOL_NAME

    tool = agentcore.CfnHarness.HarnessToolProperty(
        type=GATEWAY_TOOL,
        name=GATEWAY_TOOL_NAME,
        config=agentcore.CfnHarness.HarnessToolConfigurationProperty(
            agent_core_gateway=agentcore.CfnHarness.HarnessAgentCoreGatewayConfigProperty(
                gateway_arn=gateway.gateway_arn,
                outbound_auth=agentcore.CfnHarness.HarnessGatewayOutboundAuthProperty(aws_iam={}),
            )
        ),
    )
    return tool, f"@{GATEWAY_TOOL_NAME}"


class ChatHarness(Construct):
    """The harness, its execution role, and the grant that lets a caller invoke exactly this harness."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        model: ModelAccess,
        idle_session_seconds: int,
        log_retention: logs.RetentionDays,
        gateway: ToolGateway | None = None,
        encryption_key: kms.IKey | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        stack = cdk.Stack.of(self)
        specs = registry_tool_specs()
        self.tool_names = tuple(spec["toolSpec"]["name"] for spec in specs)
        if gateway is None:
            tools, allowed = inline_tools(specs), list(self.tool_names)
        else:
            tool, pattern = gateway_tool(gateway)
            tools, allowed = [tool], [pattern]

        # Trust: the AgentCore service, for this account's AgentCore resources only. The source ARN is
        # the service-wide `bedrock-agentcore:<region>:<account>:*` of the AgentCore Runtime trust policy
        # (https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-permissions.html): the
        # harness runs on an AgentCore Runtime, and CreateHarness's role validation presents a source
        # ARN that is not `harness/...`, so a harness-scoped ArnLike fails the deploy.
        self.role = iam.Role(
            self,
            "ExecutionRole",
            description="multitool AgentCore harness: invokes its model only",
            assumed_by=iam.ServicePrincipal(
                SERVICE_PRINCIPAL,
                conditions={
                    "StringEquals": {"aws:SourceAccount": stack.account},
                    "ArnLike": {"aws:SourceArn": stack.format_arn(service="bedrock-agentcore", resource="*")},
                },
            ),
        )
        # The harness calls the model with ConverseStream (api format converse_stream).
        model.grant_invoke(self.role)
        if gateway is not None:
            gateway.grant_invoke(self.role)

        harness_name = cdk.Names.unique_resource_name(self, max_length=40, separator="_")
        self.runtime_policy = self._runtime_policy(stack, harness_name)
        self.harness = agentcore.CfnHarness(
            self,
            "Harness",
            harness_name=harness_name,
            execution_role_arn=self.role.role_arn,
            model=agentcore.CfnHarness.HarnessModelConfigurationProperty(
                bedrock_model_config=harness_model(model.model_id)
            ),
            system_prompt=[
                agentcore.CfnHarness.HarnessSystemContentBlockProperty(text=harness_system_prompt())
            ],
            tools=tools,
            # Only the registry's tools: no built-in shell, file, browser or code-interpreter tool.
            allowed_tools=allowed,
            # The orchestrator keeps each conversation (its sessions table) and sends it with every
            # call; managed memory (the service default) would keep a second copy for 30 days.
            memory=agentcore.CfnHarness.HarnessMemoryConfigurationProperty(disabled={}),
            # Each call carries the whole conversation, so an idle session's microVM holds nothing the
            # next turn needs: it stops after the deploy's idle session TTL (service default 900 s).
            environment=agentcore.CfnHarness.HarnessEnvironmentProviderProperty(
                agent_core_runtime_environment=agentcore.CfnHarness.HarnessAgentCoreRuntimeEnvironmentProperty(
                    lifecycle_configuration=agentcore.CfnHarness.LifecycleConfigurationProperty(
                        idle_runtime_session_timeout=idle_session_seconds
                    )
                )
            ),
            max_iterations=MAX_ITERATIONS,
            max_tokens=model_max_tokens(model.model_id),
            timeout_seconds=TIMEOUT_SECONDS,
        )
        # CreateHarness validates the role: its policy must exist first.
        policy = self.role.node.try_find_child("DefaultPolicy")
        if policy is not None:
            self.harness.node.add_dependency(policy)
        self.harness.node.add_dependency(self.runtime_policy)

        # Logs go to the harness's own AgentCore Runtime log groups ("Traces, logs, and metrics flow to
        # CloudWatch through the harness execution role", harness-operations.html). The runtime id exists
        # only once the harness does, so this policy is attached after it (no cycle with the role
        # validation above) and names that runtime's groups, not every runtime's.
        runtime_groups = stack.format_arn(
            service="logs",
            resource="log-group",
            resource_name=f"{LOG_GROUP_PREFIX}{self.runtime_id}*",
            arn_format=cdk.ArnFormat.COLON_RESOURCE_NAME,
        )
        self.log_policy = iam.Policy(
            self,
            "LogPolicy",
            roles=[self.role],
            statements=[iam.PolicyStatement(actions=list(LOG_ACTIONS), resources=[runtime_groups])],
        )
        # The runtime's log group gets the stack's retention (the service makes it with none: kept
        # forever). Sources disagree on when the service makes it: aws-cdk-lib's
        # aws-bedrock-agentcore-alpha README says on the runtime's first invocation,
        # hashicorp/terraform-provider-aws#47629 reports it made with the runtime. This follows the
        # second (the safe reading): a plain AWS::Logs::LogGroup would fail its create when the group is
        # already there, so the retention is set by aws-cdk-lib's LogRetention custom resource, which
        # creates the group if it is missing and otherwise only calls PutRetentionPolicy ("The log group
        # is created if it doesn't already exist",
        # https://docs.aws.amazon.com/cdk/api/v2/python/aws_cdk.aws_logs/LogRetention.html). Its name
        # holds the runtime id, so it follows the harness; the role may write logs (or create a group)
        # only once the policy above is attached, and that waits for the retention: the runtime finds
        # the group there with its retention set.
        self.log_group_name = f"{LOG_GROUP_PREFIX}{self.runtime_id}-{RUNTIME_ENDPOINT}"
        self.log_group_arn = stack.format_arn(
            service="logs",
            resource="log-group",
            resource_name=self.log_group_name,
            arn_format=cdk.ArnFormat.COLON_RESOURCE_NAME,
        )
        # The provider's own role, no managed policy: create this one group, and set or remove its
        # retention (aws-cdk-lib grants those two on '*'; here on this group only). The provider is a
        # stack-wide singleton with this role: it is the stack's only LogRetention (every other log
        # group is an AWS::Logs::LogGroup of its own).
        retention_role = NarrowedRole(
            self,
            "RuntimeLogsRetentionRole",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description="Sets the retention of the harness runtime's log group, creating it if missing",
            narrowed={RETENTION_ACTIONS: [self.log_group_arn]},
        )
        retention_role.add_to_principal_policy(
            iam.PolicyStatement(actions=["logs:CreateLogGroup"], resources=[self.log_group_arn])
        )
        self.log_retention = logs.LogRetention(
            self,
            "RuntimeLogs",
            log_group_name=self.log_group_name,
            retention=log_retention,
            removal_policy=cdk.RemovalPolicy.DESTROY,
            role=retention_role,
        )
        self.log_policy.node.add_dependency(self.log_retention)
        self._acknowledge_retention_provider(stack, retention_role)
        # The provider function gets its role by GetAtt already (cfn-lint W3005); it needs the role's
        # policy in place before it runs.
        policy = retention_role.node.try_find_child("DefaultPolicy")
        assert policy is not None
        assert isinstance(policy.node.default_child, cdk.CfnResource)
        for function in _providers(stack, "LogRetention"):
            function.add_override("DependsOn", [stack.get_logical_id(policy.node.default_child)])
        if encryption_key is not None:
            self._encrypt_log_group(encryption_key)
        acknowledge(
            self.log_policy,
            "The harness's AgentCore Runtime names its log groups after the runtime id with a service-chosen "
            "suffix (e.g. -DEFAULT); the resource is exactly this runtime's groups and their streams.",
            f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:{_nag(stack.region, 'AWS::Region')}:"
            f"{_nag(stack.account, 'AWS::AccountId')}:log-group:{LOG_GROUP_PREFIX}"
            f"<{stack.get_logical_id(self.harness)}.Environment.AgentCoreRuntimeEnvironment.AgentRuntimeId>*]",
        )

    def _acknowledge_retention_provider(self, stack: cdk.Stack, role: iam.Role) -> None:
        """LogRetention's provider is a stack-level singleton Lambda (aws-cdk-lib's code, run only while
        deploying); its role is the one made here, every grant of it on this one group."""
        region, account = _nag(stack.region, "AWS::Region"), _nag(stack.account, "AWS::AccountId")
        acknowledge(
            role,
            "The LogRetention provider creates, sets the retention of and (with the stack) deletes exactly "
            "the harness runtime's log group; aws-cdk-lib names the group with ':*' for DeleteLogGroup.",
            f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:{region}:{account}:log-group:"
            f"{LOG_GROUP_PREFIX}<{stack.get_logical_id(self.harness)}.Environment."
            f"AgentCoreRuntimeEnvironment.AgentRuntimeId>-{RUNTIME_ENDPOINT}:*]",
        )

    def _encrypt_log_group(self, key: kms.IKey) -> None:
        """customerManagedKey: the runtime's group under the stack's key, as every other log group is.
        The group is not this stack's resource (see above), so the key is associated with it by
        CloudWatch Logs' AssociateKmsKey, once the group exists; the key policy lets CloudWatch Logs use
        it for this account's groups (components.keys)."""
        stack = cdk.Stack.of(self)
        associate = cr.AwsSdkCall(
            service="CloudWatchLogs",
            action="associateKmsKey",
            parameters={"logGroupName": self.log_group_name, "kmsKeyId": key.key_arn},
            physical_resource_id=cr.PhysicalResourceId.of(self.log_group_name),
        )
        # The provider's own role, no managed policy: AssociateKmsKey on this group only.
        role = iam.Role(
            self,
            "RuntimeLogsKeyRole",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description="Puts the harness runtime's log group under the stack's key",
        )
        self.log_key = cr.AwsCustomResource(
            self,
            "RuntimeLogsKey",
            on_create=associate,
            on_update=associate,
            policy=cr.AwsCustomResourcePolicy.from_statements(
                [iam.PolicyStatement(actions=["logs:AssociateKmsKey"], resources=[self.log_group_arn])]
            ),
            role=role,
            install_latest_aws_sdk=False,
        )
        self.log_key.node.add_dependency(self.log_retention)
        self.log_policy.node.add_dependency(self.log_key)
        # The provider function gets its role by GetAtt already (cfn-lint W3005); the custom resource
        # itself waits for its policy.
        for function in _providers(stack, AWS_CUSTOM_RESOURCE_PROVIDER):
            function.add_deletion_override("DependsOn")

    def _runtime_policy(self, stack: cdk.Stack, harness_name: str) -> iam.Policy:
        """The statements AWS's harness execution role policy lists for the runtime itself, each
        as narrow as its action allows."""
        account = f"{stack.region}:{stack.account}"
        identity_directory = stack.format_arn(
            service="bedrock-agentcore", resource="workload-identity-directory", resource_name="default"
        )
        policy = iam.Policy(
            self,
            "RuntimePolicy",
            roles=[self.role],
            statements=[
                # The harness runs on AgentCore's managed image, pulled from ECR Public: its
                # authorization token and the STS bearer token it is issued as. Neither action has a
                # resource; the bearer token is held to ECR Public by its service-name condition.
                iam.PolicyStatement(sid="EcrPublicToken", actions=[ECR_PUBLIC_TOKEN], resources=["*"]),
                iam.PolicyStatement(
                    sid="EcrPublicBearerToken",
                    actions=[BEARER_TOKEN],
                    resources=["*"],
                    conditions={"StringEquals": {"sts:AWSServiceName": "ecr-public.amazonaws.com"}},
                ),
                # Traces of each session (X-Ray's segment and sampling APIs have no resource).
                iam.PolicyStatement(sid="XRayTraces", actions=list(XRAY_ACTIONS), resources=["*"]),
                # The runtime's metrics, in its own namespace only.
                iam.PolicyStatement(
                    sid="RuntimeMetrics",
                    actions=[METRICS_ACTION],
                    resources=["*"],
                    conditions={"StringEquals": {"cloudwatch:namespace": METRICS_NAMESPACE}},
                ),
                # The runtime looks its log groups up before it writes (DescribeLogGroups is
                # authorized on the account's log-group:* only).
                iam.PolicyStatement(
                    sid="RuntimeLogGroupLookup",
                    actions=[DESCRIBE_LOG_GROUPS],
                    resources=[f"arn:{stack.partition}:logs:{account}:log-group:*"],
                ),
                # The session's workload access token, for this harness's workload identity only
                # (not GetWorkloadAccessTokenForUserId, which trusts a caller-supplied user id).
                iam.PolicyStatement(
                    sid="WorkloadAccessToken",
                    actions=list(WORKLOAD_TOKEN_ACTIONS),
                    resources=[
                        identity_directory,
                        f"{identity_directory}/workload-identity/harness_{harness_name}-*",
                    ],
                ),
            ],
        )
        nag_account = f"{_nag(stack.region, 'AWS::Region')}:{_nag(stack.account, 'AWS::AccountId')}"
        acknowledge(
            policy,
            "AWS's harness execution role policy: ecr-public:GetAuthorizationToken, "
            "sts:GetServiceBearerToken (held to ecr-public.amazonaws.com), X-Ray's segment and sampling "
            "APIs and cloudwatch:PutMetricData (held to the bedrock-agentcore namespace) have no "
            "resource-level permission.",
            "AwsSolutions-IAM5[Resource::*]",
        )
        acknowledge(
            policy,
            "logs:DescribeLogGroups is authorized only on the account's log-group:* in the region.",
            f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:{nag_account}:log-group:*]",
        )
        acknowledge(
            policy,
            "The runtime names the harness's workload identity after the harness with a service-chosen "
            "suffix; the resource is exactly that identity.",
            f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock-agentcore:{nag_account}:"
            f"workload-identity-directory/default/workload-identity/harness_{harness_name}-*]",
        )
        return policy

    @property
    def harness_arn(self) -> str:
        return self.harness.attr_arn

    @property
    def runtime_id(self) -> str:
        return self.harness.attr_environment_agent_core_runtime_environment_agent_runtime_id

    def grant_invoke(self, grantee: iam.IGrantable) -> None:
        """InvokeHarness on this harness and nothing else."""
        iam.Grant.add_to_principal(
            grantee=grantee, actions=list(INVOKE_ACTIONS), resource_arns=[self.harness_arn]
        )


def _providers(stack: cdk.Stack, id_prefix: str) -> list[cdk.CfnResource]:
    """aws-cdk-lib's stack-level singleton provider functions whose construct id starts so."""
    return [
        child.node.default_child
        for child in stack.node.children
        if child.node.id.startswith(id_prefix) and isinstance(child.node.default_child, cdk.CfnResource)
    ]


def _nag(value: str, pseudo: str) -> str:
    """How cdk-nag spells a value in a finding id: itself, or ``<AWS::Region>`` when env-agnostic."""
    return f"<{pseudo}>" if cdk.Token.is_unresolved(value) else value
