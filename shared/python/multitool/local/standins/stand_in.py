"""What the loopback stand-ins (Graph, Google, Jira, Slack, the harness, identity, Lambda's Invoke) share:
how they start and stop, whom they answer, and how an answer is written.

One lifecycle, :class:`Lifecycle`, for everything the local runs start beside the functions (the
stand-ins, the local HTTP server, the moto child, the undo queue's poller, ``multitool login``'s
callback): :meth:`~Lifecycle.start` serves and answers the object itself, :meth:`~Lifecycle.stop`
ends it and releases what it holds, :attr:`~Lifecycle.url` is where it is reached, and ``with`` starts
it and stops it. Starting a running one is nothing (so ``with start_fake_jira() as jira`` and
``with FakeJira(...) as jira`` are the same) and stopping is once: a caller holds any number of them in
one :class:`contextlib.ExitStack`. A server is a :class:`ThreadedServer` (served on a daemon thread); a
stand-in that keeps state beside its server is a :class:`ServedStandIn` around one.

Each stand-in's server is a :class:`StandInServer` (bound to loopback only) whose request handler
derives from :class:`StandInHandler` and keeps only its routes. Before any route, every request goes through
:func:`multitool.local.sandbox.loopback.refusal`: the peer must be this machine, the ``Host`` must name it
(421 otherwise: a DNS-rebinding page sends its own name) and an ``Origin`` must be the stand-in's own
(403 otherwise; none at all for a stand-in that serves no page, :attr:`StandInHandler.serves_pages`).
No stand-in answers with CORS headers, so no page of another origin reads an answer. The status line,
``Content-Type``, ``Content-Length`` and extra headers are written here, once.
Standard library only: ``make demo`` runs the stand-ins with the runtime dependencies alone.
"""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from multitool.local.sandbox.loopback import is_loopback, refusal

JSON = "application/json"
LOOPBACK = "127.0.0.1"


class Lifecycle(ABC):
    """Start, stop, ``url`` and ``with``, written once (see the module's notes); a part says how it
    begins (:meth:`_begin`) and ends (:meth:`_end`) and where it is reached (:attr:`url`)."""

    _started = False
    _stopped = False

    @property
    @abstractmethod
    def url(self) -> str:
        """Where it is reached."""

    @abstractmethod
    def _begin(self) -> None:
        """Serve (called once, by the first :meth:`start`)."""

    @abstractmethod
    def _end(self, started: bool) -> None:
        """Stop serving when ``started``, and release what it holds in any case (called once)."""

    def start(self) -> Self:
        """Serve; a running one is left as it is. A stopped one cannot start again (its socket is
        closed, its thread done): make another."""
        if self._stopped:
            raise RuntimeError(f"{type(self).__name__} was stopped: start a new one")
        if not self._started:
            self._started = True
            self._begin()
        return self

    def stop(self) -> None:
        """Stop serving and release what it holds; once (the next calls are nothing). One never
        started releases its socket without waiting for a serving loop that never ran."""
        if self._stopped:
            return
        self._stopped = True
        self._end(self._started)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ThreadedServer(Lifecycle, ThreadingHTTPServer):
    """An HTTP server bound on construction (a taken port is an ``OSError`` there, before anything
    starts), served on a daemon thread by :meth:`start`, shut down and closed by :meth:`stop`."""

    daemon_threads = True
    request_queue_size = 128  # a burst of the functions' calls is queued, not reset (socketserver: 5)

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], *, name: str) -> None:
        super().__init__(address, handler)
        self._thread = threading.Thread(target=self.serve_forever, name=name, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def _begin(self) -> None:
        self._thread.start()

    def _end(self, started: bool) -> None:
        if started:  # shutdown() waits for serve_forever, which only a started thread runs
            self.shutdown()
            self._thread.join(timeout=5)
        self.server_close()


class StandInServer(ThreadedServer):
    """A stand-in's HTTP server: on loopback only (any other address is a ``ValueError``: whoever
    reaches a stand-in acts as anyone, its tokens being known), on a daemon thread."""

    def __init__(
        self, handler: type[StandInHandler], host: str = LOOPBACK, port: int = 0, *, name: str
    ) -> None:
        if host != "localhost" and not is_loopback(host):
            raise ValueError(
                f"The {name} stand-in serves this machine only: bind it to {LOOPBACK}, not {host}."
            )
        super().__init__((host, port), handler, name=name)


class ServedStandIn(Lifecycle):
    """A stand-in that keeps its state beside its :class:`StandInServer` (Google, Jira, Slack, Graph):
    started, stopped and reached as that server is."""

    server: ThreadedServer

    @property
    def url(self) -> str:
        return self.server.url

    def _begin(self) -> None:
        self.server.start()

    def _end(self, started: bool) -> None:
        self.server.stop()


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
