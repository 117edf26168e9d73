"""``multitool chat MESSAGE``: one message to /chat, the response JSON on stdout (for scripts).

It posts to a running ``multitool serve`` when one answers (so ``multitool get`` finds the drafts),
else runs the turn in process on embedded data that ends with the command.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import uuid
from typing import Any

from multitool.local.commands.common import CliError, check_user, decode
from multitool.local.commands.remote import Remote, print_answer, server_url
from multitool.local.commands.sandbox import BACKEND_OPTIONS, add_backend_options, local_api


def add_parser(commands: Any) -> None:
    """The ``chat`` command and its arguments, on ``multitool``'s subcommands."""
    parser = commands.add_parser(
        "chat",
        help="send one message and print the /chat response JSON",
        description="Send one message to /chat and print the response JSON (for scripts).",
    )
    parser.add_argument("message", help="what you would type in the chat drawer")
    parser.add_argument("--user", help="local user id to sign in as (default: the seed's default user)")
    parser.add_argument("--session", help="session id, to continue a conversation (default: a new one)")
    parser.add_argument(
        "--url",
        help="a running `multitool serve` (default: $MULTITOOL_URL or http://127.0.0.1:8000 when a server "
        "answers there, so `multitool get` finds the drafts; else in-process on throwaway data)",
    )
    add_backend_options(parser)
    parser.set_defaults(run=chat)


def chat_url(args: argparse.Namespace) -> str | None:
    """Where ``chat`` posts: ``--url``; else the running server, when one answers and no model option
    asks for an in-process turn, so that ``multitool get`` (which talks to that server) finds the
    drafts the chat made; else None (in-process, on data that ends with the command)."""
    if args.url:
        return str(args.url)
    if any(getattr(args, name, None) for name in BACKEND_OPTIONS):
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
    url = chat_url(args)
    if url is not None:
        remote = Remote(url)
        status, payload = remote.call("POST", "/chat", body, remote.user(args.user))
    else:
        status, payload = post_in_process(args, body)
    return print_answer("/chat", status, payload)


def post_in_process(args: argparse.Namespace, body: bytes) -> tuple[int, Any]:
    # Handler logs go to stderr so stdout holds exactly the response JSON.
    with contextlib.redirect_stdout(sys.stderr):
        running, api = local_api(args)
        try:
            user = check_user(args.user or running.seed.default_user, [p.id for p in running.seed.people])
            response = api.invoke(
                "POST", "/chat", headers={"content-type": "application/json", "x-local-user": user}, body=body
            )
        finally:
            running.close()
    return response.status, decode(response.body)
