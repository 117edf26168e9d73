"""The embedded sandbox a command runs the handlers on (``serve``, an in-process ``chat``): its model
options, its data folder, the provider stand-in, and the API Gateway stand-in before the handlers."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from multitool.local.commands.common import EXIT_ERROR, CliError

if TYPE_CHECKING:
    from multitool.local.sandbox.api_gateway import LocalApi
    from multitool.local.sandbox.embedded import BackendChoice, Embedded
    from multitool.local.sandbox.queue_poller import QueuePoller
    from multitool.local.standins.google_server import FakeGoogle
    from multitool.local.standins.graph_server import GraphStandIn
    from multitool.people import Person

DEFAULT_DATA_DIR = ".local-data"
"""``multitool serve``'s data folder, under the checkout (git-ignored)."""


BACKEND_OPTIONS = ("runtime", "harness_arn", "agent_id", "alias_id", "model_id", "region", "functions_dir")


def add_backend_options(parser: argparse.ArgumentParser) -> None:
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


def backend_choice(args: argparse.Namespace) -> BackendChoice:
    from multitool.local.sandbox.embedded import BackendChoice

    return BackendChoice.from_options(
        runtime=args.runtime,
        agent_id=args.agent_id,
        agent_alias_id=args.alias_id,
        model_id=args.model_id,
        harness_arn=args.harness_arn,
    )


def local_api(args: argparse.Namespace) -> tuple[Embedded, LocalApi]:
    """Start embedded AWS, apply its environment, and put the API Gateway stand-in before the handlers."""
    from multitool.local.sandbox.data_dir import DataDir, DataDirInUse
    from multitool.local.sandbox.moto_process import LaunchedMoto
    from multitool.local.sandbox.server import repo_root

    data = None
    if not getattr(args, "ephemeral", True):
        try:
            data = DataDir.open(args.data_dir or repo_root() / DEFAULT_DATA_DIR)
        except DataDirInUse as error:
            raise CliError(str(error), EXIT_ERROR) from None
    # moto's child boots while this process imports the server
    moto = LaunchedMoto(state=data.aws_state, hold=data.lock_fd) if data else LaunchedMoto()
    try:
        from multitool.local.sandbox.api_gateway import (
            API_ROUTES,
            ASYNC_INVOKED,
            SLACK_ASYNC_INVOKED,
            SLACK_ROUTES,
            LocalApi,
            sandbox_outbox_reader,
        )
        from multitool.local.sandbox.embedded import start_embedded
        from multitool.local.sandbox.outbox import provider_outbox
        from multitool.local.sandbox.server import repo_root
        from multitool.observability import use_console_logs

        choice = backend_choice(args)
    except BaseException:  # start_embedded stops the child itself from here on
        moto.abandon()
        if data is not None:
            data.release()
        raise
    running = start_embedded(choice, region=args.region, log_level=args.log_level, moto=moto, data=data)
    calendar = getattr(args, "calendar", "builtin")
    provider = None
    if calendar != "builtin":
        stand_in = running.enter(
            provider_stand_in(calendar, running.seed.people, delegated=getattr(args, "consent", False))
        )
        provider = provider_outbox(stand_in)
        running.env.update(stand_in.env)
        os.environ.update(stand_in.env)  # the in-process handlers read their settings on first use
        print(f"  {provider_banner(stand_in)}")
    use_console_logs()  # a terminal, not CloudWatch: one readable line per record
    functions_dir = args.functions_dir or repo_root() / "functions"
    slack = getattr(args, "slack", False)  # serve --slack: the Slack app's route and its own turns too
    api = LocalApi(
        functions_dir,
        running.seed,
        outbox=sandbox_outbox_reader(running, provider),
        routes=API_ROUTES + SLACK_ROUTES if slack else API_ROUTES,
    )
    if running.invocations is not None:  # a function's asynchronous invocations run on these handlers
        running.invocations.bind(
            api.invoke_event, ASYNC_INVOKED | SLACK_ASYNC_INVOKED if slack else ASYNC_INVOKED
        )
    running.enter(undo_queue_poller(running, api))
    return running, api


def undo_queue_poller(running: Embedded, api: LocalApi) -> QueuePoller:
    """The review function's SQS event source mapping on the embedded undo queue (due sends); on kept
    data, the mails a stopped server left in their undo window are handed to the queue again."""
    from multitool.local.sandbox.embedded import FAKE_CREDENTIALS, client_of
    from multitool.local.sandbox.queue_poller import QueuePoller, requeue_scheduled
    from multitool.ports.undo_queue import SqsUndoQueue

    region = running.env["AWS_REGION"]
    sqs = client_of("sqs", running.endpoint, region, FAKE_CREDENTIALS)
    url = running.env["UNDO_QUEUE_URL"]
    if running.restored:
        dynamodb = client_of("dynamodb", running.endpoint, region, FAKE_CREDENTIALS)
        requeue_scheduled(dynamodb, running.env["DRAFTS_TABLE_NAME"], SqsUndoQueue(url, lambda: sqs))
    return QueuePoller(sqs, url, function="review", invoke=api.invoke_direct, region=region)


def _seed_mail() -> tuple[dict[str, Any], ...]:
    """The mail the demo's mailboxes start with (``seed.json``'s ``mail``), as the builtin one does."""
    from multitool.local.sandbox.embedded import load_seed

    return load_seed().mail


def provider_stand_in(
    calendar: str, people: Sequence[Person], *, delegated: bool = False
) -> GraphStandIn | FakeGoogle:
    """The local stand-in of ``calendar``'s provider, seeded with ``people``, started.

    ``delegated``: it takes only each person's own token from the identity stand-in (``--consent``)."""
    if calendar == "microsoft365":
        from multitool.local.standins.graph_mail import seed_graph_mail
        from multitool.local.standins.graph_server import start_graph_stand_in

        graph = start_graph_stand_in(people, delegated=delegated)
        seed_graph_mail(graph.state.mail, _seed_mail(), datetime.now(UTC))
        return graph
    from multitool.local.standins.google_mail import seed_gmail
    from multitool.local.standins.google_server import start_fake_google

    google = start_fake_google(people=people, delegated=delegated, demo=True)
    seed_gmail(google.mail, _seed_mail(), datetime.now(UTC))
    return google


def provider_banner(stand_in: GraphStandIn | FakeGoogle) -> str:
    """The line ``serve`` prints about the provider's stand-in: where it is, where to see what it did."""
    from multitool.local.standins.graph_server import GraphStandIn

    if isinstance(stand_in, GraphStandIn):
        events = f"{stand_in.url}/_local/events"
        return f"Microsoft 365: a local Graph stand-in at {stand_in.url} (events: {events})."
    unchecked = "; unchecked: google-api-python-client is not installed"
    checked = "" if stand_in.discovery is not None else unchecked
    return (
        f"Google Workspace: a local Google stand-in at {stand_in.url} (what was booked and sent: "
        f"{stand_in.url}/{checked})."
    )
