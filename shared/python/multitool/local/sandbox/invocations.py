"""Lambda's asynchronous Invoke, on loopback: what a function's ``InvocationType=Event`` call reaches locally.

The orchestrator starts a long turn by invoking itself asynchronously
(``lambda.invoke(FunctionName=..., InvocationType="Event")``). Locally,
``AWS_ENDPOINT_URL_LAMBDA`` points boto3 here: the request arrives in Lambda's wire
shape (``POST /2015-03-31/functions/{name}/invocations``, ``X-Amz-Invocation-Type:
Event``), is answered 202 at once, as Lambda queues it, and the event runs in a
background thread on the function's handler (the target bound by the API Gateway
stand-in, :meth:`multitool.local.sandbox.api_gateway.LocalApi.invoke_event`). Only the event
invocation type is served: nothing in the system waits on another function.

Only the server's own clients reach it. It is a :class:`multitool.local.standins.stand_in.StandInServer`: it
listens on loopback and answers a request whose ``Host`` names this machine (a DNS-rebinding page sends
its own name) and that carries no ``Origin`` (boto3 sends none; a browser sends one with every POST a
page makes, per the Fetch standard); its URL holds a
per-process secret (``http://127.0.0.1:<port>/<secret>``, what ``AWS_ENDPOINT_URL_LAMBDA`` is set to,
see :func:`multitool.local.sandbox.loopback.under_secret`), so a page that cannot read the server's
environment cannot forge an event. And only the functions it was bound to are invoked, by exact
name: the function name is never a path.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable, Collection
from typing import Any
from urllib.parse import unquote

from multitool.local.sandbox.loopback import new_secret, under_secret
from multitool.local.standins.stand_in import StandInHandler, StandInServer

Target = Callable[[str, Any], None]
"""Runs one event on function ``name``: ``target(name, event)``."""

_PATH = re.compile(r"^/2015-03-31/functions/(?P<name>[^/]+)/invocations$")
MAX_PAYLOAD_BYTES = 256 * 1024  # Lambda's limit for an asynchronous invocation's payload


class _Handler(StandInHandler):
    server: LocalInvocations
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        path = under_secret(self.path.split("?", 1)[0], self.server.secret)
        if path is None:  # the peer, Host and Origin were checked before (StandInHandler)
            self._refuse("Invocations are accepted from this server's own clients only.")
            return
        found = _PATH.match(path)
        if found is None:
            self._answer(404, "UnknownOperationException", "Only Invoke is served here.")
            return
        size = int(self.headers.get("Content-Length") or 0)
        if size > MAX_PAYLOAD_BYTES:
            self._answer(413, "RequestTooLargeException", "The payload is over 256 KB.")
            return
        payload = self.rfile.read(size)
        kind = self.headers.get("X-Amz-Invocation-Type", "RequestResponse")
        if kind != "Event":
            self._answer(400, "InvalidParameterValueException", "Only InvocationType=Event is served.")
            return
        target = self.server.target
        # FunctionName is a name, a partial ARN or an ARN: the name is its last part.
        name = unquote(found["name"]).rsplit(":", 1)[-1]
        if target is None or name not in self.server.functions:
            self._answer(404, "ResourceNotFoundException", "Function not found.")
            return
        try:
            event = json.loads(payload or b"{}")
        except ValueError:
            self._answer(400, "InvalidRequestContentException", "The payload is not JSON.")
            return
        thread = threading.Thread(target=self.server.run, args=(target, name, event), daemon=True)
        thread.start()
        self.server.started.append(thread)
        self._send(202, b"")

    def _refuse(self, message: str) -> None:
        self.close_connection = True  # the body is left unread
        self._answer(403, "AccessDeniedException", message)

    def _answer(self, status: int, code: str, message: str) -> None:
        self._send(status, json.dumps({"Type": "User", "message": message}).encode(), code)

    def _send(self, status: int, body: bytes, error_type: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if error_type:
            self.send_header("x-amzn-ErrorType", error_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class LocalInvocations(StandInServer):
    """The loopback endpoint; :meth:`bind` names who runs the events, and for which functions (until
    then, 404). :attr:`url` holds its secret: it is the endpoint the server's own clients use."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(_Handler, host, port, name="lambda-invoke")
        self.target: Target | None = None
        self.functions: frozenset[str] = frozenset()
        self.secret = new_secret()
        self.started: list[threading.Thread] = []

    @property
    def url(self) -> str:
        return f"{super().url}/{self.secret}"

    def bind(self, target: Target, functions: Collection[str]) -> None:
        """Run the events of ``functions`` (the deployed functions' names) with ``target``."""
        self.functions = frozenset(functions)
        self.target = target

    @staticmethod
    def run(target: Target, name: str, event: Any) -> None:
        try:
            target(name, event)
        except Exception as error:  # Lambda logs an async invocation's failure; nobody waits for it
            sys.stderr.write(f"[{name}] asynchronous invocation failed: {type(error).__name__}\n")
