"""moto's server in a child process on loopback, started and stopped with the local server.

In one process the handlers and moto share one GIL: every DynamoDB call a handler makes
waits for moto's own Python (request parsing, the expression engine, response
rendering) to get the interpreter, so twenty concurrent /chat requests run one at a
time however many cores the machine has. In a child process moto runs on another core.

The parent binds a free loopback port and hands the listening socket to the child
(``python -m multitool.local.sandbox.moto_process <fd>``), so the endpoint is known at once and
the parent makes its clients while moto imports (about 0.6 s). The child serves moto's
own WSGI app (what ``moto.server`` runs) on that socket, prints ``moto ready <url>`` and
serves until its stdin closes: the parent closes it to stop the child, and a parent
that dies closes it too, so no moto is left behind.

With a state file (``<fd> <state file>``) the child keeps its data across restarts: it
loads moto's backends of :data:`KEPT_SERVICES` from the file before it serves, and writes
them back (to a temporary file, then renamed) once it has stopped serving. It ignores
Ctrl+C, which reaches the whole process group: it stops when the parent closes its stdin,
so the state is written once, after the last request. The file is a pickle of moto's own
objects, written and read by this machine's user only; a file moto can no longer read (a
moto upgrade, a damaged file) is renamed ``*.unreadable`` and the child starts empty.

Only the local server's own clients reach it. moto answers any ``Host`` and, through its CORS
support, any ``Origin``, so a web page the developer visits could read every table (drafts, sessions,
the audit), the Jira secret, or ``POST /moto-api/reset`` (a simple request, no preflight) and wipe
everything. The child therefore serves moto behind :func:`guard`: a request must name this machine in
its ``Host`` (a DNS-rebinding page sends its own name), carry no ``Origin`` (boto3 sends none; a
browser sends one with every POST a page makes, per the Fetch standard), and start its path with the
per-process secret the parent made (:attr:`LaunchedMoto.endpoint` is ``http://127.0.0.1:<port>/<secret>``:
the clients' endpoint URL, see :func:`multitool.local.sandbox.loopback.under_secret`). The secret reaches the
child in its environment (:data:`SECRET_VARIABLE`), which other users cannot read, unlike its arguments.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import IO, Any, Literal

from multitool.local.sandbox.loopback import new_secret, refusal, under_secret
from multitool.local.standins.stand_in import Lifecycle

LOOPBACK = "127.0.0.1"
READY = "moto ready "
START_SECONDS = 60.0
STOP_SECONDS = 10.0
SECRET_VARIABLE = "MULTITOOL_MOTO_SECRET"  # noqa: S105 - the variable's name
KEPT_SERVICES = ("dynamodb", "ses", "sesv2", "secretsmanager")
"""The services whose data outlives a restart: the tables, the mail SES accepted, the identities, secrets."""
StateOutcome = Literal["none", "empty", "restored", "unreadable"]
"""What the child did with its state file: no file asked for, none yet, loaded, or unreadable (set aside)."""


class MotoStartFailed(RuntimeError):
    """The moto child did not come up; the message carries what it printed."""


@dataclass
class MotoProcess(Lifecycle):
    """A running moto child (started by :meth:`LaunchedMoto.ready`: :meth:`start` finds it running):
    its endpoint, and :meth:`stop` (see :class:`multitool.local.standins.stand_in.Lifecycle`)."""

    endpoint: str
    process: subprocess.Popen[str]
    _errors: IO[str]
    state: StateOutcome = "none"

    def __post_init__(self) -> None:
        self._started = True  # the child serves once it named its endpoint

    @property
    def url(self) -> str:
        return self.endpoint

    @property
    def pid(self) -> int:
        return self.process.pid

    def _begin(self) -> None:
        """Never called: the child runs from :meth:`LaunchedMoto.ready` on."""

    def _end(self, started: bool) -> None:
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

    def __init__(
        self, command: Sequence[str] | None = None, *, state: Path | None = None, hold: int | None = None
    ) -> None:
        """``command``: the child's command line, this module's with the socket's descriptor by default.

        ``state``: the file the child keeps its data in across restarts (none: it starts empty and keeps
        nothing). ``hold``: a descriptor the child keeps open until it exits (the data folder's lock,
        so the folder stays locked until the state is written, however this process ends).
        """
        # Open for the child's lifetime (closed by stop()): what it printed names a failed start.
        self._errors = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115
        # Connections wait in the backlog until the child accepts; only the child keeps the socket.
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listening:
            listening.bind((LOOPBACK, 0))
            listening.listen(128)
            secret = new_secret()
            self.endpoint = f"http://{LOOPBACK}:{listening.getsockname()[1]}/{secret}"
            fd = listening.fileno()
            self.process = subprocess.Popen(  # noqa: S603 - this interpreter, or a test's own command
                list(command)
                if command is not None
                else [sys.executable, "-m", __name__, str(fd), *([str(state)] if state else [])],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._errors,
                text=True,
                pass_fds=(fd,) if hold is None else (fd, hold),
                env={**os.environ, SECRET_VARIABLE: secret},
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
        outcome = line[len(READY) :].split()[1:2]
        state: StateOutcome = outcome[0] if outcome and outcome[0] in _OUTCOMES else "none"  # type: ignore[assignment]
        return MotoProcess(self.endpoint, self.process, self._errors, state)

    def abandon(self) -> None:
        """Stop a child whose start-up is no longer wanted (the caller failed before :meth:`ready`)."""
        _end(self.process)
        self._errors.close()


def start_moto_process(
    start_seconds: float = START_SECONDS, *, command: Sequence[str] | None = None
) -> MotoProcess:
    """Start the moto child and wait for its endpoint; :class:`MotoStartFailed` if it does not come."""
    return LaunchedMoto(command).ready(start_seconds)


_OUTCOMES = ("none", "empty", "restored", "unreadable")


def restore_state(path: Path) -> StateOutcome:
    """Load moto's backends of :data:`KEPT_SERVICES` from ``path`` into this process."""
    from moto.backends import get_backend

    if not path.exists():
        return "empty"
    try:
        saved = pickle.loads(path.read_bytes())  # noqa: S301 - the user's own file, written by save_state
        for name in KEPT_SERVICES:
            live = get_backend(name)  # type: ignore[call-overload]
            for account, regions in saved.get(name, {}).items():
                for region, backend in regions.items():
                    live[account][region] = backend
    except Exception:  # any unreadable file: set aside, never lost, never fatal
        path.replace(path.with_name(path.name + ".unreadable"))
        return "unreadable"
    return "restored"


def save_state(path: Path) -> None:
    """Write moto's backends of :data:`KEPT_SERVICES` to ``path`` (whole or not at all)."""
    from moto.backends import get_backend

    data = {name: get_backend(name) for name in KEPT_SERVICES}  # type: ignore[call-overload]
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb", opener=lambda name, flags: os.open(name, flags, 0o600)) as file:
        pickle.dump(data, file, protocol=pickle.HIGHEST_PROTOCOL)
    partial.replace(path)


def serve(
    fd: int, stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout, state: Path | None = None
) -> None:
    """The child: moto on the listening socket ``fd`` until ``stdin`` closes (see the module's notes)."""
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    # Werkzeug logs every request moto serves; the local server's console stays readable without them.
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    outcome: StateOutcome = "none"
    if state is not None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # stop when the parent says so, after its last request
        outcome = restore_state(state)
    # What ThreadedMotoServer builds, on the socket the parent bound (werkzeug takes it by fd).
    secret = os.environ.pop(SECRET_VARIABLE, "") or new_secret()
    app = guard(DomainDispatcherApplication(create_backend_app), secret)
    server = make_server(LOOPBACK, 0, app, threaded=True, request_handler=MotoRequestHandler, fd=fd)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    print(f"{READY}http://{host!s}:{port}/{secret} {outcome}", file=stdout, flush=True)
    try:
        stdin.read()  # returns at EOF: the parent closed the pipe, or died
    finally:
        server.shutdown()
        thread.join()
        if state is not None:
            save_state(state)


Wsgi = Any
"""A WSGI application (PEP 3333)."""


def guard(app: Wsgi, secret: str) -> Wsgi:
    """``app`` for the local server's own clients only (see the module's notes): the check every local
    server makes (:func:`multitool.local.sandbox.loopback.refusal`: 421 for a request that names another host,
    403 for one that carries an ``Origin``), then 403 for one that lacks the secret; the secret is taken
    off the path before moto reads it."""

    def guarded(environ: dict[str, Any], start_response: Any) -> Any:
        path = under_secret(environ.get("PATH_INFO", ""), secret)
        refused = refusal(environ.get("HTTP_HOST"), environ.get("HTTP_ORIGIN"), pages=False)
        if refused is None and path is None:
            refused = 403, "Forbidden: this sandbox answers the local server only"
        if refused is not None:
            status, message = refused
            body = json.dumps({"message": message}).encode()
            start_response(
                f"{status} {HTTPStatus(status).phrase}",
                [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
            )
            return [body]
        environ["PATH_INFO"] = path
        for raw in ("RAW_URI", "REQUEST_URI"):  # the request line's target, which moto also reads
            if raw in environ:
                environ[raw] = environ[raw].replace(f"/{secret}", "", 1)
        return app(environ, start_response)

    return guarded


if __name__ == "__main__":
    serve(int(sys.argv[1]), state=Path(sys.argv[2]) if len(sys.argv) > 2 else None)
