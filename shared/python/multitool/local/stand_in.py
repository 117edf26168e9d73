"""What the loopback stand-ins (Graph, Google, Jira, the harness, identity) share: how an answer is written.

Each stand-in's request handler derives from :class:`StandInHandler` and keeps only its routes;
the status line, ``Content-Type``, ``Content-Length`` and extra headers are written here, once.
Standard library only: ``make demo`` runs the stand-ins with the runtime dependencies alone.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

JSON = "application/json"


class StandInHandler(BaseHTTPRequestHandler):
    """A quiet request handler with one way to answer: :meth:`send_body` and :meth:`send_json`."""

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
