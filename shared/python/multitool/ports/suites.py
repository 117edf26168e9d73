"""A suite: the directory, calendar and mailer one user's actions run against.

``builtin`` is this system's own (the DynamoDB directory and bookings, SES); ``microsoft365`` and
``google`` are the user's own suite, reached with that user's token (:mod:`multitool.ports.tokens`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import msgspec

if TYPE_CHECKING:
    from multitool.ports.calendar import Calendar
    from multitool.ports.directory import Directory
    from multitool.ports.mail import Mailer
    from multitool.ports.mailbox import Mailbox

SuiteName = Literal["builtin", "microsoft365", "google"]
SUITE_NAMES: tuple[SuiteName, ...] = ("builtin", "microsoft365", "google")


class Suite(msgspec.Struct, frozen=True):
    directory: Directory
    calendar: Calendar
    mailer: Mailer
    mailbox: Mailbox | None = None
    """The user's own mail, to find a message and answer it in its thread (:mod:`multitool.ports.mailbox`)."""
