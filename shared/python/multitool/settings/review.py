"""The review function's settings (``GET``, confirm and discard of ``/actions/{id}``): the tools' and the
confirm's (mail, Jira, the recipient policy, rate limits, the audit)."""

from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator

from multitool.settings import ToolSettings


class OutsideRecipients(StrEnum):
    """What a confirm does with an address outside the deployment's domains (``OUTSIDE_RECIPIENTS``)."""

    ALLOWED = "allowed"
    CAPPED = "capped"
    OFF = "off"


DEFAULT_RECIPIENTS_PER_DAY = 100
DEFAULT_OUTSIDE_RECIPIENTS_PER_DAY = 20
DEFAULT_AUDIT_RETENTION_DAYS = 365
# Each user's token bucket (multitool.ports.rate): confirms at once, and refilled per minute.
DEFAULT_CONFIRMS_PER_MINUTE = 12
DEFAULT_CONFIRMS_BURST = 20
DEFAULT_UNDO_SECONDS = 10
MAX_UNDO_SECONDS = 900
"""SQS's longest per-message delay (multitool.ports.undo_queue): the undo window is one delayed message."""


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
    recipients_per_day: int = Field(default=DEFAULT_RECIPIENTS_PER_DAY, ge=1, le=100_000)
    outside_recipients_per_day: int = Field(default=DEFAULT_OUTSIDE_RECIPIENTS_PER_DAY, ge=0, le=100_000)
    approved_group: str | None = Field(
        default=None, description="Only members of this user pool group may confirm (self sign-up)"
    )
    rate_limits_table_name: str | None = Field(
        default=None, description="Per-user token buckets (the limits table); unset: no per-user rate"
    )
    confirms_per_minute: float = Field(default=DEFAULT_CONFIRMS_PER_MINUTE, gt=0, le=6000)
    confirms_burst: int = Field(default=DEFAULT_CONFIRMS_BURST, ge=1, le=1000)
    audit_table_name: str | None = Field(default=None, description="Side-effect records; unset: not kept")
    audit_retention_days: int = Field(default=DEFAULT_AUDIT_RETENTION_DAYS, ge=1, le=3653)
    undo_seconds: int = Field(
        default=DEFAULT_UNDO_SECONDS,
        ge=0,
        le=MAX_UNDO_SECONDS,
        description="How long a confirmed mail waits with Undo on its card; 0: sent at once",
    )
    undo_queue_url: str | None = Field(
        default=None, description="The undo window's delay queue; unset: every confirm acts at once"
    )

    @field_validator("recipient_domains", mode="before")
    @classmethod
    def _domains(cls, value: Any) -> Any:
        return tuple(d.strip() for d in value.split(",") if d.strip()) if isinstance(value, str) else value
