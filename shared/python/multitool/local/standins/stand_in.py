"""What the loopback stand-ins (Graph, Google, Jira, the harness, identity, Lambda's Invoke) share: how
they run, whom they answer, and how an answer is written.

Each stand-in is a :class:`StandInServer` (bound to loopback only, served on a daemon thread,
:meth:`~StandInServer.start` and :meth:`~StandInServer.stop`) whose request handler derives from
:class:`StandInHandler` and keeps only its routes. Before any route, every request goes through
:func:`multitool.local.loopback.refusal`: the peer must be this machine, the ``Host`` must name it
(421 otherwise: a DNS-rebinding page sends its own name) and an ``Origin`` must be the stand-in's own
(403 otherwise; none at all for a stand-in that serves no page, :attr:`StandInHandler.serves_pages`).
No stand-in answers with CORS headers, so no page of another origin reads an answer. The status line,
``Content-Type``, ``Content-Length`` and extra headers are written here, once.
Standard library only: ``make demo`` runs the stand-ins with the runtime dependencies alone.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from multitool.local.loopback import is_loopback, refusal

JSON = "application/json"
LOOPBACK = "127.0.0.1"


class StandInServer(ThreadingHTTPServer):
    """A stand-in's HTTP server: on loopback only (any other address is a ``ValueError``: whoever
    reaches a stand-in acts as anyone, its tokens being known), on a daemon thread."""

    daemon_threads = True
    request_queue_size = 128  # a burst of the functions' calls is queued, not reset

    def __init__(
        self, handler: type[StandInHandler], host: str = LOOPBACK, port: int = 0, *, name: str
    ) -> None:
        if host != "localhost" and not is_loopback(host):
            raise ValueError(
                f"The {name} stand-in serves this machine only: bind it to {LOOPBACK}, not {host}."
            )
        super().__init__((host, port), handler)
        self._thread = threading.Thread(target=self.serve_forever, name=name, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)


class StandInHandler(BaseHTTPRequestHandler):
    """A quiet request handler that answers this machine's programs and the stand-in's own pages only,
    with one way to answer: :meth:`send_body` and :meth:`send_json`."""

    serves_pages = False
    """Whether people open pages of this stand-in and post from them (a consent form, a sandbox's view):
    then a request with the stand-in's own ``Origin`` is answered too."""

    def parse_request(self) -> bool:
        """The request line and headers, then the one check every local server makes (see the module's
        notes); a refused request gets its answer here and reaches no route."""
        if not super().parse_request():
            return False
        refused = (
            refusal(self.headers.get("Host"), self.headers.get("Origin"), pages=self.serves_pages)
            if is_loopback(self.client_address[0])
            else (403, "Forbidden: this stand-in answers this machine only")
        )
        if refused is None:
            return True
        self.close_connection = True  # the body is left unread
        status, message = refused
        self.send_json(status, {"message": message}, {"Connection": "close"})
        return False

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests and the demo read each stand-in's own request log instead."""

    def send_body(
        self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        """Answer ``status`` with ``data``: a ``Content-Type`` only when there is a body, always a length."""
        self.send_response(status)
        if data:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def send_json(
        self, status: int, body: Any, headers: dict[str, str] | None = None, *, content_type: str = JSON
    ) -> None:
        """Answer ``body`` as JSON; ``None`` is an empty body (a 204 or 202 has none)."""
        data = b"" if body is None else json.dumps(body).encode()
        self.send_body(status, data, content_type, headers)
