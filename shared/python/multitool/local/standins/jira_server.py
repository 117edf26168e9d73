"""A fake Jira Cloud on loopback: the sandbox's issue tracker and the tests' Jira.

Every REST API v3 request is first checked against Atlassian's own description of it
(:mod:`.jira_contract`, the committed subset): one it does not allow is answered 400 and kept in
``violations``. It answers the few REST API v3 calls the Jira port makes the way Jira Cloud
does: ``POST /rest/api/3/issue`` (basic auth, field validation, ADF
description), ``GET /rest/api/3/issue/<key>``, ``GET /rest/api/3/user/search``,
and ``GET /browse/<key>`` (a page labelled as a sandbox). As Atlassian's API gateway it also
takes the user's own OAuth token: ``GET /oauth/token/accessible-resources`` and the same calls
under ``/ex/jira/<cloud id>``, with ``Authorization: Bearer local-atlassian-<sub>`` (the token the
local AgentCore Identity stand-in, :mod:`multitool.local.standins.identity`, issues), the issue's reporter
being that user. Failures can be
scripted for the next create: 400 with per-field errors, 401, 429 with
``Retry-After``, 5xx.

    jira = start_fake_jira()
    jira.fail_next(429, retry_after=7)
    ...
    jira.stop()
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from multitool.local.standins.jira_contract import ContractViolation, jira_contract
from multitool.local.standins.jira_workflow import IssueBook, Refused, adf_text
from multitool.local.standins.stand_in import ServedStandIn, StandInHandler, StandInServer
from multitool.ports.jira import SANDBOX_CREDENTIALS_EMAIL, SANDBOX_CREDENTIALS_TOKEN

CLOUD_ID = "5a1d7c3e-0b9f-4e2a-8c61-sandbox00001"
"""The sandbox site's cloud id (accessible-resources' ``id``)."""
BEARER_PREFIX = "Bearer local-atlassian-"

PRIORITIES = ("Highest", "High", "Medium", "Low", "Lowest")
DEFAULT_PROJECTS: dict[str, tuple[str, ...]] = {
    "WEB": ("Bug", "Task", "Story"),
    "OPS": ("Bug", "Task", "Story"),
}


@dataclass(frozen=True, slots=True)
class ScriptedFailure:
    status: int
    errors: dict[str, str] = field(default_factory=dict)
    error_messages: tuple[str, ...] = ()
    retry_after: int | None = None


class FakeJira(ServedStandIn):
    """A fake Jira, bound on ``host:port`` and served once started; see :func:`start_fake_jira`."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        email: str,
        api_token: str,
        projects: dict[str, tuple[str, ...]],
        state: Path | None = None,
        seeded: bool = False,
    ) -> None:
        """``state``: a file that keeps the issues (and each project's next key) across restarts;
        ``seeded``: the demo's issues (:data:`multitool.local.standins.jira_workflow.SEED`) are there."""
        self.email = email
        self.api_token = api_token
        self.projects = {key.upper(): tuple(types) for key, types in projects.items()}
        self.issues: list[dict[str, Any]] = []
        self.requests: list[tuple[str, str, int]] = []
        self.violations: list[str] = []
        """The requests Atlassian's description does not allow (answered 400), in words."""
        self._failures: deque[ScriptedFailure] = deque()
        self._lock = threading.Lock()
        self._counters: dict[str, int] = {}
        self._state = state
        saved = _saved(state)
        self.issues = list(saved.get("issues", []))
        self._counters = {str(k): int(v) for k, v in saved.get("counters", {}).items()}
        self.book = IssueBook(self.issues, self._lock, self.account_id, self._save)
        self.server = StandInServer(_handler_for(self), host, port, name="jira")
        if seeded:
            self.book.seeded(self._counters)

    def fail_next(
        self,
        status: int,
        *,
        errors: dict[str, str] | None = None,
        error_messages: tuple[str, ...] | list[str] = (),
        retry_after: int | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next ``times`` creates with ``status`` instead of creating an issue."""
        with self._lock:
            for _ in range(times):
                self._failures.append(
                    ScriptedFailure(status, dict(errors or {}), tuple(error_messages), retry_after)
                )

    def issue(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            return next((i for i in self.issues if i["key"] == key), None)

    # -- request handling (called on the server's threads) --------------------

    def authorized(self, header: str | None) -> bool:
        expected = base64.b64encode(f"{self.email}:{self.api_token}".encode()).decode()
        return header == f"Basic {expected}"

    def bearer_user(self, header: str | None) -> str | None:
        """The user whose own token ``header`` carries (``local-atlassian-<sub>``), else None."""
        if header is None or not header.startswith(BEARER_PREFIX):
            return None
        return header.removeprefix(BEARER_PREFIX) or None

    def accessible_resources(self) -> list[dict[str, Any]]:
        """Atlassian's answer: the one sandbox site, its cloud id as ``id``."""
        scopes = ["read:jira-work", "write:jira-work", "read:jira-user"]
        return [{"id": CLOUD_ID, "name": "Sandbox", "url": self.url, "scopes": scopes, "avatarUrl": ""}]

    def next_failure(self) -> ScriptedFailure | None:
        with self._lock:
            return self._failures.popleft() if self._failures else None

    def create(self, fields: dict[str, Any], reporter: str | None = None) -> dict[str, Any]:
        """``reporter``: the user whose own token made the request (else the account of the basic auth)."""
        if reporter is not None:
            fields = {**fields, "reporter": {"accountId": f"local-{reporter}"}}
        with self._lock:
            project = fields["project"]["key"]
            number = self._counters.get(project, 0) + 1
            self._counters[project] = number
            issue_id = str(10000 + len(self.issues) + 1)
            issue = {
                "id": issue_id,
                "key": f"{project}-{number}",
                "self": f"{self.url}/rest/api/3/issue/{issue_id}",
                "fields": {"status": {"name": "To Do"}, **fields},
            }
            self.issues.append(issue)
            self._save()
            return issue

    def _save(self) -> None:
        """Write the issues to the state file, whole (a temporary file, then renamed); under the lock."""
        if self._state is None:
            return
        partial = self._state.with_name(self._state.name + ".partial")
        port = self.server.server_address[1]
        partial.write_text(
            json.dumps({"port": port, "issues": self.issues, "counters": self._counters}), encoding="utf-8"
        )
        partial.replace(self._state)

    def validate(self, fields: Any) -> dict[str, str]:
        """Jira's per-field errors for a create, empty when the fields are valid."""
        if not isinstance(fields, dict):
            return {"fields": "The request must have a 'fields' object."}
        errors: dict[str, str] = {}
        project = fields.get("project")
        key = project.get("key") if isinstance(project, dict) else None
        if not key:
            errors["project"] = "Specify a valid project ID or key"
        elif key not in self.projects:
            errors["project"] = "valid project is required"
        issue_type = fields.get("issuetype")
        type_name = issue_type.get("name") if isinstance(issue_type, dict) else None
        if not type_name:
            errors["issuetype"] = "Specify an issue type"
        elif key in self.projects and type_name not in self.projects[key]:
            errors["issuetype"] = "Specify a valid issue type"
        summary = fields.get("summary")
        if not isinstance(summary, str) or not summary.strip():
            errors["summary"] = "You must specify a summary of the issue."
        elif len(summary) > 255:
            errors["summary"] = "Summary must be less than 255 characters."
        if "description" in fields and not _is_adf_doc(fields["description"]):
            errors["description"] = "Operation value must be an Atlassian Document (see the ADF format)"
        priority = fields.get("priority")
        if priority is not None and (
            not isinstance(priority, dict) or priority.get("name") not in PRIORITIES
        ):
            errors["priority"] = "Specify a valid priority"
        assignee = fields.get("assignee")
        if assignee is not None and (not isinstance(assignee, dict) or not assignee.get("accountId")):
            errors["assignee"] = "Specify a valid accountId"
        return errors

    @staticmethod
    def account_id(email: str) -> str:
        return "sandbox-" + hashlib.sha256(email.casefold().encode()).hexdigest()[:16]


def start_fake_jira(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    email: str = SANDBOX_CREDENTIALS_EMAIL,
    api_token: str = SANDBOX_CREDENTIALS_TOKEN,
    projects: dict[str, tuple[str, ...]] | None = None,
    state: Path | None = None,
    seeded: bool = False,
) -> FakeJira:
    """A fake Jira on ``host:port`` (port 0: any free port), started (a daemon thread).

    With ``state`` it keeps its issues in that file, and starts on the port it had (so the links the
    drafts hold still open) when that port is free.
    """
    options: dict[str, Any] = {
        "email": email,
        "api_token": api_token,
        "projects": projects or DEFAULT_PROJECTS,
        "state": state,
        "seeded": seeded,
    }
    earlier = int(_saved(state).get("port", 0))
    if state is not None and port == 0 and earlier:
        try:
            return FakeJira(host, earlier, **options).start()
        except OSError:  # taken meanwhile: any free port
            pass
    return FakeJira(host, port, **options).start()


_NOT_MINE: Any = object()
_ISSUE = re.compile(r"^/rest/api/3/issue/(?P<key>[^/]+)(?P<rest>/transitions|/comment)?$")


def _existing_answer(
    jira: FakeJira, method: str, path: str, query: dict[str, list[str]], body: Any, user: str | None
) -> Any:
    """(status, JSON body or None) for a request on existing issues, or ``_NOT_MINE``."""
    book = jira.book
    if (method, path) == ("POST", "/rest/api/3/search/jql"):
        return HTTPStatus.OK, book.search(body, user)
    if (method, path) == ("GET", "/rest/api/3/issueLinkType"):
        from multitool.local.standins.jira_workflow import LINK_TYPES

        return HTTPStatus.OK, {"issueLinkTypes": list(LINK_TYPES)}
    if (method, path) == ("POST", "/rest/api/3/issueLink"):
        book.link(body, user)
        return HTTPStatus.CREATED, None
    if (method, path) == ("POST", "/rest/api/3/comment/list"):
        return HTTPStatus.OK, book.comments_by_id(body, query.get("expand", [""])[0], user)
    match = _ISSUE.match(path)
    if match is None:
        return _NOT_MINE
    key, rest = match["key"], match["rest"]
    if rest is None and method == "GET":
        with jira._lock:
            issue = book.find(key, user)
            fields = query.get("fields", [""])[0]
            return HTTPStatus.OK, book.view(issue, fields.split(",") if fields else None)
    if rest is None and method == "PUT":
        book.edit(key, body, user)
        return HTTPStatus.NO_CONTENT, None
    if rest == "/transitions" and method == "GET":
        return HTTPStatus.OK, book.transitions(key, user)
    if rest == "/transitions" and method == "POST":
        book.transition(key, body, user)
        return HTTPStatus.NO_CONTENT, None
    if rest == "/comment" and method == "GET":
        return HTTPStatus.OK, book.comments(key, user, query.get("orderBy", ["created"])[0])
    if rest == "/comment" and method == "POST":
        author = f"local-{user}" if user is not None else jira.account_id(jira.email)
        return HTTPStatus.CREATED, book.add_comment(key, body, user, author)
    return _NOT_MINE


def _saved(state: Path | None) -> dict[str, Any]:
    """What a state file holds; a damaged one is set aside (``*.unreadable``) and the sandbox starts empty."""
    if state is None or not state.exists():
        return {}
    try:
        saved = json.loads(state.read_text(encoding="utf-8"))
        if not isinstance(saved, dict) or not isinstance(saved.get("issues", []), list):
            raise ValueError("not a Jira sandbox state")
        return saved
    except (ValueError, OSError):
        state.replace(state.with_name(state.name + ".unreadable"))
        return {}


def _is_adf_doc(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") == "doc"
        and value.get("version") == 1
        and isinstance(value.get("content"), list)
    )


def _handler_for(jira: FakeJira) -> type[StandInHandler]:
    class Handler(StandInHandler):  # the tests and the demo read ``jira.requests``
        server_version = "FakeJira/1.0"
        serves_pages = True  # /browse/<key>, the link a card shows

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            if url.path.startswith("/browse/"):
                self._browse(url.path.removeprefix("/browse/"))
                return
            path, user = self._route(url.path)
            if path is None or not self._described(None):
                return
            url = url._replace(path=path)
            if url.path == "/oauth/token/accessible-resources" and user is not None:
                self._json(HTTPStatus.OK, jira.accessible_resources())
                return
            if self._existing("GET", url.path, parse_qs(url.query), None, user):
                return
            if url.path == "/rest/api/3/user/search":
                query = parse_qs(url.query).get("query", [""])[0]
                if "@" in query:
                    jira.book.display_names[jira.account_id(query)] = query.split("@")[0]
                users = (
                    [
                        {
                            "accountId": jira.account_id(query),
                            "accountType": "atlassian",
                            "emailAddress": query,
                            "displayName": query.split("@")[0],
                            "active": True,
                        }
                    ]
                    if "@" in query
                    else []
                )
                self._json(HTTPStatus.OK, users)
                return
            self._json(HTTPStatus.NOT_FOUND, {"errorMessages": ["Not found"]})

        def do_POST(self) -> None:
            url = urlsplit(self.path)
            raw = self._raw()
            path, user = self._route(url.path)
            if path is None or not self._described(raw):
                return
            if path != "/rest/api/3/issue":
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    self._json(
                        HTTPStatus.BAD_REQUEST, {"errorMessages": ["Unexpected character in the JSON"]}
                    )
                    return
                if self._existing("POST", path, parse_qs(url.query), body, user):
                    return
                self._json(HTTPStatus.NOT_FOUND, {"errorMessages": ["Not found"]})
                return
            failure = jira.next_failure()
            if failure is not None:
                self._scripted(failure)
                return
            try:
                request = json.loads(raw or b"null")
            except ValueError:
                self._json(HTTPStatus.BAD_REQUEST, {"errorMessages": ["Unexpected character in the JSON"]})
                return
            fields = request.get("fields") if isinstance(request, dict) else None
            errors = jira.validate(fields)
            if errors:
                self._json(HTTPStatus.BAD_REQUEST, {"errorMessages": [], "errors": errors})
                return
            assert isinstance(fields, dict)
            issue = jira.create(fields, reporter=user)
            self._json(HTTPStatus.CREATED, {"id": issue["id"], "key": issue["key"], "self": issue["self"]})

        def do_PUT(self) -> None:
            url = urlsplit(self.path)
            raw = self._raw()
            path, user = self._route(url.path)
            if path is None or not self._described(raw):
                return
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                self._json(HTTPStatus.BAD_REQUEST, {"errorMessages": ["Unexpected character in the JSON"]})
                return
            if not self._existing("PUT", path, parse_qs(url.query), body, user):
                self._json(HTTPStatus.NOT_FOUND, {"errorMessages": ["Not found"]})

        def _raw(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _described(self, raw: bytes | None) -> bool:
            """Whether the request is one Atlassian's description allows (:mod:`.jira_contract`); a
            request it does not is answered 400 and kept in ``jira.violations``."""
            if "/rest/api/3/" not in urlsplit(self.path).path:
                return True
            try:
                jira_contract().check_request(self.command, self.path, dict(self.headers), raw or None)
            except ContractViolation as violation:
                jira.violations.append(str(violation))
                message = f"Not as Jira's REST API v3 describes it: {violation}"
                self._json(HTTPStatus.BAD_REQUEST, {"errorMessages": [message], "errors": {}})
                return False
            return True

        def _existing(
            self, method: str, path: str, query: dict[str, list[str]], body: Any, user: str | None
        ) -> bool:
            """Answer a request on existing issues (:class:`IssueBook`); False when it is none."""
            try:
                answer = _existing_answer(jira, method, path, query, body, user)
            except Refused as refused:
                self._json(refused.status, refused.body)
                return True
            if answer is _NOT_MINE:
                return False
            status, payload = answer
            if payload is None:
                jira.requests.append((self.command, self.path, int(status)))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self._json(status, payload)
            return True

        def _route(self, path: str) -> tuple[str | None, str | None]:
            """The Jira path and the user acting (None: the basic-auth account), or (None, None) once
            refused: the user's own token only through Atlassian's gateway, the site's own only directly."""
            header = self.headers.get("Authorization")
            if path == "/oauth/token/accessible-resources" or path.startswith("/ex/jira/"):
                user = jira.bearer_user(header)
                if user is None:
                    self._unauthorized()
                    return None, None
                prefix = f"/ex/jira/{CLOUD_ID}"
                if path.startswith("/ex/jira/") and not path.startswith(f"{prefix}/"):
                    self._json(HTTPStatus.NOT_FOUND, {"errorMessages": ["Site not found"]})
                    return None, None
                return path.removeprefix(prefix), user
            if not jira.authorized(header):
                self._unauthorized()
                return None, None
            return path, None

        def _scripted(self, failure: ScriptedFailure) -> None:
            headers = {}
            if failure.retry_after is not None:
                headers["Retry-After"] = str(failure.retry_after)
            if failure.status == 401:
                self._unauthorized()
                return
            body: dict[str, Any] = {"errorMessages": list(failure.error_messages)}
            if failure.status == 400:
                body["errors"] = failure.errors or {"summary": "You must specify a summary of the issue."}
            self._json(failure.status, body, headers)

        def _unauthorized(self) -> None:
            self._json(
                HTTPStatus.UNAUTHORIZED,
                {
                    "errorMessages": [
                        "You are not authenticated. Authentication required to perform this operation."
                    ]
                },
                {"WWW-Authenticate": 'Basic realm="protected-area"'},
            )

        def _browse(self, key: str) -> None:
            issue = jira.issue(key)
            if issue is None:
                self.send_body(
                    HTTPStatus.NOT_FOUND, b"Sandbox Jira: no such issue", "text/plain; charset=utf-8"
                )
                return
            summary = html.escape(str(issue["fields"].get("summary", "")))
            status = html.escape(str((issue["fields"].get("status") or {}).get("name", "")))
            comments = "".join(
                f"<li>{html.escape(adf_text(c['body']))}</li>" for c in issue.get("comments", [])
            )
            page = (
                f"<!doctype html><title>{html.escape(key)} (sandbox)</title>"
                f"<p><strong>Sandbox Jira: not a real issue.</strong></p>"
                f"<h1>{html.escape(key)}: {summary}</h1><p>Status: {status}</p>"
                + (f"<h2>Comments</h2><ul>{comments}</ul>" if comments else "")
            )
            self.send_body(HTTPStatus.OK, page.encode(), "text/html; charset=utf-8")

        def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            jira.requests.append((self.command, self.path, int(status)))
            self.send_json(status, body, headers, content_type="application/json;charset=UTF-8")

    return Handler
