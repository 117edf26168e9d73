"""Shared Lambda defaults: one function, its own log group and its own role.

Every function runs on ARM64 and the layer's Python version, logs JSON into an
explicit log group with retention, traces actively, and gets a role that holds
only its log group's write permission until the stack grants more.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.components.layer import ARCHITECTURE, RUNTIME
from infra.memory import DEFAULT_MEMORY_MB
from infra.nag import acknowledge
from infra.paths import FUNCTIONS

SERVICE_NAME = "multitool"


def metrics_namespace(scope: Construct) -> str:
    """The CloudWatch namespace of the functions' Powertools metrics: the stack's name (``Multitool`` by
    default), so that two copies in one account (``-c stackName=MultitoolDev``) keep their figures,
    alarms and dashboards apart."""
    return cdk.Stack.of(scope).stack_name


ASSET_EXCLUDES = ["__pycache__", "*.pyc", "*.pyo", "tests", ".pytest_cache"]
RUNTIME_ENVIRONMENT: Mapping[str, str] = {
    # pydantic looks for plugins (the "pydantic" entry point group) among every installed distribution
    # the first time it builds a validator, about 2 ms of a cold start; the layer installs none
    # (infra/layer.lock), and "__all__" skips the search ("Disabling plugins",
    # https://docs.pydantic.dev/latest/concepts/plugins/; pydantic/plugin/_loader.py, get_plugins).
    "PYDANTIC_DISABLE_PLUGINS": "__all__",
}
"""What every function's environment holds for the layer's libraries (the bench's children get it too)."""


@dataclass(frozen=True)
class FunctionSpec:
    """What differs between the functions: the name, a description, code, sizing and environment."""

    folder: str
    """The function's name (its role's description); its code's folder too, unless ``code`` names one."""
    description: str
    timeout_seconds: int = 30
    memory_mb: int = DEFAULT_MEMORY_MB
    environment: Mapping[str, str] = field(default_factory=dict)
    reserved_concurrency: int | None = None
    """Executions kept for this function alone (and its most at once); None: the account's shared pool."""
    code: str | None = None
    """The folder under ``functions/`` it runs when it shares one: every tool runs ``functions/tool``
    (:data:`TOOL_CODE`), its tool named by its environment."""


TOOL_CODE = "tool"
"""The folder every tool's function runs: one handler, its tool from ``TOOL_MODULE``
(:func:`tool_environment`)."""


def tool_environment(group: str) -> dict[str, str]:
    """What tells the shared tool handler (``functions/tool/handler.py``) which tool it is: the module
    the registry declares for the action group, which its init loads (and no other tool's)."""
    from multitool.tools import REGISTRY

    module = REGISTRY.module(group)
    if module is None:
        raise ValueError(f"No declared tool module for action group {group!r}: declare it in multitool.tools")
    return {"TOOL_MODULE": module}


def function_asset_path(folder: str) -> str:
    """A function's code asset is its own folder and nothing else."""
    path = FUNCTIONS / folder
    if not (path / "handler.py").is_file():
        raise FileNotFoundError(f"functions/{folder}/handler.py is missing: every function needs its handler")
    return str(path)


class MultitoolFunction(Construct):
    """A Lambda with the project's defaults; `function` and `role` are there to grant on."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        spec: FunctionSpec,
        layer: lambda_.ILayerVersion,
        log_retention: logs.RetentionDays,
    ) -> None:
        super().__init__(scope, construct_id)
        self.timeout_seconds = spec.timeout_seconds
        self.log_group = logs.LogGroup(
            self, "Logs", retention=log_retention, removal_policy=cdk.RemovalPolicy.DESTROY
        )
        self.role = iam.Role(
            self,
            "Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"multitool {spec.folder} function",
        )
        # Only this function's own log group: no AWSLambdaBasicExecutionRole (logs:* on every group).
        self.log_group.grant_write(self.role)
        self.function = lambda_.Function(
            self,
            "Function",
            description=spec.description,
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler="handler.handler",
            code=lambda_.Code.from_asset(
                function_asset_path(spec.code or spec.folder), exclude=ASSET_EXCLUDES
            ),
            layers=[layer],
            role=self.role,
            memory_size=spec.memory_mb,
            timeout=cdk.Duration.seconds(spec.timeout_seconds),
            tracing=lambda_.Tracing.ACTIVE,
            reserved_concurrent_executions=spec.reserved_concurrency,
            log_group=self.log_group,
            logging_format=lambda_.LoggingFormat.JSON,
            application_log_level_v2=lambda_.ApplicationLogLevel.INFO,
            system_log_level_v2=lambda_.SystemLogLevel.WARN,
            environment={
                "POWERTOOLS_SERVICE_NAME": SERVICE_NAME,
                "POWERTOOLS_METRICS_NAMESPACE": metrics_namespace(self),
                "POWERTOOLS_LOG_LEVEL": "INFO",
                **RUNTIME_ENVIRONMENT,
                **spec.environment,
            },
        )
        # CDK orders the function after its role and the role's policy (log writes) on purpose;
        # cfn-lint's W3005 calls the role half redundant.
        cfn_function = self.function.node.default_child
        assert isinstance(cfn_function, lambda_.CfnFunction)
        cfn_function.add_metadata("cfn-lint", {"config": {"ignore_checks": ["W3005"]}})
        acknowledge(
            self.role,
            "X-Ray active tracing: xray:PutTraceSegments and PutTelemetryRecords have no resource-level "
            "permissions, so their resource is '*'.",
            "AwsSolutions-IAM5[Resource::*]",
        )
        acknowledge(
            self.function,
            f"Pinned to {RUNTIME.name}: the layer's compiled wheels (pydantic-core) are built for this "
            "Python version; moving up is a deliberate upgrade of layer and runtime together.",
            "AwsSolutions-L1",
        )
