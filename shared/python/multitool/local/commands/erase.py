"""``multitool erase --user SUB``: a user's data deleted from the deployed tables
(``local.deployed.erase``)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from multitool.local.commands.common import EXIT_OK, EXIT_USAGE, CliError


def add_parser(commands: Any) -> None:
    """The ``erase`` command and its arguments, on ``multitool``'s subcommands."""
    parser = commands.add_parser(
        "erase",
        help="delete one user's drafts, sessions, turns, replies kept for retries, bookings and limits; "
        "keep their audit records without ids",
        description="Delete one user's data from the deployed tables (by the owner index: no scan), "
        "and say what is kept and why. "
        "Table names come from the *_TABLE_NAME environment variables, else the stack's outputs.",
    )
    parser.add_argument("--user", required=True, metavar="SUB", help="the user's sub (the JWT subject)")
    parser.add_argument("--stack", default="Multitool", help="the stack to read table names from")
    parser.add_argument("--region", help="AWS region (default: your profile's)")
    parser.add_argument("--dry-run", action="store_true", help="count what would be deleted; delete nothing")
    parser.set_defaults(run=erase)


def erase(args: argparse.Namespace) -> int:
    """``multitool erase --user SUB``: one user's items deleted from the deployment's tables."""

    import boto3

    from multitool.local.deployed.erase import KEPT, STAYS, erase_user
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
