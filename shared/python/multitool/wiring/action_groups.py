"""The action-group functions' adapters (``functions/tool``, one per tool: Bedrock action groups and the
AgentCore Gateway's targets alike): the tools' ports, config and caller key.

The ports are the orchestrator's (:func:`multitool.wiring.tool_ports.tool_ports`) over the
function's DynamoDB client; the caller key signs the Gateway path's caller keys: the user
Gateway's interceptor key from ``CALLER_KEY_SECRET_ARN``, else ``CALLER_CONTEXT_KEY`` (``multitool
mcp``'s own). Built on first use and cached, never at import time, so tests set the environment
(and moto) first and call ``aws_environment.cache_clear()`` between cases.
"""

from __future__ import annotations

import functools

from multitool.toolkit.context import ToolConfig
from multitool.tools.apps import ActionGroupApp, action_group_app
from multitool.tools.environment import ToolEnvironment


@functools.cache
def aws_environment() -> ToolEnvironment:
    """Ports over a DynamoDB client and config from :class:`multitool.settings.ToolSettings`."""
    import boto3

    from multitool.settings import ToolSettings
    from multitool.wiring.tool_ports import tool_ports

    settings = ToolSettings.from_env()
    ports = tool_ports(settings, boto3.client("dynamodb"))
    caller_key = bytes.fromhex(settings.caller_context_key) if settings.caller_context_key else None
    if settings.caller_key_secret_arn:  # the user Gateway's targets: the interceptor's key
        from multitool.ports.agentcore.gateway_caller import secret_key

        caller_key = secret_key(boto3.client("secretsmanager"), settings.caller_key_secret_arn)
    return ToolEnvironment(ports, ToolConfig.from_settings(settings), settings.default_timezone, caller_key)


def tool_app(group: str) -> ActionGroupApp:
    """The app of one action group over the deployment's environment (built on first use)."""
    return action_group_app(group, aws_environment)
