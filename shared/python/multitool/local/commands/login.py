"""``multitool login``: a token for scripts from a deployed stack's managed login.

It signs in in the browser (the command line's own Cognito client, the code flow with PKCE, a
callback on localhost) and prints the token scripts send to the API (:mod:`multitool.local.deployed.login`).
"""

from __future__ import annotations

import argparse
import sys
import webbrowser
from pathlib import Path
from typing import Any

from multitool.local.commands.common import EXIT_USAGE, CliError
from multitool.local.deployed.login import TOKEN_KINDS


def add_parser(commands: Any) -> None:
    """The ``login`` command and its arguments, on ``multitool``'s subcommands."""
    parser = commands.add_parser(
        "login",
        help="sign in to a deployed stack in the browser; print a token for curl",
        description="Sign in through the stack's managed login (authorization code with PKCE, the "
        "command line's own app client, a callback on localhost) and print the token to send as "
        "'Authorization: Bearer'. The sign-in domain and client come from the stack's outputs "
        "(SignInDomain, CliClientId) unless given.",
    )
    parser.add_argument("--stack", default="Multitool", help="the deployed stack (default: %(default)s)")
    parser.add_argument("--region", help="the stack's region (default: your AWS configuration's)")
    parser.add_argument("--sign-in-domain", help="managed login origin, https://<prefix>.auth.<region>...")
    parser.add_argument("--client-id", help="a public app client whose callback URL is login's")
    parser.add_argument(
        "--token", choices=TOKEN_KINDS, default="id", help="which token to print (default: %(default)s)"
    )
    parser.add_argument("--save", type=Path, help="also write every token, as JSON readable only by you")
    parser.add_argument(
        "--no-browser", action="store_true", help="print the sign-in URL, do not open a browser"
    )
    parser.set_defaults(run=login)


def login(args: argparse.Namespace) -> int:
    """Tokens for scripts from the deployed stack's managed login (``multitool.local.deployed.login``)."""
    from multitool.local.deployed import login as sign_in

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
