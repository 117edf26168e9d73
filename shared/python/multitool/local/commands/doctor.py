"""``multitool doctor``: your own AWS account and region checked, read-only, before and after ``cdk deploy``.

One line per check (ok, warn or fail, and the step that fixes it); the exit status is 1 when
anything would stop a first chat turn. The checks are :mod:`multitool.local.doctor`'s.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from multitool.deployment import Executor, Runtime
from multitool.local.commands.common import EXIT_ERROR, EXIT_USAGE, CliError


def add_parser(commands: Any) -> None:
    """The ``doctor`` command and its arguments, on ``multitool``'s subcommands."""
    parser = commands.add_parser(
        "doctor",
        help="check your AWS account and region before and after a deploy (read-only)",
        description="Check, read-only and with your own credentials, what a first chat turn needs: "
        "the caller, the region's AgentCore, the model's lifecycle and access, the Lambda concurrency "
        "the deploy reserves, the SES sender and sandbox and, once deployed, the stack's outputs, the "
        "harness and the Jira secret. Exit 1 when anything would stop a first turn.",
    )
    parser.add_argument(
        "--region", help="the deploy region (default: AWS_REGION, else AWS_DEFAULT_REGION or your profile's)"
    )
    parser.add_argument("--profile", help="the AWS CLI profile to use (default: the standard chain)")
    parser.add_argument("--model-id", help="the model or inference profile id (default: cdk.json's modelId)")
    parser.add_argument("--stack", help="the stack's name (default: cdk.json's stackName, else Multitool)")
    parser.add_argument(
        "--reserved-concurrency",
        type=int,
        help="the executions the deploy reserves, orchestratorConcurrency + reviewConcurrency "
        "(default: cdk.json's, else 0)",
    )
    parser.add_argument(
        "--sender-email",
        help="the deploy's senderEmail (default: cdk.json's, else the deployed stack's SES identity)",
    )
    parser.add_argument(
        "--runtime",
        choices=tuple(Runtime),
        help="the deploy's runtime (default: the deployed stack's, else cdk.json's, else agentcore)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the findings as one JSON object, for scripts"
    )
    parser.add_argument(
        "--executor",
        choices=tuple(Executor),
        help="the deploy's executor; gateway also checks the AgentCore Gateway (default: cdk.json's)",
    )
    parser.set_defaults(run=doctor)


def doctor(args: argparse.Namespace) -> int:
    """``multitool doctor``: one line per check on stdout; 1 when anything blocks a first turn."""
    import os

    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError
    from pydantic import ValidationError

    from multitool.local.doctor.checkup import Doctor
    from multitool.local.doctor.findings import (
        CLOSING_NOTES,
        DEFAULT_STACK,
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
