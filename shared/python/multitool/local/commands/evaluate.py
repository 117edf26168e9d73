"""``multitool eval DATASET...``: combined requests scored against a runtime and models.

It runs each case of JSON Lines datasets (:mod:`multitool.local.evaluation`) and prints a table of
exact, intent recall, silently wrong, asked, model calls, tokens and latency, one column per
``--model-id``; it never confirms a card and discards every card it made.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from multitool.local.commands.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CliError
from multitool.local.commands.remote import Remote


def add_parser(commands: Any) -> None:
    """The ``eval`` command and its arguments, on ``multitool``'s subcommands."""
    parser = commands.add_parser(
        "eval",
        help="score combined requests (JSON Lines cases) against a runtime and models",
        description="Run every case of the datasets as a new session, compare the cards made with the "
        "expected ones, and print the measures (one column per --model-id). Cards are never confirmed: "
        "each one made is discarded.",
    )
    parser.add_argument("datasets", nargs="+", type=Path, metavar="DATASET", help="a .jsonl file of cases")
    parser.add_argument(
        "--runtime",
        choices=("offline", "converse", "agentcore"),
        default="offline",
        help="how a turn reaches a model (default: %(default)s); converse and agentcore call Bedrock",
    )
    parser.add_argument(
        "--model-id",
        action="append",
        default=[],
        dest="model_ids",
        metavar="ID",
        help="a Bedrock model or inference profile id; repeat it to compare models side by side "
        "(agentcore: the harness is invoked with that model)",
    )
    parser.add_argument("--harness-arn", help="the AgentCore harness ARN (--runtime agentcore)")
    parser.add_argument("--region", help="AWS region for Bedrock (default: your profile's, else us-east-1)")
    parser.add_argument(
        "--url",
        help="run over HTTP: a running `multitool serve`, or a deployed stack's ApiUrl (with --token)",
    )
    parser.add_argument("--token", help="a bearer token for --url (a deployed API's Cognito access token)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the JSON report to OUT")
    parser.add_argument(
        "--now",
        metavar="WHEN",
        help="pin the turns' clock (in process): an ISO 8601 time with its offset, or a weekday name "
        "(the latest such day, 12:00 UTC), so relative days score the same every day of the week",
    )
    parser.add_argument(
        "--min-exact",
        type=float,
        metavar="RATE",
        help="exit 1 when a model's share of exact cases (0..1) is under RATE (make eval's floor)",
    )
    parser.add_argument(
        "--max-silently-wrong",
        type=float,
        metavar="RATE",
        help="exit 1 when a model's share of silently wrong cases (0..1: a card made with a wrong "
        "field it does not flag, or a card not asked for) is over RATE (0: never)",
    )
    parser.add_argument(
        "--log-level", default="ERROR", help="the handlers' POWERTOOLS_LOG_LEVEL (default: %(default)s)"
    )
    parser.add_argument(
        "--verbose", action="store_true", help="show the handlers' log records and metrics on stderr"
    )
    parser.set_defaults(run=evaluate)


def evaluate(args: argparse.Namespace) -> int:
    """``multitool eval``: the table on stdout, the report in ``--json``, exit 1 under ``--min-exact``
    or over ``--max-silently-wrong``."""

    from multitool.local.evaluation.cases import DatasetError, load_cases
    from multitool.local.evaluation.report import floor_failure, render_table, report
    from multitool.local.evaluation.runs import embedded_targets, run_all, run_clock
    from multitool.local.evaluation.targets import HttpTarget

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
            check_users(cases, Remote(args.url).users())
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
            check_users(cases, [person.id for person in targets[0].seed.people])
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


def check_users(cases: Sequence[Any], known: Sequence[str]) -> None:
    unknown = sorted({case.user for case in cases} - set(known))
    if unknown:
        raise CliError(
            f"cases name users this directory does not have ({', '.join(unknown)}); "
            f"the seeded users are: {', '.join(known)}",
            EXIT_USAGE,
        )
