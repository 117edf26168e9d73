"""The API Gateway stand-in: HTTP API routes, JWT claims, payload 2.0 events, proxy responses.

Each API request becomes an HTTP API (payload format 2.0) event, with the
signed-in local user as the JWT ``sub`` claim, and goes to the deployed handler
code (:mod:`multitool.local.sandbox.lambdas`). There is no second implementation of the
API here: only the translation API Gateway does.

Local sign-in trusts whoever sends ``X-Local-User``, so it is accepted from this
machine (loopback) only. With the OIDC stand-in (:mod:`multitool.local.standins.oidc`) only a
bearer token signs in, checked as the HTTP API's JWT authorizer would, on every API
route and the sandbox outbox; ``X-Local-User`` is then ignored.
"""

from __future__ import annotations

import base64
import json
import os
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qsl, unquote

from multitool.local.sandbox.embedded import Embedded, Seed
from multitool.local.sandbox.lambdas import ACCOUNT, MAX_INSTANCES, Instances, LambdaContext, load_handler
from multitool.local.sandbox.loopback import is_loopback
from multitool.local.sandbox.request_target import origin_form

if TYPE_CHECKING:  # the outbox (and icalendar) is imported when the sandbox reads it
    from multitool.local.sandbox.outbox import ProviderOutbox

LOCAL_USER_HEADER = "x-local-user"
LOCAL_ISSUER = "http://127.0.0.1/local-sign-in"
MAX_BODY_BYTES = 1024 * 1024
EVENT_TIMEOUT_SECONDS = 300
"""An asynchronous invocation's timeout: the deployed orchestrator's (a turn may take minutes)."""

Outbox = Callable[[str], Mapping[str, Any]]  # a user id -> that user's sandbox outbox


# --- sign-in through an OIDC provider (multitool.local.standins.oidc), optional -----------------------
class SignIn(Protocol):
    """An OIDC provider served by this server, whose tokens the API checks as the JWT authorizer does.

    ``claims_for`` returns None without an ``Authorization`` header and raises ``PermissionError``
    (``TokenRejected``) for a token the authorizer refuses.
    """

    def handles(self, path: str) -> bool: ...
    def serve(
        self, method: str, target: str, *, headers: Mapping[str, str] | None = None, body: bytes = b""
    ) -> Any: ...
    def claims_for(self, headers: Mapping[str, str]) -> dict[str, Any] | None: ...
    def page_config(self) -> dict[str, Any]: ...


# --- end of sign-in ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Route:
    """One HTTP API route: ``METHOD /path/{param}`` served by one function."""

    method: str
    template: str
    function: str
    authorizer: bool = True
    """Whether the HTTP API's JWT authorizer guards the route (``POST /slack/events`` has none: Slack's
    signature, checked by the function, is its authentication)."""

    @property
    def route_key(self) -> str:
        return f"{self.method} {self.template}"

    def match(self, method: str, path: str) -> dict[str, str] | None:
        if method != self.method:
            return None
        pattern = "^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(self.template)) + "$"
        found = re.match(pattern, path)
        if found is None:
            return None
        return {name: unquote(value) for name, value in found.groupdict().items()}


ASYNC_INVOKED = frozenset({"orchestrator"})
"""The functions an asynchronous ``Invoke`` may run, as the stack grants it (``infra/stack.py``,
``_run_turns_past_the_request``: the orchestrator may invoke itself, and nothing else)."""

SLACK_ROUTES: tuple[Route, ...] = (Route("POST", "/slack/events", "slack", authorizer=False),)
"""The Slack app's route (``-c slack=true``; ``multitool serve --slack``): events and interactions alike."""
SLACK_ASYNC_INVOKED = frozenset({"slack"})
"""The Slack function invokes itself asynchronously to run the turn a message started."""

# The stack's HTTP API routes (infra), in the same shape.
API_ROUTES: tuple[Route, ...] = (
    Route("POST", "/chat", "orchestrator"),
    Route("GET", "/turns/{id}", "orchestrator"),
    Route("GET", "/sessions/{id}", "orchestrator"),
    Route("GET", "/actions/{id}", "review"),
    Route("POST", "/actions/{id}/confirm", "review"),
    Route("POST", "/actions/confirm-all", "review"),
    Route("POST", "/actions/{id}/discard", "review"),
    Route("POST", "/actions/{id}/undo", "review"),
    Route("GET", "/connections", "review"),
    Route("POST", "/connections/complete", "review"),
    Route("POST", "/connections/{provider}/disconnect", "review"),
)


@dataclass(frozen=True, slots=True)
class LocalResponse:
    status: int
    headers: dict[str, str]
    body: bytes
    cookies: tuple[str, ...] = ()

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


def jwt_claims(
    user_id: str, email: str, zoneinfo: str, name: str | None = None, locale: str | None = None
) -> dict[str, Any]:
    """Claims shaped like a Cognito token's, for the signed-in local user (``zoneinfo`` and ``locale``:
    OIDC standard claims)."""
    now = int(time.time())
    return {
        "sub": user_id,
        "username": user_id,
        **({"name": name} if name else {}),
        "email": email,
        # Seeded users' addresses are theirs: as in a Cognito token for a verified address.
        "email_verified": "true",
        "zoneinfo": zoneinfo,
        **({"locale": locale} if locale else {}),
        "iss": LOCAL_ISSUER,
        "client_id": "local",
        "token_use": "access",
        "scope": "openid email",
        "auth_time": str(now),
        "iat": str(now),
        "exp": str(now + 3600),
    }


def http_api_event(
    *,
    method: str,
    raw_path: str,
    raw_query: str,
    headers: Mapping[str, str],
    body: bytes,
    route: Route,
    path_parameters: Mapping[str, str],
    claims: Mapping[str, Any] | None,
    source_ip: str,
) -> dict[str, Any]:
    """The API Gateway HTTP API payload 2.0 event for one request."""
    lowered: dict[str, str] = {}
    for name, value in headers.items():
        key = name.lower()
        # HTTP API joins repeated headers with a comma.
        lowered[key] = f"{lowered[key]},{value}" if key in lowered else value
    now = time.time()
    request_context: dict[str, Any] = {
        "accountId": ACCOUNT,
        "apiId": "local",
        "domainName": lowered.get("host", "127.0.0.1"),
        "domainPrefix": "local",
        "http": {
            "method": method,
            "path": raw_path,
            "protocol": "HTTP/1.1",
            "sourceIp": source_ip,
            "userAgent": lowered.get("user-agent", ""),
        },
        "requestId": str(uuid.uuid4()),
        "routeKey": route.route_key,
        "stage": "$default",
        "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
        "timeEpoch": int(now * 1000),
    }
    if claims is not None:
        request_context["authorizer"] = {"jwt": {"claims": dict(claims), "scopes": None}}
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route.route_key,
        "rawPath": raw_path,
        "rawQueryString": raw_query,
        "headers": lowered,
        "requestContext": request_context,
        "isBase64Encoded": False,
    }
    cookies = lowered.get("cookie")
    if cookies:
        event["cookies"] = [c.strip() for c in cookies.split(";") if c.strip()]
    if raw_query:
        query: dict[str, str] = {}
        for key, value in parse_qsl(raw_query, keep_blank_values=True):
            query[key] = f"{query[key]},{value}" if key in query else value
        event["queryStringParameters"] = query
    if path_parameters:
        event["pathParameters"] = dict(path_parameters)
    if body:
        try:
            event["body"] = body.decode("utf-8")
        except UnicodeDecodeError:
            event["body"] = base64.b64encode(body).decode("ascii")
            event["isBase64Encoded"] = True
    return event


def proxy_response(result: Any) -> LocalResponse:
    """A Lambda proxy result as API Gateway (payload 2.0) turns it into an HTTP response."""
    if not isinstance(result, Mapping) or "statusCode" not in result:
        # Format 2.0: anything without statusCode is a 200 JSON body.
        return LocalResponse(200, {"content-type": "application/json"}, json.dumps(result).encode())
    headers = {str(k).lower(): str(v) for k, v in (result.get("headers") or {}).items()}
    for key, values in (result.get("multiValueHeaders") or {}).items():
        headers[str(key).lower()] = ",".join(str(v) for v in values)
    raw = result.get("body") or ""
    body = base64.b64decode(raw) if result.get("isBase64Encoded") else str(raw).encode("utf-8")
    return LocalResponse(
        int(result["statusCode"]), headers, body, tuple(str(c) for c in result.get("cookies") or ())
    )


def json_response(status: int, payload: Any) -> LocalResponse:
    return LocalResponse(status, {"content-type": "application/json"}, json.dumps(payload).encode())


@dataclass
class LocalApi:
    """API Gateway's part: route, authorize (local sign-in), build the event, invoke, translate back."""

    functions_dir: Path
    seed: Seed
    outbox: Outbox | None = None
    routes: tuple[Route, ...] = API_ROUTES
    max_instances: int = MAX_INSTANCES
    auth: SignIn | None = None  # OIDC sign-in: then only a valid bearer token signs in, X-Local-User never
    _instances: dict[str, Instances] = field(default_factory=dict, repr=False)
    _loading: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def route_for(self, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
        for route in self.routes:
            params = route.match(method, path)
            if params is not None:
                return route, params
        return None

    def handles(self, path: str) -> bool:
        """Whether ``path`` belongs to the API (any method), rather than to the page."""
        return any(route.match(route.method, path) is not None for route in self.routes)

    def instances(self, name: str) -> Instances:
        """The execution environments of function ``name`` (none loaded until a request needs one)."""
        with self._loading:
            if name not in self._instances:
                self._instances[name] = Instances(
                    lambda number: load_handler(self.functions_dir, name, number), self.max_instances
                )
            return self._instances[name]

    def claims_for(self, user_id: str | None) -> dict[str, Any] | None:
        if not user_id:
            return None
        person = self.seed.person(user_id)
        if person is None:
            return None
        return jwt_claims(person.id, person.email, person.timezone, person.display_name, person.locale)

    def invoke(
        self,
        method: str,
        target: str,
        *,
        headers: Mapping[str, str] | None = None,
        body: bytes = b"",
        source_ip: str = "127.0.0.1",
    ) -> LocalResponse:
        """Serve one API request as API Gateway with a JWT authorizer would."""
        path, query = origin_form(target)
        found = self.route_for(method.upper(), path)
        if found is None:
            return json_response(404, {"message": "Not Found"})
        route, params = found
        headers = dict(headers or {})
        if not route.authorizer:  # no JWT authorizer: the function authenticates the request itself
            return self._invoke_as(None, route, params, method, path, query, headers, body, source_ip)
        # --- sign-in: a bearer token is checked as the HTTP API's JWT authorizer would -------------
        if self.auth is not None:
            # As deployed, only a valid token signs in: X-Local-User is not read at all.
            try:
                claims = self.auth.claims_for(headers)
            except PermissionError:
                return json_response(401, {"message": "Unauthorized"})
            return self._invoke_as(claims, route, params, method, path, query, headers, body, source_ip)
        # --- end of sign-in --------------------------------------------------------------------------
        if not is_loopback(source_ip):
            return json_response(
                401,
                {"message": "Unauthorized: local sign-in (X-Local-User) is accepted from this machine only"},
            )
        user = next((v for k, v in headers.items() if k.lower() == LOCAL_USER_HEADER), None)
        return self._invoke_as(
            self.claims_for(user), route, params, method, path, query, headers, body, source_ip
        )

    def _invoke_as(
        self,
        claims: Mapping[str, Any] | None,
        route: Route,
        params: Mapping[str, str],
        method: str,
        path: str,
        query: str,
        headers: Mapping[str, str],
        body: bytes,
        source_ip: str,
    ) -> LocalResponse:
        if claims is None and route.authorizer:
            # The deployed JWT authorizer answers 401 before the function runs.
            return json_response(401, {"message": "Unauthorized"})
        if len(body) > MAX_BODY_BYTES:
            return json_response(413, {"message": "Request Entity Too Large"})
        event = http_api_event(
            method=method.upper(),
            raw_path=path,
            raw_query=query,
            headers=headers,
            body=body,
            route=route,
            path_parameters=params,
            claims=claims,
            source_ip=source_ip,
        )
        # Concurrent requests run concurrently, each in an execution environment of its own.
        with self.instances(route.function).acquire() as handler:
            try:
                result = handler(event, LambdaContext(route.function))
            except Exception as error:  # an unhandled error is a 500 from API Gateway
                sys.stderr.write(f"[{route.function}] unhandled {type(error).__name__}\n")
                return json_response(500, {"message": "Internal Server Error"})
        return proxy_response(result)

    def invoke_event(self, name: str, event: Any) -> None:
        """Run an asynchronous invocation (``InvocationType=Event``) of function ``name`` to its end.

        It waits for an execution environment like any request and has the deployed function's timeout.
        """
        with self.instances(name).acquire() as handler:
            handler(event, LambdaContext(name, timeout_seconds=EVENT_TIMEOUT_SECONDS))

    def invoke_direct(self, name: str, event: dict[str, Any]) -> Any:
        """Invoke function ``name`` as an event source mapping does (synchronously, e.g. an SQS batch):
        its handler's answer (the batch's item failures)."""
        with self.instances(name).acquire() as handler:
            return handler(event, LambdaContext(name))

    def users(self) -> dict[str, Any]:
        return {
            "defaultUser": self.seed.default_user,
            "users": [
                {"id": p.id, "displayName": p.display_name, "email": p.email, "timezone": p.timezone}
                for p in self.seed.people
            ],
        }

    def page_config(self) -> dict[str, Any]:
        """The page's ``config.json``: same-origin API, local sign-in, the sandbox's Jira projects, and
        whether there is a sandbox outbox to show (whichever way the page signs in)."""
        projects = {
            key: self.seed.jira_projects[key].model_dump(by_alias=True, mode="json")
            for key in sorted(self.seed.jira_projects)
        }
        config: dict[str, Any] = {"apiBase": "", "auth": "local", "jiraProjects": projects}
        if self.outbox is not None:
            config["sandbox"] = True
        if os.environ.get("IDENTITY_WORKLOAD_NAME"):  # multitool serve --consent: as the stack says it
            config["connections"] = True
        return config | (self.auth.page_config() if self.auth is not None else {})

    def sandbox_outbox(self, headers: Mapping[str, str]) -> LocalResponse:
        """The signed-in user's outbox: the mail their confirms sent and the issues they created."""
        if self.outbox is None:
            return json_response(404, {"message": "No sandbox outbox in this setup"})
        user = self._outbox_user(headers)
        person = self.seed.person(user) if user else None
        if person is None:
            how = "a bearer token" if self.auth is not None else "X-Local-User"
            return json_response(401, {"message": f"Unauthorized: the outbox is per user; sign in ({how})"})
        return json_response(200, {"sandbox": True, **self.outbox(person.id), "user": person.id})

    def _outbox_user(self, headers: Mapping[str, str]) -> str | None:
        """Who asks for the outbox, signed in the way the API's routes are."""
        if self.auth is None:
            return next((v for k, v in headers.items() if k.lower() == LOCAL_USER_HEADER), None)
        try:
            claims = self.auth.claims_for(headers)
        except PermissionError:
            return None
        return str(claims["sub"]) if claims and claims.get("sub") else None


def sandbox_outbox_reader(running: Embedded, provider: ProviderOutbox | None = None) -> Outbox:
    """One user's part of the sandboxes: the mail SES accepted and the issues Jira created for them,
    and with a provider stand-in (``serve --calendar``) the mail and meetings it holds of theirs."""
    import boto3

    from multitool.local.sandbox.embedded import FAKE_CREDENTIALS
    from multitool.local.sandbox.outbox import outbox, sent_by, sent_mail_from_server

    region = running.env["AWS_REGION"]
    dynamodb = boto3.client(
        "dynamodb",
        endpoint_url=running.endpoint,
        region_name=region,
        aws_access_key_id=FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        aws_session_token=FAKE_CREDENTIALS["AWS_SESSION_TOKEN"],
    )
    table = running.env["DRAFTS_TABLE_NAME"]
    # moto runs in its own process (multitool.local.sandbox.moto_process): its SES is read over HTTP.

    def read(user: str) -> dict[str, Any]:
        mine = outbox(
            lambda: sent_mail_from_server(running.endpoint), running.jira, sent_by(dynamodb, table, user)
        )
        person = running.seed.person(user)
        if provider is not None and person is not None:
            mine["provider"] = provider.of(person.email)
        return mine

    return read
