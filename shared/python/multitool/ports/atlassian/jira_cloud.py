"""The Jira port on Jira Cloud (REST API v3): one confirmed issue per create.

:class:`JiraCloudClient` posts ``/rest/api/3/issue`` with basic auth (account
email + API token) and the description in Atlassian Document Format, and maps
Jira's answers to typed errors: 400 -> :class:`JiraRejected` (with Jira's
per-field errors), 401/403 -> :class:`JiraUnauthorized`, 429 ->
:class:`JiraRateLimited` (with ``Retry-After``), 5xx or no answer ->
:class:`JiraUnavailable`. Retries are the one policy of every provider client
(:mod:`multitool.ports.retry`): a 429 is tried again after its ``Retry-After``
within the function's time; a create is not idempotent in Jira, so a create
sent without an answer (read timeout, dropped connection, a 502/503/504) is
never sent again: it is :class:`JiraOutcomeUnknown`, the issue may exist, and
the user is told to check before confirming again.

The site URL, email and token live in one Secrets Manager secret
(``{"baseUrl", "email", "apiToken"}``), read on first use by
:class:`SecretsJiraCredentials` and kept for the life of the container.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import urllib3
from botocore.exceptions import BotoCoreError, ClientError

from multitool.ports import retry
from multitool.ports.atlassian.jira_issues import IssueChange, IssueView, JiraIssues, LinkType, Transition
from multitool.ports.jira import USER_SEARCH_PATH as USER_SEARCH_PATH
from multitool.ports.jira import (
    CreatedIssue,
    IssueRequest,
    JiraClient,
    JiraCredentials,
    JiraError,
    JiraNotConfigured,
    JiraOutcomeUnknown,
    JiraRateLimited,
    JiraRejected,
    JiraUnauthorized,
    JiraUnavailable,
    issue_fields,
    matching_account_id,
)

if TYPE_CHECKING:
    from mypy_boto3_secretsmanager import SecretsManagerClient

ISSUE_PATH = "/rest/api/3/issue"
READ_TIMEOUT_SECONDS = 10.0


class JiraCloudClient(JiraIssues):
    """:class:`JiraClient` on Jira Cloud's REST API v3 (existing issues: :class:`JiraIssues`)."""

    def __init__(
        self,
        base_url: str,
        email: str,
        api_token: str,
        http: urllib3.PoolManager,
        *,
        deadline: Callable[[], float] | None = None,
    ) -> None:
        """``deadline``: the seconds the function has left (default: each create's own budget,
        :func:`multitool.ports.retry.budget`)."""
        self._credentials = JiraCredentials(base_url=base_url.rstrip("/"), email=email, api_token=api_token)
        self._http = http
        self._deadline = deadline
        token = base64.b64encode(f"{email}:{api_token}".encode()).decode("ascii")
        self._headers = {
            "Authorization": f"Basic {token}",
            "Accept": "application/json",
            "Content-Type": "application/json",
        }

    @property
    def base_url(self) -> str:
        return self._credentials.base_url

    def create_issue(self, issue: IssueRequest) -> CreatedIssue:
        deadline = self._deadline or retry.budget()
        account_id = self.find_account_id(issue.assignee_email, deadline) if issue.assignee_email else None
        status, headers, body = self._request(
            "POST", ISSUE_PATH, {"fields": issue_fields(issue, account_id)}, deadline
        )
        if status not in (200, 201):
            raise error_for(status, headers, body)
        if not isinstance(body, dict) or not body.get("key"):
            raise JiraUnavailable("Jira answered without an issue key")
        key = str(body["key"])
        return CreatedIssue(id=str(body.get("id", "")), key=key, url=f"{self.base_url}/browse/{key}")

    def find_account_id(self, email: str, deadline: Callable[[], float] | None = None) -> str:
        """The Jira account id of the user with ``email``; :class:`JiraRejected` if there is none."""
        status, headers, body = self._request(
            "GET", f"{USER_SEARCH_PATH}?query={quote(email)}", None, deadline or retry.budget()
        )
        if status != 200:
            raise error_for(status, headers, body)
        return matching_account_id(body, email)

    def _request(
        self, method: str, path: str, payload: dict[str, Any] | None, deadline: Callable[[], float]
    ) -> tuple[int, Any, Any]:
        return send(self._http, method, f"{self.base_url}{path}", payload, self._headers, deadline)

    def _call(
        self, method: str, path: str, payload: dict[str, Any] | None, idempotent: bool
    ) -> tuple[int, Any, Any]:
        deadline = self._deadline or retry.budget()
        url = f"{self.base_url}{path}"
        return send(self._http, method, url, payload, self._headers, deadline, idempotent=idempotent)

    def _error(self, status: int, headers: Any, body: Any) -> JiraError:
        return error_for(status, headers, body)


def send(
    http: urllib3.PoolManager,
    method: str,
    url: str,
    payload: dict[str, Any] | None,
    headers: dict[str, str],
    deadline: Callable[[], float],
    *,
    read_timeout: float = READ_TIMEOUT_SECONDS,
    idempotent: bool | None = None,
) -> tuple[int, Any, Any]:
    """One request to Jira: its status, headers and JSON body (None when it has none).

    Retried as every provider request is (:mod:`multitool.ports.retry`): a create is not
    idempotent in Jira (no idempotency key), so one sent without an answer (a read timeout, a
    dropped connection, a 502/503/504) is never sent again: :class:`JiraOutcomeUnknown`.
    ``idempotent``: the caller knows the request may be sent again (a search, an edit); default:
    a GET or HEAD only."""
    try:
        answer = retry.send(
            http,
            method,
            url,
            body=None if payload is None else json.dumps(payload).encode(),
            headers=headers,
            idempotent=method in ("GET", "HEAD") if idempotent is None else idempotent,
            deadline=deadline,
            read_timeout=read_timeout,
        )
    except retry.OutcomeUnknown as unknown:
        raise JiraOutcomeUnknown(
            f"Jira did not answer after the request was sent ({unknown.cause}); it may have "
            "been carried out. Check Jira before confirming again."
        ) from unknown
    except retry.Unreachable as unreachable:
        raise JiraUnavailable(f"Jira could not be reached ({unreachable.cause})") from unreachable
    return answer.status, answer.headers, retry.body_json(answer.data)


def error_for(status: int, headers: Any, body: Any) -> JiraError:
    """Jira's answer as the typed error the review maps (one place for both ways of signing in)."""
    if status == 400:
        errors = body.get("errors", {}) if isinstance(body, dict) else {}
        messages = body.get("errorMessages", []) if isinstance(body, dict) else []
        errors = {str(k): str(v) for k, v in (errors or {}).items()}
        messages = [str(m) for m in messages or []]
        details = [f"{name}: {text}" for name, text in sorted(errors.items())] + messages
        reason = "Jira rejected the issue" + (f": {'; '.join(details)}" if details else "")
        return JiraRejected(reason, errors=errors, messages=messages)
    if status in (401, 403):
        return JiraUnauthorized(f"Jira refused the credentials (HTTP {status})")
    if status == 429:
        retry_after = retry.retry_after(headers) if headers is not None else None
        wait = f"; retry after {retry_after:g} s" if retry_after is not None else ""
        return JiraRateLimited(f"Jira rate limit reached{wait}", retry_after=retry_after)
    if status == 404:
        return JiraNotConfigured("Jira answered 404: check the site URL")
    return JiraUnavailable(f"Jira is unavailable (HTTP {status})")


class SecretsJiraCredentials:
    """Jira credentials from one Secrets Manager secret, read once per warm container."""

    def __init__(self, client: SecretsManagerClient, secret_arn: str) -> None:
        self._client = client
        self._secret_arn = secret_arn
        self._cached: JiraCredentials | None = None
        self._lock = threading.Lock()

    def get(self) -> JiraCredentials:
        with self._lock:
            if self._cached is None:
                self._cached = self._read()
            return self._cached

    def _read(self) -> JiraCredentials:
        try:
            secret = self._client.get_secret_value(SecretId=self._secret_arn)
        except ClientError as error:
            code = error.response.get("Error", {}).get("Code", "Unknown")
            raise JiraNotConfigured(f"The Jira secret could not be read ({code})") from error
        except BotoCoreError as error:
            raise JiraUnavailable(f"Secrets Manager could not be reached ({type(error).__name__})") from error
        try:
            data = json.loads(secret.get("SecretString") or "")
            return JiraCredentials(
                base_url=str(data["baseUrl"]).rstrip("/"),
                email=str(data["email"]),
                api_token=str(data["apiToken"]),
            )
        except (ValueError, KeyError, TypeError) as error:
            raise JiraNotConfigured(
                'The Jira secret must be JSON with "baseUrl", "email" and "apiToken"'
            ) from error


class DeferredJiraClient:
    """A :class:`JiraClient` built on first use, so only Jira confirms read the secret."""

    def __init__(self, build: Callable[[], JiraClient]) -> None:
        self._build = build
        self._client: JiraClient | None = None
        self._lock = threading.Lock()

    def _built(self) -> JiraClient:
        with self._lock:
            if self._client is None:
                self._client = self._build()
            return self._client

    def create_issue(self, issue: IssueRequest) -> CreatedIssue:
        return self._built().create_issue(issue)

    def issue(self, key: str) -> IssueView | None:
        return self._built().issue(key)

    def search(self, texts: Sequence[str], projects: Sequence[str], limit: int = 10) -> list[IssueView]:
        return self._built().search(texts, projects, limit)

    def transitions(self, key: str) -> list[Transition]:
        return self._built().transitions(key)

    def link_types(self) -> list[LinkType]:
        return self._built().link_types()

    def comment_with(self, key: str, draft_id: str) -> str | None:
        return self._built().comment_with(key, draft_id)

    def add_comment(self, key: str, text: str, draft_id: str) -> str:
        return self._built().add_comment(key, text, draft_id)

    def transition(self, key: str, transition_id: str) -> None:
        self._built().transition(key, transition_id)

    def edit(self, key: str, change: IssueChange) -> None:
        self._built().edit(key, change)

    def link(self, link_type: str, inward_key: str, outward_key: str) -> None:
        self._built().link(link_type, inward_key, outward_key)

    def account_id(self, email: str) -> str:
        return self._built().account_id(email)


def secret_jira(secret_arn: str, base_url: str | None = None) -> DeferredJiraClient:
    """The organization's Jira, its secret read on first use (``base_url`` overrides the secret's)."""

    def from_secret() -> JiraClient:
        import boto3

        credentials = SecretsJiraCredentials(boto3.client("secretsmanager"), secret_arn).get()
        return JiraCloudClient(
            base_url or credentials.base_url, credentials.email, credentials.api_token, urllib3.PoolManager()
        )

    return DeferredJiraClient(from_secret)
