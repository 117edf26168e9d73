"""The review function's settings (``GET``, confirm and discard of ``/actions/{id}``): the tools' and the
confirm's (mail, Jira, the recipient policy, rate limits, the audit)."""

from typing import Any

from pydantic import Field, field_validator

from multitool.deployment import (
    AUDIT_RETENTION_DAYS,
    OUTSIDE_RECIPIENTS_PER_DAY,
    RECIPIENTS_PER_DAY,
    UNDO_SECONDS,
)
from multitool.deployment import (
    OutsideRecipients as OutsideRecipients,
)  # read here by multitool.review.limits
from multitool.settings import ToolSettings

DEFAULT_RECIPIENTS_PER_DAY = 100
DEFAULT_OUTSIDE_RECIPIENTS_PER_DAY = 20
DEFAULT_AUDIT_RETENTION_DAYS = 365
# Each user's token bucket (multitool.ports.rate): confirms at once, and refilled per minute.
DEFAULT_CONFIRMS_PER_MINUTE = 12
DEFAULT_CONFIRMS_BURST = 20
DEFAULT_UNDO_SECONDS = 10


class ReviewSettings(ToolSettings):
    """The review function (GET/confirm/discard of /actions/{id}): the only one that sends or creates."""

    sender_email: str = Field(min_length=3, description="Verified SES identity mail comes from")
    ses_configuration_set: str | None = None
    sandbox: bool = Field(default=False, description="Local sandbox: results are labelled as not real")
    limits_table_name: str | None = Field(
        default=None, description="The daily recipient counters; unset: the quota is not counted"
    )
    recipient_domains: tuple[str, ...] = Field(
        default=(), description="Comma-separated inside domains; unset: the sender address's domain"
    )
    outside_recipients: OutsideRecipients = OutsideRecipients.CAPPED
    recipients_per_day: int = Field(
        default=DEFAULT_RECIPIENTS_PER_DAY, ge=RECIPIENTS_PER_DAY.low, le=RECIPIENTS_PER_DAY.high
    )
    outside_recipients_per_day: int = Field(
        default=DEFAULT_OUTSIDE_RECIPIENTS_PER_DAY,
        ge=OUTSIDE_RECIPIENTS_PER_DAY.low,
        le=OUTSIDE_RECIPIENTS_PER_DAY.high,
    )
    approved_group: str | None = Field(
        default=None, description="Only members of this user pool group may confirm (self sign-up)"
    )
    rate_limits_table_name: str | None = Field(
        default=None, description="Per-user token buckets (the limits table); unset: no per-user rate"
    )
    confirms_per_minute: float = Field(default=DEFAULT_CONFIRMS_PER_MINUTE, gt=0, le=6000)
    confirms_burst: int = Field(default=DEFAULT_CONFIRMS_BURST, ge=1, le=1000)
    audit_table_name: str | None = Field(default=None, description="Side-effect records; unset: not kept")
    audit_retention_days: int = Field(
        default=DEFAULT_AUDIT_RETENTION_DAYS, ge=AUDIT_RETENTION_DAYS.low, le=AUDIT_RETENTION_DAYS.high
    )
    undo_seconds: int = Field(
        default=DEFAULT_UNDO_SECONDS,
        ge=UNDO_SECONDS.low,
        le=UNDO_SECONDS.high,
        description="How long a confirmed mail waits with Undo on its card; 0: sent at once",
    )
    undo_queue_url: str | None = Field(
        default=None, description="The undo window's delay queue; unset: every confirm acts at once"
    )

    @field_validator("recipient_domains", mode="before")
    @classmethod
    def _domains(cls, value: Any) -> Any:
        return tuple(d.strip() for d in value.split(",") if d.strip()) if isinstance(value, str) else value
