"""``multitool get ID | confirm ID [--edits JSON] | undo ID | discard ID``: an action of a running
``multitool serve``.

Each prints the action (the review API's JSON); on an error the exit status is 1 and stderr names
the API's error code and message. A confirmed mail waits its undo window (``status: scheduled``,
``undoUntil``): ``undo`` within it makes the card a draft again; after it, the error is
``too_late_to_undo`` with the action as it is.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from multitool.local.commands.common import EXIT_USAGE, CliError
from multitool.local.commands.remote import Remote, print_answer, server_url


def add_parser(commands: Any) -> None:
    """The ``get``, ``confirm``, ``undo`` and ``discard`` commands and their arguments."""
    for verb, what in (
        ("get", "print an action (a card's draft) and its status"),
        ("confirm", "confirm an action: send, book or create it, with optional edits"),
        ("undo", "undo a confirmed mail within its undo window: nothing is sent, the card is a draft again"),
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
        command.set_defaults(run=review)


def review(args: argparse.Namespace) -> int:
    """``get``/``confirm``/``undo``/``discard`` ID against a running server."""
    from urllib.parse import quote

    remote = Remote(args.url)
    path = f"/actions/{quote(args.id, safe='')}"
    if args.command == "get":
        status, payload = remote.call("GET", path, None, remote.user(args.user))
        return print_answer(f"get {args.id}", status, payload)
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
    return print_answer(f"{args.command} {args.id}", status, payload)
