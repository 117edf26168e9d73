"""The Jira port as the signed-in user: Atlassian OAuth 2.0 (3LO) through AgentCore Identity.

With ``jiraAuth=user`` each confirm creates the issue with the user's own Atlassian token (the
:class:`~multitool.ports.tokens.TokenSource` asks AgentCore Identity's vault for it), so Jira records
the user as the reporter and applies the user's own project permissions. Atlassian's rules for
such requests (https://developer.atlassian.com/cloud/oauth/getting-started/making-calls-to-api/):
they go to ``api.atlassian.com``, not to the site, with ``Authorization: Bearer``; a site's REST
API is under ``/ex/jira/{cloudId}``; ``GET /oauth/token/accessible-resources`` lists the sites the
token is valid for, each with its cloud id as ``id`` and its ``url``, in no particular order. The
site here is the one whose ``url`` is the configured site URL, looked up once per user per warm
function.

Jira's answers map as for the organization's account (:func:`multitool.ports.atlassian.jira_cloud.error_for`),
except that a 401 means the user's connection is no longer accepted
(:class:`~multitool.ports.tokens.AccountNotConnected`: the draft stays confirmable) and a 403 is the
user's own Jira permission.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

import urllib3

from multitool.ports import retry
from multitool.ports.atlassian.jira_cloud import ISSUE_PATH, error_for, send
from multitool.ports.atlassian.jira_issues import JiraIssues
from multitool.ports.jira import (
    USER_SEARCH_PATH,
    CreatedIssue,
    IssueRequest,
    JiraError,
    JiraNotConfigured,
    JiraUnauthorized,
    JiraUnavailable,
    issue_fields,
    matching_account_id,
    require_https,
)
from multitool.ports.tokens import Account, AccountNotConnected

if TYPE_CHECKING:
    from multitool.ports.tokens import TokenSource

ATLASSIAN_API = "https://api.atlassian.com"
RESOURCES_PATH = "/oauth/token/accessible-resources"
# Atlassian's classic Jira scopes: write:jira-work creates the issue, read:jira-user finds the
# assignee's account (GET /rest/api/3/user/search), read:jira-work reads the project and issue type
# the create names; offline_access asks Atlassian for a refresh token, so AgentCore's vault keeps the
# user connected past the access token's lifetime. write:jira-work and read:jira-user are the names
# accessible-resources' example answer carries (the making-calls page above); the scopes each
# operation requires are listed on its page of Jira's REST API v3 reference
# (https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/), the place to
# check them. The app registered in the developer console must be given the same (docs/deploy.md).
JIRA_SCOPES = ("read:jira-work", "write:jira-work", "read:jira-user", "offline_access")
CLOUD_IDS_KEPT = 1024


def site_key(url: str) -> str:
    """A site URL as compared with accessible-resources' ``url``: scheme and host, lower case."""
    parts = urlsplit(url.strip())
    return f"{parts.scheme.lower()}://{(parts.netloc or '').lower()}"


class CloudIds:
    """Each user's cloud id of the configured site, for the life of a warm function (bounded)."""

    def __init__(self, kept: int = CLOUD_IDS_KEPT) -> None:
        self._kept = kept
        self._ids: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, user_id: str) -> str | None:
        with self._lock:
            found = self._ids.get(user_id)
            if found is not None:
                self._ids.move_to_end(user_id)
            return found

    def put(self, user_id: str, cloud_id: str) -> None:
        with self._lock:
            self._ids[user_id] = cloud_id
            self._ids.move_to_end(user_id)
            while len(self._ids) > self._kept:
                self._ids.popitem(last=False)

    def forget(self, user_id: str) -> None:
        with self._lock:
            self._ids.pop(user_id, None)


class AtlassianJiraClient(JiraIssues):
    """:class:`~multitool.ports.jira.JiraClient` acting as ``account`` on the site at ``site_url``."""

    def __init__(
        self,
        account: Account,
        tokens: TokenSource,
        *,
        site_url: str,
        http: urllib3.PoolManager,
        cloud_ids: CloudIds,
        api_base: str = ATLASSIAN_API,
        deadline: Callable[[], float] | None = None,
    ) -> None:
        require_https(site_url, "The Jira site URL")
        require_https(api_base, "Atlassian's API URL")
        self._account = account
        self._tokens = tokens
        self._site_url = site_url.rstrip("/")
        self._http = http
        self._cloud_ids = cloud_ids
        self._api_base = api_base.rstrip("/")
        self._deadline = deadline  # None: each create's own budget (multitool.ports.retry.budget)

    def create_issue(self, issue: IssueRequest) -> CreatedIssue:
        deadline = self._deadline or retry.budget()
        headers = self._headers(self._tokens.access_token("atlassian", self._account, JIRA_SCOPES))
        site = f"{self._api_base}/ex/jira/{quote(self._cloud_id(headers, deadline), safe='')}"
        account_id = None
        if issue.assignee_email:
            url = f"{site}{USER_SEARCH_PATH}?query={quote(issue.assignee_email)}"
            status, answered, body = send(self._http, "GET", url, None, headers, deadline)
            if status != 200:
                raise self._error(status, answered, body)
            account_id = matching_account_id(body, issue.assignee_email)
        fields = {"fields": issue_fields(issue, account_id)}
        url = f"{site}{ISSUE_PATH}"
        status, answered, body = send(self._http, "POST", url, fields, headers, deadline)
        if status not in (200, 201):
            raise self._error(status, answered, body)
        if not isinstance(body, dict) or not body.get("key"):
            raise JiraUnavailable("Jira answered without an issue key")
        key = str(body["key"])
        return CreatedIssue(id=str(body.get("id", "")), key=key, url=f"{self._site_url}/browse/{key}")

    def _call(
        self, method: str, path: str, payload: dict[str, Any] | None, idempotent: bool
    ) -> tuple[int, Any, Any]:
        """One request on the site through Atlassian's gateway, with the user's own token."""
        deadline = self._deadline or retry.budget()
        headers = self._headers(self._tokens.access_token("atlassian", self._account, JIRA_SCOPES))
        site = f"{self._api_base}/ex/jira/{quote(self._cloud_id(headers, deadline), safe='')}"
        return send(self._http, method, f"{site}{path}", payload, headers, deadline, idempotent=idempotent)

    def _cloud_id(self, headers: dict[str, str], deadline: Callable[[], float]) -> str:
        user = self._account.user_id
        known = self._cloud_ids.get(user)
        if known is not None:
            return known
        url = f"{self._api_base}{RESOURCES_PATH}"
        status, answered, body = send(self._http, "GET", url, None, headers, deadline)
        if status != 200:
            raise self._error(status, answered, body)
        wanted = site_key(self._site_url)
        sites = body if isinstance(body, list) else []
        cloud_id = next(
            (
                str(site["id"])
                for site in sites
                if isinstance(site, dict) and site.get("id") and site_key(str(site.get("url", ""))) == wanted
            ),
            None,
        )
        if cloud_id is None:
            raise JiraUnauthorized(
                f"Your Atlassian connection does not include {self._site_url}: disconnect Atlassian, "
                "then connect it again and choose that site."
            )
        self._cloud_ids.put(user, cloud_id)
        return cloud_id

    def _error(self, status: int, headers: Any, body: Any) -> JiraError | AccountNotConnected:
        if status == 401:
            self._cloud_ids.forget(self._account.user_id)
            return AccountNotConnected(
                "atlassian",
                "Atlassian no longer accepts your connection; connect it again. Nothing was created.",
            )
        if status == 403:
            return JiraUnauthorized(
                "Jira refused your account: you may not create issues in this project (HTTP 403)."
            )
        if status == 404:
            self._cloud_ids.forget(self._account.user_id)
            return JiraNotConfigured(f"Jira answered 404: check the site URL ({self._site_url})")
        return error_for(status, headers, body)

    @staticmethod
    def _headers(token: str) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json",
            "Content-Type": "application/json",
        }


def caller_jira(
    tokens: TokenSource,
    *,
    site_url: str,
    http: urllib3.PoolManager,
    api_base: str = ATLASSIAN_API,
) -> Callable[[Account], AtlassianJiraClient]:
    """Each account's own Jira client over one ``PoolManager`` and one cloud-id cache."""
    cloud_ids = CloudIds()

    def for_account(account: Account) -> AtlassianJiraClient:
        return AtlassianJiraClient(
            account, tokens, site_url=site_url, http=http, cloud_ids=cloud_ids, api_base=api_base
        )

    return for_account
