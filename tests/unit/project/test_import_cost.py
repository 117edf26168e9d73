"""What a handler's cold start loads: nothing its requests never use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.function_handlers import handler_import

ROOT = Path(__file__).resolve().parents[3]
TOOLS = ("email_draft", "meeting_scheduler", "jira_draft", "calendar_agenda", "free_time")
PACKAGES = {
    "email_draft": "email",
    "meeting_scheduler": "meeting",
    "jira_draft": "jira",
    "calendar_agenda": "calendar",
    "free_time": "meeting",
}
"""Each tool's package (its module is named after its action group, as the registry wants)."""


def tool_modules(group: str) -> list[str]:
    """A tool's package and its module (named after its action group)."""
    return [f"multitool.tools.{PACKAGES[group]}", f"multitool.tools.{PACKAGES[group]}.{group}"]


EVERY_TOOL = list(dict.fromkeys(module for group in TOOLS for module in tool_modules(group)))


def loaded_by(function: str, modules: list[str], then: str = "") -> list[str]:
    """Which of ``modules`` importing ``functions/<function>/handler.py`` (and running ``then``)
    loads, in a fresh interpreter (this process has long imported everything). A tool's function
    (``function`` its action group) runs ``functions/tool/handler.py`` with the ``TOOL_MODULE`` the
    stack sets on it."""
    statement, environment = handler_import(function)
    code = (
        f"import json, sys\n{statement}\n{then}\n"
        f"print(json.dumps([m for m in {modules!r} if m in sys.modules]))"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "shared" / "python"), str(ROOT)]),
        "AWS_DEFAULT_REGION": "us-east-1",
        **environment,
    }
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=ROOT
    ).stdout
    loaded: list[str] = json.loads(output.splitlines()[-1])  # after whatever the request logged
    return loaded


@pytest.mark.parametrize("function", [*TOOLS, "orchestrator"])
def test_functions_that_never_send_an_invitation_do_not_import_icalendar(function: str) -> None:
    assert loaded_by(function, ["icalendar"]) == []


@pytest.mark.parametrize("function", [*TOOLS, "orchestrator", "review"])
def test_no_function_imports_the_holidays_package_at_cold_start(function: str) -> None:
    # holidays costs a few hundred milliseconds: the first meeting proposal loads it, not the import.
    assert loaded_by(function, ["holidays", "multitool.ports.holidays"]) == []


@pytest.mark.parametrize("function", TOOLS)
def test_an_action_group_function_loads_its_own_tool_and_no_other(function: str) -> None:
    assert loaded_by(function, EVERY_TOOL) == tool_modules(function)


# One request of each action group, on in-memory ports (the function's own app, another environment).
REQUESTS = {
    "email_draft": ("/email-drafts", {"to": ["Kinshuok"], "subject": "The doc", "body": "Here it is."}),
    "meeting_scheduler": (
        "/meeting-proposals",
        {"attendees": ["Kinshuok"], "title": "Sync", "when": "Thursday"},
    ),
    "jira_draft": ("/jira-ticket-drafts", {"project": "WEB", "issueType": "Bug", "summary": "Login fails"}),
    "calendar_agenda": ("/calendar-agenda", {"when": "tomorrow", "fromDay": "2026-12-08"}),
    "free_time": ("/free-times", {"people": ["Kinshuok"], "when": "tomorrow", "fromDay": "2026-12-08"}),
}
REQUEST = """
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.tools.apps import action_group_app, handle
from multitool.toolkit.context import ToolConfig, ToolPorts
from multitool.tools.environment import ToolEnvironment
from tests.support.bedrock_events import LambdaContextStub, bedrock_action_event, sample_people

ports = ToolPorts(MemoryDirectory(sample_people()), MemoryCalendar(), MemoryDraftStore())
app = action_group_app({group!r}, lambda: ToolEnvironment(ports=ports, config=ToolConfig()))
session = {{"userId": "u"}}
event = bedrock_action_event({group!r}, {path!r}, properties={properties!r}, session_attributes=session)
assert handle(app, event, LambdaContextStub())["response"]["httpStatusCode"] == 200
"""


@pytest.mark.parametrize("function", TOOLS)
def test_an_action_group_request_loads_no_other_tool_either(function: str) -> None:
    path, properties = REQUESTS[function]
    then = REQUEST.format(group=function, path=path, properties=properties)

    assert loaded_by(function, EVERY_TOOL, then) == tool_modules(function)


@pytest.mark.parametrize("function", TOOLS)
def test_an_action_group_function_loads_no_confirm_machinery(function: str) -> None:
    # The review function alone runs a confirm: the state machine, the Jira Cloud adapter, the
    # SES adapter and the MIME and header machinery it builds invitations with.
    modules = [
        "multitool.review.reviewer",
        "multitool.ports.atlassian.jira_cloud",
        "multitool.ports.aws.ses_mail",
        "email.headerregistry",
    ]

    assert loaded_by(function, modules) == []


CONFIRM_SIDE = [
    "multitool.tools.email.confirm",
    "multitool.tools.jira.confirm",
    "multitool.tools.meeting.booking",
    "multitool.tools.meeting.invitations",
    "multitool.toolkit.confirm",
    "multitool.review.errors",
    "multitool.ports.mail",
]
"""A tool's confirm (named by its spec, ``review="module:NAME"``) and what only a confirm uses."""


@pytest.mark.parametrize("function", TOOLS)
def test_an_action_group_request_loads_no_confirm_side(function: str) -> None:
    path, properties = REQUESTS[function]
    then = REQUEST.format(group=function, path=path, properties=properties)

    assert loaded_by(function, CONFIRM_SIDE, then) == []


SETTINGS = {"orchestrator": "multitool.settings.chat", "review": "multitool.settings.review"}
"""The settings module of each function that has its own; the action groups read the tools' alone."""


@pytest.mark.parametrize("function", TOOLS)
def test_an_action_group_function_imports_no_other_functions_settings(function: str) -> None:
    assert loaded_by(function, list(SETTINGS.values())) == []


@pytest.mark.parametrize(("function", "other"), [("orchestrator", "review"), ("review", "orchestrator")])
def test_the_orchestrator_and_the_review_import_their_own_settings_and_not_the_others(
    function: str, other: str
) -> None:
    assert loaded_by(function, [SETTINGS[function], SETTINGS[other]]) == [SETTINGS[function]]


@pytest.mark.parametrize("function", ["email_draft", "meeting_scheduler"])
def test_only_the_jira_tool_loads_the_jira_port(function: str) -> None:
    assert loaded_by(function, ["multitool.ports.jira"]) == []


@pytest.mark.parametrize("function", ["email_draft", "jira_draft"])
def test_only_the_meeting_tool_loads_the_invitation_and_slot_search(function: str) -> None:
    modules = [
        "multitool.tools.meeting.invitations",
        "multitool.tools.meeting.scheduling",
        "multitool.tools.meeting.when",
    ]

    assert loaded_by(function, modules) == []


REVIEWER = """
import os
os.environ.update({name: name.lower() for name in (
    "DRAFTS_TABLE_NAME", "DIRECTORY_TABLE_NAME", "BOOKINGS_TABLE_NAME")} | {"SENDER_EMAIL": "me@example.com"})
import boto3
made = []
client = boto3.client
boto3.client = lambda service, *a, **k: made.append(service) or client(service, *a, **k)
from multitool.wiring.review import aws_reviewer
aws_reviewer()
print(made)
"""


def test_the_reviewer_builds_no_ses_client_and_no_mime_machinery_until_it_sends() -> None:
    # Reading or discarding a card (the page reads each card's state) mails nothing.
    then = REVIEWER + "\nassert made == ['dynamodb'], made"

    assert loaded_by("review", ["multitool.ports.aws.ses_mail", "email.headerregistry"], then) == []


# GET /actions/{id} of a stored draft of ``tool``, through the review function's own app.
READ_DRAFT = """
from multitool.api.review_app import review_app
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDraftStore
from multitool.review import ReviewConfig
from multitool.review.reviewer import Reviewer
from tests.support import review_support
from tests.support.http_events import FakeLambdaContext, http_api_event

drafts = MemoryDraftStore()
draft = getattr(review_support, {tool!r})()
drafts.create_many([draft])
reviewer = Reviewer(drafts, mailer=None, calendar=MemoryCalendar(), jira=None,
                    config=ReviewConfig(sender_email="assistant@example.com"))
app = review_app(lambda: reviewer, lambda: None, lambda: None)
answer = app.resolve(http_api_event("GET", "/actions/" + draft.id, sub=draft.owner), FakeLambdaContext())
assert answer["statusCode"] == 200, answer
"""


def test_the_review_function_loads_no_tool_while_it_initialises() -> None:
    # Each tool loads with the first draft of its own that a request reads.
    assert loaded_by("review", EVERY_TOOL) == []


def test_the_review_function_loads_no_reference_finder_while_it_initialises() -> None:
    # A confirm refuses a changed item with toolkit.errors.ItemChanged; finding items is the tools' part.
    assert loaded_by("review", ["multitool.toolkit.references"]) == []


@pytest.mark.parametrize(
    ("draft", "tool"),
    [("email_draft", "email_draft"), ("meeting_draft", "meeting_scheduler"), ("jira_draft", "jira_draft")],
)
def test_reading_a_draft_loads_the_tool_of_that_draft_and_no_other(draft: str, tool: str) -> None:
    then = READ_DRAFT.format(tool=draft)

    assert loaded_by("review", EVERY_TOOL, then) == tool_modules(tool)


OFFLINE_AND_AGENT = [
    "multitool.runtimes.offline.grammar",
    "multitool.runtimes.offline_harness",
    "multitool.runtimes.agent",
]
BUILD_AGENTCORE = """
from multitool.runtimes import AwsClients, build_runtime
from multitool.settings.chat import ChatSettings
names = ("DRAFTS_TABLE_NAME", "DIRECTORY_TABLE_NAME", "BOOKINGS_TABLE_NAME", "SESSIONS_TABLE_NAME")
settings = ChatSettings.from_env(
    {"RUNTIME": "agentcore", "HARNESS_ARN": "arn:aws:bedrock-agentcore:us-east-1:1:harness/h"}
    | {name: name.lower() for name in names}
)
build_runtime(settings, AwsClients(), lambda *args: None)
"""


def test_the_orchestrator_loads_no_tool_while_it_initialises() -> None:
    # The model is told of every tool from the committed specs; a tool loads when a turn calls it.
    assert loaded_by("orchestrator", EVERY_TOOL) == []


def test_the_deployed_orchestrator_never_loads_the_offline_model_nor_the_agent_runtime() -> None:
    assert loaded_by("orchestrator", OFFLINE_AND_AGENT) == []
    assert loaded_by("orchestrator", OFFLINE_AND_AGENT, then=BUILD_AGENTCORE) == []


def test_the_orchestrator_loads_the_gateways_side_of_the_tools_only_when_the_harness_uses_it() -> None:
    # With the default executor the harness hands the calls back: the Gateway's Lambda handling,
    # caller signatures and draft claims are for executor=gateway alone.
    modules = ["multitool.tools.gateway_target", "multitool.tools.environment", "multitool.runtimes.claims"]

    assert loaded_by("orchestrator", modules) == []
    assert loaded_by("orchestrator", modules, then=BUILD_AGENTCORE) == []


def test_a_plain_chat_turn_loads_no_machinery_of_turns_run_past_their_request() -> None:
    # Only Prefer: respond-async, GET /turns/{id} and the turn's own invocation start, run or read one.
    modules = ["multitool.chat.async_turns", "multitool.chat.turn_store", "multitool.ports.turn_slots"]

    assert loaded_by("orchestrator", modules) == []
    assert loaded_by("orchestrator", modules, then=TURN.format(meeting=True)) == []


def test_the_offline_runtime_loads_the_offline_model_when_it_is_chosen() -> None:
    then = BUILD_AGENTCORE.replace('"RUNTIME": "agentcore"', '"RUNTIME": "offline"')

    assert loaded_by("orchestrator", OFFLINE_AND_AGENT[:2], then=then) == OFFLINE_AND_AGENT[:2]


# A turn's calls through the orchestrator's batch runner, on in-memory ports.
TURN = """
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.tools import ToolContext, ToolPorts, run_calls
from tests.support.bedrock_events import sample_people

ports = ToolPorts(MemoryDirectory(sample_people()), MemoryCalendar(), MemoryDraftStore())
calls = [("create_email_draft", {{"to": ["Kinshuok"], "subject": "The doc", "body": "Here it is."}})]
if {meeting!r}:
    calls.append(("propose_meeting", {{"attendees": ["Priya"], "title": "Sync", "when": "Thursday"}}))
outcomes = run_calls(calls, ToolContext(owner="u", session_id="s", timezone="Europe/Berlin"), ports)
assert [outcome.status for outcome in outcomes] == [200] * len(calls), outcomes
"""


@pytest.mark.parametrize("meeting", [False, True])
def test_an_orchestrator_turn_loads_the_tools_it_calls_and_no_other(meeting: bool) -> None:
    called = [*tool_modules("email_draft"), *(tool_modules("meeting_scheduler") if meeting else [])]

    loaded = loaded_by("orchestrator", EVERY_TOOL, TURN.format(meeting=meeting))

    assert loaded == called


def test_an_orchestrator_turn_loads_no_confirm_side_of_the_tools_it_calls() -> None:
    assert loaded_by("orchestrator", CONFIRM_SIDE, TURN.format(meeting=True)) == []


POWERTOOLS_IDEMPOTENCY = "aws_lambda_powertools.utilities.idempotency"
IDEMPOTENCY = """
from multitool.chat.idempotency import ChatIdempotency
store = ChatIdempotency("idempotency", client=None)
reply = store.wrap(lambda *args, request_key: "{}")
"""


def test_the_orchestrator_imports_powertools_idempotency_only_for_a_request_with_a_key() -> None:
    # A request without an Idempotency-Key never needs it; the first one with a key loads it.
    assert loaded_by("orchestrator", [POWERTOOLS_IDEMPOTENCY]) == []
    assert loaded_by("orchestrator", [POWERTOOLS_IDEMPOTENCY], IDEMPOTENCY) == []
    then = IDEMPOTENCY + "\nassert store.config.payload_validation_jmespath == 'bodyHash'"
    assert loaded_by("orchestrator", [POWERTOOLS_IDEMPOTENCY], then) == [POWERTOOLS_IDEMPOTENCY]


JIRA_READER = [
    "multitool.ports.atlassian.jira_cloud",
    "multitool.ports.atlassian.jira_issues",
    "multitool.ports.retry",
]
"""Jira Cloud's adapter, its issue views and its retry policy: what reading an issue needs."""
CHAT_SERVICE = """
import os
names = ("DRAFTS_TABLE_NAME", "DIRECTORY_TABLE_NAME", "BOOKINGS_TABLE_NAME", "SESSIONS_TABLE_NAME")
os.environ.update({name: name.lower() for name in names} | {
    "RUNTIME": "agentcore", "HARNESS_ARN": "arn:aws:bedrock-agentcore:us-east-1:1:harness/h",
    "JIRA_READER_SECRET_ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:jira-reader"})
from multitool.wiring.orchestrator import aws_chat_service
from multitool.settings.chat import ChatSettings
from multitool.toolkit.context import ToolPorts
from multitool.wiring.tool_ports import with_jira
aws_chat_service()
reader = with_jira(ToolPorts(None, None, None), ChatSettings.from_env()).jira
"""


def test_the_orchestrator_loads_jira_only_when_a_card_reads_an_issue() -> None:
    # A turn that drafts a mail and a meeting reads no Jira: the reading account's adapter loads with
    # the first card that names an issue, not with the turn's ports.
    assert loaded_by("orchestrator", JIRA_READER, CHAT_SERVICE) == []
    first_read = (
        "\nassert type(reader._made()).__name__ == 'DeferredJiraClient'"  # the secret read on its use
    )
    assert loaded_by("orchestrator", JIRA_READER, CHAT_SERVICE + first_read) == JIRA_READER


SLACK_APP = """
import os
os.environ.update({"SLACK_SIGNING_SECRET": "s", "SLACK_BOT_TOKEN": "xoxb-1", "DIRECTORY_TABLE_NAME": "d"})
from multitool.wiring.slack import aws_slack_app
aws_slack_app()
"""


def test_the_slack_app_loads_no_confirm_contract_until_a_click() -> None:
    # Only a click confirms, edits or discards (as the clicking user, a Caller); a message never does.
    assert loaded_by("slack", ["multitool.toolkit.confirm", "multitool.slack.interactions"], SLACK_APP) == [
        "multitool.slack.interactions"
    ]


CLIENTS_MADE = """
import boto3.session
made = []
make = boto3.session.Session.client
def client(self, service, *args, **kwargs):
    made.append(service)
    return make(self, service, *args, **kwargs)
boto3.session.Session.client = client
"""


def test_building_the_chat_service_makes_no_harness_client_until_a_turn_asks_the_harness() -> None:
    # The Slack function builds the service to start a turn (session, idempotency, validation) and runs
    # it in a later invocation: the bedrock-agentcore client is made by the first InvokeHarness.
    then = CLIENTS_MADE + CHAT_SERVICE + "\nassert 'bedrock-agentcore' not in made, made"
    assert loaded_by("orchestrator", [], then) == []
    asked = then + "\nservice = aws_chat_service()\ntry:\n    service.runtime.client.invoke_harness()\n"
    asked += "except Exception:\n    pass\nassert made.count('bedrock-agentcore') == 1, made"
    assert loaded_by("orchestrator", [], asked) == []


SESSIONS = """
import botocore.session
sessions = []
init = botocore.session.Session.__init__
def counted(self, *args, **kwargs):
    sessions.append(self)
    init(self, *args, **kwargs)
botocore.session.Session.__init__ = counted
import boto3
boto3.client("secretsmanager")  # the Slack function's first client: its signing secret
"""


def test_the_chat_service_makes_its_clients_in_the_functions_boto3_session() -> None:
    # A second session loads each service's model and endpoint rules again (about 36 ms of CPU).
    then = SESSIONS + CHAT_SERVICE + "\nassert len(sessions) == 1, sessions"
    assert loaded_by("slack", [], then) == []
