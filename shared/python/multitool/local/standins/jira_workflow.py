"""The fake Jira's issues that already exist: workflows, comments, edits, links, a JQL search.

:class:`IssueBook` answers the REST API v3 requests of :mod:`multitool.ports.atlassian.jira_issues` the way
Jira Cloud does, and checks each request's shape strictly (a member the operation does not take is
a 400, as a typo Jira would silently ignore should be here): the bodies of ``Add comment``
(``body`` an ADF doc, ``properties`` a list of ``{key, value}``), ``Transition issue``
(``transition.id`` one the issue offers now, else Jira's 400), ``Edit issue`` (``fields`` of the
editable fields, ``update.labels`` of ``add``/``remove`` operations), ``Create issue link``
(``type.name`` one of the site's types, both issues existing) and ``Search for issues using JQL
enhanced search (POST)`` (``jql``, ``fields``, ``maxResults``; only the JQL the port writes:
``project in (...) AND text ~ "..." ORDER BY updated DESC``). An issue the account may not browse
answers 404 with the words of one that does not exist, as Jira's does.

The workflow is one for every project: To Do, In Progress, In Review, Done, with the transitions
of :data:`WORKFLOW` (not every status reaches every other: "To Do" does not go to "In Review").
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

NOT_FOUND = "Issue does not exist or you do not have permission to see it."

WORKFLOW: dict[str, tuple[tuple[str, str, str], ...]] = {
    # status: (transition id, transition name, status it leads to), as Jira's transitions answer them
    "To Do": (("21", "Start progress", "In Progress"), ("41", "Close issue", "Done")),
    "In Progress": (
        ("31", "Send to review", "In Review"),
        ("11", "Stop progress", "To Do"),
        ("41", "Close issue", "Done"),
    ),
    "In Review": (("51", "Approve", "Done"), ("21", "Back to progress", "In Progress")),
    "Done": (("61", "Reopen", "To Do"),),
}
LINK_TYPES = (
    {"id": "10000", "name": "Blocks", "inward": "is blocked by", "outward": "blocks"},
    {"id": "10001", "name": "Cloners", "inward": "is cloned by", "outward": "clones"},
    {"id": "10002", "name": "Duplicate", "inward": "is duplicated by", "outward": "duplicates"},
    {"id": "10003", "name": "Relates", "inward": "relates to", "outward": "relates to"},
)
PRIORITIES = ("Highest", "High", "Medium", "Low", "Lowest")
EDITABLE = frozenset({"summary", "priority", "assignee", "duedate", "labels"})
SEARCH_MEMBERS = frozenset(
    {
        "jql",
        "fields",
        "maxResults",
        "nextPageToken",
        "expand",
        "properties",
        "fieldsByKeys",
        "reconcileIssues",
    }
)
_JQL = re.compile(
    r'^project in \((?P<projects>"[A-Z][A-Z0-9_]*"(?:, "[A-Z][A-Z0-9_]*")*)\) '
    r'AND \((?P<texts>text ~ "[^"\\]*"(?: OR text ~ "[^"\\]*")*)\) ORDER BY updated DESC$'
)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

SEED: tuple[dict[str, Any], ...] = (
    {
        "key": "WEB-12",
        "summary": "Login crash on Safari",
        "status": "In Progress",
        "priority": "Medium",
        "labels": ["safari"],
        "assignee": "priya.patel@example.com",
    },
    {"key": "WEB-9", "summary": "Checkout button misaligned on mobile", "status": "To Do", "priority": "Low"},
    {"key": "WEB-15", "summary": "Password reset email never arrives", "status": "To Do", "priority": "High"},
    {
        "key": "OPS-3",
        "summary": "Rotate the staging database credentials",
        "status": "To Do",
        "priority": "High",
        "assignee": "jordan.lee@example.com",
    },
    {
        "key": "OPS-5",
        "summary": "Login service alerts are noisy",
        "status": "In Review",
        "priority": "Medium",
    },
)


class Refused(Exception):
    """Jira's answer to a request it does not carry out: the status and the body it sends."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(status)
        self.status = status
        self.body = body


def bad(errors: Mapping[str, str] | None = None, *messages: str) -> Refused:
    return Refused(400, {"errorMessages": list(messages), "errors": dict(errors or {})})


def not_found() -> Refused:
    return Refused(404, {"errorMessages": [NOT_FOUND], "errors": {}})


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "+0000"


def is_adf_doc(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") == "doc"
        and value.get("version") == 1
        and isinstance(value.get("content"), list)
    )


def adf_text(doc: Any) -> str:
    """The plain text of an ADF doc (paragraphs on lines), for the search and the sandbox page."""
    lines = []
    for block in doc.get("content", []) if isinstance(doc, dict) else []:
        parts = [n.get("text", "") if n.get("type") == "text" else "\n" for n in block.get("content", [])]
        lines.append("".join(parts))
    return "\n".join(lines)


class IssueBook:
    """The issues, their comments and links, behind the fake Jira's lock."""

    def __init__(
        self,
        issues: list[dict[str, Any]],
        lock: threading.Lock,
        account_id: Callable[[str], str],
        save: Callable[[], None],
    ) -> None:
        self.issues = issues
        self._lock = lock
        self._account_id = account_id
        self._save = save
        self.display_names: dict[str, str] = {}
        """Account id -> display name of the users the user search found."""
        self.browse: dict[str, set[str]] = {}
        """Per user acting with their own token: the projects they may browse (absent: every project)."""

    # -- seeding ------------------------------------------------------------------------

    def seeded(self, counters: dict[str, int], seed: Iterable[dict[str, Any]] = SEED) -> None:
        """Add the demo's issues (once: a key already there is kept as it is)."""
        with self._lock:
            for entry in seed:
                if any(i["key"] == entry["key"] for i in self.issues):
                    continue
                project, _, number = entry["key"].partition("-")
                counters[project] = max(counters.get(project, 0), int(number))
                fields: dict[str, Any] = {
                    "project": {"key": project},
                    "issuetype": {"name": "Bug"},
                    "summary": entry["summary"],
                    "status": {"name": entry["status"]},
                    "priority": {"name": entry.get("priority", "Medium")},
                    "labels": list(entry.get("labels", [])),
                    "duedate": entry.get("duedate"),
                    "updated": _now(),
                }
                if entry.get("assignee"):
                    fields["assignee"] = self._person(entry["assignee"])
                issue_id = str(10000 + len(self.issues) + 1)
                self.issues.append({"id": issue_id, "key": entry["key"], "fields": fields, "seeded": True})
            self._save()

    def _person(self, email: str) -> dict[str, Any]:
        return {"accountId": self._account_id(email), "displayName": _display(email), "emailAddress": email}

    # -- reads ---------------------------------------------------------------------------

    def find(self, key: str, user: str | None) -> dict[str, Any]:
        """The issue ``key`` (or id) the acting account may browse, else Jira's 404."""
        issue = next((i for i in self.issues if key in (i["key"], i["id"])), None)
        if issue is None or not self.may_browse(issue, user):
            raise not_found()
        issue["fields"].setdefault("status", {"name": "To Do"})
        issue["fields"].setdefault("updated", _now())
        return issue

    def may_browse(self, issue: Mapping[str, Any], user: str | None) -> bool:
        allowed = self.browse.get(user) if user is not None else None
        return allowed is None or issue["fields"]["project"]["key"] in allowed

    def view(self, issue: Mapping[str, Any], fields: Iterable[str] | None = None) -> dict[str, Any]:
        """The issue as Jira answers it, with the fields asked for (all when none)."""
        wanted = set(fields) if fields else None
        shown = {k: v for k, v in issue["fields"].items() if wanted is None or k in wanted}
        if wanted is None or "issuelinks" in wanted:
            shown["issuelinks"] = list(issue.get("links", []))
        return {"id": issue["id"], "key": issue["key"], "fields": shown}

    def search(self, request: Any, user: str | None) -> dict[str, Any]:
        if not isinstance(request, dict) or not isinstance(request.get("jql"), str):
            raise bad(None, "The request must have a 'jql' string.")
        unknown = set(request) - SEARCH_MEMBERS
        if unknown:
            raise bad(None, f"Unrecognized field(s): {', '.join(sorted(unknown))}")
        limit = request.get("maxResults", 50)
        if not isinstance(limit, int) or limit < 0 or limit > 5000:
            raise bad({"maxResults": "must be between 0 and 5000"})
        fields = request.get("fields", [])
        if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
            raise bad({"fields": "must be a list of field names"})
        match = _JQL.match(request["jql"])
        if match is None:
            raise bad(None, f"The stand-in reads only the JQL the port writes, not: {request['jql']}")
        projects = {p.strip('"') for p in match["projects"].split(", ")}
        words = set(re.findall(r"\w+", " ".join(re.findall(r'"([^"]*)"', match["texts"])).casefold()))
        with self._lock:
            found = [
                i
                for i in self.issues
                if i["fields"]["project"]["key"] in projects
                and self.may_browse(i, user)
                and words & set(re.findall(r"\w+", _text(i).casefold()))
            ]
            found.sort(key=lambda i: str(i["fields"].get("updated", "")), reverse=True)
            return {"issues": [self.view(i, fields) for i in found[:limit]], "isLast": True}

    def transitions(self, key: str, user: str | None) -> dict[str, Any]:
        with self._lock:
            issue = self.find(key, user)
            status = issue["fields"]["status"]["name"]
            return {
                "transitions": [
                    {"id": tid, "name": name, "to": {"name": to}, "isAvailable": True}
                    for tid, name, to in WORKFLOW.get(status, ())
                ]
            }

    def comments(self, key: str, user: str | None, order: str) -> dict[str, Any]:
        with self._lock:
            issue = self.find(key, user)
            listed = list(issue.get("comments", []))
            if order == "-created":
                listed.reverse()
            shown = [{k: v for k, v in c.items() if k != "properties"} for c in listed]
            return {"comments": shown, "startAt": 0, "maxResults": len(shown), "total": len(shown)}

    def comments_by_id(self, request: Any, expand: str, user: str | None) -> dict[str, Any]:
        if not isinstance(request, dict) or set(request) != {"ids"} or not isinstance(request["ids"], list):
            raise bad(None, 'The request must be {"ids": [...]}.')
        if not all(isinstance(i, int) for i in request["ids"]) or len(request["ids"]) > 1000:
            raise bad({"ids": "must be at most 1000 comment ids (integers)"})
        wanted = {str(i) for i in request["ids"]}
        with self._lock:
            values = [
                {k: v for k, v in c.items() if k != "properties" or "properties" in expand.split(",")}
                for i in self.issues
                if self.may_browse(i, user)
                for c in i.get("comments", [])
                if c["id"] in wanted
            ]
        return {
            "values": values,
            "startAt": 0,
            "maxResults": len(values),
            "total": len(values),
            "isLast": True,
        }

    # -- writes --------------------------------------------------------------------------

    def add_comment(self, key: str, request: Any, user: str | None, author: str) -> dict[str, Any]:
        if not isinstance(request, dict) or not is_adf_doc(request.get("body")):
            raise bad({"comment": "Comment body must be an Atlassian Document (see the ADF format)"})
        unknown = set(request) - {"body", "visibility", "properties"}
        if unknown:
            raise bad(None, f"Unrecognized field(s): {', '.join(sorted(unknown))}")
        properties = request.get("properties", [])
        if not isinstance(properties, list) or not all(
            isinstance(p, dict)
            and set(p) == {"key", "value"}
            and isinstance(p["key"], str)
            and 0 < len(p["key"]) <= 255
            for p in properties
        ):
            raise bad({"properties": "each property needs a key (up to 255 characters) and a value"})
        with self._lock:
            issue = self.find(key, user)
            comment_id = str(20000 + sum(len(i.get("comments", [])) for i in self.issues) + 1)
            comment = {
                "id": comment_id,
                "author": {"accountId": author, "displayName": author},
                "body": request["body"],
                "created": _now(),
                "properties": properties,
            }
            issue.setdefault("comments", []).append(comment)
            issue["fields"]["updated"] = comment["created"]
            self._save()
            return {k: v for k, v in comment.items() if k != "properties"}

    def transition(self, key: str, request: Any, user: str | None) -> None:
        transition = request.get("transition") if isinstance(request, dict) else None
        if not isinstance(transition, dict) or not isinstance(transition.get("id"), str):
            raise bad(None, 'The request must name a transition: {"transition": {"id": ...}}.')
        unknown = set(request) - {"transition", "fields", "update", "historyMetadata", "properties"}
        if unknown:
            raise bad(None, f"Unrecognized field(s): {', '.join(sorted(unknown))}")
        with self._lock:
            issue = self.find(key, user)
            status = issue["fields"]["status"]["name"]
            target = next((to for tid, _, to in WORKFLOW.get(status, ()) if tid == transition["id"]), None)
            if target is None:
                raise bad(None, f"Transition id '{transition['id']}' is not valid for this issue.")
            issue["fields"]["status"] = {"name": target}
            issue["fields"]["updated"] = _now()
            self._save()

    def edit(self, key: str, request: Any, user: str | None) -> None:
        if not isinstance(request, dict) or set(request) - {"fields", "update"}:
            raise bad(None, "An edit takes 'fields' and 'update'.")
        fields = request.get("fields", {})
        update = request.get("update", {})
        errors = _edit_errors(fields, update)
        if errors:
            raise bad(errors)
        with self._lock:
            issue = self.find(key, user)
            current = issue["fields"]
            for name, value in fields.items():
                if name == "assignee":
                    account = value.get("accountId") if isinstance(value, dict) else None
                    current["assignee"] = (
                        {"accountId": account, "displayName": self.display_names.get(account, account)}
                        if account
                        else None
                    )
                else:
                    current[name] = value
            labels = list(current.get("labels", []))
            for operation in update.get("labels", []):
                if "add" in operation and operation["add"] not in labels:
                    labels.append(operation["add"])
                if "remove" in operation and operation["remove"] in labels:
                    labels.remove(operation["remove"])
            current["labels"] = labels
            current["updated"] = _now()
            self._save()

    def link(self, request: Any, user: str | None) -> None:
        if not isinstance(request, dict) or set(request) - {"type", "inwardIssue", "outwardIssue", "comment"}:
            raise bad(None, "A link takes 'type', 'inwardIssue' and 'outwardIssue'.")
        kind = request.get("type")
        name = kind.get("name") if isinstance(kind, dict) else None
        link_type = next((t for t in LINK_TYPES if t["name"] == name), None)
        if link_type is None:
            raise Refused(
                404, {"errorMessages": [f"No issue link type with name '{name}' found."], "errors": {}}
            )
        given = [(request.get(side) or {}).get("key") for side in ("inwardIssue", "outwardIssue")]
        keys = [k for k in given if isinstance(k, str)]
        if len(keys) != 2:
            raise bad(None, "Both issues must be given by key.")
        with self._lock:
            inward, outward = (self.find(k, user) for k in keys)
            brief = {
                "id": link_type["id"],
                "name": link_type["name"],
                "inward": link_type["inward"],
                "outward": link_type["outward"],
            }
            exists = any(
                link["type"]["name"] == name and (link.get("outwardIssue") or {}).get("key") == outward["key"]
                for link in inward.get("links", [])
            )
            if not exists:
                inward.setdefault("links", []).append(
                    {"type": brief, "outwardIssue": {"key": outward["key"]}}
                )
                outward.setdefault("links", []).append({"type": brief, "inwardIssue": {"key": inward["key"]}})
                for issue in (inward, outward):
                    issue["fields"]["updated"] = _now()
                self._save()


def _text(issue: Mapping[str, Any]) -> str:
    comments = " ".join(adf_text(c["body"]) for c in issue.get("comments", []))
    return f"{issue['fields'].get('summary', '')} {comments}"


def _display(email: str) -> str:
    return " ".join(part.capitalize() for part in email.split("@")[0].split("."))


def _edit_errors(fields: Any, update: Any) -> dict[str, str]:
    if not isinstance(fields, dict) or not isinstance(update, dict):
        return {"fields": "'fields' and 'update' must be objects"}
    errors = {
        name: f"Field '{name}' cannot be set. It is not on the appropriate screen, or unknown."
        for name in set(fields) - EDITABLE
    }
    if "summary" in fields and (
        not isinstance(fields["summary"], str)
        or not fields["summary"].strip()
        or len(fields["summary"]) > 255
    ):
        errors["summary"] = "You must specify a summary of the issue."
    if "priority" in fields and (
        not isinstance(fields["priority"], dict) or fields["priority"].get("name") not in PRIORITIES
    ):
        errors["priority"] = "Specify a valid priority"
    if "assignee" in fields and fields["assignee"] is not None and not isinstance(fields["assignee"], dict):
        errors["assignee"] = "Specify a valid accountId"
    if (
        "duedate" in fields
        and fields["duedate"] is not None
        and not (isinstance(fields["duedate"], str) and _DATE.match(fields["duedate"]))
    ):
        errors["duedate"] = "Error parsing date string: use yyyy-MM-dd"
    for name in set(update) - {"labels"}:
        errors[name] = "The stand-in edits only labels through 'update'."
    for operation in update.get("labels", []) if isinstance(update.get("labels", []), list) else [None]:
        if not (
            isinstance(operation, dict) and len(operation) == 1 and set(operation) <= {"add", "remove", "set"}
        ):
            errors["labels"] = "Each labels operation is one of add, remove or set"
        elif any(not isinstance(v, str) or " " in v or not v for v in operation.values()):
            errors["labels"] = "A label is one word, no spaces"
    return errors
