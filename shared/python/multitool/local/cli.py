"""``multitool``: run the whole system locally, or talk to it from a script.

    multitool serve [--host 127.0.0.1] [--port 8000]          # page + API on embedded AWS
    multitool serve --agent-id AGENT --alias-id ALIAS          # a real Bedrock agent
    multitool serve --runtime converse --model-id MODEL        # Converse with a real model
    multitool serve --harness-arn ARN                          # a real AgentCore harness
    multitool serve --calendar microsoft365|google             # a local Graph or Google stand-in
    multitool serve --calendar microsoft365|google --consent   # ... each user connects their own account
    multitool serve --slack                                    # ... and the Slack app, on a local Slack
    multitool slack say|show|click|submit --as priya ...       # act as a member of that local Slack
    multitool chat "Email Kinshuok about the doc" [--user ID] [--session ID] [--url URL]
    multitool get ID | confirm ID [--edits JSON] | undo ID | discard ID   [--user ID] [--url URL]
    multitool mcp [--user ID] [--sandbox MOTO_URL] [--http PORT]   # the tools as an MCP server
    multitool mcp --http PORT --sign-in oidc [--sandbox MOTO_URL]  # ... as whoever signs in (OAuth)
    multitool doctor [--region R] [--model-id M] [--stack S] [--sender-email E]   # AWS preflight
    multitool eval DATASET... [--runtime offline|converse|agentcore] [--model-id ID ...]
                   [--url URL [--token TOKEN]] [--json OUT] [--min-exact RATE]   # score combined requests
                   [--max-silently-wrong RATE]
    TOKEN=$(multitool login [--stack Multitool] [--token id|access] [--save FILE])  # a deployed stack

Each command is a module of :mod:`multitool.local.commands`, with its arguments beside its code;
this module builds the parser from them and runs the one asked for. It stays import-light: the
local server and moto load only when a command uses them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from multitool.local.commands import chat, doctor, erase, evaluate, login, mcp, review, serve, slack
from multitool.local.commands.common import EXIT_ERROR, EXIT_USAGE, CliError

COMMANDS = (serve, chat, mcp, doctor, evaluate, login, erase, review, slack)
"""The commands in the order ``multitool --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="multitool",
        description="One chat message, several intents, one reviewed card per action.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from multitool.local.sandbox.embedded import LocalSetupError

    try:
        return int(args.run(args))
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
