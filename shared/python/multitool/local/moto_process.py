"""moto's server in a child process on loopback, started and stopped with the local server.

In one process the handlers and moto share one GIL: every DynamoDB call a handler makes
waits for moto's own Python (request parsing, the expression engine, response
rendering) to get the interpreter, so twenty concurrent /chat requests run one at a
time however many cores the machine has. In a child process moto runs on another core.

The parent binds a free loopback port and hands the listening socket to the child
(``python -m multitool.local.moto_process <fd>``), so the endpoint is known at once and
the parent makes its clients while moto imports (about 0.6 s). The child serves moto's
own WSGI app (what ``moto.server`` runs) on that socket, prints ``moto ready <url>`` and
serves until its stdin closes: the parent closes it to stop the child, and a parent
that dies closes it too, so no moto is left behind.
"""

from __future__ import annotations

import logging
import queue
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

LOOPBACK = "127.0.0.1"
READY = "moto ready "
START_SECONDS = 60.0
STOP_SECONDS = 10.0


class MotoStartFailed(RuntimeError):
    """The moto child did not come up; the message carries what it printed."""


@dataclass
class MotoProcess:
    """A running moto child: its endpoint, and how to stop it."""

    endpoint: str
    process: subprocess.Popen[str]
    _errors: IO[str]

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        """Close the child's stdin (it stops its server and exits); kill it if it does not in time."""
        _end(self.process)
        self._errors.close()


def _end(process: subprocess.Popen[str]) -> None:
    if process.stdin is not None and not process.stdin.closed:
        process.stdin.close()
    try:
        process.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout is not None:
        process.stdout.close()


def _printed(errors: IO[str], limit: int = 2000) -> str:
    """The end of what the child wrote to stderr."""
    errors.flush()
    errors.seek(0)
    text = errors.read().strip()
    return text[-limit:] if text else "(it printed nothing)"


class LaunchedMoto:
    """A moto child on its way up: the caller does other start-up work, then waits with :meth:`ready`."""

    def __init__(self, command: Sequence[str] | None = None) -> None:
        """``command``: the child's command line, this module's with the socket's descriptor by default."""
        # Open for the child's lifetime (closed by stop()): what it printed names a failed start.
        self._errors = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115
        # Connections wait in the backlog until the child accepts; only the child keeps the socket.
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listening:
            listening.bind((LOOPBACK, 0))
            listening.listen(128)
            self.endpoint = f"http://{LOOPBACK}:{listening.getsockname()[1]}"
            fd = listening.fileno()
            self.process = subprocess.Popen(  # noqa: S603 - this interpreter, or a test's own command
                list(command) if command is not None else [sys.executable, "-m", __name__, str(fd)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._errors,
                text=True,
                pass_fds=(fd,),
            )
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._first_line, daemon=True).start()

    def _first_line(self) -> None:
        assert self.process.stdout is not None
        self._lines.put(self.process.stdout.readline())

    def ready(self, start_seconds: float = START_SECONDS) -> MotoProcess:
        """The running child, once it names its endpoint; :class:`MotoStartFailed` (child stopped) if not."""
        try:
            line: str | None = self._lines.get(timeout=start_seconds)
        except queue.Empty:
            line = None  # still running, silent
        if line is None or not line.startswith(READY):
            _end(self.process)
            how = f"gave no endpoint within {start_seconds:.0f} s" if line is None else "exited"
            with self._errors:
                raise MotoStartFailed(f"The local moto server {how}: {_printed(self._errors)}")
        return MotoProcess(self.endpoint, self.process, self._errors)

    def abandon(self) -> None:
        """Stop a child whose start-up is no longer wanted (the caller failed before :meth:`ready`)."""
        _end(self.process)
        self._errors.close()


def start_moto_process(
    start_seconds: float = START_SECONDS, *, command: Sequence[str] | None = None
) -> MotoProcess:
    """Start the moto child and wait for its endpoint; :class:`MotoStartFailed` if it does not come."""
    return LaunchedMoto(command).ready(start_seconds)


def serve(fd: int, stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout) -> None:
    """The child: moto on the listening socket ``fd`` until ``stdin`` closes."""
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    # Werkzeug logs every request moto serves; the local server's console stays readable without them.
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    # What ThreadedMotoServer builds, on the socket the parent bound (werkzeug takes it by fd).
    app = DomainDispatcherApplication(create_backend_app)
    server = make_server(LOOPBACK, 0, app, threaded=True, request_handler=MotoRequestHandler, fd=fd)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    print(f"{READY}http://{host!s}:{port}", file=stdout, flush=True)
    try:
        stdin.read()  # returns at EOF: the parent closed the pipe, or died
    finally:
        server.shutdown()
        thread.join()


if __name__ == "__main__":
    serve(int(sys.argv[1]))
