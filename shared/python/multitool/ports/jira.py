"""Jira port: create one confirmed issue (models, errors, the client protocol, the ADF body).

Jira Cloud's adapter and its credentials are :mod:`multitool.ports.atlassian.jira_cloud`; only the review
function loads it (with its HTTP client).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

import msgspec

from multitool.records import Redacted

if TYPE_CHECKING:
    from collections.abc import Sequence

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
USER_SEARCH_PATH = "/rest/api/3/user/search"


class JiraCredentials(Redacted, msgspec.Struct, frozen=True):
    redacted = frozenset({"api_token"})

    base_url: str
    email: str
    api_token: str

    def __post_init__(self) -> None:
        require_https(self.base_url, "The Jira base URL")
        if not self.email or not self.api_token:
            raise JiraNotConfigured("The Jira credentials need an email and an API token")


def require_https(url: str, what: str) -> None:
    """``url`` is absolute https://, or plain http to a loopback address (the sandbox and tests): a
    token is never sent in clear."""
    parts = urlsplit(url)
    if not parts.netloc or parts.scheme not in {"https", "http"}:
        raise JiraNotConfigured(f"{what} must be an absolute https:// URL")
    if parts.scheme == "http" and parts.hostname not in _LOOPBACK_HOSTS:
        raise JiraNotConfigured(f"{what} must use https://")


# What the local sandbox's fake Jira accepts; never a real account.
SANDBOX_CREDENTIALS_EMAIL = "sandbox@multitool.invalid"
SANDBOX_CREDENTIALS_TOKEN = "sandbox-token"  # noqa: S105 - a fixed sandbox value, not a secret
# What the deployed secret holds until someone fills it (the token beside it is generated):
# the stack writes it, `multitool doctor` tells it from real credentials.
PLACEHOLDER_CREDENTIALS = {"baseUrl": "https://your-site.atlassian.net", "email": "jira-bot@example.com"}


class IssueRequest(msgspec.Struct, frozen=True):
    """The fields of one issue, as the user confirmed them."""

    project: str
    issue_type: str
    summary: str
    description: str = ""
    priority: str | None = None
    assignee_email: str | None = None
    requested_by: str | None = None
    """Who asked for the issue, in words (the bot creates every issue): its description ends with it."""


class CreatedIssue(msgspec.Struct, frozen=True):
    id: str
    key: str
    url: str


class JiraError(Exception):
    """Jira did not create the issue; ``reason`` is safe to store and show."""

    code = "jira_failed"

    def __init__(self, reason: str, *, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class JiraNotConfigured(JiraError):
    code = "jira_not_configured"


class JiraRejected(JiraError):
    """400: Jira refused the fields; ``errors`` maps Jira field names to its messages."""

    code = "jira_rejected"

    def __init__(self, reason: str, *, errors: dict[str, str], messages: list[str]) -> None:
        super().__init__(reason)
        self.errors = errors
        self.messages = messages


class JiraUnauthorized(JiraError):
    code = "jira_unauthorized"


class JiraRateLimited(JiraError):
    code = "jira_rate_limited"


class JiraUnavailable(JiraError):
    code = "jira_unavailable"


class JiraOutcomeUnknown(JiraUnavailable):
    """The create reached Jira but no answer came back: the issue may exist. Jira has no
    idempotency key, so the user checks Jira before confirming again instead of retrying blindly."""

    code = "jira_outcome_unknown"


class IssueLink(msgspec.Struct, frozen=True):
    """One link of an issue, read from its side: ``outward`` when this issue is the link's source."""

    type: str
    other: str
    outward: bool


class IssueView(msgspec.Struct, frozen=True):
    """One issue as a card shows it; ``updated`` is its version (it moves with every change)."""

    key: str
    id: str
    project: str
    summary: str
    status: str
    updated: str
    assignee: str | None = None
    assignee_account_id: str | None = None
    priority: str | None = None
    labels: tuple[str, ...] = ()
    due_date: str | None = None
    links: tuple[IssueLink, ...] = ()


class Transition(msgspec.Struct, frozen=True):
    """A transition the issue offers now: its id, its name ("Close issue"), the status it leads to."""

    id: str
    name: str
    to_status: str


class LinkType(msgspec.Struct, frozen=True):
    """One of the site's link types: name ("Blocks"), outward ("blocks") and inward ("is blocked by")."""

    id: str
    name: str
    outward: str
    inward: str


class IssueChange(msgspec.Struct, frozen=True):
    """The fields an edit sets (None: left as it is); ``assignee_account_id`` "" unassigns."""

    summary: str | None = None
    priority: str | None = None
    assignee_account_id: str | None = None
    labels_add: tuple[str, ...] = ()
    labels_remove: tuple[str, ...] = ()
    due_date: str | None = None

    def body(self) -> dict[str, Any]:
        """The edit request's JSON (``PUT /rest/api/3/issue/{key}``)."""
        fields: dict[str, Any] = {}
        if self.summary is not None:
            fields["summary"] = self.summary
        if self.priority is not None:
            fields["priority"] = {"name": self.priority}
        if self.assignee_account_id is not None:
            fields["assignee"] = {"accountId": self.assignee_account_id or None}
        if self.due_date is not None:
            fields["duedate"] = self.due_date
        body: dict[str, Any] = {"fields": fields}
        labels = [{"add": label} for label in self.labels_add] + [
            {"remove": label} for label in self.labels_remove
        ]
        if labels:
            body["update"] = {"labels": labels}
        return body

    def applied(self, issue: IssueView) -> bool:
        """Whether ``issue`` already shows every part of the change (a retried edit is then done)."""
        labels = set(issue.labels)
        return (
            (self.summary is None or issue.summary == self.summary)
            and (self.priority is None or issue.priority == self.priority)
            and (
                self.assignee_account_id is None
                or (issue.assignee_account_id or "") == self.assignee_account_id
            )
            and (self.due_date is None or issue.due_date == self.due_date)
            and set(self.labels_add) <= labels
            and not set(self.labels_remove) & labels
        )


def matching_account_id(body: Any, email: str) -> str:
    """The account id in the user search's answer ``body`` of the user whose address is ``email``;
    :class:`JiraRejected` if there is none."""
    users = body if isinstance(body, list) else []
    wanted = email.casefold()
    exact = [u for u in users if str(u.get("emailAddress", "")).casefold() == wanted]
    # Jira hides emailAddress under some privacy settings; a single match is then the user.
    matches = exact or (users if len(users) == 1 else [])
    if not matches or not matches[0].get("accountId"):
        raise JiraRejected(
            "The assignee has no Jira account",
            errors={"assignee": "No Jira user matches the assignee's email address"},
            messages=[],
        )
    return str(matches[0]["accountId"])


class JiraClient(Protocol):
    """Jira as a confirm writes it: a new issue, or a change to one that exists
    (:mod:`multitool.ports.atlassian.jira_issues`, whose reads a card makes with the same client)."""

    def create_issue(self, issue: IssueRequest) -> CreatedIssue:
        """Create ``issue``; raise :class:`JiraError` when Jira did not create it."""
        ...

    def issue(self, key: str) -> IssueView | None: ...

    def search(self, texts: Sequence[str], projects: Sequence[str], limit: int = 10) -> list[IssueView]: ...

    def transitions(self, key: str) -> list[Transition]: ...

    def link_types(self) -> list[LinkType]: ...

    def comment_with(self, key: str, draft_id: str) -> str | None: ...

    def add_comment(self, key: str, text: str, draft_id: str) -> str: ...

    def transition(self, key: str, transition_id: str) -> None: ...

    def edit(self, key: str, change: IssueChange) -> None: ...

    def link(self, link_type: str, inward_key: str, outward_key: str) -> None: ...

    def account_id(self, email: str) -> str: ...


def adf_document(text: str) -> dict[str, Any]:
    """Plain text as an Atlassian Document Format ``doc``.

    Blank lines separate paragraphs; a single newline is a ``hardBreak``.
    """
    paragraphs: list[dict[str, Any]] = []
    for block in _PARAGRAPH_BREAK.split(text.replace("\r\n", "\n").strip("\n")):
        lines = [line.rstrip() for line in block.strip("\n").split("\n")]
        if not any(lines):
            continue
        content: list[dict[str, Any]] = []
        for index, line in enumerate(lines):
            if index:
                content.append({"type": "hardBreak"})
            if line:
                content.append({"type": "text", "text": line})
        paragraphs.append({"type": "paragraph", "content": content})
    return {"type": "doc", "version": 1, "content": paragraphs}


def issue_fields(issue: IssueRequest, assignee_account_id: str | None = None) -> dict[str, Any]:
    """The ``fields`` object of a create-issue request."""
    fields: dict[str, Any] = {
        "project": {"key": issue.project},
        "issuetype": {"name": issue.issue_type},
        "summary": issue.summary,
    }
    description = issue.description.strip()
    if issue.requested_by:
        description = f"{description}\n\nRequested by {issue.requested_by}".strip()
    if description:
        fields["description"] = adf_document(description)
    if issue.priority:
        fields["priority"] = {"name": issue.priority}
    if assignee_account_id:
        fields["assignee"] = {"accountId": assignee_account_id}
    return fields
