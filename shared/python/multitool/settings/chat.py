"""The orchestrator's settings (``POST /chat``): the tools' and the turn's."""

from pydantic import Field

from multitool.deployment import RUNNING_TURNS_PER_USER
from multitool.settings import ModelBackend, ToolSettings

# Each user's token bucket (multitool.ports.rate): turns at once, and refilled per minute.
DEFAULT_CHAT_PER_MINUTE = 6
DEFAULT_CHAT_BURST = 10
# Asynchronous turns one user may have running at once (multitool.ports.turn_slots).
DEFAULT_RUNNING_TURNS_PER_USER = 3


class ChatSettings(ToolSettings):
    """The orchestrator (POST /chat)."""

    runtime: ModelBackend = ModelBackend.OFFLINE
    agent_id: str | None = None
    agent_alias_id: str | None = None
    harness_arn: str | None = None
    gateway_arn: str | None = Field(
        default=None, description="RUNTIME=agentcore: the harness calls the tools through this Gateway"
    )
    model_id: str | None = None
    sessions_table_name: str
    idempotency_table_name: str | None = None
    idempotency_expiry_seconds: int = Field(default=3600, ge=60, le=7 * 24 * 3600)
    offline_delay_seconds: float = Field(
        default=0.0, ge=0, le=30, description="RUNTIME=offline: each model answer starts this much later"
    )
    turns_table_name: str | None = Field(
        default=None, description="Turns run past the request (Prefer: respond-async); unset: answered inline"
    )
    history_exchanges: int = Field(default=10, ge=0, le=50)
    max_tool_rounds: int = Field(default=5, ge=1, le=20)
    max_output_tokens: int | None = Field(
        default=None, ge=256, le=65536, description="maxTokens per model call; default: the model's"
    )
    max_message_chars: int = Field(default=4000, ge=1)
    guardrail_id: str | None = Field(
        default=None, description="RUNTIME=converse: a Bedrock guardrail applied to every Converse call"
    )
    guardrail_version: str = Field(default="DRAFT", pattern=r"^(DRAFT|[1-9][0-9]{0,7})$")
    rate_limits_table_name: str | None = Field(
        default=None, description="Per-user token buckets (the limits table); unset: no per-user rate"
    )
    chat_per_minute: float = Field(default=DEFAULT_CHAT_PER_MINUTE, gt=0, le=6000)
    chat_burst: int = Field(default=DEFAULT_CHAT_BURST, ge=1, le=1000)
    running_turns_per_user: int = Field(
        default=DEFAULT_RUNNING_TURNS_PER_USER,
        ge=RUNNING_TURNS_PER_USER.low,
        le=RUNNING_TURNS_PER_USER.high,
        description="Prefer: respond-async turns one user may have running at once (on the limits table)",
    )
