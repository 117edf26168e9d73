"""The review function's settings (``GET``, confirm and discard of ``/actions/{id}``): the tools' and the
confirm's (mail, Jira, the recipient policy, rate limits, the audit)."""

from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar

from msgspec import Meta

from multitool.deployment import (
    AUDIT_RETENTION_DAYS,
    OUTSIDE_RECIPIENTS_PER_DAY,
    RECIPIENTS_PER_DAY,
    UNDO_SECONDS,
)
from multitool.deployment import (
    OutsideRecipients as OutsideRecipients,
)  # read here by multitool.review.limits
from multitool.settings import ToolSettings, within

DEFAULT_RECIPIENTS_PER_DAY = 100
DEFAULT_OUTSIDE_RECIPIENTS_PER_DAY = 20
DEFAULT_AUDIT_RETENTION_DAYS = 365
# Each user's token bucket (multitool.ports.rate): confirms at once, and refilled per minute.
DEFAULT_CONFIRMS_PER_MINUTE = 12
DEFAULT_CONFIRMS_BURST = 20
DEFAULT_UNDO_SECONDS = 10


class ReviewSettings(ToolSettings, frozen=True, kw_only=True):
    """The review function (GET/confirm/discard of /actions/{id}): the only one that sends or creates."""

    sender_email: Annotated[str, Meta(min_length=3, description="Verified SES identity mail comes from")]
    ses_configuration_set: str | None = None
    sandbox: Annotated[bool, Meta(description="Local sandbox: results are labelled as not real")] = False
    limits_table_name: Annotated[
        str | None, Meta(description="The daily recipient counters; unset: the quota is not counted")
    ] = None
    recipient_domains: Annotated[
        tuple[str, ...],
        Meta(description="Comma-separated inside domains; unset: the sender address's domain"),
    ] = ()
    outside_recipients: OutsideRecipients = OutsideRecipients.CAPPED
    recipients_per_day: Annotated[int, within(RECIPIENTS_PER_DAY)] = DEFAULT_RECIPIENTS_PER_DAY
    outside_recipients_per_day: Annotated[int, within(OUTSIDE_RECIPIENTS_PER_DAY)] = (
        DEFAULT_OUTSIDE_RECIPIENTS_PER_DAY
    )
    approved_group: Annotated[
        str | None, Meta(description="Only members of this user pool group may confirm (self sign-up)")
    ] = None
    rate_limits_table_name: Annotated[
        str | None, Meta(description="Per-user token buckets (the limits table); unset: no per-user rate")
    ] = None
    confirms_per_minute: Annotated[float, Meta(gt=0, le=6000)] = DEFAULT_CONFIRMS_PER_MINUTE
    confirms_burst: Annotated[int, Meta(ge=1, le=1000)] = DEFAULT_CONFIRMS_BURST
    audit_table_name: Annotated[str | None, Meta(description="Side-effect records; unset: not kept")] = None
    audit_retention_days: Annotated[int, within(AUDIT_RETENTION_DAYS)] = DEFAULT_AUDIT_RETENTION_DAYS
    undo_seconds: Annotated[
        int,
        within(UNDO_SECONDS, "How long a confirmed mail waits with Undo on its card; 0: sent at once"),
    ] = DEFAULT_UNDO_SECONDS
    undo_queue_url: Annotated[
        str | None, Meta(description="The undo window's delay queue; unset: every confirm acts at once")
    ] = None

    _READ: ClassVar[Mapping[str, Callable[[str], Any]]] = {
        **ToolSettings._READ,
        "recipient_domains": lambda raw: tuple(d.strip() for d in raw.split(",") if d.strip()),
    }
