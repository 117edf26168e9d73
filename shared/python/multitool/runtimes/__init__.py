"""How a turn reaches a model: the AgentCore harness, the Bedrock agent, the Converse loop, or offline.

``build_runtime(settings, clients, flows)`` picks one from ``RUNTIME``
(``agentcore`` | ``agent`` | ``converse`` | ``offline`` | ``offline-converse``);
every runtime returns the same :class:`multitool.runtimes.traces.ToolResults`, so the
API response does not depend on the choice. ``offline`` runs the offline model
behind the offline harness through :class:`AgentCoreRuntime` (the code the
default deployment runs); ``offline-converse`` runs it through the Converse loop.
"""

from __future__ import annotations

import importlib
from functools import cached_property
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config

from multitool.ports.directory import DynamoDirectory
from multitool.runtimes.agentcore import AgentCoreRuntime, harness_tools
from multitool.runtimes.base import (
    FlowFactory,
    ModelBusy,
    ModelFailed,
    Runtime,
    RuntimeNotConfigured,
    TurnError,
    TurnRequest,
)
from multitool.runtimes.carryover import DynamoCarryOver, MemoryCarryOver
from multitool.runtimes.converse import ConverseRuntime
from multitool.settings import ModelBackend
from multitool.settings.chat import ChatSettings

if TYPE_CHECKING:
    from collections.abc import Mapping

    from mypy_boto3_bedrock_agent_runtime import AgentsforBedrockRuntimeClient
    from mypy_boto3_bedrock_agentcore import BedrockAgentCoreClient
    from mypy_boto3_bedrock_runtime import BedrockRuntimeClient
    from mypy_boto3_dynamodb import DynamoDBClient

    from multitool.runtimes.agent import AgentRuntime
    from multitool.runtimes.offline import OfflineModel
    from multitool.runtimes.offline_harness import OfflineHarness

__all__ = [
    "AgentCoreRuntime",
    "AgentRuntime",
    "AwsClients",
    "ConverseRuntime",
    "FlowFactory",
    "ModelBusy",
    "ModelFailed",
    "OfflineHarness",
    "OfflineModel",
    "Runtime",
    "RuntimeNotConfigured",
    "TurnError",
    "TurnRequest",
    "build_runtime",
    "harness_tools",
]

# The AgentCore runtime (the default deployment's, and the offline one's) and the Converse loop it
# shares its limits with load with this package. The Bedrock agent's runtime and the offline model
# and harness are imported by build_runtime when RUNTIME selects them: the deployed orchestrator
# never loads the offline model's grammar. They are still importable from here, loaded when read.
_LAZY = {
    "AgentRuntime": "multitool.runtimes.agent",
    "OfflineHarness": "multitool.runtimes.offline_harness",
    "OfflineModel": "multitool.runtimes.offline",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)


# Bedrock calls are retried by the SDK a little; the API answers 503 + Retry-After after that.
_BEDROCK_CONFIG = Config(retries={"max_attempts": 3, "mode": "adaptive"}, read_timeout=60, connect_timeout=5)


class AwsClients:
    """boto3 clients, each made on first use (so tests can set the environment first)."""

    def __init__(self, session: boto3.session.Session | None = None) -> None:
        self._session = session

    @cached_property
    def session(self) -> boto3.session.Session:
        return self._session or boto3.session.Session()

    @cached_property
    def dynamodb(self) -> DynamoDBClient:
        return self.session.client("dynamodb")

    @cached_property
    def bedrock_runtime(self) -> BedrockRuntimeClient:
        return self.session.client("bedrock-runtime", config=_BEDROCK_CONFIG)

    @cached_property
    def bedrock_agent_runtime(self) -> AgentsforBedrockRuntimeClient:
        return self.session.client("bedrock-agent-runtime", config=_BEDROCK_CONFIG)

    @cached_property
    def bedrock_agentcore(self) -> BedrockAgentCoreClient:
        return self.session.client("bedrock-agentcore", config=_BEDROCK_CONFIG)


class _HarnessOnFirstCall:
    """``bedrock-agentcore``'s client, made by the first ``InvokeHarness``: a function that starts turns
    without running them (a Slack message's, a ``Prefer: respond-async`` request's) builds the runtime
    with the chat service and never asks the harness, so its cold start does not make the client (its
    service model and endpoint rules: about 12 ms of CPU)."""

    def __init__(self, clients: AwsClients) -> None:
        self._clients = clients

    def invoke_harness(self, **kwargs: Any) -> Mapping[str, Any]:
        return self._clients.bedrock_agentcore.invoke_harness(**kwargs)


def _gateway_harness(
    settings: ChatSettings, harness_client: Any, clients: AwsClients, flows: FlowFactory
) -> AgentCoreRuntime:
    """The harness with the Gateway as its tool source; the drafts its stream shows are claimed."""
    from multitool.ports.drafts import DynamoDraftStore
    from multitool.runtimes.claims import draft_claims
    from multitool.runtimes.harness_gateway import gateway_tools

    assert settings.harness_arn
    assert settings.gateway_arn
    return AgentCoreRuntime(
        harness_client,
        settings.harness_arn,
        flows,
        max_rounds=settings.max_tool_rounds,
        max_tokens=_max_tokens(settings),
        tools=gateway_tools(settings.gateway_arn),
        claims=draft_claims(DynamoDraftStore(settings.drafts_table_name, clients.dynamodb)),
    )


def _max_tokens(settings: ChatSettings) -> int:
    """MAX_OUTPUT_TOKENS, else the model's default budget (more for a model that thinks by default)."""
    from multitool.models import default_max_tokens

    return settings.max_output_tokens or default_max_tokens(settings.model_id)


def build_runtime(settings: ChatSettings, clients: AwsClients, flows: FlowFactory) -> Runtime:
    """The runtime ``RUNTIME`` selects, wired to its client; a missing setting is named in the error."""
    rounds = settings.max_tool_rounds
    if settings.runtime is ModelBackend.AGENTCORE:
        if not settings.harness_arn:
            raise RuntimeNotConfigured("RUNTIME=agentcore needs HARNESS_ARN.")
        harness_client = _HarnessOnFirstCall(clients)
        if settings.gateway_arn:
            return _gateway_harness(settings, harness_client, clients, flows)
        return AgentCoreRuntime(
            harness_client,
            settings.harness_arn,
            flows,
            max_rounds=rounds,
            max_tokens=_max_tokens(settings),
            carry=DynamoCarryOver(settings.sessions_table_name, clients.dynamodb),
        )
    if settings.runtime is ModelBackend.AGENT:
        if not settings.agent_id or not settings.agent_alias_id:
            raise RuntimeNotConfigured("RUNTIME=agent needs AGENT_ID and AGENT_ALIAS_ID.")
        agent_client: Any = clients.bedrock_agent_runtime
        from multitool.runtimes.agent import AgentRuntime

        return AgentRuntime(
            agent_client, settings.agent_id, settings.agent_alias_id, flows, max_rounds=rounds
        )
    if settings.runtime is ModelBackend.CONVERSE:
        if not settings.model_id:
            raise RuntimeNotConfigured(
                "RUNTIME=converse needs MODEL_ID (a Bedrock model or inference profile id)."
            )
        converse_client: Any = clients.bedrock_runtime
        return ConverseRuntime(
            converse_client,
            settings.model_id,
            flows,
            max_rounds=rounds,
            max_tokens=_max_tokens(settings),
            guardrail=(
                {"guardrailIdentifier": settings.guardrail_id, "guardrailVersion": settings.guardrail_version}
                if settings.guardrail_id
                else None
            ),
        )
    from multitool.runtimes.offline import OfflineModel

    # The offline model reads lowercase names ("email zoe …") against the same directory the tools use.
    model = OfflineModel(DynamoDirectory(settings.directory_table_name, clients.dynamodb))
    if settings.runtime is ModelBackend.OFFLINE_CONVERSE:
        return ConverseRuntime(
            model, OfflineModel.model_id, flows, max_rounds=rounds, service="offline model"
        )
    from multitool.runtimes.offline_harness import OFFLINE_HARNESS_ARN, OfflineHarness

    return AgentCoreRuntime(
        OfflineHarness(model, delay_seconds=settings.offline_delay_seconds),
        OFFLINE_HARNESS_ARN,
        flows,
        max_rounds=rounds,
        service="offline harness",
        carry=MemoryCarryOver(),
    )
