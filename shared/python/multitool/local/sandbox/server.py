"""The local HTTP server: the chat page and the API, over HTTP.

The API part is :mod:`multitool.local.sandbox.api_gateway` (API Gateway's translation, in
front of the deployed handlers); this module is the HTTP server around it: body
limits and framing, timeouts, security headers, and the files of ``web/``.

Local-only routes: ``GET /local/users`` (who you can sign in as),
``GET /config.json`` (the page's settings: same-origin API, local sign-in) and
``GET /sandbox/outbox`` (mail the SES sandbox accepted, issues the Jira sandbox
created). Everything else under ``GET`` (or ``HEAD``) is a file of ``web/``.

The directory and the outbox answer requests from this machine (loopback) only,
even when the server listens on another address: other machines get the page, and a 401.

Every request first goes through the check every local server makes
(:func:`multitool.local.sandbox.loopback.refusal`): its ``Host`` names this machine or the address the server
listens on (421 otherwise: DNS rebinding), and an ``Origin`` is the server's own (403 otherwise: the
page it serves posts with its own origin; a page of another site, or an opaque ``null`` origin, never
drives the API, the sign-in or sign-out). No answer carries CORS headers.
"""

from __future__ import annotations

import mimetypes
import sys
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from multitool.local.sandbox.api_gateway import (
    API_ROUTES,
    MAX_BODY_BYTES,
    LocalApi,
    LocalResponse,
    json_response,
)
from multitool.local.sandbox.loopback import is_loopback, refusal
from multitool.local.sandbox.request_target import origin_form
from multitool.local.standins.stand_in import ThreadedServer

# API_ROUTES is re-exported: what this server serves, for callers that document or sweep it.
__all__ = ["API_ROUTES", "LocalHttpServer", "make_server", "repo_root", "route_request", "static_file"]

DRAIN_LIMIT_BYTES = 16 * 1024 * 1024
FUNCTION_TIMEOUT_SECONDS = 30
# A connection that sends nothing (no next request, or a body that never comes) for this long is closed.
IDLE_TIMEOUT_SECONDS = 15.0


def repo_root() -> Path:
    """The checkout holding ``functions/`` and ``web/``: shared/python/multitool -> three parents up."""
    return Path(__file__).resolve().parents[5]


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
    path, _ = origin_form(target)
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
        refused = refusal(
            self.headers.get("Host"),
            self.headers.get("Origin"),
            pages=True,
            bound_host=str(self.server.server_address[0]),
        )
        if refused is not None:
            self.close_connection = True  # the body is left unread
            status, message = refused
            self._send(json_response(status, {"message": message}))
            return
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


class LocalHttpServer(ThreadedServer):
    """The page and the API, bound on construction (any address: see the module's notes), served on a
    daemon thread once started (:class:`multitool.local.standins.stand_in.Lifecycle`)."""

    def __init__(
        self,
        address: tuple[str, int],
        api: LocalApi,
        web_dir: Path,
        *,
        quiet: bool = True,
        idle_timeout: float = IDLE_TIMEOUT_SECONDS,
    ) -> None:
        super().__init__(address, _RequestHandler, name="local-server")
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
    """Bind the local server (``port=0`` picks a free port; see ``.url``); :meth:`~LocalHttpServer.start`
    or ``with`` serves it."""
    return LocalHttpServer(
        (host, port), api, web_dir or repo_root() / "web", quiet=quiet, idle_timeout=idle_timeout
    )
