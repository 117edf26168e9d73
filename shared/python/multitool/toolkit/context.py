"""What every tool call is given: who is asking, the deployment's choices, the ports; the input limits.

Tools never read the environment or make clients: the caller hands in a
:class:`ToolContext` (who, which session, when, which time zone), a
:class:`ToolConfig` (Jira projects, working hours, draft TTL) and
:class:`ToolPorts` (directory, calendar, drafts). Their errors are in :mod:`multitool.toolkit.errors`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any
from zoneinfo import ZoneInfo

import msgspec
from pydantic import StringConstraints

from multitool.drafts import DEFAULT_TTL_SECONDS
from multitool.records import Redacted
from multitool.settings import DEFAULT_JIRA_PROJECTS, JiraProject, _projects
from multitool.text import CLEAN_SINGLE_LINE
from multitool.toolkit.errors import InvalidInput
from multitool.zones import iana_zone, valid_locale

if TYPE_CHECKING:
    from multitool.ports.atlassian.jira_issues import JiraReader
    from multitool.ports.calendar import Calendar
    from multitool.ports.directory import Directory
    from multitool.ports.drafts import DraftStore
    from multitool.ports.mailbox import Mailbox
    from multitool.ports.suites import Suite
    from multitool.ports.tokens import Account
    from multitool.settings import ToolSettings


# Input limits, shared by the argument models and the README.
MAX_RECIPIENTS = 20
MAX_ATTENDEES = 20
MAX_NAME_CHARS = 320

# A name is one line of text (multitool.text): cleaned first, then trimmed and measured.
RawName = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME_CHARS), CLEAN_SINGLE_LINE
]
MAX_EMAIL_CHARS = 320
MAX_SUBJECT_CHARS = 200
MAX_BODY_CHARS = 10_000
MAX_TITLE_CHARS = 200
MAX_WHEN_CHARS = 100
MAX_SUMMARY_CHARS = 255
MAX_DESCRIPTION_CHARS = 10_000
MIN_DURATION_MINUTES = 5
MAX_DURATION_MINUTES = 480
MAX_CALLS_PER_BATCH = 25


_ADDRESS = re.compile(r"^[^@\s<>\"',;]+@[^@\s<>\"',;]+\.[^@\s<>\"',;]+$")


_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


def _ascii_domain(domain: str) -> str | None:
    """The domain as ASCII (an internationalized one in its IDNA form), or None when it is none."""
    if not domain.isascii():
        # IDNA's mapping would drop a zero-width character silently: only letters, digits, dots, hyphens.
        if not all(c.isalnum() or c in ".-" or unicodedata.category(c).startswith("M") for c in domain):
            return None
        try:
            domain = domain.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    labels = domain.split(".")
    return domain if len(labels) >= 2 and all(_LABEL.match(label) for label in labels) else None


def is_address(text: str) -> bool:
    """Whether the text reads as one email address: an ASCII local part at an ASCII or IDNA domain.

    A character no one sees ("ceo\u200b@company.com") or any other non-ASCII local part is not
    an address: it would reach a different mailbox than the one the user reads.
    """
    if _ADDRESS.match(text) is None:
        return False
    local, _, domain = text.rpartition("@")
    if not (local.isascii() and local.isprintable()):
        return False
    return _ascii_domain(domain) is not None


class ToolContext(Redacted, msgspec.Struct, frozen=True):
    """Who is asking, in which session, at what moment, in which time zone.

    ``requester_email``: the asking user's verified address, when the caller knows it; the
    meeting scheduler then keeps the requester's own bookings out of its proposals.
    ``user_token``: the asking user's own JWT, when the call runs in the function that received it
    (the user's own suite exchanges it at AgentCore Identity); never stored, logged or traced.
    """

    redacted = frozenset({"user_token"})

    owner: str
    session_id: str
    now: datetime = msgspec.field(default_factory=lambda: datetime.now(UTC))
    timezone: str = "UTC"
    requester_email: str | None = None
    user_token: str | None = None
    locale: str | None = None
    """The user's BCP 47 locale ("en-GB"), when the sign-in or the directory says it: how their
    numeric dates are read (:func:`multitool.zones.date_order`; else from their zone's country)."""

    def __post_init__(self) -> None:
        if not self.owner:
            raise InvalidInput("The caller's user id is missing.", field="sessionAttributes.userId")
        if not self.session_id:
            raise InvalidInput("The session id is missing.", field="sessionId")
        if self.now.tzinfo is None:
            raise InvalidInput("'now' must carry a UTC offset.", field="sessionAttributes.now")
        zone_of(self.timezone)
        if self.locale is not None and valid_locale(self.locale) is None:
            raise InvalidInput(
                "sessionAttributes.locale must be a BCP 47 language tag such as en-GB.",
                field="sessionAttributes.locale",
            )
        email = self.requester_email
        if email is not None and not (len(email) <= MAX_EMAIL_CHARS and is_address(email)):
            raise InvalidInput(
                "sessionAttributes.userEmail must be an email address.", field="sessionAttributes.userEmail"
            )

    @property
    def zone(self) -> ZoneInfo:
        return zone_of(self.timezone)

    @property
    def local_now(self) -> datetime:
        return self.now.astimezone(self.zone)

    @classmethod
    def from_session(
        cls, session_id: str, attributes: Mapping[str, Any] | None, *, default_timezone: str = "UTC"
    ) -> ToolContext:
        """Build from Bedrock ``sessionAttributes`` (``userId``, ``timezone``, optional ``now``,
        ``userEmail`` and ``locale``)."""
        attributes = attributes or {}
        owner = attributes.get("userId")
        if not isinstance(owner, str) or not owner.strip():
            raise InvalidInput("sessionAttributes.userId is missing.", field="sessionAttributes.userId")
        timezone = attributes.get("timezone") or default_timezone
        if not isinstance(timezone, str):
            raise InvalidInput(
                "sessionAttributes.timezone must be a string.", field="sessionAttributes.timezone"
            )
        raw_now = attributes.get("now")
        now = datetime.now(UTC)
        if raw_now:
            try:
                now = datetime.fromisoformat(str(raw_now))
            except ValueError as error:
                raise InvalidInput(
                    "sessionAttributes.now must be an ISO 8601 timestamp.", field="sessionAttributes.now"
                ) from error
            if now.tzinfo is None:
                now = now.replace(tzinfo=zone_of(timezone))
        email = attributes.get("userEmail") or None
        if email is not None and not isinstance(email, str):
            raise InvalidInput(
                "sessionAttributes.userEmail must be a string.", field="sessionAttributes.userEmail"
            )
        locale = attributes.get("locale") or None
        return cls(
            owner=owner.strip(),
            session_id=session_id,
            now=now,
            timezone=timezone,
            requester_email=email,
            locale=locale if isinstance(locale, str) else None,
        )


def zone_of(name: str) -> ZoneInfo:
    """The IANA zone, or a clear :class:`InvalidInput`."""
    zone = iana_zone(name)
    if zone is None:
        text = str(name)
        shown = text if len(text) <= 64 else f"{text[:61]}..."
        raise InvalidInput(
            f"'{shown}' is not an IANA time zone (e.g. Europe/Berlin).", field="sessionAttributes.timezone"
        )
    return zone


class ToolConfig(msgspec.Struct, frozen=True):
    """Deployment choices the tools honour (from :class:`multitool.settings.ToolSettings`)."""

    jira_projects: Mapping[str, JiraProject] = msgspec.field(
        default_factory=lambda: _projects(DEFAULT_JIRA_PROJECTS)
    )
    working_hours_start: int = 9
    working_hours_end: int = 17
    draft_ttl_seconds: int = DEFAULT_TTL_SECONDS
    slot_step_minutes: int = 30
    max_slots: int = 3
    search_working_days: int = 5

    @classmethod
    def from_settings(cls, settings: ToolSettings) -> ToolConfig:
        return cls(
            jira_projects=settings.jira_projects,
            working_hours_start=settings.working_hours_start,
            working_hours_end=settings.working_hours_end,
            draft_ttl_seconds=settings.draft_ttl_seconds,
        )


class ToolPorts(msgspec.Struct, frozen=True):
    """The backends a tool may read or write (drafts only: never send, book or create)."""

    directory: Directory
    calendar: Calendar
    drafts: DraftStore
    suites: Callable[[Account], Suite] | None = None
    """The caller's own suite (``CALENDAR`` a provider): its directory and calendar replace
    ``directory`` and ``calendar`` for that caller's calls (:meth:`for_caller`)."""
    jira: JiraReader | None = None
    """Jira as the organization's account reads it (the issues a card names); None: no Jira reads."""
    jiras: Callable[[Account], JiraReader] | None = None
    """Each caller's own Jira (Jira as the user): replaces ``jira`` for that caller's calls."""

    mailboxes: Callable[[str | None], Mailbox | None] | None = None
    """A user's mailbox by their verified address (builtin: the mailbox table); the caller's own
    suite's mailbox replaces it (:meth:`for_caller`). None: no mailbox to search."""

    def mailbox(self, ctx: ToolContext) -> Mailbox | None:
        """The caller's own mailbox (only theirs: it is opened by their verified address or account)."""
        return self.mailboxes(ctx.requester_email) if self.mailboxes is not None else None

    def for_caller(self, ctx: ToolContext) -> ToolPorts:
        if self.suites is None and self.jiras is None:
            return self
        from multitool.ports.tokens import Account

        account = Account(user_id=ctx.owner, email=ctx.requester_email, user_token=ctx.user_token)
        suite = self.suites(account) if self.suites is not None else None
        own = suite.mailbox if suite is not None else None
        return ToolPorts(
            directory=suite.directory if suite is not None else self.directory,
            calendar=suite.calendar if suite is not None else self.calendar,
            drafts=self.drafts,
            jira=self.jiras(account) if self.jiras is not None else self.jira,
            mailboxes=(lambda _address: own)
            if suite is not None and own is not None
            else (None if suite is not None else self.mailboxes),
        )
