"""``multitool mcp``: the three tools as an MCP server, on the local sandbox.

It serves the tools to any MCP client (stdio, or streamable HTTP with ``--http``) as one local
user, through the same Gateway event path the deployed Lambdas take; with ``--sandbox`` it uses a
running ``multitool serve``'s data (the moto address it prints), so its drafts can be reviewed
there. With ``--http PORT --sign-in oidc`` it is a remote MCP server as the MCP authorization spec
asks (:mod:`multitool.local.mcp.auth`): clients register and sign in at its own local OIDC
stand-in, and each call is made as the token's user.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import Any

from multitool.local.commands.common import EXIT_OK, EXIT_USAGE, CliError, check_user


def add_parser(commands: Any) -> None:
    """The ``mcp`` command and its arguments, on ``multitool``'s subcommands."""
    parser = commands.add_parser(
        "mcp",
        help="serve the tools to MCP clients (stdio) as a local user",
        description="Serve the three tools as an MCP server (the AgentCore Gateway's tool names and "
        "schemas) against the local sandbox, as one local user: any MCP client can call them.",
    )
    parser.add_argument(
        "--user", help="local user id the drafts are made for (default: the seed's default user)"
    )
    parser.add_argument(
        "--sandbox",
        help="a running `multitool serve`'s moto address (it prints it), to share its data; "
        "default: a fresh embedded sandbox with the same seed",
    )
    parser.add_argument(
        "--http", type=int, metavar="PORT", help="serve streamable HTTP on PORT at /mcp, not stdio"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address for --http (default: %(default)s)")
    parser.add_argument(
        "--sign-in",
        choices=("none", "oidc"),
        default="none",
        help="with --http: none (every call as --user) or oidc (an OAuth 2.1 resource server: MCP clients "
        "register, sign in with the code flow and PKCE at this server's local OIDC stand-in, and call "
        "as the signed-in user); default: %(default)s",
    )
    parser.add_argument(
        "--functions-dir",
        type=Path,
        help="where functions/<name>/handler.py live (default: <repo>/functions)",
    )
    parser.add_argument(
        "--log-level", default="WARNING", help="the handlers' POWERTOOLS_LOG_LEVEL (default: %(default)s)"
    )
    parser.set_defaults(run=mcp)


def mcp(args: argparse.Namespace) -> int:
    """``multitool mcp``: the MCP server on the local sandbox (its own, or a running server's)."""
    import secrets

    from multitool.local.mcp.server import LocalGateway, build_server, serve_http, serve_stdio
    from multitool.local.sandbox.embedded import load_seed, sandbox_env, start_embedded
    from multitool.local.sandbox.loopback import is_loopback
    from multitool.local.sandbox.server import repo_root
    from multitool.observability import use_console_logs

    seed = load_seed()
    if args.http is not None and args.host != "localhost" and not is_loopback(args.host):
        # Without sign-in every caller acts as --user; the sign-in stand-in asks no password: either
        # way whoever reaches the server acts as someone. It serves this machine only.
        raise CliError(
            f"multitool mcp --http serves this machine only (--host 127.0.0.1), not {args.host}: "
            + (
                "its sign-in asks no password."
                if args.sign_in == "oidc"
                else "without sign-in every caller would act as the --user."
            ),
            EXIT_USAGE,
        )
    if args.sign_in == "oidc":
        if args.http is None or args.http == 0:
            raise CliError(
                "--sign-in oidc needs --http PORT (a fixed port: it is the issuer's URL).", EXIT_USAGE
            )
        if args.user:
            raise CliError(
                "--user and --sign-in oidc do not go together: the token says who calls.", EXIT_USAGE
            )
    user = check_user(args.user or seed.default_user, [p.id for p in seed.people])
    person = seed.person(user)
    assert person is not None
    if args.sandbox:
        if not args.sandbox.startswith(("http://", "https://")):
            raise CliError(f"--sandbox must be an http:// address, got {args.sandbox!r}", EXIT_USAGE)
        os.environ.update(sandbox_env(args.sandbox.rstrip("/"), seed, log_level=args.log_level))
        running = None
    else:
        with contextlib.redirect_stdout(sys.stderr):
            running = start_embedded(log_level=args.log_level)
    use_console_logs()
    # The handlers honour the caller keys only when signed with this process's own key.
    caller_key = secrets.token_bytes(32)
    os.environ["CALLER_CONTEXT_KEY"] = caller_key.hex()
    gateway = LocalGateway(args.functions_dir or repo_root() / "functions", person, caller_key)
    sign_in = None
    if args.sign_in == "oidc":
        from multitool.local.mcp.auth import resource_url, token_user
        from multitool.local.standins.oidc import LocalOidc

        resource = resource_url(args.host, args.http)
        oidc = LocalOidc(
            people=lambda: seed.people, issuer=f"http://{args.host}:{args.http}", resources=(resource,)
        )
        sign_in = (oidc, resource)
        server = build_server(gateway, token_user(seed.person))
        user = "the signed-in user"
    else:
        server = build_server(gateway)
    where = args.sandbox or (running.endpoint if running else "")
    try:
        if args.http is not None:
            print(
                f"multitool mcp: {len(gateway.tools)} tools for {user} on http://{args.host}:{args.http}/mcp "
                f"(sandbox {where}). Press Ctrl+C to stop.",
                file=sys.stderr,
                flush=True,
            )
            serve_http(server, args.host, args.http, sign_in)
        else:
            import anyio

            print(
                f"multitool mcp: {len(gateway.tools)} tools for {user} on stdio (sandbox {where}).",
                file=sys.stderr,
                flush=True,
            )
            anyio.run(serve_stdio, server)
    except KeyboardInterrupt:
        pass
    finally:
        if running is not None:
            running.close()
    return EXIT_OK
