"""The local HTTP server: the chat page plus the real handlers behind an API Gateway stand-in.

Each API request becomes an HTTP API (payload format 2.0) event, with the
signed-in local user as the JWT ``sub`` claim, and goes to the deployed handler
code, loaded by file path from ``functions/<name>/handler.py``. There is no
second implementation of the API here: only the translation API Gateway does.

Local-only routes: ``GET /local/users`` (who you can sign in as),
``GET /config.json`` (the page's settings: same-origin API, local sign-in) and
``GET /sandbox/outbox`` (mail the SES sandbox accepted, issues the Jira sandbox
created). Everything else under ``GET`` (or ``HEAD``) is a file of ``web/``.

Local sign-in trusts whoever sends ``X-Local-User``, so it, the directory and
the outbox answer requests from this machine (loopback) only, even when the
server listens on another address: other machines get the page, and a 401.
"""

from __future__ import annotations

import base64
import importlib.util
import ipaddress
import json
import mimetypes
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol
from urllib.parse import parse_qsl, unquote, urlsplit

from multitool.local.embedded import Embedded, Seed

LOCAL_USER_HEADER = "x-local-user"
LOCAL_ISSUER = "http://127.0.0.1/local-sign-in"
MAX_BODY_BYTES = 1024 * 1024
DRAIN_LIMIT_BYTES = 16 * 1024 * 1024
FUNCTION_TIMEOUT_SECONDS = 30
# A connection that sends nothing (no next request, or a body that never comes) for this long is closed.
IDLE_TIMEOUT_SECONDS = 15.0
# Execution environments per function at most (Lambda's reserved concurrency); more requests wait.
# All of them share this process's GIL with the embedded moto server: past a few, CPU-bound turns
# (the offline model) only contend; turns waiting on Bedrock overlap up to this many.
MAX_INSTANCES = 8
REGION = "us-east-1"
ACCOUNT = "000000000000"

Handler = Callable[[dict[str, Any], Any], Any]
Outbox = Callable[[str], Mapping[str, Any]]  # a user id -> that user's sandbox outbox


# --- sign-in through an OIDC provider (multitool.local.oidc), optional --------------------------------
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


def repo_root() -> Path:
    """The checkout holding ``functions/`` and ``web/``: shared/python/multitool -> three parents up."""
    return Path(__file__).resolve().parents[4]


@dataclass(frozen=True, slots=True)
class Route:
    """One HTTP API route: ``METHOD /path/{param}`` served by one function."""

    method: str
    template: str
    function: str

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


# The stack's HTTP API routes (infra), in the same shape.
API_ROUTES: tuple[Route, ...] = (
    Route("POST", "/chat", "orchestrator"),
    Route("GET", "/actions/{id}", "review"),
    Route("POST", "/actions/{id}/confirm", "review"),
    Route("POST", "/actions/{id}/discard", "review"),
)


@dataclass(frozen=True, slots=True)
class LocalResponse:
    status: int
    headers: dict[str, str]
    body: bytes
    cookies: tuple[str, ...] = ()

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class LambdaContext:
    """What Lambda hands a handler as ``context`` (the attributes Powertools reads)."""

    def __init__(self, function_name: str, timeout_seconds: int = FUNCTION_TIMEOUT_SECONDS) -> None:
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{function_name}"
        self.memory_limit_in_mb = 512
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = time.strftime("%Y/%m/%d/[$LATEST]local")
        self._deadline = time.monotonic() + timeout_seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def load_handler(functions_dir: Path, name: str, instance: int = 0) -> Handler:
    """``functions/<name>/handler.py``'s ``handler``, loaded by file path (never ``import functions``).

    Each ``instance`` is a separate module: its own module-level state (the resolver
    ``app``), as each Lambda execution environment has its own.
    """
    path = functions_dir / name / "handler.py"
    if not path.is_file():
        raise FileNotFoundError(f"No handler for function {name!r} at {path}")
    module_name = f"_multitool_local_{name}_handler" + (f"_{instance}" if instance else "")
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"Cannot load {path}")
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    handler = getattr(module, "handler", None)
    if not callable(handler):
        raise ImportError(f"{path} has no callable 'handler'")
    return handler  # type: ignore[no-any-return]


class Instances:
    """The warm execution environments of one function, as Lambda keeps them.

    A request takes an idle instance, or loads a new one when all are busy (Lambda
    scales out the same way), up to ``limit``; then it waits for one to be free.
    One instance serves one request at a time: the handler module's resolver keeps
    the current event on itself, so it is never shared between concurrent requests.

    What instances do share is this process's ``multitool`` package, as one Lambda
    environment's modules would be shared by nothing: the chat service and the
    reviewer (``aws_chat_service``/``aws_reviewer``, built once; boto3 clients and
    urllib3 pools are thread-safe, the runtimes keep no per-turn state), and the
    Powertools logger and metrics (appended log keys may name a concurrent
    request's id; metrics are disabled locally).
    """

    def __init__(self, load: Callable[[int], Handler], limit: int = MAX_INSTANCES) -> None:
        self._load = load
        self._idle: list[Handler] = []
        self._all: list[Handler] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(limit)

    @property
    def loaded(self) -> tuple[Handler, ...]:
        with self._lock:
            return tuple(self._all)

    def first(self) -> Handler:
        """An instance (loaded if none is): for callers that only need the function's code."""
        with self._lock:
            if self._all:
                return self._all[0]
        with self.acquire() as handler:
            return handler

    @contextmanager
    def acquire(self) -> Iterator[Handler]:
        with self._slots:
            with self._lock:
                handler = self._idle.pop() if self._idle else None
                number = len(self._all)
            if handler is None:
                handler = self._load(number)
                with self._lock:
                    self._all.append(handler)
            try:
                yield handler
            finally:
                with self._lock:
                    self._idle.append(handler)


def is_loopback(address: str) -> bool:
    """Whether a peer address is this machine (127.0.0.0/8, ::1, or IPv4-mapped loopback)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(ip.is_loopback or (mapped is not None and mapped.is_loopback))


def jwt_claims(user_id: str, email: str, zoneinfo: str, name: str | None = None) -> dict[str, Any]:
    """Claims shaped like a Cognito token's, for the signed-in local user (``zoneinfo``: OIDC standard)."""
    now = int(time.time())
    return {
        "sub": user_id,
        "username": user_id,
        **({"name": name} if name else {}),
        "email": email,
        # Seeded users' addresses are theirs: as in a Cognito token for a verified address.
        "email_verified": "true",
        "zoneinfo": zoneinfo,
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
    auth: SignIn | None = None  # OIDC sign-in; X-Local-User keeps working for scripts and the CLI
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
        return jwt_claims(person.id, person.email, person.timezone, person.display_name) if person else None

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
        parts = urlsplit(target)
        path = parts.path or "/"
        found = self.route_for(method.upper(), path)
        if found is None:
            return json_response(404, {"message": "Not Found"})
        route, params = found
        headers = dict(headers or {})
        # --- sign-in: a bearer token is checked as the HTTP API's JWT authorizer would -------------
        if self.auth is not None and any(k.lower() == "authorization" for k in headers):
            try:
                claims = self.auth.claims_for(headers)
            except PermissionError:
                return json_response(401, {"message": "Unauthorized"})
            return self._invoke_as(claims, route, params, method, path, parts.query, headers, body, source_ip)
        # --- end of sign-in --------------------------------------------------------------------------
        if not is_loopback(source_ip):
            return json_response(
                401,
                {"message": "Unauthorized: local sign-in (X-Local-User) is accepted from this machine only"},
            )
        user = next((v for k, v in headers.items() if k.lower() == LOCAL_USER_HEADER), None)
        return self._invoke_as(
            self.claims_for(user), route, params, method, path, parts.query, headers, body, source_ip
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
        if claims is None:
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

    def users(self) -> dict[str, Any]:
        return {
            "defaultUser": self.seed.default_user,
            "users": [
                {"id": p.id, "displayName": p.display_name, "email": p.email, "timezone": p.timezone}
                for p in self.seed.people
            ],
        }

    def page_config(self) -> dict[str, Any]:
        """The page's ``config.json``: same-origin API, local sign-in, the sandbox's Jira projects."""
        config = {"apiBase": "", "auth": "local", "jiraProjects": sorted(self.seed.jira_projects)}
        return config | (self.auth.page_config() if self.auth is not None else {})

    def sandbox_outbox(self, headers: Mapping[str, str]) -> LocalResponse:
        """The signed-in user's outbox: the mail their confirms sent and the issues they created."""
        if self.outbox is None:
            return json_response(404, {"message": "No sandbox outbox in this setup"})
        user = next((v for k, v in headers.items() if k.lower() == LOCAL_USER_HEADER), None)
        person = self.seed.person(user) if user else None
        if person is None:
            return json_response(
                401, {"message": "Unauthorized: the outbox is per user; sign in (X-Local-User)"}
            )
        return json_response(200, {"sandbox": True, **self.outbox(person.id), "user": person.id})


STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8"}
SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "content-security-policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    ),
}


def static_file(web_dir: Path, path: str) -> LocalResponse:
    """A file under ``web_dir`` (``/`` is ``index.html``); 404 for anything outside it."""
    relative = unquote(path).lstrip("/") or "index.html"
    root = web_dir.resolve()
    try:
        candidate = (root / relative).resolve()
        found = candidate.is_relative_to(root) and candidate.is_file()
    except (OSError, ValueError):  # a NUL byte, a name too long: no such file
        found = False
    if not found:
        return json_response(404, {"message": "Not Found"})
    content_type = STATIC_TYPES.get(candidate.suffix) or (
        mimetypes.guess_type(candidate.name)[0] or "application/octet-stream"
    )
    if content_type.startswith("text/") and "charset" not in content_type:
        content_type += "; charset=utf-8"
    return LocalResponse(
        200, {"content-type": content_type, "cache-control": "no-store"}, candidate.read_bytes()
    )


LOCAL_ONLY_PATHS = ("/local/users", "/sandbox/outbox")


def route_request(
    api: LocalApi,
    web_dir: Path,
    method: str,
    target: str,
    *,
    headers: Mapping[str, str] | None = None,
    body: bytes = b"",
    source_ip: str = "127.0.0.1",
) -> LocalResponse:
    """One request to the local server: local-only routes, then the API, then a file of ``web_dir``."""
    path = urlsplit(target).path
    if method == "GET" and path in LOCAL_ONLY_PATHS and not is_loopback(source_ip):
        return json_response(
            403, {"message": "Forbidden: this route answers requests from this machine only"}
        )
    if path == "/local/users" and method == "GET":
        return json_response(200, api.users())
    if path == "/config.json" and method == "GET":
        return json_response(200, api.page_config())
    if path == "/sandbox/outbox" and method == "GET":
        return api.sandbox_outbox(headers or {})
    if api.auth is not None and api.auth.handles(path):  # sign-in: the OIDC provider's endpoints
        answer = api.auth.serve(method, target, headers=headers or {}, body=body)
        return LocalResponse(answer.status, dict(answer.headers), answer.body, tuple(answer.cookies))
    if api.handles(path) or api.route_for(method, path) is not None:
        return api.invoke(method, target, headers=headers, body=body, source_ip=source_ip)
    if method == "GET":
        return static_file(web_dir, path)
    return json_response(404, {"message": "Not Found"})


class _RequestHandler(BaseHTTPRequestHandler):
    server: LocalHttpServer
    protocol_version = "HTTP/1.1"
    server_version = "multitool-local"

    def setup(self) -> None:
        super().setup()
        # Every read waits this long at most: an idle connection, or a body that never comes, is closed.
        self.connection.settimeout(self.server.idle_timeout)

    def __getattr__(self, name: str) -> Any:
        # Any other method (OPTIONS, TRACE, a made-up one) is routed like the rest, so it gets
        # API Gateway's 404 rather than http.server's 501.
        if name.startswith("do_") and name[3:].isupper():
            return lambda: self._serve(name[3:])
        raise AttributeError(name)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (bad request line, headers too long) as JSON, then close."""
        self.close_connection = True
        # A request line http.server could not parse leaves it at HTTP/0.9, which has no status line.
        self.request_version = self.protocol_version
        reason = message or self.responses.get(code, ("Error",))[0]
        # Its 5xx refusals (505 for an unknown HTTP version) are about the request: a 400 here.
        self._send(json_response(code if code < 500 else 400, {"message": reason}))

    def do_GET(self) -> None:
        self._serve("GET")

    def do_HEAD(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def _serve(self, method: str) -> None:
        if self.headers.get("Transfer-Encoding", "identity").strip().lower() != "identity":
            # The body's framing is unknown to this server: answer, then drop the connection so the
            # unread chunks are never parsed as a next request.
            self.close_connection = True
            self._send(
                json_response(411, {"message": "Length Required: send the body with a Content-Length"})
            )
            return
        try:
            body = self._read_body()
        except ValueError as error:
            self._send(json_response(400, {"message": str(error)}))
            return
        except TimeoutError:
            # The body announced by Content-Length never came: answer, then drop the connection.
            self.close_connection = True
            self._send(json_response(408, {"message": "Request Timeout: the body did not arrive"}))
            return
        if body is None:
            self._send(json_response(413, {"message": "Request Entity Too Large"}))
            return
        response = route_request(
            self.server.api,
            self.server.web_dir,
            method,
            self.path,
            headers=dict(self.headers.items()),
            body=body,
            source_ip=self.client_address[0],
        )
        self._send(response)

    def _read_body(self) -> bytes | None:
        length = self.headers.get("Content-Length")
        if not length:
            return b""
        try:
            size = int(length)
        except ValueError:
            raise ValueError("Content-Length is not a number") from None
        if size < 0:
            raise ValueError("Content-Length is negative")
        if size > MAX_BODY_BYTES:
            self._discard(size)
            return None
        return self.rfile.read(size)

    def _discard(self, size: int) -> None:
        """Read and drop a refused body, so the client reads our answer instead of a reset."""
        if size > DRAIN_LIMIT_BYTES:
            self.close_connection = True
            return
        while size > 0:
            chunk = self.rfile.read(min(size, 64 * 1024))
            if not chunk:
                break
            size -= len(chunk)

    def _send(self, response: LocalResponse) -> None:
        self.send_response(response.status)
        headers = {**SECURITY_HEADERS, **response.headers}
        for name, value in headers.items():
            if name not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        for cookie in response.cookies:
            self.send_header("set-cookie", cookie)
        if self.close_connection:
            self.send_header("connection", "close")
        self.send_header("content-length", str(len(response.body)))
        self.end_headers()
        if getattr(self, "command", None) != "HEAD":
            self.wfile.write(response.body)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.quiet:
            return
        # Method, path and status only: bodies can hold personal content.
        sys.stderr.write(f"{self.address_string()} {format % args}\n")


class LocalHttpServer(ThreadingHTTPServer):
    daemon_threads = True
    # Connections waiting to be accepted: at socketserver's default of 5, a burst of clients is reset.
    request_queue_size = 128

    def __init__(
        self,
        address: tuple[str, int],
        api: LocalApi,
        web_dir: Path,
        *,
        quiet: bool = True,
        idle_timeout: float = IDLE_TIMEOUT_SECONDS,
    ) -> None:
        super().__init__(address, _RequestHandler)
        self.api = api
        self.web_dir = web_dir
        self.quiet = quiet
        self.idle_timeout = idle_timeout

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (closed, reset, timed out) is not an error of this server."""
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/"


def make_server(
    api: LocalApi,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    web_dir: Path | None = None,
    quiet: bool = True,
    idle_timeout: float = IDLE_TIMEOUT_SECONDS,
) -> LocalHttpServer:
    """Bind the local server (``port=0`` picks a free port; see ``.url``)."""
    return LocalHttpServer(
        (host, port), api, web_dir or repo_root() / "web", quiet=quiet, idle_timeout=idle_timeout
    )


def sandbox_outbox_reader(running: Embedded) -> Outbox:
    """One user's part of the sandboxes: the mail SES accepted and the issues Jira created for them."""
    import boto3

    from multitool.local.embedded import FAKE_CREDENTIALS
    from multitool.local.outbox import outbox, sent_by, sent_mail

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
    return lambda user: outbox(lambda: sent_mail(region=region), running.jira, sent_by(dynamodb, table, user))
