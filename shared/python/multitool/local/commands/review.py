"""``multitool get ID | confirm ID [--edits JSON] [--first] | confirm --all ID... | undo ID | discard ID``:
actions of a running ``multitool serve``.

``confirm --first`` confirms first the cards the action waits for (its links, ``?prerequisites=first``);
``confirm --all ID ID...`` confirms every listed card in dependency order (``POST /actions/confirm-all``),
``--edits`` then keyed by card id, and prints each card's outcome. ``undo ID`` cancels a confirmed mail
within its undo window.

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
        if verb == "confirm":
            command.add_argument("id", nargs="+", help="the action id (with --all, every card to confirm)")
            command.add_argument(
                "--edits",
                default="{}",
                help='the card\'s fields as you changed them, a JSON object, e.g. \'{"subject": "Notes"}\' '
                "(with --all, keyed by card id)",
            )
            order = command.add_mutually_exclusive_group()
            order.add_argument(
                "--first", action="store_true", help="confirm first the cards this one waits for (its links)"
            )
            order.add_argument(
                "--all",
                action="store_true",
                help="confirm every listed card, in dependency order, and print each outcome",
            )
        else:
            command.add_argument("id", help="the action id (a card's id in the /chat response)")
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
    if args.command != "confirm":
        path = f"/actions/{quote(args.id, safe='')}"
        if args.command == "get":
            status, payload = remote.call("GET", path, None, remote.user(args.user))
            return print_answer(f"get {args.id}", status, payload)
        # undo or discard: the action's own route, no body
        status, payload = remote.call("POST", f"{path}/{args.command}", b"{}", remote.user(args.user))
        return print_answer(f"{args.command} {args.id}", status, payload)
    edits = _edits(args.edits)
    if args.all:
        body = json.dumps({"ids": args.id, "edits": edits}).encode()
        status, payload = remote.call("POST", "/actions/confirm-all", body, remote.user(args.user))
        return print_answer(f"confirm --all {' '.join(args.id)}", status, payload)
    if len(args.id) > 1:
        raise CliError("Several ids are confirmed together with --all.", EXIT_USAGE)
    [draft_id] = args.id
    path = f"/actions/{quote(draft_id, safe='')}/confirm" + ("?prerequisites=first" if args.first else "")
    status, payload = remote.call("POST", path, json.dumps(edits).encode(), remote.user(args.user))
    return print_answer(f"confirm {draft_id}", status, payload)


def _edits(text: str) -> dict[str, Any]:
    try:
        edits = json.loads(text)
    except json.JSONDecodeError as error:
        raise CliError(f"--edits is not JSON ({error.msg} at {error.pos}).", EXIT_USAGE) from None
    if not isinstance(edits, dict):
        raise CliError('--edits must be a JSON object of card fields, e.g. {"subject": "Notes"}.', EXIT_USAGE)
    return edits
