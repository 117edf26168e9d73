"""Cold start as a user waits for it: a fresh process imports a handler and serves its first request.

Each figure is the median, over ``BENCH_COLD_RUNS`` rounds, of the wall time from
spawning a fresh interpreter to reading the handler's first response (the
interpreter's start is included, its exit is not). Within a round the programs
run one after another, so machine noise hits all of them alike, each round in
its own (seeded) order, so no program always follows the same one. Beside the wall
time, ``cpu ms`` is the CPU time the child used up to its response (its
interpreter's start included): a shared machine's load stretches wall time far
more than CPU time, so it is the steadier figure to compare two runs by.

- ``baseline``: ``import boto3`` and Powertools' ``APIGatewayHttpResolver``, one
  route that makes one DynamoDB ``GetItem``: a bare Powertools handler;
- the references, what the chosen stack costs before any ``multitool`` code (rows
  marked ``ref``, not targets): the baseline plus one pydantic model like the
  tools' (camelCase aliases, constrained strings) validated and dumped
  (``+ pydantic``); plus Powertools' ``Logger``, ``Metrics`` and ``Tracer`` made and
  applied as the handlers do, tracing on (``+ observability``); both
  (``stack, HTTP API``: the floor of ``review``); that, whose route also asks the
  harness once through a second client, ``bedrock-agentcore``'s ``InvokeHarness``,
  and reads its event stream from the same stand-in as the orchestrator (``stack,
  HTTP API + harness``, read beside the orchestrator: its floor without the turn's DynamoDB
  calls); that again on the orchestrator's own ``POST /chat`` event, making the DynamoDB calls
  a session's first turn makes, as the Slack floor makes its function's: the session claimed,
  the directory and the calendars read (a ``BatchGetItem`` each), the harness asked, two drafts
  written in one ``TransactWriteItems``, the carried step and the history written (``stack,
  chat turn``: the floor of ``orchestrator``; ``tests/functional/orchestrator/test_chat_agentcore.py``
  holds its calls to the turn's);
  and both with a ``BedrockAgentResolver(enable_validation=True)`` whose one route
  takes that model as its body and returns one, on an action-group event (``stack,
  action group``: the floor of the three action-group functions); and the stack as the user
  Gateway's interceptor uses it: observability, its settings validated by a pydantic model, a
  Secrets Manager ``GetSecretValue`` and a Cognito ``AdminGetUser`` through their own clients, the
  caller signed into the ``tools/call`` it answers (``stack, interceptor``: the floor of ``mcp_caller``);
- each function's ``handler.handler`` on a real-shaped event (Bedrock action-group
  events, HTTP API payload 2.0 for /chat and /actions/{id}, a Gateway REQUEST interceptor event,
  input version 1.0, for ``mcp_caller``). ``x stack`` is its
  figure over its floor's: what ``multitool``'s own code costs on top of the stack.

Every request goes to one moto server (``multitool serve``'s embedded backend:
tables, seeded directory, SES identity, Jira sandbox; and the user Gateway's caller-signing secret
and a Cognito pool with one user, :func:`_user_gateway`, whose variables only the interceptor and
its floor get) through
``AWS_ENDPOINT_URL``, so no child imports moto. The children run with the
Lambda environment variables that change what loads (``LAMBDA_TASK_ROOT``, a
sampled ``_X_AMZN_TRACE_ID``, an X-Ray daemon address, the runtime's
``AWS_EXECUTION_ENV``): tracing and metrics are on, and the handlers load as in
a Lambda runtime (:mod:`multitool.api.startup`), as deployed. The functions also get
what the stack sets on every function for its libraries
(``infra.components.functions.RUNTIME_ENVIRONMENT``: pydantic's plugin search off); the
references run those libraries on their defaults. The orchestrator runs
as deployed, ``RUNTIME=agentcore`` with a ``HARNESS_ARN`` and ``MODEL_ID``: its
``bedrock-agentcore`` client sends each ``InvokeHarness`` over HTTP to
:class:`multitool.local.standins.harness_endpoint.HarnessEndpoint`
(``AWS_ENDPOINT_URL_BEDROCK_AGENTCORE``), the offline harness answering in the service's
wire shapes (the request placed and validated by botocore's operation model, the answer a
binary event stream), where a deployment waits for Bedrock. The row ``orchestrator
(offline, local)`` runs ``RUNTIME=offline`` (the offline model and harness in the child,
as ``make demo`` does): what a local cold start costs, apart from the targets.

As deployed: the functions run Python 3.13 with the layer. When an interpreter
of that version is here (``infra.components.layer.layer_python``), the children
run it on a layer built like the bundled one: the same pinned versions from
``infra/layer.lock`` and the same ``multitool`` files and compile step, but
wheels for this machine's platform (the bundled layer holds aarch64 wheels,
which an x86_64 host cannot load). The layer carries its own SDK (boto3,
botocore, s3transfer, pinned in the lock). Three layers are measured:
``bytecode`` (what ``cdk synth`` bundles when Python 3.13 is available),
``runtime SDK`` (the same layer without the SDK, the same SDK versions in a
folder after it on the path, compiled as in Lambda's image: where the functions
would import it from if the layer relied on the runtime's) and ``sources only``
(``--no-compile``, what synth bundles without Python 3.13: a read-only layer
compiles every imported module on every cold start). ``PYTHONDONTWRITEBYTECODE`` keeps the
sources-only layer without bytecode from one run to the next. Without Python 3.13
(or without the package index), the children run this venv's interpreter on the
working tree and the table says so.

``python -m benchmarks cold_start``; ``BENCH_COLD_RUNS`` (default 11) rounds;
``BENCH_COLD_REVISION=HEAD`` (any git revision) measures that commit's
``multitool`` and ``functions/`` instead of the working tree; ``BENCH_COLD_ONLY=orchestrator,review``
measures those functions and their floors only; ``BENCH_COLD_COMPARE=<revision>[,<revision>...]`` runs
the same functions of each revision too, in the same rounds (rows ``name @revision``, their own layer
built from that commit), so two trees are compared under the same load, which separate runs cannot do.

Beside the median, ``p20`` is the fifth-fastest CPU time of each hundred: a neighbour's load only ever
adds CPU time, and on a shared machine a program's samples fall in a fast and a slow group, whose
proportion moves a median by up to 10% between two identical programs of one run; the target is read
on the median.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks import slack_cold_start

if TYPE_CHECKING:
    from tests.support.gateway_events import GatewayUser

ROOT = Path(__file__).resolve().parent.parent
RUNS = int(os.environ.get("BENCH_COLD_RUNS", "11"))
REVISION = os.environ.get("BENCH_COLD_REVISION")
COMPARE = tuple(revision for revision in os.environ.get("BENCH_COLD_COMPARE", "").split(",") if revision)
"""Revisions whose functions run in the same rounds as the measured tree's (rows ``name @revision``)."""
TARGET = 1.15
"""A function's cold start over its floor's in CPU time (``cpu x stack``), in one run: its median CPU time
over its floor's. CPU time is the child's own work; its wall time also holds the time moto and the
harness stand-in (beside it, on the same two cores) take to answer its calls, which grows with the
number of calls, not with the function's code."""
BUILD = ROOT / "build" / "bench-cold-start"
HOST_PLATFORMS = ("manylinux2014_x86_64", "manylinux_2_28_x86_64", "manylinux_2_34_x86_64")
FUNCTIONS = (
    "email_draft",
    "meeting_scheduler",
    "jira_draft",
    "review",
    "orchestrator",
    "mcp_caller",
    "slack",
)
DEPLOYED_HARNESS_ARN = "arn:aws:bedrock-agentcore:us-east-1:123456789012:harness/multitool_chat-a1b2c3d4e5"
ONLY = tuple(name for name in os.environ.get("BENCH_COLD_ONLY", "").split(",") if name)
"""The functions to measure (with their floors); empty: every one."""
LOCAL = {"orchestrator (offline, local)": ("orchestrator", {"RUNTIME": "offline"})}
"""Rows measured beside the targets, never against them: label -> (function, environment changes)."""
TRACE_HEADER = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
SESSION = {"userId": "jordan", "timezone": "Europe/Berlin", "now": "2026-12-01T10:00:00+01:00"}

# The child: everything after the interpreter's own start is inside these lines.
RUNNER = """\
import resource, sys, time
started = time.perf_counter()
import importlib, json
module = importlib.import_module(sys.argv[1])
imported = time.perf_counter()
with open(sys.argv[2], encoding="utf-8") as source:
    event = json.load(source)

class Context:
    function_name = "bench-" + sys.argv[1]
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:" + function_name
    aws_request_id = "00000000-0000-4000-8000-000000000001"
    log_group_name = "/aws/lambda/" + function_name
    log_stream_name = "bench"
    def get_remaining_time_in_millis(self):
        return 30000

response = module.handler(event, Context())
served = time.perf_counter()
used = resource.getrusage(resource.RUSAGE_SELF)
sys.stdout.write("COLD-START " + json.dumps({
    "import_ms": (imported - started) * 1000, "request_ms": (served - imported) * 1000,
    "cpu_ms": (used.ru_utime + used.ru_stime) * 1000, "response": response,
}) + "\\n")
sys.stdout.flush()
"""

BASELINE = """\
import os
import boto3
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

app = APIGatewayHttpResolver()
dynamodb = boto3.client("dynamodb")
TABLE = os.environ["DRAFTS_TABLE_NAME"]


@app.get("/items/<item_id>")
def get_item(item_id: str) -> dict:
    return dynamodb.get_item(TableName=TABLE, Key={"id": {"S": item_id}}).get("Item") or {}


def handler(event, context):
    return app.resolve(event, context)
"""

# The reference programs are put together from these parts, so each adds one thing to the baseline.
_CLIENT = """\
import os
from typing import Annotated

import boto3

dynamodb = boto3.client("dynamodb")
TABLE = os.environ["DRAFTS_TABLE_NAME"]


def read(item_id: str) -> dict:
    return dynamodb.get_item(TableName=TABLE, Key={"id": {"S": item_id}}).get("Item") or {}
"""
_MODEL = """\
from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from pydantic.alias_generators import to_camel

Line = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


class Draft(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)

    to: list[Line] = Field(min_length=1, max_length=20, description="Recipients as the user named them")
    subject: Line = Field(description="The subject line")
    body: str = Field(default="", max_length=10_000, description="The body")
    draft_id: str | None = Field(default=None, description="The draft's id")
"""
_OBSERVABILITY = """\
from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit

logger = Logger(service="bench")
tracer = Tracer(service="bench", patch_modules=("botocore", "httplib"))
metrics = Metrics(namespace="Bench")
"""
_HTTP_APP = """\
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

app = APIGatewayHttpResolver()
"""
_DECORATED = """\
@logger.inject_lambda_context(correlation_id_path={path})
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event, context):
    return app.resolve(event, context)
"""
_PLAIN = """\
def handler(event, context):
    return app.resolve(event, context)
"""
_HARNESS = """\
agentcore = boto3.client("bedrock-agentcore")
HARNESS = os.environ["HARNESS_ARN"]


def ask(text: str) -> str:
    response = agentcore.invoke_harness(
        harnessArn=HARNESS,
        runtimeSessionId="bench-" + "0" * 58,
        messages=[{"role": "user", "content": [{"text": text}]}],
    )
    delta = (event.get("contentBlockDelta", {}).get("delta", {}) for event in response["stream"])
    return "".join(part.get("text", "") for part in delta)
"""
_TURN = """\
import json
import time

from boto3.dynamodb.types import TypeSerializer

SESSIONS = os.environ["SESSIONS_TABLE_NAME"]
DIRECTORY = os.environ["DIRECTORY_TABLE_NAME"]
BOOKINGS = os.environ["BOOKINGS_TABLE_NAME"]
PERSON = ("kinshuok", "kinshuok.sharma@example.com")
OWNER = {"#owner": "owner"}
serialize = TypeSerializer().serialize


def turn(user: str, session: str, text: str) -> dict:
    key, me, now = {"sessionId": {"S": session}}, {":owner": {"S": user}}, int(time.time())
    dynamodb.update_item(
        TableName=SESSIONS,
        Key=key,
        UpdateExpression="SET #owner = if_not_exists(#owner, :owner), expiresAt = :expires ADD turns :one",
        ConditionExpression="attribute_not_exists(sessionId) OR #owner = :owner",
        ExpressionAttributeNames=OWNER,
        ExpressionAttributeValues={**me, ":expires": {"N": str(now + 86400)}, ":one": {"N": "1"}},
        ReturnValues="ALL_OLD",
    )
    named = {"pk": {"S": "NAME#" + PERSON[0]}, "sk": {"S": "NAME"}}
    people = dynamodb.batch_get_item(RequestItems={DIRECTORY: {"Keys": [named]}})["Responses"][DIRECTORY]
    days = [{"pk": {"S": "BUSY#" + PERSON[1]}, "sk": {"S": f"2026-12-{day}"}} for day in range(10, 17)]
    busy = dynamodb.batch_get_item(RequestItems={BOOKINGS: {"Keys": days}})["Responses"][BOOKINGS]
    reply = ask(text)
    drafts = [
        Draft.model_validate({"to": [PERSON[0]], "subject": text, "draftId": f"{session}-{n}"})
        .model_dump(mode="json", by_alias=True)
        for n in range(2)
    ]
    dynamodb.transact_write_items(
        TransactItems=[
            {
                "Put": {
                    "TableName": TABLE,
                    "Item": {"id": {"S": draft["draftId"]}, "owner": {"S": user}, "card": serialize(draft)},
                    "ConditionExpression": "attribute_not_exists(id)",
                }
            }
            for draft in drafts
        ]
    )
    for kept, value in (("harnessCarry", drafts), ("history", [text, reply])):
        dynamodb.update_item(
            TableName=SESSIONS,
            Key=key,
            UpdateExpression="SET #kept = :kept",
            ConditionExpression="#owner = :owner",
            ExpressionAttributeNames={**OWNER, "#kept": kept},
            ExpressionAttributeValues={**me, ":kept": {"S": json.dumps(value)}},
        )
    return {"message": reply, "clientActions": drafts, "sessionId": session, "read": len(people) + len(busy)}
"""
_CHAT_ROUTE = """\
@app.post("/chat")
def chat() -> dict:
    metrics.add_metric(name="Turns", unit=MetricUnit.Count, value=1)
    body = app.current_event.json_body
    user = app.current_event.request_context.authorizer.jwt_claim["sub"]
    return turn(user, body["sessionId"], body["message"])
"""
_INTERCEPTOR = """\
import base64
import hashlib
import hmac
import json
import os

import boto3
from pydantic import BaseModel, ConfigDict, Field

secrets = boto3.client("secretsmanager")
cognito = boto3.client("cognito-idp")


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    key_arn: str = Field(alias="CALLER_KEY_SECRET_ARN", min_length=20)
    pool: str = Field(alias="USER_POOL_ID", pattern=r"^[a-z0-9-]+_[0-9a-zA-Z]+$")


def named(event: dict) -> dict:
    settings = Settings.model_validate(os.environ)
    request = event["mcp"]["gatewayRequest"]
    token = request["headers"]["Authorization"].split()[1].split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    user = cognito.admin_get_user(UserPoolId=settings.pool, Username=claims["username"])
    key = secrets.get_secret_value(SecretId=settings.key_arn)["SecretString"].encode()
    caller = {"id": claims["sub"], **{a["Name"]: a.get("Value") for a in user["UserAttributes"]}}
    signed = json.dumps(caller, sort_keys=True).encode()
    caller["signature"] = hmac.new(key, signed, hashlib.sha256).hexdigest()
    body = request["body"]
    params = {**body["params"], "arguments": {**body["params"]["arguments"], "caller": caller}}
    answer = {"body": {**body, "params": params}}
    return {"interceptorOutputVersion": "1.0", "mcp": {"transformedGatewayRequest": answer}}
"""
_INTERCEPTOR_HANDLER = """\
@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event, context):
    return named(event)
"""
_COUNT = 'metrics.add_metric(name="Reads", unit=MetricUnit.Count, value=1)'
_VALIDATE = 'draft = Draft.model_validate({"to": ["Kinshuok"], "subject": "The doc", "draftId": item_id})'
_READ = "return read(item_id)"
_READ_AND_DUMP = 'return {**read(item_id), **draft.model_dump(mode="json", by_alias=True)}'
_ASK_READ_AND_DUMP = (
    'return {**read(item_id), **draft.model_dump(mode="json", by_alias=True), "reply": ask(item_id)}'
)
_ACTION_GROUP = """\
from aws_lambda_powertools.event_handler import BedrockAgentResolver
from aws_lambda_powertools.event_handler.openapi.params import Body

app = BedrockAgentResolver(enable_validation=True)


class Note(BaseModel):
    model_config = Draft.model_config

    subject: Line = Field(description="The subject line")
    body: str = Field(default="", max_length=10_000, description="The body")


@app.post("/email-drafts", description="Draft an email", operation_id="create_email_draft")
def create_email_draft(note: Annotated[Note, Body()]) -> Draft:
    metrics.add_metric(name="DraftsProposed", unit=MetricUnit.Count, value=1)
    read("d-1")
    return Draft(to=["Kinshuok"], subject=note.subject, body=note.body, draft_id="d-1")
"""


def _program(*parts: str) -> str:
    return "\n\n".join(part.rstrip("\n") for part in parts) + "\n"


def _http_route(*statements: str) -> str:
    body = "".join(f"    {statement}\n" for statement in statements)
    return f'@app.get("/items/<item_id>")\ndef get_item(item_id: str) -> dict:\n{body}'


_HTTP_DECORATED = _DECORATED.format(path="correlation_paths.API_GATEWAY_HTTP")
REFERENCES: dict[str, str] = {
    "+ pydantic": _program(_CLIENT, _MODEL, _HTTP_APP, _http_route(_VALIDATE, _READ_AND_DUMP), _PLAIN),
    "+ observability": _program(
        _CLIENT, _OBSERVABILITY, _HTTP_APP, _http_route(_COUNT, _READ), _HTTP_DECORATED
    ),
    "stack, HTTP API": _program(
        _CLIENT,
        _MODEL,
        _OBSERVABILITY,
        _HTTP_APP,
        _http_route(_COUNT, _VALIDATE, _READ_AND_DUMP),
        _HTTP_DECORATED,
    ),
    "stack, action group": _program(
        _CLIENT, _MODEL, _OBSERVABILITY, _ACTION_GROUP, _DECORATED.format(path='"sessionId"')
    ),
    "stack, HTTP API + harness": _program(
        _CLIENT,
        _HARNESS,
        _MODEL,
        _OBSERVABILITY,
        _HTTP_APP,
        _http_route(_COUNT, _VALIDATE, _ASK_READ_AND_DUMP),
        _HTTP_DECORATED,
    ),
    "stack, chat turn": _program(
        _CLIENT, _HARNESS, _MODEL, _OBSERVABILITY, _HTTP_APP, _TURN, _CHAT_ROUTE, _HTTP_DECORATED
    ),
    "stack, interceptor": _program(_INTERCEPTOR, _OBSERVABILITY, _INTERCEPTOR_HANDLER),
    "stack, Slack": _program(_CLIENT, _MODEL, _OBSERVABILITY, slack_cold_start.FLOOR),
}
"""The references, none of them importing multitool: label -> program."""
FLOORS = {
    "email_draft": "stack, action group",
    "meeting_scheduler": "stack, action group",
    "jira_draft": "stack, action group",
    "review": "stack, HTTP API",
    "orchestrator": "stack, chat turn",
    "mcp_caller": "stack, interceptor",
    "slack": "stack, Slack",
    "orchestrator (offline, local)": "stack, HTTP API",
}
"""Each function's floor: the reference doing what it does with the same stack and no multitool code."""
BESIDE = {"orchestrator": "stack, HTTP API + harness"}
"""A reference each function is also read against (not the target): the orchestrator's is its floor
without the turn's DynamoDB calls (the HTTP API floor asking the harness once), what multitool's code and
the calls its turn makes cost together."""


@dataclass(frozen=True)
class Setup:
    """How the children run: an interpreter and the path entries before the handler's own folder."""

    label: str
    python: str
    layers: Mapping[str, list[str]]  # variant -> sys.path entries after the task folder


def _pip_target(target: Path, requirements: list[str], *platform_args: str) -> None:
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
        "--no-deps", "--only-binary=:all:", *platform_args, "--target", str(target), *requirements,
    ]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, text=True)
    for leftover in ("bin", "__pycache__"):
        shutil.rmtree(target / leftover, ignore_errors=True)


@dataclass(frozen=True)
class Tree:
    """Where the measured ``multitool`` package and ``functions/`` come from, and what identifies them."""

    package: Path
    functions: Path
    version: str


def _function_folder(tree: Tree, name: str) -> Path:
    """The folder a function runs: its own, or, for a tool without one, the one every tool runs
    (``functions/tool``); a revision from before that has each tool's own."""
    from infra.components.functions import TOOL_CODE

    own = tree.functions / name
    return own if (own / "handler.py").is_file() else tree.functions / TOOL_CODE


def _function_environment(tree: Tree, name: str) -> dict[str, str]:
    """What the stack sets on a tool's function to name its tool, when it runs the shared handler."""
    from infra.components.functions import tool_environment

    return {} if (tree.functions / name / "handler.py").is_file() else tool_environment(name)


def _tree(scratch: Path, revision: str | None = REVISION) -> Tree:
    if revision is None:
        package = ROOT / "shared" / "python" / "multitool"
        sources = sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)
        stamps = [(str(p.relative_to(package)), p.stat().st_mtime_ns) for p in sources]
        return Tree(package, ROOT / "functions", json.dumps(stamps))
    tree = subprocess.run(
        ["git", "rev-parse", f"{revision}^{{tree}}"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    archive = subprocess.run(
        ["git", "archive", "--format=tar", revision, "shared/python/multitool", "functions"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    scratch.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive, check=True)
    return Tree(scratch / "shared" / "python" / "multitool", scratch / "functions", f"{revision} {tree}")


def _host_layers(tree: Tree, *, prune: bool = True) -> Setup | None:
    """The layer as bundled, for this machine's platform: (bytecode, sources only) + the runtime's SDK;
    ``prune``: the layers other trees left in the build folder go."""
    from infra.components import layer

    python = layer.layer_python()
    if python is None:
        return None
    pins = [line.split(" --hash", 1)[0] for line in layer.locked_requirements()]
    sdk = [pin for pin in pins if pin.split("==", 1)[0] in layer.SDK]
    digest = hashlib.sha256(
        json.dumps({"pins": pins, "python": python, "sources": tree.version}).encode()
    ).hexdigest()[:16]
    home = BUILD / digest
    if not (home / "ready").exists():
        shutil.rmtree(home, ignore_errors=True)
        platform_args = ["--implementation", "cp", "--python-version", layer.PYTHON_VERSION]
        platform_args += [arg for platform in HOST_PLATFORMS for arg in ("--platform", platform)]
        source_layer = home / "sources" / "python"
        _pip_target(source_layer, pins, *platform_args)
        shutil.copytree(
            tree.package,
            source_layer / tree.package.name,
            ignore=shutil.ignore_patterns(*layer.PACKAGE_EXCLUDES),
        )
        if "def table_text" in (tree.package / "ports/holidays.py").read_text(encoding="utf-8"):
            layer.write_holiday_table(source_layer, python)  # as bundled; an older revision has no table
        compiled_layer = home / "bytecode" / "python"
        shutil.copytree(source_layer, compiled_layer)
        layer.compile_bytecode(compiled_layer, python)
        # The layer as it would be without its SDK, and that SDK where the runtime keeps its own.
        without_sdk = home / "without-sdk" / "python"
        top = str(compiled_layer)
        shutil.copytree(
            compiled_layer,
            without_sdk,
            ignore=lambda folder, names: _sdk_entries(names) if folder == top else [],
        )
        runtime = home / "runtime"
        _pip_target(runtime, sdk, *platform_args)
        layer.compile_bytecode(runtime, python)
        (home / "ready").write_text("built\n", encoding="utf-8")
    for stale in BUILD.iterdir() if prune else ():
        if stale.name != digest:
            shutil.rmtree(stale, ignore_errors=True)
    runtime_path = str(home / "runtime")
    return Setup(
        label=f"Python {layer.PYTHON_VERSION} ({python}), layer built for this host from infra/layer.lock",
        python=python,
        layers={
            "bytecode": [str(home / "bytecode" / "python")],
            "runtime SDK": [str(home / "without-sdk" / "python"), runtime_path],
            "sources only": [str(home / "sources" / "python")],
        },
    )


def _sdk_entries(names: list[str]) -> list[str]:
    """The SDK's packages and their metadata among a site-packages folder's top-level ``names``."""
    from infra.components import layer

    return [name for name in names if name.split("-", 1)[0].lower() in layer.SDK]


def _venv_setup(tree: Tree, reason: str) -> Setup:
    return Setup(
        label=f"this venv's Python {sys.version.split()[0]} on the sources ({reason})",
        python=sys.executable,
        layers={"venv": [str(tree.package.parent)]},
    )


def _events(draft_id: str | None, gateway: UserGateway) -> dict[str, tuple[dict[str, Any], str]]:
    """program -> (event, module); the review event reads a draft the email handler made, the
    interceptor's is a ``tools/call`` with the access token of the ``gateway``'s user."""
    from tests.support.bedrock_events import bedrock_action_event
    from tests.support.gateway_events import access_token, interceptor_event, tools_call
    from tests.support.http_events import http_api_event

    def action(group: str, path: str, properties: dict[str, Any]) -> dict[str, Any]:
        return bedrock_action_event(group, path, properties=properties, session_attributes=SESSION)

    chat = {"message": "Email Kinshuok about the doc and schedule a sync for Thursday", "sessionId": "bench"}
    item = http_api_event("GET", "/items/d-1", sub="jordan")
    note = action("email_draft", "/email-drafts", {"subject": "The doc", "body": "Here it is."})
    call = tools_call(
        "email-draft___create_email_draft", {"to": ["Kinshuok"], "subject": "The doc", "body": "Here it is."}
    )
    intercepted = interceptor_event(call, access_token(gateway.user.sub, gateway.user.username))
    return {
        "baseline": (item, "handler"),
        **dict.fromkeys(REFERENCES, (item, "handler")),
        "stack, action group": (note, "handler"),
        "stack, interceptor": (intercepted, "handler"),
        "mcp_caller": (intercepted, "handler"),
        "email_draft": (
            action(
                "email_draft",
                "/email-drafts",
                {"to": ["Kinshuok"], "subject": "The doc", "body": "Here it is."},
            ),
            "handler",
        ),
        "meeting_scheduler": (
            action(
                "meeting_scheduler",
                "/meeting-proposals",
                {
                    "attendees": ["Kinshuok", "Priya"],
                    "title": "Sync",
                    "when": "Thursday",
                    "durationMinutes": 30,
                },
            ),
            "handler",
        ),
        "jira_draft": (
            action(
                "jira_draft",
                "/jira-ticket-drafts",
                {"project": "WEB", "issueType": "Bug", "summary": "Login fails", "assignee": "Priya"},
            ),
            "handler",
        ),
        "review": (http_api_event("GET", f"/actions/{draft_id or 'unknown'}", sub="jordan"), "handler"),
        "orchestrator": (http_api_event("POST", "/chat", chat, sub="jordan"), "handler"),
        **{label: (http_api_event("POST", "/chat", chat, sub="jordan"), "handler") for label in LOCAL},
        "stack, chat turn": (http_api_event("POST", "/chat", chat, sub="jordan"), "handler"),
        # Made afresh before each run (benchmarks.slack_cold_start).
        **{name: (slack_cold_start.fresh_event(), "handler") for name in slack_cold_start.PROGRAMS},
    }


@dataclass(frozen=True)
class UserGateway:
    """The user Gateway's pieces on moto: what only the interceptor and its floor see."""

    env: Mapping[str, str]  # the interceptor's own variables, and Cognito's endpoint
    user: GatewayUser


INTERCEPTORS = ("mcp_caller", "stack, interceptor")
"""The programs that run with :attr:`UserGateway.env` (the action groups run as a Bedrock agent's:
without the user Gateway's secret, so they read none)."""


def _user_gateway(endpoint: str, region: str) -> UserGateway:
    """The caller-signing secret and a pool with one user, as the stack makes them."""
    import boto3
    from multitool.local.sandbox.embedded import FAKE_CREDENTIALS

    from tests.support.gateway_events import seed_user_gateway

    where: dict[str, Any] = {
        "endpoint_url": endpoint,
        "region_name": region,
        "aws_access_key_id": FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        "aws_session_token": FAKE_CREDENTIALS["AWS_SESSION_TOKEN"],
    }
    seeded = seed_user_gateway(
        boto3.client("secretsmanager", **where), boto3.client("cognito-idp", **where), "jordan@example.com"
    )
    env = {
        "CALLER_KEY_SECRET_ARN": seeded.secret_arn,
        "USER_POOL_ID": seeded.pool_id,
        # AWS_ENDPOINT_URL_<SERVICE>, the service id "Cognito Identity Provider" upper-cased, spaces to
        # underscores ("Service-specific endpoints", https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html)
        "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER": endpoint,
    }
    return UserGateway(env, seeded)


@contextlib.contextmanager
def _backend() -> Iterator[tuple[dict[str, str], UserGateway, Mapping[str, str]]]:
    """The embedded moto backend, the harness stand-in and a UDP socket standing in for the X-Ray
    daemon: the children's environment (the orchestrator's deployed runtime on the stand-in), the
    user Gateway's pool and secret, and Slack's side (benchmarks.slack_cold_start)."""
    from multitool.api.startup import LAMBDA_RUNTIME_PREFIX
    from multitool.local.sandbox.embedded import embedded
    from multitool.local.sandbox.memory import MemoryDirectory
    from multitool.local.standins.harness_endpoint import HarnessEndpoint
    from multitool.models import DEFAULT_MODEL_ID
    from multitool.runtimes.offline import OfflineModel
    from multitool.runtimes.offline_harness import OfflineHarness

    from infra.components import layer

    daemon = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    daemon.bind(("127.0.0.1", 0))
    try:
        with (
            embedded(apply_env=False) as backend,
            HarnessEndpoint(OfflineHarness(OfflineModel(MemoryDirectory(backend.seed.people)))) as harness,
            slack_cold_start.slack_side(backend) as slack_env,
        ):
            env = {
                key: value
                for key, value in os.environ.items()
                if not key.startswith(("AWS_", "POWERTOOLS_", "PYTHON", "LAMBDA_", "_X_AMZN"))
            }
            env.update(backend.env)
            for off in ("POWERTOOLS_TRACE_DISABLED", "POWERTOOLS_METRICS_DISABLED"):
                env.pop(off, None)
            env.update(
                {
                    "POWERTOOLS_METRICS_NAMESPACE": "Bench",
                    "POWERTOOLS_LOG_LEVEL": "WARNING",
                    "PYTHONDONTWRITEBYTECODE": "1",
                    "AWS_LAMBDA_FUNCTION_NAME": "bench",
                    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "512",
                    "AWS_XRAY_DAEMON_ADDRESS": f"127.0.0.1:{daemon.getsockname()[1]}",
                    "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
                    "_X_AMZN_TRACE_ID": TRACE_HEADER,
                    # The managed runtime's identifier, as Lambda sets it for the layer's Python.
                    "AWS_EXECUTION_ENV": f"{LAMBDA_RUNTIME_PREFIX}python{layer.PYTHON_VERSION}",
                    "RUNTIME": "agentcore",
                    "HARNESS_ARN": DEPLOYED_HARNESS_ARN,
                    "MODEL_ID": DEFAULT_MODEL_ID,
                    "AWS_ENDPOINT_URL_BEDROCK_AGENTCORE": harness.url,
                }
            )
            gateway = _user_gateway(backend.env["AWS_ENDPOINT_URL_DYNAMODB"], backend.env["AWS_REGION"])
            yield env, gateway, slack_env
    finally:
        daemon.close()


def _once(
    setup_python: str, path: list[str], task: Path, module: str, event: Path, env: dict[str, str]
) -> dict[str, Any]:
    child_env = dict(env, PYTHONPATH=os.pathsep.join([str(task), *path]), LAMBDA_TASK_ROOT=str(task))
    runner = event.parent / "runner.py"
    started = time.perf_counter()
    process = subprocess.Popen(
        [setup_python, "-s", str(runner), module, str(event)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env,
        cwd=task,
        text=True,
    )
    assert process.stdout is not None
    outcome: dict[str, Any] | None = None
    for line in process.stdout:
        if line.startswith("COLD-START "):
            wall = (time.perf_counter() - started) * 1000
            outcome = dict(json.loads(line[len("COLD-START ") :]), wall_ms=wall)
            break
    _, errors = process.communicate(timeout=120)
    if outcome is None:
        raise RuntimeError(f"{task.name} served no response: {errors.strip()[-2000:]}")
    return outcome


def _status(response: Mapping[str, Any]) -> int:
    if "statusCode" in response:
        return int(response["statusCode"])
    if "interceptorOutputVersion" in response:  # the Gateway's interceptor contract: no status of its own
        return HTTPStatus.OK if "transformedGatewayRequest" in response.get("mcp", {}) else 0
    return int(response["response"]["httpStatusCode"])


def _draft_id(response: Mapping[str, Any]) -> str:
    body = json.loads(response["response"]["responseBody"]["application/json"]["body"])
    return str(body["id"] if "id" in body else body["draftId"])


@dataclass(frozen=True)
class Program:
    """One row: the program ``name`` (its event) run from ``task`` on the ``path`` layer entries."""

    label: str
    name: str
    task: Path
    path: list[str]
    env: Mapping[str, str]


def selected() -> tuple[str, ...]:
    """The functions this run measures (``BENCH_COLD_ONLY``, in table order), every one by default."""
    unknown = sorted(set(ONLY) - set(FUNCTIONS))
    if unknown:
        raise SystemExit(
            f"BENCH_COLD_ONLY names no function: {', '.join(unknown)} (one of {', '.join(FUNCTIONS)})"
        )
    return tuple(name for name in FUNCTIONS if not ONLY or name in ONLY)


def _setup(tree: Tree, *, prune: bool = True) -> Setup:
    try:
        setup = _host_layers(tree, prune=prune)
    except subprocess.CalledProcessError as error:
        reason = f"pip could not fetch the host wheels: {(error.stderr or '').strip()[-200:]}"
        return _venv_setup(tree, reason)
    return setup or _venv_setup(tree, "no Python 3.13 interpreter here")


def _p20(values: list[float]) -> float:
    """The value a fifth of the samples are at or below (the fast group's, on a shared machine)."""
    ordered = sorted(values)
    return ordered[(len(ordered) - 1) // 5]


def measure(runs: int = RUNS) -> tuple[Setup, dict[str, dict[str, float]], dict[str, int]]:
    """(setup, program -> {wall_ms, cpu_ms, import_ms, request_ms, cpu_p20} medians (and the CPU's
    p20), program -> its status)."""
    functions = selected()
    samples: dict[str, dict[str, list[float]]] = {}
    statuses: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as scratch, _backend() as (env, gateway, slack_env):
        folder = Path(scratch)
        tree = _tree(folder / "tree")
        setup = _setup(tree)
        compared = {
            revision: (
                compare_tree := _tree(folder / "compare" / str(index), revision),
                _setup(compare_tree, prune=False),
            )
            for index, revision in enumerate(COMPARE)
        }
        (folder / "runner.py").write_text(RUNNER, encoding="utf-8")
        floors = {FLOORS[name] for name in functions} | {BESIDE[name] for name in functions if name in BESIDE}
        floors |= {FLOORS[label] for label in LOCAL} if "orchestrator" in functions else set()
        references = {name: program for name, program in REFERENCES.items() if not ONLY or name in floors}
        reference_tasks = {}
        for index, (name, source) in enumerate({"baseline": BASELINE, **references}.items()):
            task = folder / "references" / str(index)
            task.mkdir(parents=True)
            (task / "handler.py").write_text(source, encoding="utf-8")
            reference_tasks[name] = task
        first_variant = next(iter(setup.layers.values()))

        def write_events(draft_id: str | None) -> dict[str, tuple[Path, str]]:
            written = {}
            for name, (event, module) in _events(draft_id, gateway).items():
                path = folder / f"{name}.json"
                path.write_text(json.dumps(event), encoding="utf-8")
                written[name] = (path, module)
            return written

        events = write_events(None)
        made = _once(
            setup.python,
            first_variant,
            _function_folder(tree, "email_draft"),
            "handler",
            events["email_draft"][0],
            {**env, **_function_environment(tree, "email_draft")},
        )
        events = write_events(_draft_id(made["response"]))
        # The functions get what the stack sets on each of them (infra.components.functions); the
        # references run the stack's libraries on their defaults.
        from infra.components.functions import RUNTIME_ENVIRONMENT

        deployed = {**env, **RUNTIME_ENVIRONMENT}

        def sides(name: str) -> dict[str, str]:
            """What only the interceptors (the user Gateway) and the Slack programs are given."""
            return {
                **(gateway.env if name in INTERCEPTORS else {}),
                **(slack_env if name in slack_cold_start.PROGRAMS else {}),
            }

        def function(
            label: str, name: str, of: Tree, path: list[str], changes: Mapping[str, str] = {}
        ) -> Program:
            told = {**deployed, **_function_environment(of, name), **changes, **sides(name)}
            return Program(label, name, _function_folder(of, name), path, told)

        def reference(name: str, task: Path) -> Program:
            return Program(name, name, task, first_variant, {**env, **sides(name)})

        programs = [reference(name, task) for name, task in reference_tasks.items()]
        for variant, path in setup.layers.items():
            programs += [function(f"{name} [{variant}]", name, tree, path) for name in functions]
            if path is first_variant and "orchestrator" in functions:
                programs += [
                    function(f"{label} [{variant}]", runs_as, tree, path, changes)
                    for label, (runs_as, changes) in LOCAL.items()
                ]
        for revision, (compare_tree, compare_setup) in compared.items():
            variant, path = next(iter(compare_setup.layers.items()))
            programs += [
                function(f"{name} @{revision} [{variant}]", name, compare_tree, path) for name in functions
            ]
        for program in programs:  # one warm-up each: disk cache, moto's first calls
            _run(setup.python, program, events)
            samples[program.label] = {"wall_ms": [], "cpu_ms": [], "import_ms": [], "request_ms": []}
        for round_number in range(runs):
            # Each round in its own order (seeded: the same in every run): a program's place in the
            # round, right after moto answered a heavier one or not, must not bias its figure.
            for program in random.Random(round_number).sample(programs, len(programs)):
                outcome = _run(setup.python, program, events)
                statuses[program.label] = _status(outcome["response"])
                for key, series in samples[program.label].items():
                    series.append(outcome[key])
    medians = {
        label: {key: statistics.median(values) for key, values in series.items()}
        | {"cpu_p20": _p20(series["cpu_ms"])}
        for label, series in samples.items()
    }
    label = setup.label if REVISION is None else f"{setup.label}; sources of {REVISION}"
    return Setup(label, setup.python, setup.layers), medians, statuses


def _run(python: str, program: Program, events: Mapping[str, tuple[Path, str]]) -> dict[str, Any]:
    """One cold start of ``program`` (a Slack event is made afresh for each: benchmarks.slack_cold_start;
    a chat turn gets a session of its own: :func:`fresh_session`)."""
    event, module = events[program.name]
    if program.name in slack_cold_start.PROGRAMS:
        slack_cold_start.write_fresh(event)
    if program.name in CHATS:
        fresh_session(event)
    return _once(python, program.path, program.task, module, event, dict(program.env))


CHATS = ("orchestrator", *LOCAL, "stack, chat turn")
"""The programs whose request is a ``POST /chat`` turn."""


def fresh_session(path: Path) -> None:
    """Give the ``POST /chat`` event at ``path`` a session no run has used: each round measures the same
    first turn of a session. In one session, every round after the first would be a repeat of the
    same turn: the history of the rounds before and their carried step read and sent to the harness,
    and the drafts, whose ids a repeated call keeps, found already stored (DynamoDB's cancelled
    transaction, the stored drafts read back)."""
    event = json.loads(path.read_text(encoding="utf-8"))
    body = json.loads(event["body"])
    body["sessionId"] = f"bench-{uuid.uuid4().hex}"
    event["body"] = json.dumps(body)
    path.write_text(json.dumps(event), encoding="utf-8")


def _verdict(label: str, cpu_ratio: float) -> tuple[str, str]:
    """(the row's name as shown, its verdict): a reference, a local row, a compared revision's row
    (``cmp``: not a target) or a function against the target."""
    if label in REFERENCES:
        return f"ref {label}", "ref"
    if _function_of(label) in LOCAL:
        return label, "local"
    if " @" in label:
        return label, "cmp"
    return label, "" if label == "baseline" else ("ok" if cpu_ratio <= TARGET else "OVER")


def _function_of(label: str) -> str:
    """``review @abc123 [bytecode]`` -> ``review``."""
    return label.split(" [", 1)[0].split(" @", 1)[0]


def run() -> None:
    setup, medians, statuses = measure()
    functions = selected()
    baseline = medians["baseline"]
    print(f"children: {setup.label}")
    print(
        f"rounds: {RUNS}; target: handler <= {TARGET:.2f} x its floor in CPU time (cpu x stack; spawn to "
        "first response): the function's own work, where wall time adds what moto and the harness "
        "stand-in take to answer"
    )
    print("ref rows: the stack without multitool (see the module docstring); not targets")
    print("local rows: what only a local run loads (the offline model); not targets")
    if COMPARE:
        print(f"cmp rows: the same functions of {', '.join(COMPARE)}, in the same rounds; not targets")
    print(
        "cpu: the child's CPU time to its response (interpreter start included), less shaken by machine load;"
        " p20: the fast fifth's CPU time over its floor's (steadier on a shared machine; not the target)"
    )
    header = (
        f"{'process':<42}{'status':>7}{'wall ms':>9}{'x base':>8}{'x stack':>8}"
        f"{'cpu ms':>8}{'x base':>8}{'x stack':>8}{'p20 x':>7}{'import':>8}{'request':>9}{'verdict':>8}"
    )
    print(header)
    for label, figures in medians.items():
        ratio = figures["wall_ms"] / baseline["wall_ms"]
        floor_label = FLOORS.get(_function_of(label))
        floor = medians[floor_label] if floor_label else None
        over_floor = f"{figures['wall_ms'] / floor['wall_ms']:.2f}" if floor else ""
        cpu_ratio = figures["cpu_ms"] / floor["cpu_ms"] if floor else 0.0
        cpu_floor = f"{cpu_ratio:.2f}" if floor else ""
        fast_floor = f"{figures['cpu_p20'] / floor['cpu_p20']:.2f}" if floor else ""
        shown, verdict = _verdict(label, cpu_ratio)
        print(
            f"{shown:<42}{statuses[label]:>7}{figures['wall_ms']:>9.0f}{ratio:>8.2f}{over_floor:>8}"
            f"{figures['cpu_ms']:>8.0f}{figures['cpu_ms'] / baseline['cpu_ms']:>8.2f}{cpu_floor:>8}"
            f"{fast_floor:>7}{figures['import_ms']:>8.0f}{figures['request_ms']:>9.0f}{verdict:>8}"
        )
    variant = next(iter(setup.layers))
    print(f"each function's ratio to the baseline = its stack's floor + multitool's own ({variant}):")
    for name in functions:
        split = []
        for key in ("wall_ms", "cpu_ms"):
            ratio = medians[f"{name} [{variant}]"][key] / baseline[key]
            floor_ratio = medians[FLOORS[name]][key] / baseline[key]
            split.append(f"{key[:-3]} {ratio:.2f}x = {floor_ratio:.2f}x {ratio - floor_ratio:+.2f}x")
        print(f"  {name:<20} {'; '.join(split)}  (floor: {FLOORS[name]})")
    for name in (name for name in functions if name in BESIDE):
        mine, beside = medians[f"{name} [{variant}]"], medians[BESIDE[name]]
        print(
            f"  {name:<20} over {BESIDE[name]} (its floor without the turn's DynamoDB calls):"
            f" cpu {mine['cpu_ms'] / beside['cpu_ms']:.2f}x median,"
            f" {mine['cpu_p20'] / beside['cpu_p20']:.2f}x p20"
        )
    for revision in COMPARE:
        print(f"this tree over {revision}, per function (CPU, median and p20, the same rounds):")
        for name in functions:
            theirs_label = next(label for label in medians if label.startswith(f"{name} @{revision} ["))
            mine, theirs = medians[f"{name} [{variant}]"], medians[theirs_label]
            median, fast = (mine["cpu_ms"], theirs["cpu_ms"]), (mine["cpu_p20"], theirs["cpu_p20"])
            print(
                f"  {name:<20} {median[0] / median[1]:.2f}x median ({median[0] - median[1]:+.0f} ms),"
                f" {fast[0] / fast[1]:.2f}x p20 ({fast[0] - fast[1]:+.0f} ms)"
            )
    if "runtime SDK" in setup.layers:
        print("the SDK from the layer vs from the runtime's folder, per function (spawn to first response):")
        for name in functions:
            bundled, provided = medians[f"{name} [bytecode]"], medians[f"{name} [runtime SDK]"]
            extra = bundled["wall_ms"] - provided["wall_ms"]
            cpu = bundled["cpu_ms"] - provided["cpu_ms"]
            print(
                f"  {name:<20} {bundled['wall_ms'] / provided['wall_ms']:.2f}x"
                f"  ({extra:+.0f} ms wall, {cpu:+.0f} ms cpu with the layer's SDK)"
            )
    if "sources only" in setup.layers:
        print("bytecode in the layer, per function (sources only / bytecode, spawn to first response):")
        for name in functions:
            compiled, plain = medians[f"{name} [bytecode]"], medians[f"{name} [sources only]"]
            saved = plain["wall_ms"] - compiled["wall_ms"]
            print(f"  {name:<20} {plain['wall_ms'] / compiled['wall_ms']:.2f}x  ({saved:.0f} ms saved)")


if __name__ == "__main__":
    run()
