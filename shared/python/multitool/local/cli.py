"""``multitool``: run the whole system locally, or talk to it from a script.

    multitool serve [--host 127.0.0.1] [--port 8000]          # page + API on embedded AWS
    multitool serve --agent-id AGENT --alias-id ALIAS          # a real Bedrock agent
    multitool serve --runtime converse --model-id MODEL        # Converse with a real model
    multitool serve --harness-arn ARN                          # a real AgentCore harness
    multitool serve --calendar microsoft365|google             # a local Graph or Google stand-in
    multitool serve --calendar microsoft365|google --consent   # ... each user connects their own account
    multitool chat "Email Kinshuok about the doc" [--user ID] [--session ID] [--url URL]
    multitool get ID | confirm ID [--edits JSON] | discard ID   [--user ID] [--url URL]
    multitool mcp [--user ID] [--sandbox MOTO_URL] [--http PORT]   # the tools as an MCP server
    multitool mcp --http PORT --sign-in oidc [--sandbox MOTO_URL]  # ... as whoever signs in (OAuth)
    multitool doctor [--region R] [--model-id M] [--stack S] [--sender-email E]   # AWS preflight
    multitool eval DATASET... [--runtime offline|converse|agentcore] [--model-id ID ...]
                   [--url URL [--token TOKEN]] [--json OUT] [--min-exact RATE]   # score combined requests
                   [--max-silently-wrong RATE]
    TOKEN=$(multitool login [--stack Multitool] [--token id|access] [--save FILE])  # a deployed stack

``chat`` prints the /chat response JSON; ``get``, ``confirm`` and ``discard`` print
the action (the review API's JSON) of a running ``multitool serve``. On an error
the exit status is 1 and stderr names the API's error code and message.

``eval`` runs each case of JSON Lines datasets (:mod:`multitool.local.evaluation`) and prints a
table of exact, intent recall, silently wrong, asked, model calls, tokens and latency, one column
per ``--model-id``; it never confirms a card and discards every card it made.

``mcp`` serves the three tools to any MCP client (stdio, or streamable HTTP with ``--http``) as
one local user, through the same Gateway event path the deployed Lambdas take; with ``--sandbox``
it uses a running ``multitool serve``'s data (the moto address it prints), so its drafts can be
reviewed there. With ``--http PORT --sign-in oidc`` it is a remote MCP server as the MCP
authorization spec asks (:mod:`multitool.local.mcp_auth`): clients register and sign in at its own
local OIDC stand-in, and each call is made as the token's user.

``doctor`` checks your own AWS account and region, read-only, before and after ``cdk deploy``:
one line per check (ok, warn or fail, and the step that fixes it); the exit status is 1 when
anything would stop a first chat turn (``multitool.local.doctor``).
``login`` signs in to a deployed stack in the browser (the command line's own Cognito client, the
code flow with PKCE, a callback on localhost) and prints the token scripts send to the API.

``serve`` and an in-process ``chat`` run on embedded defaults (a moto server on loopback, a seeded directory,
the SES and Jira sandboxes, the offline model) unless told otherwise. This
module stays import-light: the local server and moto load only when used.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import uuid
import webbrowser
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from multitool.local.login import TOKEN_KINDS

if TYPE_CHECKING:
    from multitool.local.embedded import BackendChoice, Embedded
    from multitool.local.gateway import LocalApi
    from multitool.people import Person

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
DEFAULT_URL = "http://127.0.0.1:8000"
URL_VARIABLE = "MULTITOOL_URL"
"""Where the running ``multitool serve`` is, when not at :data:`DEFAULT_URL` (``--url`` wins)."""
DEFAULT_DATA_DIR = ".local-data"
"""``multitool serve``'s data folder, under the checkout (git-ignored)."""


class CliError(Exception):
    """Something the command line reports in one line on stderr, with an exit status."""

    def __init__(self, message: str, exit_code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="multitool",
        description="One chat message, several intents, one reviewed card per action.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")

    serve = commands.add_parser(
        "serve",
        help="serve the chat page and the API locally",
        description="Serve the chat page and the API (the real handlers) on embedded AWS: no account needed.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    serve.add_argument(
        "--port", type=int, default=8000, help="port; 0 picks a free one (default: %(default)s)"
    )
    _add_backend_options(serve)
    serve.add_argument("--web-dir", type=Path, help="the page's folder (default: <repo>/web)")
    serve.add_argument("--verbose", action="store_true", help="log each request (method, path, status)")
    kept = serve.add_mutually_exclusive_group()
    kept.add_argument(
        "--data-dir",
        type=Path,
        help="where the drafts, sessions, bookings, sent mail and issues are kept across restarts; "
        "delete it to start empty (default: <repo>/.local-data)",
    )
    kept.add_argument(
        "--ephemeral", action="store_true", help="keep nothing: start empty and forget everything on stop"
    )
    serve.add_argument(
        "--calendar",
        choices=("builtin", "microsoft365", "google"),
        default="builtin",
        help="whose directory, calendar and mail the actions use: builtin (the sandbox's own), "
        "microsoft365 (a local Microsoft Graph stand-in) or google (a local Google Workspace "
        "stand-in), each seeded with the people and a week of meetings; default: %(default)s",
    )
    serve.add_argument(
        "--sign-in",
        choices=("local", "oidc"),
        help="the page's sign-in: local (pick a seeded user) or oidc (the code flow with PKCE against a "
        "local OIDC stand-in, tokens checked as the JWT authorizer does); default: local, oidc with "
        "--consent",
    )
    serve.add_argument(
        "--consent",
        action="store_true",
        help="with --calendar microsoft365|google: each user connects their own account, as deployed with "
        "AgentCore Identity: a local identity stand-in issues each user's token after they allow it on "
        "a local consent page, and the provider stand-in acts only as the token's user (needs "
        "--sign-in oidc, the default with it)",
    )

    chat = commands.add_parser(
        "chat",
        help="send one message and print the /chat response JSON",
        description="Send one message to /chat and print the response JSON (for scripts).",
    )
    chat.add_argument("message", help="what you would type in the chat drawer")
    chat.add_argument("--user", help="local user id to sign in as (default: the seed's default user)")
    chat.add_argument("--session", help="session id, to continue a conversation (default: a new one)")
    chat.add_argument(
        "--url",
        help="a running `multitool serve` (default: $MULTITOOL_URL or http://127.0.0.1:8000 when a server "
        "answers there, so `multitool get` finds the drafts; else in-process on throwaway data)",
    )
    _add_backend_options(chat)

    mcp = commands.add_parser(
        "mcp",
        help="serve the tools to MCP clients (stdio) as a local user",
        description="Serve the three tools as an MCP server (the AgentCore Gateway's tool names and "
        "schemas) against the local sandbox, as one local user: any MCP client can call them.",
    )
    mcp.add_argument(
        "--user", help="local user id the drafts are made for (default: the seed's default user)"
    )
    mcp.add_argument(
        "--sandbox",
        help="a running `multitool serve`'s moto address (it prints it), to share its data; "
        "default: a fresh embedded sandbox with the same seed",
    )
    mcp.add_argument(
        "--http", type=int, metavar="PORT", help="serve streamable HTTP on PORT at /mcp, not stdio"
    )
    mcp.add_argument("--host", default="127.0.0.1", help="address for --http (default: %(default)s)")
    mcp.add_argument(
        "--sign-in",
        choices=("none", "oidc"),
        default="none",
        help="with --http: none (every call as --user) or oidc (an OAuth 2.1 resource server: MCP clients "
        "register, sign in with the code flow and PKCE at this server's local OIDC stand-in, and call "
        "as the signed-in user); default: %(default)s",
    )
    mcp.add_argument(
        "--functions-dir",
        type=Path,
        help="where functions/<name>/handler.py live (default: <repo>/functions)",
    )
    mcp.add_argument(
        "--log-level", default="WARNING", help="the handlers' POWERTOOLS_LOG_LEVEL (default: %(default)s)"
    )

    doctor = commands.add_parser(
        "doctor",
        help="check your AWS account and region before and after a deploy (read-only)",
        description="Check, read-only and with your own credentials, what a first chat turn needs: "
        "the caller, the region's AgentCore, the model's lifecycle and access, the Lambda concurrency "
        "the deploy reserves, the SES sender and sandbox and, once deployed, the stack's outputs, the "
        "harness and the Jira secret. Exit 1 when anything would stop a first turn.",
    )
    doctor.add_argument(
        "--region", help="the deploy region (default: AWS_REGION, else AWS_DEFAULT_REGION or your profile's)"
    )
    doctor.add_argument("--profile", help="the AWS CLI profile to use (default: the standard chain)")
    doctor.add_argument("--model-id", help="the model or inference profile id (default: cdk.json's modelId)")
    doctor.add_argument("--stack", help="the stack's name (default: cdk.json's stackName, else Multitool)")
    doctor.add_argument(
        "--reserved-concurrency",
        type=int,
        help="the executions the deploy reserves, orchestratorConcurrency + reviewConcurrency "
        "(default: cdk.json's, else 0)",
    )
    doctor.add_argument(
        "--sender-email",
        help="the deploy's senderEmail (default: cdk.json's, else the deployed stack's SES identity)",
    )
    doctor.add_argument(
        "--runtime",
        choices=("agentcore", "agent", "converse"),
        help="the deploy's runtime (default: the deployed stack's, else cdk.json's, else agentcore)",
    )
    doctor.add_argument(
        "--json", action="store_true", help="print the findings as one JSON object, for scripts"
    )
    doctor.add_argument(
        "--executor",
        choices=("return_control", "gateway", "lambda"),
        help="the deploy's executor; gateway also checks the AgentCore Gateway (default: cdk.json's)",
    )
    _add_eval_parser(commands)
    login = commands.add_parser(
        "login",
        help="sign in to a deployed stack in the browser; print a token for curl",
        description="Sign in through the stack's managed login (authorization code with PKCE, the "
        "command line's own app client, a callback on localhost) and print the token to send as "
        "'Authorization: Bearer'. The sign-in domain and client come from the stack's outputs "
        "(SignInDomain, CliClientId) unless given.",
    )
    login.add_argument("--stack", default="Multitool", help="the deployed stack (default: %(default)s)")
    login.add_argument("--region", help="the stack's region (default: your AWS configuration's)")
    login.add_argument("--sign-in-domain", help="managed login origin, https://<prefix>.auth.<region>...")
    login.add_argument("--client-id", help="a public app client whose callback URL is login's")
    login.add_argument(
        "--token", choices=TOKEN_KINDS, default="id", help="which token to print (default: %(default)s)"
    )
    login.add_argument("--save", type=Path, help="also write every token, as JSON readable only by you")
    login.add_argument(
        "--no-browser", action="store_true", help="print the sign-in URL, do not open a browser"
    )
    erase = commands.add_parser(
        "erase",
        help="delete one user's drafts, sessions, turns, replies kept for retries, bookings and limits; "
        "keep their audit records without ids",
        description="Delete one user's data from the deployed tables (by the owner index: no scan), "
        "and say what is kept and why. "
        "Table names come from the *_TABLE_NAME environment variables, else the stack's outputs.",
    )
    erase.add_argument("--user", required=True, metavar="SUB", help="the user's sub (the JWT subject)")
    erase.add_argument("--stack", default="Multitool", help="the stack to read table names from")
    erase.add_argument("--region", help="AWS region (default: your profile's)")
    erase.add_argument("--dry-run", action="store_true", help="count what would be deleted; delete nothing")

    for verb, what in (
        ("get", "print an action (a card's draft) and its status"),
        ("confirm", "confirm an action: send, book or create it, with optional edits"),
        ("discard", "discard an action"),
    ):
        command = commands.add_parser(
            verb, help=what, description=f"{what[0].upper()}{what[1:]}, on a running `multitool serve`."
        )
        command.add_argument("id", help="the action id (a card's id in the /chat response)")
        if verb == "confirm":
            command.add_argument(
                "--edits",
                default="{}",
                help='the card\'s fields as you changed them, a JSON object, e.g. \'{"subject": "Notes"}\'',
            )
        command.add_argument(
            "--user", help="local user id to sign in as (default: the server's default user)"
        )
        command.add_argument(
            "--url", default=server_url(), help="the running server (default: $MULTITOOL_URL or %(default)s)"
        )
    return parser


def _add_backend_options(parser: argparse.ArgumentParser) -> None:
    from multitool.settings import ModelBackend

    group = parser.add_argument_group("model runtime (default: the offline model behind an offline harness)")
    group.add_argument(
        "--runtime", choices=[runtime.value for runtime in ModelBackend], help="how a turn reaches a model"
    )
    group.add_argument("--harness-arn", help="AgentCore harness ARN: RUNTIME=agentcore")
    group.add_argument("--agent-id", help="Bedrock agent id (with --alias-id): RUNTIME=agent")
    group.add_argument("--alias-id", help="Bedrock agent alias id")
    group.add_argument("--model-id", help="Bedrock model or inference profile id: RUNTIME=converse")
    group.add_argument("--region", help="AWS region for Bedrock (default: your profile's, else us-east-1)")
    group.add_argument(
        "--functions-dir",
        type=Path,
        help="where functions/<name>/handler.py live (default: <repo>/functions)",
    )
    group.add_argument(
        "--log-level", default="WARNING", help="the handlers' POWERTOOLS_LOG_LEVEL (default: %(default)s)"
    )


def _add_eval_parser(commands: Any) -> None:
    evaluate = commands.add_parser(
        "eval",
        help="score combined requests (JSON Lines cases) against a runtime and models",
        description="Run every case of the datasets as a new session, compare the cards made with the "
        "expected ones, and print the measures (one column per --model-id). Cards are never confirmed: "
        "each one made is discarded.",
    )
    evaluate.add_argument("datasets", nargs="+", type=Path, metavar="DATASET", help="a .jsonl file of cases")
    evaluate.add_argument(
        "--runtime",
        choices=("offline", "converse", "agentcore"),
        default="offline",
        help="how a turn reaches a model (default: %(default)s); converse and agentcore call Bedrock",
    )
    evaluate.add_argument(
        "--model-id",
        action="append",
        default=[],
        dest="model_ids",
        metavar="ID",
        help="a Bedrock model or inference profile id; repeat it to compare models side by side "
        "(agentcore: the harness is invoked with that model)",
    )
    evaluate.add_argument("--harness-arn", help="the AgentCore harness ARN (--runtime agentcore)")
    evaluate.add_argument("--region", help="AWS region for Bedrock (default: your profile's, else us-east-1)")
    evaluate.add_argument(
        "--url",
        help="run over HTTP: a running `multitool serve`, or a deployed stack's ApiUrl (with --token)",
    )
    evaluate.add_argument("--token", help="a bearer token for --url (a deployed API's Cognito access token)")
    evaluate.add_argument("--json", type=Path, metavar="OUT", help="write the JSON report to OUT")
    evaluate.add_argument(
        "--now",
        metavar="WHEN",
        help="pin the turns' clock (in process): an ISO 8601 time with its offset, or a weekday name "
        "(the latest such day, 12:00 UTC), so relative days score the same every day of the week",
    )
    evaluate.add_argument(
        "--min-exact",
        type=float,
        metavar="RATE",
        help="exit 1 when a model's share of exact cases (0..1) is under RATE (make eval's floor)",
    )
    evaluate.add_argument(
        "--max-silently-wrong",
        type=float,
        metavar="RATE",
        help="exit 1 when a model's share of silently wrong cases (0..1: a card made with a wrong "
        "field it does not flag, or a card not asked for) is over RATE (0: never)",
    )
    evaluate.add_argument(
        "--log-level", default="ERROR", help="the handlers' POWERTOOLS_LOG_LEVEL (default: %(default)s)"
    )
    evaluate.add_argument(
        "--verbose", action="store_true", help="show the handlers' log records and metrics on stderr"
    )


def _backend_choice(args: argparse.Namespace) -> BackendChoice:
    from multitool.local.embedded import BackendChoice

    return BackendChoice.from_options(
        runtime=args.runtime,
        agent_id=args.agent_id,
        agent_alias_id=args.alias_id,
        model_id=args.model_id,
        harness_arn=args.harness_arn,
    )


def _local_api(args: argparse.Namespace) -> tuple[Embedded, LocalApi]:
    """Start embedded AWS, apply its environment, and put the API Gateway stand-in before the handlers."""
    from multitool.local.data_dir import DataDir, DataDirInUse
    from multitool.local.moto_process import LaunchedMoto
    from multitool.local.server import repo_root

    data = None
    if not getattr(args, "ephemeral", True):
        try:
            data = DataDir.open(args.data_dir or repo_root() / DEFAULT_DATA_DIR)
        except DataDirInUse as error:
            raise CliError(str(error), EXIT_ERROR) from None
    # moto's child boots while this process imports the server
    moto = LaunchedMoto(state=data.aws_state, hold=data.lock_fd) if data else LaunchedMoto()
    try:
        from multitool.local.embedded import start_embedded
        from multitool.local.gateway import ASYNC_INVOKED, LocalApi, sandbox_outbox_reader
        from multitool.local.outbox import provider_outbox
        from multitool.local.server import repo_root
        from multitool.observability import use_console_logs

        choice = _backend_choice(args)
    except BaseException:  # start_embedded stops the child itself from here on
        moto.abandon()
        if data is not None:
            data.release()
        raise
    running = start_embedded(choice, region=args.region, log_level=args.log_level, moto=moto, data=data)
    calendar = getattr(args, "calendar", "builtin")
    provider = None
    if calendar != "builtin":
        stand_in, banner = _provider_stand_in(
            calendar, running.seed.people, delegated=getattr(args, "consent", False)
        )
        provider = provider_outbox(stand_in)
        running.on_close(stand_in.stop)
        running.env.update(stand_in.env)
        os.environ.update(stand_in.env)  # the in-process handlers read their settings on first use
        print(f"  {banner}")
    use_console_logs()  # a terminal, not CloudWatch: one readable line per record
    functions_dir = args.functions_dir or repo_root() / "functions"
    api = LocalApi(functions_dir, running.seed, outbox=sandbox_outbox_reader(running, provider))
    if running.invocations is not None:  # a function's asynchronous invocations run on these handlers
        running.invocations.bind(api.invoke_event, ASYNC_INVOKED)
    return running, api


class _StandIn(Protocol):
    @property
    def env(self) -> dict[str, str]: ...

    def stop(self) -> None: ...


def _provider_stand_in(
    calendar: str, people: Sequence[Person], *, delegated: bool = False
) -> tuple[_StandIn, str]:
    """The local stand-in of ``calendar``'s provider, seeded with ``people``, and its banner line.

    ``delegated``: it takes only each person's own token from the identity stand-in (``--consent``)."""
    if calendar == "microsoft365":
        from multitool.local.graph_server import start_graph_stand_in

        graph = start_graph_stand_in(people, delegated=delegated)
        events = f"{graph.url}/_local/events"
        return graph, f"Microsoft 365: a local Graph stand-in at {graph.url} (events: {events})."
    from multitool.local.google_server import start_fake_google

    google = start_fake_google(people=people, delegated=delegated)
    checked = "" if google.discovery is not None else "; unchecked: google-api-python-client is not installed"
    return google, (
        f"Google Workspace: a local Google stand-in at {google.url} (what was booked and sent: "
        f"{google.url}/{checked})."
    )


def _model_banner(choice: BackendChoice) -> str:
    from multitool.settings import ModelBackend

    return {
        ModelBackend.OFFLINE: "the offline model (through the AgentCore harness runtime)",
        ModelBackend.OFFLINE_CONVERSE: "the offline model (through the Converse loop)",
        ModelBackend.AGENTCORE: f"the AgentCore harness {choice.harness_arn}",
        ModelBackend.CONVERSE: f"Bedrock Converse ({choice.model_id})",
        ModelBackend.AGENT: f"Bedrock agent {choice.agent_id}/{choice.agent_alias_id}",
    }[choice.runtime]


def _data_banner(running: Embedded) -> str:
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


def _check_consent_options(args: argparse.Namespace) -> None:
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


def _start_identity(running: Embedded, calendar: str, return_url: str) -> str:
    """The local AgentCore Identity (``--consent``) for a page at ``return_url``: started, its settings
    applied to the in-process functions as the stack sets them; answers its banner line."""

    from multitool.local.identity_endpoint import IdentityEndpoint
    from multitool.ports.tokens import PROVIDER_NAMES

    endpoint = IdentityEndpoint(
        workloads={LOCAL_WORKLOAD: (return_url,)},
        person=running.seed.person,
        provider_name=PROVIDER_NAMES[calendar],
    ).start()
    running.on_close(endpoint.stop)
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
    from multitool.local.loopback import is_loopback
    from multitool.local.server import make_server

    _check_consent_options(args)
    running, api = _local_api(args)
    try:
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
            from multitool.local.oidc import LocalOidc

            api.auth = LocalOidc(people=lambda: running.seed.people, issuer=server.url.rstrip("/"))
        if args.consent:  # AgentCore returns to the page: its URL is known once the server is bound
            print(f"  {_start_identity(running, args.calendar, server.url)}")
        model = _model_banner(running.runtime)
        print(f"multitool is running on {model} with sandboxed AWS (moto at {running.endpoint}).")
        print(f"  {_data_banner(running)}")
        print(f"  Open {server.url} in your browser. Press Ctrl+C to stop.", flush=True)
        if not is_loopback(str(server.server_address[0])):
            print(
                "  Local sign-in, the directory and the sandbox outbox answer this machine only; "
                "other machines get the page and a 401.",
                flush=True,
            )
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("\nStopped.")
        finally:
            server.server_close()
    finally:
        running.close()
    return EXIT_OK


def mcp(args: argparse.Namespace) -> int:
    """``multitool mcp``: the MCP server on the local sandbox (its own, or a running server's)."""
    import secrets

    from multitool.local.embedded import load_seed, sandbox_env, start_embedded
    from multitool.local.loopback import is_loopback
    from multitool.local.mcp import LocalGateway, build_server, serve_http, serve_stdio
    from multitool.local.server import repo_root
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
    user = _check_user(args.user or seed.default_user, [p.id for p in seed.people])
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
        from multitool.local.mcp_auth import resource_url, token_user
        from multitool.local.oidc import LocalOidc

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


def doctor(args: argparse.Namespace) -> int:
    """``multitool doctor``: one line per check on stdout; 1 when anything blocks a first turn."""
    import os

    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError
    from pydantic import ValidationError

    from multitool.local.doctor import (
        CLOSING_NOTES,
        DEFAULT_STACK,
        Doctor,
        DoctorError,
        Target,
        deploy_defaults,
        exit_code,
        reserved_concurrency,
    )

    try:
        context = {} if args.model_id and args.sender_email else deploy_defaults()
        # The CDK CLI deploys to AWS_REGION first (the AWS SDK for JavaScript's order); botocore reads
        # only AWS_DEFAULT_REGION and the profile, so AWS_REGION is read here, before them.
        region_name = args.region or os.environ.get("AWS_REGION") or None
        session = boto3.Session(profile_name=args.profile, region_name=region_name)
    except DoctorError as error:
        raise CliError(str(error), EXIT_USAGE) from None
    except BotoCoreError as error:  # e.g. ProfileNotFound
        raise CliError(str(error), EXIT_USAGE) from None
    region = session.region_name
    if not region:
        print(
            "fail  region: no AWS region is configured. Fix: pass --region or export AWS_REGION=us-east-1.",
            flush=True,
        )
        return EXIT_ERROR
    try:
        target = Target(
            region=region,
            model_id=args.model_id or context.get("modelId", ""),
            stack=args.stack or context.get("stackName") or DEFAULT_STACK,
            sender_email=args.sender_email or context.get("senderEmail"),
            reserved_concurrency=(
                args.reserved_concurrency
                if args.reserved_concurrency is not None
                else reserved_concurrency(context)
            ),
            runtime=args.runtime,
            context_runtime=context.get("runtime", "agentcore"),
            executor=args.executor or context.get("executor"),
        )
    except ValidationError as error:
        first = error.errors()[0]
        raise CliError(f"doctor: {first['loc'][0]}: {first['msg']}", EXIT_USAGE) from None
    # Few retries and short timeouts: a preflight answers in seconds or says what it could not see.
    config = Config(retries={"max_attempts": 3, "mode": "standard"}, connect_timeout=5, read_timeout=20)
    findings = Doctor(target, lambda service: session.client(service, config=config)).run()  # type: ignore[call-overload]
    if args.json:
        json.dump(
            {
                "stack": target.stack,
                "modelId": target.model_id,
                "region": region,
                "findings": [finding.to_wire() for finding in findings],
                "notes": list(CLOSING_NOTES),
            },
            sys.stdout,
            indent=2,
        )
        sys.stdout.write("\n")
        return exit_code(findings)
    print(f"multitool doctor: stack {target.stack}, model {target.model_id}, region {region}", flush=True)
    for finding in findings:
        print(finding.line(), flush=True)
    for note in CLOSING_NOTES:
        print(f"note  {note}", flush=True)
    return exit_code(findings)


def evaluate(args: argparse.Namespace) -> int:
    """``multitool eval``: the table on stdout, the report in ``--json``, exit 1 under ``--min-exact``
    or over ``--max-silently-wrong``."""

    from multitool.local.evaluation import (
        DatasetError,
        HttpTarget,
        embedded_targets,
        floor_failure,
        load_cases,
        render_table,
        report,
        run_all,
        run_clock,
    )

    for flag, rate in (("--min-exact", args.min_exact), ("--max-silently-wrong", args.max_silently_wrong)):
        if rate is not None and not 0.0 <= rate <= 1.0:
            raise CliError(f"{flag} is a share from 0 to 1, got {rate}", EXIT_USAGE)
    if args.token and not args.url:
        raise CliError("--token goes with --url (a deployed API).", EXIT_USAGE)
    if args.url and args.now:
        raise CliError("--now pins the clock in process; a server keeps its own.", EXIT_USAGE)
    try:
        now = run_clock(args.now) if args.now else None
    except ValueError as error:
        raise CliError(str(error), EXIT_USAGE) from None
    if args.url and args.model_ids:
        raise CliError(
            "--url runs the server's own model; give --model-id to the server instead.", EXIT_USAGE
        )
    try:
        cases = load_cases(args.datasets)
    except DatasetError as error:
        raise CliError(str(error), EXIT_USAGE) from None
    done = 0

    def progress(_result: Any) -> None:
        nonlocal done
        done += 1
        if sys.stderr.isatty():
            print(f"\r{done} cases", end="", file=sys.stderr, flush=True)

    if args.url:
        if not args.url.startswith(("http://", "https://")):
            raise CliError(f"--url must start with http:// or https://, got {args.url!r}", EXIT_USAGE)
        target = HttpTarget(args.url, args.url, token=args.token)
        if not args.token:  # multitool serve signs in its seeded users: every case's user must be one
            _check_users(cases, Remote(args.url).users())
        runs = run_all([target], cases, progress=progress)
    else:
        # The handlers write log records and metrics to stdout: they would break the table.
        quiet = contextlib.nullcontext(sys.stderr) if args.verbose else open(os.devnull, "w")  # noqa: SIM115
        with (
            quiet as sink,
            contextlib.redirect_stdout(sink),
            embedded_targets(
                args.runtime,
                args.model_ids,
                harness_arn=args.harness_arn,
                region=args.region,
                log_level=args.log_level,
                now=now,
            ) as targets,
        ):
            _check_users(cases, [person.id for person in targets[0].seed.people])
            runs = run_all(targets, cases, clock=(lambda: now) if now else None, progress=progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    document = report(runs, runtime="http" if args.url else args.runtime, datasets=args.datasets)
    print(render_table(document))
    if args.json:
        args.json.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.min_exact is not None or args.max_silently_wrong is not None:
        failure = floor_failure(document, args.min_exact, args.max_silently_wrong)
        if failure:
            print(f"multitool eval: {failure}", file=sys.stderr)
            return EXIT_ERROR
    return EXIT_OK


def _check_users(cases: Sequence[Any], known: Sequence[str]) -> None:
    unknown = sorted({case.user for case in cases} - set(known))
    if unknown:
        raise CliError(
            f"cases name users this directory does not have ({', '.join(unknown)}); "
            f"the seeded users are: {', '.join(known)}",
            EXIT_USAGE,
        )


def server_url() -> str:
    """The running server the commands talk to: ``$MULTITOOL_URL``, else :data:`DEFAULT_URL`."""
    return os.environ.get(URL_VARIABLE) or DEFAULT_URL


_BACKEND_OPTIONS = ("runtime", "harness_arn", "agent_id", "alias_id", "model_id", "region", "functions_dir")


def _chat_url(args: argparse.Namespace) -> str | None:
    """Where ``chat`` posts: ``--url``; else the running server, when one answers and no model option
    asks for an in-process turn, so that ``multitool get`` (which talks to that server) finds the
    drafts the chat made; else None (in-process, on data that ends with the command)."""
    if args.url:
        return str(args.url)
    if any(getattr(args, name, None) for name in _BACKEND_OPTIONS):
        return None
    url = server_url()
    try:
        Remote(url, timeout=2).users()
    except CliError:
        print(
            f"multitool: no server at {url}: this chat ran in-process on data that ends with it, so "
            "`multitool get` will not find its drafts; start `make demo` (or `multitool serve`) first.",
            file=sys.stderr,
        )
        return None
    return url


def chat(args: argparse.Namespace) -> int:
    session = args.session or f"cli-{uuid.uuid4()}"
    body = json.dumps({"message": args.message, "sessionId": session}).encode()
    url = _chat_url(args)
    if url is not None:
        remote = Remote(url)
        status, payload = remote.call("POST", "/chat", body, remote.user(args.user))
    else:
        status, payload = _post_in_process(args, body)
    return _print_answer("/chat", status, payload)


def review(args: argparse.Namespace) -> int:
    """``get``/``confirm``/``discard`` ID against a running server."""
    from urllib.parse import quote

    remote = Remote(args.url)
    path = f"/actions/{quote(args.id, safe='')}"
    if args.command == "get":
        status, payload = remote.call("GET", path, None, remote.user(args.user))
        return _print_answer(f"get {args.id}", status, payload)
    body = b"{}"
    if args.command == "confirm":
        try:
            edits = json.loads(args.edits)
        except json.JSONDecodeError as error:
            raise CliError(f"--edits is not JSON ({error.msg} at {error.pos}).", EXIT_USAGE) from None
        if not isinstance(edits, dict):
            raise CliError(
                '--edits must be a JSON object of card fields, e.g. {"subject": "Notes"}.', EXIT_USAGE
            )
        body = json.dumps(edits).encode()
    status, payload = remote.call("POST", f"{path}/{args.command}", body, remote.user(args.user))
    return _print_answer(f"{args.command} {args.id}", status, payload)


def _print_answer(what: str, status: int, payload: Any) -> int:
    """The answer's JSON on stdout; on an error, also one line on stderr with its code and message."""
    json.dump(payload, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    if status < 400:
        return EXIT_OK
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        detail = f"{error.get('code', status)}: {error.get('message', '')}"
    else:
        message = payload.get("message") if isinstance(payload, dict) else None
        detail = f"{status}: {message or 'no details'}"
    print(f"multitool: {what} failed with HTTP {status}, {detail}", file=sys.stderr)
    return EXIT_ERROR


def _check_user(user: str, known: Sequence[str]) -> str:
    if user not in known:
        raise CliError(f"unknown user {user!r}; use --user with one of: {', '.join(known)}", EXIT_USAGE)
    return user


def _post_in_process(args: argparse.Namespace, body: bytes) -> tuple[int, Any]:
    # Handler logs go to stderr so stdout holds exactly the response JSON.
    with contextlib.redirect_stdout(sys.stderr):
        running, api = _local_api(args)
        try:
            user = _check_user(args.user or running.seed.default_user, [p.id for p in running.seed.people])
            response = api.invoke(
                "POST", "/chat", headers={"content-type": "application/json", "x-local-user": user}, body=body
            )
        finally:
            running.close()
    return response.status, _decode(response.body)


class Remote:
    """A running ``multitool serve``: requests signed in as a local user, refusals in one line."""

    def __init__(self, url: str, timeout: float = 120) -> None:
        base = url.rstrip("/")
        if not base.startswith(("http://", "https://")):
            raise CliError(f"--url must start with http:// or https://, got {url!r}", EXIT_USAGE)
        self.base = base
        self.timeout = timeout

    def user(self, wanted: str | None) -> str:
        """``wanted`` if the server knows it (else the valid ids), or the server's default user."""
        directory = self._directory()
        return _check_user(wanted or str(directory.get("defaultUser")), self.users(directory))

    def users(self, directory: dict[str, Any] | None = None) -> list[str]:
        """The ids of the users the server signs in locally."""
        listed = directory if directory is not None else self._directory()
        return [str(u.get("id")) for u in listed.get("users", []) if isinstance(u, dict)]

    def _directory(self) -> dict[str, Any]:
        status, directory = self.call("GET", "/local/users", None, None)
        if status != 200 or not isinstance(directory, dict):
            raise CliError(
                f"{self.base} did not list its local users (HTTP {status}): is it `multitool serve`?"
            )
        return directory

    def call(self, method: str, path: str, body: bytes | None, user: str | None) -> tuple[int, Any]:
        import urllib.error
        import urllib.request

        from multitool.local.gateway import LOCAL_USER_HEADER

        headers = {"content-type": "application/json"} if body is not None else {}
        if user is not None:
            headers[LOCAL_USER_HEADER] = user
        request = urllib.request.Request(  # noqa: S310 - the scheme is checked in __init__
            f"{self.base}{path}", data=body, method=method, headers=headers
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:  # noqa: S310
                return answer.status, _decode(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, _decode(error.read())
        except (urllib.error.URLError, OSError) as error:
            raise CliError(f"cannot reach multitool at {self.base}: is `make demo` running?") from error


def login(args: argparse.Namespace) -> int:
    """Tokens for scripts from the deployed stack's managed login (``multitool.local.login``)."""
    from multitool.local import login as sign_in

    try:
        if args.sign_in_domain and args.client_id:
            target = sign_in.LoginTarget(args.sign_in_domain, args.client_id)
        elif args.sign_in_domain or args.client_id:
            raise CliError("--sign-in-domain and --client-id go together.", EXIT_USAGE)
        else:
            target = sign_in.stack_target(args.stack, args.region)
        opener = (lambda url: None) if args.no_browser else webbrowser.open
        tokens = sign_in.login(
            target,
            open_browser=opener,
            announce=lambda url: print(f"Sign in at {url}", file=sys.stderr),
        )
    except sign_in.LoginFailed as error:
        raise CliError(str(error)) from None
    if args.save:
        print(f"Tokens saved to {sign_in.save_tokens(tokens, args.save)}", file=sys.stderr)
    print(tokens[f"{args.token}_token"])
    return 0


def erase(args: argparse.Namespace) -> int:
    """``multitool erase --user SUB``: one user's items deleted from the deployment's tables."""

    import boto3

    from multitool.local.erase import KEPT, STAYS, erase_user
    from multitool.ports.tables import ALL_TABLES

    session = boto3.session.Session(region_name=args.region)
    tables = {spec.env_var: os.environ[spec.env_var] for spec in ALL_TABLES if os.environ.get(spec.env_var)}
    if not tables:
        stacks = session.client("cloudformation").describe_stacks(StackName=args.stack)["Stacks"]
        outputs = {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}
        tables = {
            spec.env_var: outputs[f"{spec.logical_name}TableName"]
            for spec in ALL_TABLES
            if f"{spec.logical_name}TableName" in outputs
        }
    try:
        erased = erase_user(session.client("dynamodb"), tables, args.user, dry_run=args.dry_run)
    except ValueError as error:
        raise CliError(str(error), EXIT_USAGE) from None
    verb = "would delete" if args.dry_run else "deleted"
    for table, count in erased.counts.items():
        print(f"{table}: {verb} {count}")
    for table, count in erased.kept.items():
        print(f"{table}: {'would keep' if args.dry_run else 'kept'} {count}, {KEPT[table]}")
    print(STAYS)
    return EXIT_OK


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return {"message": raw.decode("utf-8", "replace")}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from multitool.local.embedded import LocalSetupError

    try:
        if args.command == "serve":
            return serve(args)
        if args.command == "chat":
            return chat(args)
        if args.command == "mcp":
            return mcp(args)
        if args.command == "doctor":
            return doctor(args)
        if args.command == "eval":
            return evaluate(args)
        if args.command == "login":
            return login(args)
        if args.command == "erase":
            return erase(args)
        return review(args)
    except CliError as error:
        print(f"multitool: {error}", file=sys.stderr)
        return error.exit_code
    except LocalSetupError as error:
        print(f"multitool: {error}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:
        print(f"multitool: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
