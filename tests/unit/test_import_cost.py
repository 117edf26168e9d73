"""What a handler's cold start loads: nothing its requests never use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ("email_draft", "meeting_scheduler", "jira_draft")


def loaded_by(function: str, modules: list[str], then: str = "") -> list[str]:
    """Which of ``modules`` importing ``functions/<function>/handler.py`` (and running ``then``)
    loads, in a fresh interpreter (this process has long imported everything)."""
    code = (
        f"import json, sys, functions.{function}.handler\n{then}\n"
        f"print(json.dumps([m for m in {modules!r} if m in sys.modules]))"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "shared" / "python"), str(ROOT)]),
        "AWS_DEFAULT_REGION": "us-east-1",
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
    modules = [f"multitool.tools.{tool}" for tool in TOOLS]

    assert loaded_by(function, modules) == [f"multitool.tools.{function}"]


# One request of each action group, on in-memory ports (the function's own app, another environment).
REQUESTS = {
    "email_draft": ("/email-drafts", {"to": ["Kinshuok"], "subject": "The doc", "body": "Here it is."}),
    "meeting_scheduler": (
        "/meeting-proposals",
        {"attendees": ["Kinshuok"], "title": "Sync", "when": "Thursday"},
    ),
    "jira_draft": ("/jira-ticket-drafts", {"project": "WEB", "issueType": "Bug", "summary": "Login fails"}),
}
REQUEST = """
from multitool.local.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.tools.apps import action_group_app, handle
from multitool.tools.base import ToolConfig, ToolPorts
from multitool.tools.environment import ToolEnvironment
from tests.support.events import LambdaContextStub, bedrock_action_event, sample_people

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

    assert loaded_by(function, [f"multitool.tools.{tool}" for tool in TOOLS], then) == [
        f"multitool.tools.{function}"
    ]


@pytest.mark.parametrize("function", TOOLS)
def test_an_action_group_function_loads_no_confirm_machinery(function: str) -> None:
    # The review function alone runs a confirm: the state machine, the Jira Cloud adapter, the
    # SES adapter and the MIME and header machinery it builds invitations with.
    modules = [
        "multitool.review.reviewer",
        "multitool.ports.jira_cloud",
        "multitool.ports.ses_mail",
        "email.headerregistry",
    ]

    assert loaded_by(function, modules) == []


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
from multitool.api.review_app import aws_reviewer
aws_reviewer()
print(made)
"""


def test_the_reviewer_builds_no_ses_client_and_no_mime_machinery_until_it_sends() -> None:
    # Reading or discarding a card (the page reads each card's state) mails nothing.
    then = REVIEWER + "\nassert made == ['dynamodb'], made"

    assert loaded_by("review", ["multitool.ports.ses_mail", "email.headerregistry"], then) == []


def test_the_review_function_loads_every_tool_while_it_initialises() -> None:
    modules = [f"multitool.tools.{tool}" for tool in TOOLS]

    assert loaded_by("review", modules) == modules


OFFLINE_AND_AGENT = [
    "multitool.runtimes.offline.grammar",
    "multitool.runtimes.offline_harness",
    "multitool.runtimes.agent",
]
BUILD_AGENTCORE = """
from multitool.runtimes import AwsClients, build_runtime
from multitool.settings import ChatSettings
names = ("DRAFTS_TABLE_NAME", "DIRECTORY_TABLE_NAME", "BOOKINGS_TABLE_NAME", "SESSIONS_TABLE_NAME")
settings = ChatSettings.from_env(
    {"RUNTIME": "agentcore", "HARNESS_ARN": "arn:aws:bedrock-agentcore:us-east-1:1:harness/h"}
    | {name: name.lower() for name in names}
)
build_runtime(settings, AwsClients(), lambda *args: None)
"""


def test_the_orchestrator_loads_every_tool_while_it_initialises() -> None:
    modules = [f"multitool.tools.{tool}" for tool in TOOLS]

    assert loaded_by("orchestrator", modules) == modules


def test_the_deployed_orchestrator_never_loads_the_offline_model_nor_the_agent_runtime() -> None:
    assert loaded_by("orchestrator", OFFLINE_AND_AGENT) == []
    assert loaded_by("orchestrator", OFFLINE_AND_AGENT, then=BUILD_AGENTCORE) == []


def test_the_offline_runtime_loads_the_offline_model_when_it_is_chosen() -> None:
    then = BUILD_AGENTCORE.replace('"RUNTIME": "agentcore"', '"RUNTIME": "offline"')

    assert loaded_by("orchestrator", OFFLINE_AND_AGENT[:2], then=then) == OFFLINE_AND_AGENT[:2]
