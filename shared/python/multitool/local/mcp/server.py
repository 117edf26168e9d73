"""``multitool mcp``: every tool as an MCP server, on the local sandbox, as one local user.

A stand-in for the AgentCore Gateway, built with the official MCP Python SDK (``mcp``): it lists
the tools the Gateway would (``<target>___<tool>``, from the committed Gateway tool schemas) and
answers ``tools/call`` the way the Gateway does, by invoking the action-group Lambda handler
(``functions/tool/handler.py`` for the group, loaded by file path) with the arguments as the whole
event and the Gateway's keys in the Lambda client context. So a call takes exactly the Gateway event path of
the deployed Lambdas: same resolver, same validation, same payloads.

Unlike the AgentCore Gateway, this server knows who it serves: the ``--user`` it was started as,
a seeded local user. It names that verified caller in the client context
(:data:`multitool.tools.gateway_target.CALLER_KEYS`: id, the user's time zone and address from the seed),
so its drafts belong to that user, and only that user can confirm them.

With ``--http PORT --sign-in oidc`` it serves whoever signs in instead: a remote MCP server that is
an OAuth 2.1 resource server (:mod:`multitool.local.mcp.auth`), each call made as the verified
token's user, so an outside client's drafts are that user's.

Transports: stdio (the default; what desktop MCP clients start) and streamable HTTP (``--http``).
Every log line goes to stderr: on stdio, stdout carries the protocol only.

Over HTTP it serves this machine only: it listens on loopback, and every request (``/mcp`` and the
sign-in routes beside it) must name a loopback host and, when it has an ``Origin``, come from a page on
this machine. The MCP specification (2025-06-18, Transports, Streamable HTTP, Security Warning):
servers "MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks"
(403 for an invalid one) and "SHOULD bind only to localhost". The check is the SDK's own
(``mcp.server.transport_security``: ``TransportSecuritySettings``, with the loopback hosts and origins
its FastMCP uses for a loopback server): 421 for another ``Host``, 403 for another ``Origin``.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from multitool.local.sandbox.lambdas import (
    ClientContext,
    Handler,
    LambdaContext,
    encode_client_context,
    load_handler,
)
from multitool.tools.gateway_target import (
    CALLER_EMAIL_KEY,
    CALLER_ID_KEY,
    CALLER_SESSION_KEY,
    CALLER_TIMEZONE_KEY,
    GATEWAY_ID_KEY,
    MESSAGE_ID_KEY,
    MESSAGE_VERSION_KEY,
    REQUEST_ID_KEY,
    TARGET_ID_KEY,
    TARGET_SEPARATOR,
    TOOL_NAME_KEY,
    sign_caller,
)

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from multitool.local.standins.oidc import LocalOidc
    from multitool.people import Person

SERVER_NAME = "multitool"
LOCAL_GATEWAY_ID = "local-multitool"
MESSAGE_VERSION = "1.0"
INSTRUCTIONS = (
    "multitool drafts an email, a meeting proposal or a Jira ticket for the signed-in user to review. "
    "Nothing is sent, booked or created here: each result is a draft with a draftId the user confirms "
    "in multitool. To name in one call what an earlier draft will produce once confirmed (a ticket's "
    "key or link, a meeting's time), write {{<its draftId>.key}} (the values each tool produces are in "
    "its description); the result's links say which draft it waits for, and the user confirms that "
    "one first (or both in order: multitool confirm --all)."
)


def target_name(group: str) -> str:
    """The Gateway target's name of an action group (letters, digits, inner hyphens)."""
    return group.replace("_", "-")


@dataclass(frozen=True, slots=True)
class LocalTool:
    """One tool as the Gateway lists it, and the action group whose Lambda answers it."""

    name: str
    group: str
    definition: Mapping[str, Any]


def local_tools() -> dict[str, LocalTool]:
    """``<target>___<tool>`` -> the tool, for every registered action group."""
    from multitool.schemas.tools import load_tools
    from multitool.tools import REGISTRY

    tools: dict[str, LocalTool] = {}
    for group in REGISTRY.groups:
        for definition in load_tools(group):
            name = f"{target_name(group)}{TARGET_SEPARATOR}{definition['name']}"
            tools[name] = LocalTool(name, group, definition)
    return tools


@dataclass
class LocalGateway:
    """Invokes the action-group handlers as the Gateway does, for one verified local user."""

    functions_dir: Path
    caller: Person
    caller_key: bytes
    """The key the handlers check caller keys with (this process's ``CALLER_CONTEXT_KEY``)."""
    tools: dict[str, LocalTool] = field(default_factory=local_tools)
    session_id: str = field(default_factory=lambda: f"mcp-{uuid.uuid4()}")
    _handlers: dict[str, Handler] = field(default_factory=dict, repr=False)

    def handler(self, group: str) -> Handler:
        if group not in self._handlers:
            self._handlers[group] = load_handler(self.functions_dir, group)
        return self._handlers[group]

    def custom(self, name: str, caller: Person | None = None) -> dict[str, Any]:
        """The client context's ``custom`` map of one call: the Gateway's keys and the caller's
        (``caller``, the signed-in user of this call, else the user the server was started as)."""
        caller = caller or self.caller
        tool = self.tools.get(name)
        custom = {
            TOOL_NAME_KEY: name,
            GATEWAY_ID_KEY: LOCAL_GATEWAY_ID,
            TARGET_ID_KEY: target_name(tool.group) if tool else "",
            REQUEST_ID_KEY: str(uuid.uuid4()),
            MESSAGE_ID_KEY: str(uuid.uuid4()),
            MESSAGE_VERSION_KEY: MESSAGE_VERSION,
            CALLER_ID_KEY: caller.id,
            CALLER_TIMEZONE_KEY: caller.timezone,
            CALLER_EMAIL_KEY: caller.email,
            CALLER_SESSION_KEY: self.session_id
            if caller is self.caller
            else f"{self.session_id}:{caller.id}",
        }
        return sign_caller(custom, self.caller_key)

    def call(
        self, name: str, arguments: Mapping[str, Any] | None, caller: Person | None = None
    ) -> dict[str, Any]:
        """The Lambda's answer to one ``tools/call``: a payload, or an ``{"error": ...}`` body."""
        tool = self.tools.get(name)
        if tool is None:
            return {
                "error": {
                    "code": "unknown_tool",
                    "message": f"There is no tool '{name}'. Tools: {', '.join(self.tools)}.",
                    "field": "name",
                }
            }
        event = json.loads(json.dumps(dict(arguments or {})))  # the Gateway sends JSON
        context = LambdaContext(
            f"multitool-{target_name(tool.group)}",
            client_context=ClientContext.from_invoke(encode_client_context(self.custom(name, caller))),
        )
        answer = self.handler(tool.group)(event, context)
        decoded: dict[str, Any] = json.loads(json.dumps(answer))
        return decoded


def build_server(gateway: LocalGateway, signed_in: Callable[[], Person | None] | None = None) -> Server:
    """The MCP server: ``tools/list`` from the Gateway tool schemas, ``tools/call`` through the Lambdas.

    ``signed_in``, when given, says whose verified token the current request carries: every call is
    made as that user (and refused when the token's user is not a known one).
    """
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server

    server: Server = Server(SERVER_NAME, instructions=INSTRUCTIONS)

    @server.list_tools()  # type: ignore[untyped-decorator, no-untyped-call]
    async def list_tools() -> list[types.Tool]:
        return [
            types.Tool(
                name=tool.name,
                description=tool.definition["description"],
                inputSchema=dict(tool.definition["inputSchema"]),
            )
            for tool in gateway.tools.values()
        ]

    # The Lambda validates the arguments (the same validation as every path): not the SDK.
    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        caller = signed_in() if signed_in is not None else None
        if signed_in is not None and caller is None:
            answer: dict[str, Any] = {
                "error": {
                    "code": "unknown_user",
                    "message": "The signed-in user is not in this sandbox's directory: "
                    "sign in as one who is.",
                    "field": "authorization",
                }
            }
        else:
            answer = await anyio.to_thread.run_sync(gateway.call, name, arguments, caller)
        text = json.dumps(answer, ensure_ascii=False)
        failed = isinstance(answer.get("error"), Mapping)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structuredContent=None if failed else answer,
            isError=failed,
        )

    return server


@contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """While serving stdio, everything but the protocol (handler logs, prints) goes to stderr."""
    from multitool.observability import logger

    handler = logger.registered_handler
    previous_stream = getattr(handler, "stream", None)
    previous_stdout = sys.stdout
    if previous_stream is not None:
        handler.setStream(sys.stderr)  # type: ignore[attr-defined]
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stdout = previous_stdout
        if previous_stream is not None:
            handler.setStream(previous_stream)  # type: ignore[attr-defined]


async def serve_stdio(server: Server) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    protocol = anyio.wrap_file(open(sys.stdout.fileno(), "w", encoding="utf-8", closefd=False))  # noqa: SIM115
    with stdout_to_stderr():
        async with stdio_server(stdout=protocol) as (read, write):
            await server.run(read, write, server.create_initialization_options())


class _Asgi:
    """An ASGI app around the session manager's handler (Starlette routes it as an app, not a view)."""

    def __init__(self, manager: Any) -> None:
        self._manager = manager

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self._manager.handle_request(scope, receive, send)


LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
LOOPBACK_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")


def loopback_only() -> Any:
    """The SDK's DNS-rebinding protection for a server on this machine: loopback hosts and origins."""
    from mcp.server.transport_security import TransportSecuritySettings

    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(LOOPBACK_HOSTS),
        allowed_origins=list(LOOPBACK_ORIGINS),
    )


class _LoopbackOnly:
    """Every route (the sign-in ones too, which the SDK's transport does not guard) checked as the
    SDK checks ``/mcp``: its Host and Origin validation, before the app sees the request."""

    def __init__(self, app: Any) -> None:
        from mcp.server.transport_security import TransportSecurityMiddleware

        self._app = app
        self._check = TransportSecurityMiddleware(loopback_only())

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            from starlette.requests import HTTPConnection

            refused = await self._check.validate_request(HTTPConnection(scope), is_post=False)
            if refused is not None:
                await refused(scope, receive, send)
                return
        await self._app(scope, receive, send)


def http_app(server: Server, sign_in: tuple[LocalOidc, str] | None = None) -> Any:
    """Streamable HTTP at ``/mcp`` (stateless, JSON answers), as a Starlette app, for loopback only.

    ``sign_in`` (the authorization server and this server's resource URL) puts ``/mcp`` behind the
    bearer check and serves the metadata and the authorization server beside it.
    """
    import contextlib

    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.routing import Route

    manager = StreamableHTTPSessionManager(
        app=server, stateless=True, json_response=True, security_settings=loopback_only()
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> Any:
        async with manager.run():
            yield

    guard = [Middleware(_LoopbackOnly)]
    if sign_in is None:
        return Starlette(routes=[Route("/mcp", endpoint=_Asgi(manager))], middleware=guard, lifespan=lifespan)
    from multitool.local.mcp.auth import protected_routes

    oidc, resource = sign_in
    routes = protected_routes(_Asgi(manager), oidc, resource)
    return Starlette(routes=routes, middleware=guard, lifespan=lifespan)


def serve_http(server: Server, host: str, port: int, sign_in: tuple[LocalOidc, str] | None = None) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` until interrupted."""
    import uvicorn

    uvicorn.run(http_app(server, sign_in), host=host, port=port, log_level="warning")
