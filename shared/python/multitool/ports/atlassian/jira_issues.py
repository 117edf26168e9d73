"""The Jira port on issues that already exist: read, search, comment, transition, edit, link.

Both ways of signing in (the organization's account, :mod:`multitool.ports.atlassian.jira_cloud`; each user's
own, :mod:`multitool.ports.atlassian.jira_user`) make the same REST API v3 requests, only the address and
the ``Authorization`` differ: :class:`JiraIssues` holds the requests once, over the client's own
``_call`` (one request: its status, headers and JSON body) and ``_error`` (Jira's answer as a typed
error). The reads run when a card is made (:mod:`multitool.tools.jira.find`); the writes only at a
confirm, in the review function.

The requests (Jira Cloud REST API v3, https://developer.atlassian.com/cloud/jira/platform/rest/v3/):

- read one issue: ``GET /rest/api/3/issue/{key}?fields=...`` (404 when it does not exist or the
  account may not browse it: Jira answers both the same);
- search: ``POST /rest/api/3/search/jql`` with ``{"jql", "fields", "maxResults"}`` (the enhanced
  search; ``/rest/api/3/search`` is being removed, api-group-issue-search);
- the transitions an issue offers now: ``GET /rest/api/3/issue/{key}/transitions``; make one:
  ``POST`` the same path with ``{"transition": {"id"}}`` (204);
- comment: ``POST /rest/api/3/issue/{key}/comment`` with an ADF ``body`` and ``properties`` (the
  Comment schema's list of entity properties, set with the comment in the same request); the
  newest comments ``GET /rest/api/3/issue/{key}/comment?orderBy=-created``, and their properties
  ``POST /rest/api/3/comment/list?expand=properties`` (``Get comments by IDs``: the one comment
  read that returns properties);
- edit: ``PUT /rest/api/3/issue/{key}`` with ``fields`` (summary, priority, assignee, duedate) and
  ``update.labels`` (``add`` / ``remove`` operations), 204;
- link types: ``GET /rest/api/3/issueLinkType``; link: ``POST /rest/api/3/issueLink`` with the
  type's name, ``inwardIssue`` and ``outwardIssue`` (201). Jira stores a link from its source to
  its destination and the REST resource takes the source as ``inwardIssue``: "A blocks B" is
  ``inwardIssue`` A, ``outwardIssue`` B, and B's view reads "is blocked by A" (Atlassian's
  issue-linking-model guide: the direction is only interpretable through the type's
  ``outward``/``inward`` words).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol
from urllib.parse import quote, urlencode

from multitool.ports.jira import (
    USER_SEARCH_PATH,
    IssueChange,
    IssueLink,
    IssueView,
    JiraError,
    JiraRejected,
    JiraUnavailable,
    LinkType,
    Transition,
    adf_document,
    matching_account_id,
)

ISSUE_FIELDS = ("summary", "status", "assignee", "priority", "labels", "duedate", "updated", "project")
SEARCH_PATH = "/rest/api/3/search/jql"
LINK_TYPES_PATH = "/rest/api/3/issueLinkType"
LINK_PATH = "/rest/api/3/issueLink"
COMMENTS_BY_ID_PATH = "/rest/api/3/comment/list"
DRAFT_PROPERTY = "multitool.draft"
"""The entity property a comment made at a confirm carries: ``{"draftId": ...}``. Jira takes no
idempotency key, so a retried confirm reads the issue's newest comments for it first."""
COMMENTS_READ = 50
"""How many of the issue's newest comments a retry reads for its own (a retry follows within minutes)."""
MAX_SEARCH_RESULTS = 10


class JiraReader(Protocol):
    """What a card reads of Jira: the caller's issues, what they offer, the site's link types."""

    def issue(self, key: str) -> IssueView | None:
        """The issue ``key``, or None when it does not exist or the account may not browse it."""
        ...

    def search(
        self, texts: Sequence[str], projects: Sequence[str], limit: int = MAX_SEARCH_RESULTS
    ) -> list[IssueView]:
        """Issues of ``projects`` whose text has any of ``texts``, the most recently updated first."""
        ...

    def transitions(self, key: str) -> list[Transition]: ...

    def link_types(self) -> list[LinkType]: ...


Call = Callable[[str, str, dict[str, Any] | None, bool], tuple[int, Any, Any]]
"""One request: method, path under the site's REST root, JSON body, idempotent -> status, headers, body."""


def jql_text(words: str) -> str:
    """``words`` as a JQL string literal: quotes and backslashes escaped (JQL's reserved characters in
    a quoted string are taken literally, the text search reads the words)."""
    cleaned = " ".join(words.replace("\\", " ").replace('"', " ").split())
    return f'"{cleaned}"'


def search_jql(texts: Sequence[str], projects: Sequence[str]) -> str:
    """The one JQL of a turn's word search: any of the texts in the permitted projects, the most
    recently updated first (the caller ranks each reference's own among them)."""
    keys = ", ".join(f'"{p}"' for p in projects)
    either = " OR ".join(f"text ~ {jql_text(t)}" for t in texts)
    return f"project in ({keys}) AND ({either}) ORDER BY updated DESC"


def issue_view(body: Any) -> IssueView:
    """An issue of Jira's answer (the issue read or one of a search's ``issues``)."""
    if not isinstance(body, dict) or not body.get("key"):
        raise JiraUnavailable("Jira answered without an issue")
    fields: dict[str, Any] = body["fields"] if isinstance(body.get("fields"), dict) else {}
    assignee = fields.get("assignee") if isinstance(fields.get("assignee"), dict) else None
    links = []
    for link in fields.get("issuelinks") or []:
        kind = (link.get("type") or {}).get("name", "")
        if isinstance(link.get("outwardIssue"), dict):
            links.append(IssueLink(type=kind, other=str(link["outwardIssue"].get("key", "")), outward=True))
        elif isinstance(link.get("inwardIssue"), dict):
            links.append(IssueLink(type=kind, other=str(link["inwardIssue"].get("key", "")), outward=False))
    key = str(body["key"])
    return IssueView(
        key=key,
        id=str(body.get("id", "")),
        project=str((fields.get("project") or {}).get("key") or key.rpartition("-")[0]),
        summary=str(fields.get("summary") or ""),
        status=str((fields.get("status") or {}).get("name") or ""),
        updated=str(fields.get("updated") or ""),
        assignee=str(assignee.get("displayName") or "") or None if assignee else None,
        assignee_account_id=str(assignee.get("accountId") or "") or None if assignee else None,
        priority=(fields.get("priority") or {}).get("name"),
        labels=tuple(str(label) for label in fields.get("labels") or ()),
        due_date=fields.get("duedate"),
        links=tuple(links),
    )


class JiraIssues:
    """The requests on existing issues, over a client's ``_call`` and ``_error``."""

    def _call(
        self, method: str, path: str, payload: dict[str, Any] | None, idempotent: bool
    ) -> tuple[int, Any, Any]:
        raise NotImplementedError

    def _error(self, status: int, headers: Any, body: Any) -> Exception:
        raise NotImplementedError

    def _ok(self, method: str, path: str, payload: dict[str, Any] | None = None, *, idempotent: bool) -> Any:
        status, headers, body = self._call(method, path, payload, idempotent)
        if status not in (200, 201, 204):
            raise self._error(status, headers, body)
        return body

    # -- reads -----------------------------------------------------------------------

    def issue(self, key: str) -> IssueView | None:
        fields = ",".join((*ISSUE_FIELDS, "issuelinks"))
        status, headers, body = self._call(
            "GET", f"/rest/api/3/issue/{quote(key, safe='')}?fields={fields}", None, True
        )
        if status == 404:
            return None
        if status != 200:
            raise self._error(status, headers, body)
        return issue_view(body)

    def search(
        self, texts: Sequence[str], projects: Sequence[str], limit: int = MAX_SEARCH_RESULTS
    ) -> list[IssueView]:
        texts = [t for t in texts if jql_text(t) != '""']
        if not projects or not texts:
            return []
        request = {"jql": search_jql(texts, projects), "fields": list(ISSUE_FIELDS), "maxResults": limit}
        # A search changes nothing: tried again like a read.
        body = self._ok("POST", SEARCH_PATH, request, idempotent=True)
        issues = body.get("issues") if isinstance(body, dict) else None
        return [issue_view(issue) for issue in issues or []]

    def transitions(self, key: str) -> list[Transition]:
        body = self._ok("GET", f"/rest/api/3/issue/{quote(key, safe='')}/transitions", idempotent=True)
        found = body.get("transitions") if isinstance(body, dict) else None
        return [
            Transition(
                id=str(t["id"]),
                name=str(t.get("name", "")),
                to_status=str((t.get("to") or {}).get("name", "")),
            )
            for t in found or []
            if isinstance(t, dict) and t.get("id") is not None
        ]

    def link_types(self) -> list[LinkType]:
        body = self._ok("GET", LINK_TYPES_PATH, idempotent=True)
        found = body.get("issueLinkTypes") if isinstance(body, dict) else None
        return [
            LinkType(
                id=str(t.get("id", "")),
                name=str(t["name"]),
                outward=str(t.get("outward", "")),
                inward=str(t.get("inward", "")),
            )
            for t in found or []
            if isinstance(t, dict) and t.get("name")
        ]

    def comment_with(self, key: str, draft_id: str) -> str | None:
        """The id of the issue's comment that carries ``draft_id`` (a confirm made it), or None."""
        path = f"/rest/api/3/issue/{quote(key, safe='')}/comment?" + urlencode(
            {"orderBy": "-created", "maxResults": COMMENTS_READ}
        )
        body = self._ok("GET", path, idempotent=True)
        ids = [
            str(c["id"])
            for c in (body.get("comments") if isinstance(body, dict) else None) or []
            if c.get("id")
        ]
        if not ids:
            return None
        listed = self._ok(
            "POST",
            f"{COMMENTS_BY_ID_PATH}?expand=properties",
            {"ids": [int(i) for i in ids]},
            idempotent=True,
        )
        for comment in (listed.get("values") if isinstance(listed, dict) else None) or []:
            for prop in comment.get("properties") or []:
                if prop.get("key") == DRAFT_PROPERTY and (prop.get("value") or {}).get("draftId") == draft_id:
                    return str(comment.get("id"))
        return None

    # -- writes (a confirm's) ------------------------------------------------------------

    def add_comment(self, key: str, text: str, draft_id: str) -> str:
        """Post ``text`` on ``key`` marked with ``draft_id``; the new comment's id."""
        request = {
            "body": adf_document(text),
            "properties": [{"key": DRAFT_PROPERTY, "value": {"draftId": draft_id}}],
        }
        body = self._ok("POST", f"/rest/api/3/issue/{quote(key, safe='')}/comment", request, idempotent=False)
        if not isinstance(body, dict) or not body.get("id"):
            raise JiraUnavailable("Jira answered without the comment's id")
        return str(body["id"])

    def transition(self, key: str, transition_id: str) -> None:
        # Not idempotent as Jira sees it; the confirm re-reads the status before sending it again.
        self._ok(
            "POST",
            f"/rest/api/3/issue/{quote(key, safe='')}/transitions",
            {"transition": {"id": transition_id}},
            idempotent=False,
        )

    def edit(self, key: str, change: IssueChange) -> None:
        # The same edit twice leaves the same issue: tried again like a read.
        self._ok("PUT", f"/rest/api/3/issue/{quote(key, safe='')}", change.body(), idempotent=True)

    def link(self, link_type: str, inward_key: str, outward_key: str) -> None:
        """Link ``inward_key`` (the source: "A" of "A blocks B") to ``outward_key``."""
        request = {
            "type": {"name": link_type},
            "inwardIssue": {"key": inward_key},
            "outwardIssue": {"key": outward_key},
        }
        self._ok("POST", LINK_PATH, request, idempotent=False)

    def account_id(self, email: str) -> str:
        """The Jira account id of the user with ``email`` (:class:`JiraRejected` when none)."""
        return matching_account_id(
            self._ok("GET", f"{USER_SEARCH_PATH}?query={quote(email)}", idempotent=True), email
        )


def rejected(reason: str, field: str) -> JiraRejected:
    return JiraRejected(reason, errors={field: reason}, messages=[])


__all__ = [
    "DRAFT_PROPERTY",
    "IssueChange",
    "IssueLink",
    "IssueView",
    "JiraError",
    "JiraIssues",
    "JiraReader",
    "LinkType",
    "Transition",
    "issue_view",
    "search_jql",
]
