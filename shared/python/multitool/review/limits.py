"""What a confirm may send, and to whom: the recipient policy of a deployment.

A confirm's edits may replace every recipient, so the review, not the model, bounds what one
user can mail from the organization's address:

- **who is inside**: an address whose domain is one of ``inside_domains`` (the deployment's
  ``recipientDomains``, else the sender address's own domain);
- **outside recipients** are ``allowed`` (counted like anyone), ``capped`` (counted, and also
  held to ``outside_per_day``) or ``off`` (refused, naming the field: nothing is sent);
- **a daily quota** of recipients per user (``per_day``, UTC days), counted before the send by
  one conditional write (:class:`multitool.ports.quota.RecipientQuota`), so concurrent confirms
  cannot overshoot it; a confirm past it is a 429 with ``Retry-After`` (the next UTC midnight).

Every address a side effect mails counts: an email's ``to`` and ``cc``, a meeting's attendees
(the invitation is a mail to each); the requester's own verified address, which only gets a copy
of the invitation, does not. A side effect that fails gives its count back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from http import HTTPStatus
from typing import ClassVar

import msgspec

from multitool.ports.quota import Spend
from multitool.review.errors import retry_after_header
from multitool.settings.review import (
    DEFAULT_OUTSIDE_RECIPIENTS_PER_DAY,
    DEFAULT_RECIPIENTS_PER_DAY,
    OutsideRecipients,
)
from multitool.toolkit.errors import InvalidEdits, ReviewError


class RecipientPolicy(msgspec.Struct, frozen=True):
    inside_domains: frozenset[str]
    outside: OutsideRecipients = OutsideRecipients.CAPPED
    per_day: int = DEFAULT_RECIPIENTS_PER_DAY
    outside_per_day: int = DEFAULT_OUTSIDE_RECIPIENTS_PER_DAY

    @classmethod
    def of(
        cls,
        domains: Iterable[str],
        *,
        outside: OutsideRecipients = OutsideRecipients.CAPPED,
        per_day: int = DEFAULT_RECIPIENTS_PER_DAY,
        outside_per_day: int = DEFAULT_OUTSIDE_RECIPIENTS_PER_DAY,
    ) -> RecipientPolicy:
        inside = frozenset(d.strip().casefold().rstrip(".") for d in domains if d.strip())
        if not inside:
            raise ValueError("A recipient policy needs at least one inside domain")
        return cls(inside, outside, per_day, outside_per_day)

    def is_inside(self, address: str) -> bool:
        domain = address.rpartition("@")[2].casefold().rstrip(".")
        return domain in self.inside_domains

    def spend(self, recipients: Sequence[tuple[str, str]]) -> Spend:
        """The count of ``recipients`` (``(field, address)`` pairs), or :class:`RecipientNotAllowed`.

        An address is counted once however many fields name it.
        """
        seen: dict[str, bool] = {}
        for where, address in recipients:
            key = address.casefold()
            if key in seen:
                continue
            inside = self.is_inside(address)
            if not inside and self.outside is OutsideRecipients.OFF:
                raise RecipientNotAllowed(
                    f"'{address}' is outside {self._domains()}: this deployment sends only inside them.",
                    field=where,
                )
            seen[key] = inside
        return Spend(total=len(seen), outside=sum(1 for inside in seen.values() if not inside))

    def outside_limit(self) -> int | None:
        return self.outside_per_day if self.outside is OutsideRecipients.CAPPED else None

    def _domains(self) -> str:
        return ", ".join(sorted(self.inside_domains))


class RecipientNotAllowed(InvalidEdits):
    """An address the deployment does not mail (outside its domains with ``outsideRecipients=off``)."""

    code = "recipient_not_allowed"


class QuotaExceeded(ReviewError):
    """The confirm would take the user past a daily recipient quota; nothing was sent."""

    code: ClassVar[str] = "recipient_quota_exceeded"
    status: ClassVar[int] = HTTPStatus.TOO_MANY_REQUESTS

    def __init__(self, message: str, *, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after

    def headers(self) -> dict[str, str]:
        return retry_after_header(self.retry_after)


class ApprovalRequired(ReviewError):
    """A self-registered user an administrator has not approved yet: nothing is sent, booked or created."""

    code: ClassVar[str] = "approval_required"
    status: ClassVar[int] = HTTPStatus.FORBIDDEN


def quota_day(now: datetime) -> str:
    """The UTC day a spend counts against: ``2026-12-01``."""
    return now.astimezone(UTC).date().isoformat()


def until_next_day(now: datetime) -> float:
    """Seconds from ``now`` to the next UTC midnight, when the quota starts again (at least 1)."""
    moment = now.astimezone(UTC)
    midnight = datetime(moment.year, moment.month, moment.day, tzinfo=UTC) + timedelta(days=1)
    return max(1.0, (midnight - moment).total_seconds())
