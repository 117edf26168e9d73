"""``multitool serve``: the page and the API (the real handlers) on embedded AWS, no account needed.

It runs on embedded defaults (a moto server on loopback, a seeded directory, the SES and Jira
sandboxes, the offline model) unless told otherwise: a real model or harness, a provider stand-in
(``--calendar``), the OIDC sign-in, each user's own consent (``--consent``).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from multitool.local.commands.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CliError
from multitool.local.commands.sandbox import add_backend_options, local_api

if TYPE_CHECKING:
    from multitool.local.sandbox.embedded import BackendChoice, Embedded
    from multitool.people import Person


def add_parser(commands: Any) -> None:
    """The ``serve`` command and its arguments, on ``multitool``'s subcommands."""
    parser = commands.add_parser(
        "serve",
        help="serve the chat page and the API locally",
        description="Serve the chat page and the API (the real handlers) on embedded AWS: no account needed.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    parser.add_argument(
        "--port", type=int, default=8000, help="port; 0 picks a free one (default: %(default)s)"
    )
    add_backend_options(parser)
    parser.add_argument("--web-dir", type=Path, help="the page's folder (default: <repo>/web)")
    parser.add_argument("--verbose", action="store_true", help="log each request (method, path, status)")
    kept = parser.add_mutually_exclusive_group()
    kept.add_argument(
        "--data-dir",
        type=Path,
        help="where the drafts, sessions, bookings, sent mail and issues are kept across restarts; "
        "delete it to start empty (default: <repo>/.local-data)",
    )
    kept.add_argument(
        "--ephemeral", action="store_true", help="keep nothing: start empty and forget everything on stop"
    )
    parser.add_argument(
        "--calendar",
        choices=("builtin", "microsoft365", "google"),
        default="builtin",
        help="whose directory, calendar and mail the actions use: builtin (the sandbox's own), "
        "microsoft365 (a local Microsoft Graph stand-in) or google (a local Google Workspace "
        "stand-in), each seeded with the people and a week of meetings; default: %(default)s",
    )
    parser.add_argument(
        "--sign-in",
        choices=("local", "oidc"),
        help="the page's sign-in: local (pick a seeded user) or oidc (the code flow with PKCE against a "
        "local OIDC stand-in, tokens checked as the JWT authorizer does); default: local, oidc with "
        "--consent",
    )
    parser.add_argument(
        "--consent",
        action="store_true",
        help="with --calendar microsoft365|google: each user connects their own account, as deployed with "
        "AgentCore Identity: a local identity stand-in issues each user's token after they allow it on "
        "a local consent page, and the provider stand-in acts only as the token's user (needs "
        "--sign-in oidc, the default with it)",
    )
    parser.add_argument(
        "--slack",
        action="store_true",
        help="also serve the Slack app (POST /slack/events, functions/slack) against a local Slack "
        "stand-in: a workspace of the seeded people with a page to write and click as any of them "
        "(see `multitool slack`)",
    )
    parser.add_argument(
        "--slack-port",
        type=int,
        default=None,
        help="the Slack stand-in's port; 0 picks a free one (default: 8025, or a free one when taken)",
    )
    parser.set_defaults(run=serve)


def model_banner(choice: BackendChoice) -> str:
    from multitool.settings import ModelBackend

    return {
        ModelBackend.OFFLINE: "the offline model (through the AgentCore harness runtime)",
        ModelBackend.OFFLINE_CONVERSE: "the offline model (through the Converse loop)",
        ModelBackend.AGENTCORE: f"the AgentCore harness {choice.harness_arn}",
        ModelBackend.CONVERSE: f"Bedrock Converse ({choice.model_id})",
        ModelBackend.AGENT: f"Bedrock agent {choice.agent_id}/{choice.agent_alias_id}",
    }[choice.runtime]


def data_banner(running: Embedded) -> str:
    """What a restart keeps, in one line."""
    if running.data is None:
        return "Data: kept in memory only (--ephemeral): a restart starts empty."
    where = running.data.path
    unreadable = sorted(p.name for p in where.glob("*.unreadable"))
    if running.restored:
        return f"Data: restored from {where}, kept there across restarts (delete the folder to start empty)."
    if unreadable:
        return (
            f"Data: what {where} held could not be read (set aside as {', '.join(unreadable)}); "
            "starting empty, kept there from now on."
        )
    return f"Data: kept in {where} across restarts (delete the folder to start empty)."


LOCAL_WORKLOAD = "multitool-local"
"""``multitool serve --consent``'s workload identity at the local identity stand-in."""


def check_consent_options(args: argparse.Namespace) -> None:
    """``--consent`` goes with a provider calendar and the OIDC sign-in (a JWT to exchange); it sets the
    sign-in when none was asked for."""
    if not args.consent:
        args.sign_in = args.sign_in or "local"
        return
    if args.calendar == "builtin":
        raise CliError(
            "--consent connects a provider account: add --calendar microsoft365|google.", EXIT_USAGE
        )
    if args.sign_in == "local":
        raise CliError(
            "--consent needs --sign-in oidc: AgentCore Identity exchanges the user's own token, which "
            "the local sign-in does not make.",
            EXIT_USAGE,
        )
    if args.harness_arn:
        raise CliError(
            "--consent serves AgentCore Identity at a local bedrock-agentcore endpoint, which a real "
            "harness (--harness-arn) cannot share: run it with the offline model or Converse.",
            EXIT_USAGE,
        )
    args.sign_in = "oidc"


def start_identity(running: Embedded, calendar: str, return_url: str) -> str:
    """The local AgentCore Identity (``--consent``) for a page at ``return_url``: started, its settings
    applied to the in-process functions as the stack sets them; answers its banner line."""

    from multitool.local.standins.identity_endpoint import IdentityEndpoint
    from multitool.ports.agentcore.tokens import slack_vault_user
    from multitool.ports.tokens import PROVIDER_NAMES

    def person(user: str) -> Person | None:
        """The person a consent is for: by the page's sub, or by the Slack app's vault user id."""
        found = running.seed.person(user)
        return found or next((p for p in running.seed.people if slack_vault_user(p.email) == user), None)

    endpoint = running.enter(
        IdentityEndpoint(
            workloads={LOCAL_WORKLOAD: (return_url,)},
            person=person,
            provider_name=PROVIDER_NAMES[calendar],
        )
    )
    env = {
        # Only the functions' bedrock-agentcore clients go there: the offline harness runs in process.
        "AWS_ENDPOINT_URL_BEDROCK_AGENTCORE": endpoint.url,
        "IDENTITY_WORKLOAD_NAME": LOCAL_WORKLOAD,
        "IDENTITY_PROVIDER": calendar,
        # Named as the provider, so the stand-in's token is ``local-<provider>-<sub>``: what the provider
        # stand-in takes as that user's (LocalIdentity names its tokens after the credential provider).
        "IDENTITY_CREDENTIAL_PROVIDER": calendar,
        "IDENTITY_RETURN_URL": return_url,
        "CONNECTIONS_TABLE_NAME": running.env["LIMITS_TABLE_NAME"],
    }
    running.env.update(env)
    os.environ.update(env)  # read by the in-process handlers on first use, after this
    return (
        f"Consent: each user connects their own {PROVIDER_NAMES[calendar]} account at a local "
        f"AgentCore Identity stand-in ({endpoint.url}, consent page {endpoint.url}/consent)."
    )


def serve(args: argparse.Namespace) -> int:
    from multitool.local.sandbox.loopback import is_loopback
    from multitool.local.sandbox.server import make_server

    check_consent_options(args)
    running, api = local_api(args)
    with running:  # everything started below stops with it, the last started first
        try:
            server = make_server(
                api, host=args.host, port=args.port, web_dir=args.web_dir, quiet=not args.verbose
            )
        except OSError as error:
            print(
                f"multitool: cannot listen on {args.host}:{args.port} ({error.strerror or error}); "
                "try another --port (0 picks a free one).",
                file=sys.stderr,
            )
            return EXIT_ERROR
        if args.sign_in == "oidc":  # the OIDC stand-in issues tokens for this server's own URL
            from multitool.local.standins.oidc import LocalOidc

            api.auth = LocalOidc(people=lambda: running.seed.people, issuer=server.url.rstrip("/"))
        if args.consent:  # AgentCore returns to the page: its URL is known once the server is bound
            print(f"  {start_identity(running, args.calendar, server.url)}")
        if args.slack:  # Slack calls the app at this server's URL, known once it is bound
            from multitool.local.sandbox.slack import slack_banner, start_slack
            from multitool.local.standins.slack_server import DEFAULT_PORT

            port = DEFAULT_PORT if args.slack_port is None else args.slack_port
            print(f"  {slack_banner(start_slack(running, server.url, port=port))}")
        running.enter(server)  # served once configured (bound before: the requests wait in its backlog)
        model = model_banner(running.runtime)
        print(f"multitool is running on {model} with sandboxed AWS (moto at {running.endpoint}).")
        print(f"  {data_banner(running)}")
        print(f"  Open {server.url} in your browser. Press Ctrl+C to stop.", flush=True)
        if not is_loopback(str(server.server_address[0])):
            print(
                "  Local sign-in, the directory and the sandbox outbox answer this machine only; "
                "other machines get the page and a 401.",
                flush=True,
            )
        try:
            threading.Event().wait()  # the server's thread serves; Ctrl+C ends the wait
        except KeyboardInterrupt:
            print("\nStopped.")
    return EXIT_OK
