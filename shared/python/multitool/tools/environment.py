"""What a tool call runs against: the ports, the config, the default time zone and the caller key.

The deployed one is :func:`multitool.wiring.action_groups.aws_environment` (settings from the
environment, DynamoDB-backed ports); tests and the local runs hand the apps their own.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from multitool.toolkit.context import ToolConfig, ToolPorts


class ToolEnvironment(msgspec.Struct, frozen=True):
    ports: ToolPorts
    config: ToolConfig
    default_timezone: str = "UTC"
    caller_key: bytes | None = None
    """The key Gateway-path caller keys must be signed with (:mod:`multitool.tools.gateway_target`); None:
    caller keys are ignored. Deployed, the action-group functions behind the user Gateway read it
    from ``CALLER_KEY_SECRET_ARN`` (:mod:`multitool.ports.agentcore.gateway_caller`); no function has
    ``CALLER_CONTEXT_KEY``."""


EnvironmentProvider = Callable[[], ToolEnvironment]
