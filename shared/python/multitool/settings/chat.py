"""The orchestrator's settings (``POST /chat``): the tools' and the turn's."""

from typing import Annotated

from msgspec import Meta

from multitool.deployment import RUNNING_TURNS_PER_USER
from multitool.settings import ModelBackend, ToolSettings, within

# Each user's token bucket (multitool.ports.rate): turns at once, and refilled per minute.
DEFAULT_CHAT_PER_MINUTE = 6
DEFAULT_CHAT_BURST = 10
# Asynchronous turns one user may have running at once (multitool.ports.turn_slots).
DEFAULT_RUNNING_TURNS_PER_USER = 3


class ChatSettings(ToolSettings, frozen=True, kw_only=True):
    """The orchestrator (POST /chat)."""

    runtime: ModelBackend = ModelBackend.OFFLINE
    agent_id: str | None = None
    agent_alias_id: str | None = None
    harness_arn: str | None = None
    gateway_arn: Annotated[
        str | None, Meta(description="RUNTIME=agentcore: the harness calls the tools through this Gateway")
    ] = None
    model_id: str | None = None
    sessions_table_name: str
    idempotency_table_name: str | None = None
    idempotency_expiry_seconds: Annotated[int, Meta(ge=60, le=7 * 24 * 3600)] = 3600
    offline_delay_seconds: Annotated[
        float, Meta(ge=0, le=30, description="RUNTIME=offline: each model answer starts this much later")
    ] = 0.0
    turns_table_name: Annotated[
        str | None,
        Meta(description="Turns run past the request (Prefer: respond-async); unset: answered inline"),
    ] = None
    history_exchanges: Annotated[int, Meta(ge=0, le=50)] = 10
    max_tool_rounds: Annotated[int, Meta(ge=1, le=20)] = 5
    max_output_tokens: (
        Annotated[int, Meta(ge=256, le=65536, description="maxTokens per model call; default: the model's")]
        | None
    ) = None
    max_message_chars: Annotated[int, Meta(ge=1)] = 4000
    guardrail_id: Annotated[
        str | None, Meta(description="RUNTIME=converse: a Bedrock guardrail applied to every Converse call")
    ] = None
    guardrail_version: Annotated[str, Meta(pattern=r"^(DRAFT|[1-9][0-9]{0,7})$")] = "DRAFT"
    rate_limits_table_name: Annotated[
        str | None, Meta(description="Per-user token buckets (the limits table); unset: no per-user rate")
    ] = None
    chat_per_minute: Annotated[float, Meta(gt=0, le=6000)] = DEFAULT_CHAT_PER_MINUTE
    chat_burst: Annotated[int, Meta(ge=1, le=1000)] = DEFAULT_CHAT_BURST
    running_turns_per_user: Annotated[
        int,
        within(
            RUNNING_TURNS_PER_USER,
            "Prefer: respond-async turns one user may have running at once (on the limits table)",
        ),
    ] = DEFAULT_RUNNING_TURNS_PER_USER
