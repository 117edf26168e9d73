"""Embedded AWS for local runs: a moto server on loopback, seeded like a small company.

:func:`start_embedded` starts a moto server (DynamoDB, SES, Secrets Manager) in a
child process (:mod:`multitool.local.sandbox.moto_process`: off the handlers' GIL), creates
every table from :mod:`multitool.ports.tables`, verifies the sender
identity, starts the fake Jira sandbox with its credentials in Secrets Manager,
seeds the directory, and returns the environment the Lambda handlers read.

Endpoints are set per service (``AWS_ENDPOINT_URL_DYNAMODB`` ...) rather than
with ``AWS_ENDPOINT_URL``, so that a real Bedrock runtime (``--agent-id``,
``--runtime converse --model-id`` or a harness ARN) still reaches AWS while the
data stays local. The default, ``offline``, runs the offline model behind the
offline harness through the AgentCore runtime, the code the default deployment
runs; ``offline-converse`` runs the offline model through the Converse loop.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, TypeVar

import boto3
from pydantic import Field

from multitool.people import Person
from multitool.ports.tables import create_all
from multitool.settings import ModelBackend
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.local.sandbox.data_dir import DataDir
    from multitool.local.sandbox.invocations import LocalInvocations
    from multitool.local.sandbox.moto_process import LaunchedMoto
    from multitool.local.standins.jira_server import FakeJira
    from multitool.local.standins.stand_in import Lifecycle

LOOPBACK = "127.0.0.1"
DEFAULT_REGION = "us-east-1"
FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_SESSION_TOKEN": "local",
}
# boto3's per-service endpoint variables (service id upper-cased, spaces -> underscores).
LOCAL_SERVICES = ("DYNAMODB", "SES", "SESV2", "SECRETS_MANAGER", "SQS")
UNDO_QUEUE = "multitool-undo"
"""The undo window's delay queue (multitool.ports.undo_queue), read by the local server's poller."""


_Part = TypeVar("_Part", bound="Lifecycle")


class LocalSetupError(RuntimeError):
    """The local runtime cannot start as asked; the message says what to change."""


class SeedProject(WireModel):
    """A Jira project of the sandbox (``JIRA_PROJECTS``' shape: ``{"name", "issueTypes"}``)."""

    name: str
    issue_types: tuple[str, ...] = ("Bug", "Task", "Story")


class Seed(WireModel):
    """The local directory and sandbox settings (``multitool/local/sandbox/seed.json``)."""

    people: tuple[Person, ...] = Field(min_length=1)
    default_user: str
    jira_projects: dict[str, SeedProject]
    sender_email: str
    mail: tuple[dict[str, Any], ...] = Field(
        default=(),
        description="Messages the builtin mailbox starts with (multitool.ports.aws.dynamo_mailbox.seed_mail)",
    )

    def person(self, user_id: str) -> Person | None:
        return next((p for p in self.people if p.id == user_id), None)


def load_seed(path: Path | None = None) -> Seed:
    """The seed file: ``path`` if given, else the packaged ``seed.json``."""
    text = (
        path.read_text(encoding="utf-8")
        if path is not None
        else resources.files("multitool.local.sandbox").joinpath("seed.json").read_text(encoding="utf-8")
    )
    seed = Seed.model_validate_json(text)
    if seed.person(seed.default_user) is None:
        raise LocalSetupError(f"seed defaultUser {seed.default_user!r} is not one of the seeded people")
    return seed


@dataclass(frozen=True, slots=True)
class BackendChoice:
    """Which model answers the chat: the offline model, or a real Bedrock one."""

    runtime: ModelBackend = ModelBackend.OFFLINE
    agent_id: str | None = None
    agent_alias_id: str | None = None
    model_id: str | None = None
    harness_arn: str | None = None

    @classmethod
    def from_options(
        cls,
        *,
        runtime: str | None = None,
        agent_id: str | None = None,
        agent_alias_id: str | None = None,
        model_id: str | None = None,
        harness_arn: str | None = None,
    ) -> BackendChoice:
        """Infer the runtime from the flags given; reject incomplete combinations."""
        if (agent_id is None) != (agent_alias_id is None):
            raise LocalSetupError("--agent-id and --alias-id go together: give both or neither.")
        if runtime is None:
            if harness_arn:
                runtime = ModelBackend.AGENTCORE
            elif agent_id:
                runtime = ModelBackend.AGENT
            elif model_id:
                runtime = ModelBackend.CONVERSE
            else:
                runtime = ModelBackend.OFFLINE
        try:
            chosen = ModelBackend(runtime)
        except ValueError:
            names = ", ".join(r.value for r in ModelBackend)
            raise LocalSetupError(f"--runtime must be one of {names}, got {runtime!r}.") from None
        if chosen is ModelBackend.AGENT and not agent_id:
            raise LocalSetupError("--runtime agent needs --agent-id and --alias-id.")
        if chosen is ModelBackend.CONVERSE and not model_id:
            raise LocalSetupError(
                "--runtime converse needs --model-id (a Bedrock model or inference profile)."
            )
        if chosen is ModelBackend.AGENTCORE and not harness_arn:
            raise LocalSetupError("--runtime agentcore needs a harness ARN (HARNESS_ARN).")
        return cls(chosen, agent_id, agent_alias_id, model_id, harness_arn)

    @property
    def uses_aws(self) -> bool:
        return self.runtime not in (ModelBackend.OFFLINE, ModelBackend.OFFLINE_CONVERSE)


@dataclass
class Embedded:
    """A running local backend: the moto endpoint, the sandboxes, and the function environment."""

    endpoint: str
    seed: Seed
    env: dict[str, str]
    runtime: BackendChoice
    jira: FakeJira
    invocations: LocalInvocations | None = None
    """Lambda's asynchronous Invoke (``AWS_ENDPOINT_URL_LAMBDA``): bind the functions to it."""
    moto_pid: int | None = None
    """The moto child's process id (its CPU time is part of what a request costs)."""
    data: DataDir | None = None
    """Where the data is kept across restarts (None: nothing is kept)."""
    restored: bool = False
    """Whether this run started from the data an earlier run kept."""
    _running: ExitStack = field(default_factory=ExitStack, repr=False)
    """What closing stops, the last started first: the folder's release, Jira, Invoke, moto, and all
    that :meth:`enter` adds (each a :class:`multitool.local.standins.stand_in.Lifecycle`)."""

    def enter(self, part: _Part) -> _Part:
        """Start ``part`` (one running already stays as it is) and stop it when the backend closes,
        before what was started earlier."""
        self._running.enter_context(part)
        return part

    def on_close(self, close: Callable[[], object]) -> None:
        """Run ``close`` when the backend closes (before what was started earlier)."""
        self._running.callback(close)

    def close(self) -> None:
        self._running.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def aws_credentials_available() -> bool:
    """Whether boto3 finds real credentials (environment, profile, SSO, instance role)."""
    return boto3.Session().get_credentials() is not None


def function_env(
    *,
    endpoint: str,
    tables: Mapping[str, str],
    seed: Seed,
    runtime: BackendChoice,
    region: str,
    jira_secret_arn: str,
    log_level: str = "WARNING",
) -> dict[str, str]:
    """The environment the handlers read, as the stack would set it (plus local endpoints)."""
    env: dict[str, str] = {
        "AWS_REGION": region,
        "AWS_DEFAULT_REGION": region,
        **{f"AWS_ENDPOINT_URL_{service}": endpoint for service in LOCAL_SERVICES},
        **tables,
        "RUNTIME": runtime.runtime.value,
        "SENDER_EMAIL": seed.sender_email,
        "SANDBOX": "true",
        "JIRA_SECRET_ARN": jira_secret_arn,
        # The sandbox's one Jira account reads the issues a card names too (deployed: an account of its own).
        "JIRA_READER_SECRET_ARN": jira_secret_arn,
        "JIRA_PROJECTS": json.dumps({key: project.to_wire() for key, project in seed.jira_projects.items()}),
        "POWERTOOLS_SERVICE_NAME": "multitool",
        "POWERTOOLS_METRICS_NAMESPACE": "MultitoolLocal",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_LOG_LEVEL": log_level,
    }
    if runtime.agent_id:
        env["AGENT_ID"] = runtime.agent_id
    if runtime.agent_alias_id:
        env["AGENT_ALIAS_ID"] = runtime.agent_alias_id
    if runtime.model_id:
        env["MODEL_ID"] = runtime.model_id
    if runtime.harness_arn:
        env["HARNESS_ARN"] = runtime.harness_arn
    if not runtime.uses_aws:
        env.update(FAKE_CREDENTIALS)
    return env


def sandbox_env(
    endpoint: str, seed: Seed, *, region: str = DEFAULT_REGION, log_level: str = "WARNING"
) -> dict[str, str]:
    """The tool handlers' environment on a sandbox another process runs (its moto ``endpoint``):
    the tables ``create_all`` made there, by their fixed local names."""
    from multitool.ports.tables import ALL_TABLES

    tables = {spec.env_var: f"multitool-{spec.logical_name.lower()}" for spec in ALL_TABLES}
    return function_env(
        endpoint=endpoint,
        tables=tables,
        seed=seed,
        runtime=BackendChoice(),
        region=region,
        # The sandbox's Jira, by its secret's name: the cards that name an existing issue read it there.
        jira_secret_arn=LOCAL_JIRA_SECRET,
        log_level=log_level,
    )


def client_of(service: str, endpoint: str, region: str, credentials: Mapping[str, str]) -> Any:
    """A boto3 client of ``service`` on the embedded endpoint."""
    return boto3.client(
        service,  # type: ignore[call-overload]
        endpoint_url=endpoint,
        region_name=region,
        aws_access_key_id=credentials["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=credentials["AWS_SECRET_ACCESS_KEY"],
        aws_session_token=credentials["AWS_SESSION_TOKEN"],
    )


def start_embedded(
    runtime: BackendChoice | None = None,
    *,
    seed: Seed | None = None,
    region: str | None = None,
    log_level: str = "WARNING",
    apply_env: bool = True,
    moto: LaunchedMoto | None = None,
    data: DataDir | None = None,
    today: date | None = None,
) -> Embedded:
    """Start the moto server and the Jira sandbox, create and seed everything.

    ``today``: the day the demo's meetings are counted from (a run pinned to another day); today by default.

    With ``apply_env`` the returned environment is also written to this
    process's ``os.environ``, where the in-process handlers read it. ``moto``: a moto
    child the caller launched earlier (it boots while the caller imports the rest), with
    ``data``'s state file if ``data`` is given. ``data``: the folder that keeps moto's and
    the Jira sandbox's data across restarts; closing the backend releases it.
    """
    from multitool.local.sandbox.moto_process import LaunchedMoto

    launched = moto or (LaunchedMoto(state=data.aws_state, hold=data.lock_fd) if data else LaunchedMoto())
    try:
        return _start_embedded(launched, runtime, seed, region, log_level, apply_env, data, today)
    except BaseException:
        launched.abandon()
        raise


def _start_embedded(
    launched: LaunchedMoto,
    runtime: BackendChoice | None,
    seed: Seed | None,
    region: str | None,
    log_level: str,
    apply_env: bool,
    data: DataDir | None,
    today: date | None = None,
) -> Embedded:
    runtime = runtime or BackendChoice()
    seed = seed or load_seed()
    if runtime.uses_aws and not aws_credentials_available():
        raise LocalSetupError(
            f"RUNTIME={runtime.runtime.value} calls Bedrock and needs AWS credentials "
            "(AWS_PROFILE, environment variables or SSO); none were found. "
            "Run without --agent-id/--model-id to use the offline model."
        )
    region = region or (boto3.Session().region_name if runtime.uses_aws else None) or DEFAULT_REGION
    from multitool.local.sandbox.invocations import LocalInvocations
    from multitool.local.sandbox.moto_process import MotoStartFailed

    with ExitStack() as running:  # on any failure, what started is stopped, the last first
        # The folder is released last, once moto has written its state into it.
        if data is not None:
            running.callback(data.release)
        # The sandboxes that do not need moto start while its child boots.
        jira = running.enter_context(_jira_sandbox(seed, data.jira_state if data else None))
        invocations = running.enter_context(LocalInvocations(LOOPBACK))
        endpoint = launched.endpoint  # known before moto is up: botocore loads its models meanwhile
        dynamodb = client_of("dynamodb", endpoint, region, FAKE_CREDENTIALS)
        sesv2 = client_of("sesv2", endpoint, region, FAKE_CREDENTIALS)
        secrets = client_of("secretsmanager", endpoint, region, FAKE_CREDENTIALS)
        sqs = client_of("sqs", endpoint, region, FAKE_CREDENTIALS)
        try:
            moto = running.enter_context(launched.ready())
        except MotoStartFailed as error:
            raise LocalSetupError(str(error)) from None
        restored = moto.state == "restored"
        # Kept data already holds the tables, the identity and the secret: only what is missing is made.
        tables = _ensure_tables(dynamodb) if restored else create_all(dynamodb)
        seed_directory(dynamodb, tables["DIRECTORY_TABLE_NAME"], seed)
        if not restored:
            seed_meetings(dynamodb, tables["BOOKINGS_TABLE_NAME"], seed, today)
            from multitool.ports.aws.dynamo_mailbox import seed_mail

            seed_mail(dynamodb, tables["MAILBOX_TABLE_NAME"], seed.mail, datetime.now(UTC))
        if not restored or seed.sender_email not in _identities(sesv2):
            sesv2.create_email_identity(EmailIdentity=seed.sender_email)
        secret_arn = _jira_secret(secrets, json.dumps(_sandbox_secret(jira)), restored)
        env = function_env(
            endpoint=endpoint,
            tables=tables,
            seed=seed,
            runtime=runtime,
            region=region,
            jira_secret_arn=secret_arn,
            log_level=log_level,
        )
        env["AWS_ENDPOINT_URL_LAMBDA"] = invocations.url
        # Made again on every start (CreateQueue with the same name answers the existing queue).
        env["UNDO_QUEUE_URL"] = sqs.create_queue(QueueName=UNDO_QUEUE)["QueueUrl"]
        started = running.pop_all()  # up: the backend stops them when it closes
    if apply_env:
        os.environ.pop("AWS_ENDPOINT_URL", None)
        os.environ.update(env)
    return Embedded(
        endpoint=endpoint,
        seed=seed,
        env=env,
        runtime=runtime,
        jira=jira,
        invocations=invocations,
        moto_pid=moto.pid,
        data=data,
        restored=restored,
        _running=started,
    )


def _ensure_tables(dynamodb: Any) -> dict[str, str]:
    """Every table ``create_all`` makes, creating those the kept data does not hold."""
    from multitool.ports.tables import ALL_TABLES, create_table

    existing = set(dynamodb.list_tables().get("TableNames", []))
    names: dict[str, str] = {}
    for spec in ALL_TABLES:
        name = f"multitool-{spec.logical_name.lower()}"
        if name not in existing:
            create_table(dynamodb, spec, name)
        names[spec.env_var] = name
    return names


def _identities(sesv2: Any) -> set[str]:
    return {i["IdentityName"] for i in sesv2.list_email_identities().get("EmailIdentities", [])}


LOCAL_JIRA_SECRET = "multitool/local/jira"  # noqa: S105 - a secret's name, not a secret
"""The name of the Jira sandbox's secret (Secrets Manager takes a name where it takes an ARN)."""


def _jira_secret(secrets: Any, value: str, restored: bool) -> str:
    """The Jira sandbox's secret, holding this run's sandbox URL; its ARN."""
    name = LOCAL_JIRA_SECRET
    if restored:
        try:
            return str(secrets.put_secret_value(SecretId=name, SecretString=value)["ARN"])
        except secrets.exceptions.ResourceNotFoundException:
            pass
    return str(secrets.create_secret(Name=name, SecretString=value)["ARN"])


def seed_directory(dynamodb: Any, table_name: str, seed: Seed) -> int:
    """Write the seeded people to the directory table."""
    from multitool.ports.directory import seed_people

    return seed_people(dynamodb, table_name, seed.people)


def seed_meetings(dynamodb: Any, table_name: str, seed: Seed, today: date | None = None) -> int:
    """Book the demo's meetings (:mod:`multitool.local.sandbox.demo_meetings`) on the built-in calendar."""
    from multitool.local.sandbox.demo_meetings import demo_meetings
    from multitool.ports.aws.dynamo_calendar import DynamoCalendar

    calendar = DynamoCalendar(table_name, dynamodb)
    meetings = demo_meetings(seed.people, today)
    for meeting in meetings:
        calendar.book(meeting)
    return len(meetings)


def _jira_sandbox(seed: Seed, state: Path | None = None) -> FakeJira:
    """The fake Jira with the seeded projects (its issues kept in ``state``)."""
    from multitool.local.standins.jira_server import start_fake_jira
    from multitool.ports.jira import SANDBOX_CREDENTIALS_EMAIL, SANDBOX_CREDENTIALS_TOKEN

    return start_fake_jira(
        LOOPBACK,
        0,
        email=SANDBOX_CREDENTIALS_EMAIL,
        api_token=SANDBOX_CREDENTIALS_TOKEN,
        projects={key: project.issue_types for key, project in seed.jira_projects.items()},
        state=state,
        seeded=True,  # the demo's issues to comment on, move, update and link
    )


def _sandbox_secret(jira: FakeJira) -> dict[str, str]:
    """The Jira sandbox's secret, as the Jira port reads it: its URL and the sandbox's account."""
    from multitool.ports.jira import SANDBOX_CREDENTIALS_EMAIL, SANDBOX_CREDENTIALS_TOKEN

    return {"baseUrl": jira.url, "email": SANDBOX_CREDENTIALS_EMAIL, "apiToken": SANDBOX_CREDENTIALS_TOKEN}


@contextmanager
def embedded(runtime: BackendChoice | None = None, **options: Any) -> Iterator[Embedded]:
    """:func:`start_embedded` as a context manager."""
    with start_embedded(runtime, **options) as running:
        yield running
