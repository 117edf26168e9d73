"""``multitool mcp`` end to end: the official MCP client SDK lists and calls the tools.

The server runs as a subprocess (as a desktop client starts it) on a sandbox this test owns (a
moto server with the seeded tables, passed with ``--sandbox``), so the test reads the drafts it
made and reviews them as the real reviewer does.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import suppress
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import boto3
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from multitool.local.sandbox.embedded import FAKE_CREDENTIALS, LOCAL_JIRA_SECRET, load_seed, seed_directory
from multitool.local.sandbox.memory import MemoryCalendar
from multitool.local.standins.jira_server import start_fake_jira
from multitool.ports.aws.dynamo_mailbox import seed_mail
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.tables import create_all
from multitool.review import Caller, DraftNotFound, ReviewConfig
from multitool.review.reviewer import Reviewer
from multitool.schemas.tools import load_tools
from multitool.tools import REGISTRY

from tests.support.review_support import RecordingMailer

ROOT = Path(__file__).resolve().parents[3]
USER = "priya"
CALLS = {
    "email-draft___create_email_draft": {"to": ["Kinshuok"], "subject": "The doc", "body": "Have a look."},
    "email-reply___reply_to_email": {
        "message": {"said": "the budget thread", "words": ["budget"]},
        "replyAll": True,
        "body": "Thursday works.",
    },
    "email-forward___forward_email": {
        "message": {"said": "the invoice from Mei", "people": ["Mei"], "words": ["invoice"]},
        "to": ["accounting@acme.com"],
    },
    "meeting-scheduler___propose_meeting": {
        "attendees": ["Kinshuok"],
        "title": "Sync",
        "when": "next Tuesday",
    },
    "jira-draft___create_jira_ticket_draft": {"project": "WEB", "issueType": "Bug", "summary": "Login fails"},
    "meeting-move___move_meeting": {"meeting": {"said": "the 1:1", "words": ["1:1"]}, "shiftMinutes": 30},
    "meeting-cancel___cancel_meeting": {"meeting": {"said": "tomorrow's sync", "words": ["sync"]}},
    "invitation-answer___answer_invitation": {"meeting": {"said": "the retro"}, "response": "declined"},
    "calendar-agenda___show_calendar": {
        "when": "next week",
        "fromDay": (date.today() + timedelta(days=7)).isoformat(),
    },
    "free-time___find_free_time": {
        "people": ["Kinshuok"],
        "when": "next week",
        "fromDay": (date.today() + timedelta(days=7)).isoformat(),
    },
    "jira-comment___comment_on_jira_issue": {
        "issue": {"said": "WEB-12", "key": "WEB-12"},
        "comment": "Fixed",
    },
    "jira-transition___transition_jira_issue": {"issue": {"said": "WEB-12"}, "status": "In Review"},
    "jira-update___update_jira_issue": {"issue": {"said": "WEB-12"}, "priority": "High"},
    "jira-link___link_jira_issues": {
        "issue": {"said": "WEB-12"},
        "other": {"said": "OPS-3"},
        "link": "blocks",
    },
}


class Sandbox:
    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.dynamodb = boto3.client(
            "dynamodb",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id=FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
            aws_session_token=FAKE_CREDENTIALS["AWS_SESSION_TOKEN"],
        )
        self.tables = create_all(self.dynamodb)
        seed_directory(self.dynamodb, self.tables["DIRECTORY_TABLE_NAME"], load_seed())
        # The sandbox's Jira, its demo issues seeded, behind the secret `make demo` writes
        self.jira = start_fake_jira(seeded=True)
        secrets = boto3.client(
            "secretsmanager",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id=FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
            aws_session_token=FAKE_CREDENTIALS["AWS_SESSION_TOKEN"],
        )
        value = {"baseUrl": self.jira.url, "email": self.jira.email, "apiToken": self.jira.api_token}
        secrets.create_secret(Name=LOCAL_JIRA_SECRET, SecretString=json.dumps(value))
        seed_mail(self.dynamodb, self.tables["MAILBOX_TABLE_NAME"], load_seed().mail, datetime.now(UTC))

    @property
    def drafts(self) -> DynamoDraftStore:
        return DynamoDraftStore(self.tables["DRAFTS_TABLE_NAME"], self.dynamodb)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        running = Sandbox(f"http://{host}:{port}")
        yield running
        running.jira.stop()
    finally:
        server.stop()


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "shared" / "python"), str(ROOT)])
    return env


def _command(sandbox: Sandbox, *extra: str) -> list[str]:
    return ["-m", "multitool.local.cli", "mcp", "--user", USER, "--sandbox", sandbox.endpoint, *extra]


async def _exercise(session: ClientSession) -> dict[str, Any]:
    await session.initialize()
    listed = await session.list_tools()
    answers: dict[str, Any] = {"tools": listed.tools}
    for name, arguments in CALLS.items():
        answers[name] = await session.call_tool(name, arguments)
    answers["bad"] = await session.call_tool("email-draft___create_email_draft", {"to": [], "subject": "x"})
    answers["unknown"] = await session.call_tool("email-draft___send_email", {"to": ["x"]})
    return answers


def test_the_sdk_client_lists_and_calls_every_tool_over_stdio(sandbox: Sandbox) -> None:
    async def run() -> dict[str, Any]:
        params = StdioServerParameters(
            command=sys.executable, args=_command(sandbox), env=_env(), cwd=str(ROOT)
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            return await _exercise(session)

    answers = anyio.run(run)

    listed = {tool.name: tool for tool in answers["tools"]}
    assert list(listed) == list(CALLS)
    for group in REGISTRY.groups:
        (committed,) = load_tools(group)
        tool = listed[f"{group.replace('_', '-')}___{committed['name']}"]
        assert (tool.description, tool.inputSchema) == (committed["description"], committed["inputSchema"])

    reviewer = Reviewer(
        sandbox.drafts,
        mailer=RecordingMailer(),
        calendar=MemoryCalendar(),
        jira=None,
        config=ReviewConfig(sender_email="assistant@example.com"),
    )
    for name in CALLS:
        result = answers[name]
        assert not result.isError, result.content
        payload = result.structuredContent
        assert payload is not None
        spec = REGISTRY[name.rpartition("___")[2]]
        assert payload["action"] == spec.action
        stored = sandbox.drafts.get(payload["draftId"])
        assert stored is not None
        assert stored.owner == USER  # the verified --user, never the arguments
        with pytest.raises(DraftNotFound):
            reviewer.discard(Caller("kinshuok"), payload["draftId"])
        assert reviewer.discard(Caller(USER), payload["draftId"]).status.value == "discarded"
    # Priya's zone from the seed: the meeting's slots are proposed in Europe/London.
    meeting = answers["meeting-scheduler___propose_meeting"].structuredContent
    assert meeting["timezone"] == "Europe/London"
    # Priya's own mailbox: her budget thread found, and Mei's invoice, which she never received, not.
    reply = answers["email-reply___reply_to_email"].structuredContent
    assert reply["message"]["item"]["fields"]["subject"] == "Re: Q1 budget"
    forward = answers["email-forward___forward_email"].structuredContent
    assert forward["message"]["status"] == "none"

    bad = answers["bad"]
    assert bad.isError
    assert '"invalid_input"' in bad.content[0].text
    assert "body" in bad.content[0].text
    assert answers["unknown"].isError
    assert '"unknown_tool"' in answers["unknown"].content[0].text


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_the_sdk_client_calls_a_tool_over_streamable_http(sandbox: Sandbox) -> None:
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, *_command(sandbox, "--http", str(port))],
        env=_env(),
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
            time.sleep(0.2)

        async def run() -> Any:
            async with (
                streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, _),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                names = [tool.name for tool in (await session.list_tools()).tools]
                return names, await session.call_tool(
                    "email-draft___create_email_draft", CALLS["email-draft___create_email_draft"]
                )

        names, result = anyio.run(run)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert names == list(CALLS)
    assert not result.isError
    stored = sandbox.drafts.get(result.structuredContent["draftId"])
    assert stored is not None
    assert stored.owner == USER


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["--user", "nobody"], "unknown user 'nobody'; use --user with one of:"),
        (["--sandbox", "ftp://x"], "--sandbox must be an http:// address"),
        (["--sign-in", "oidc"], "--sign-in oidc needs --http PORT"),
        (["--sign-in", "oidc", "--http", "8765", "--user", "priya"], "--user and --sign-in oidc do not go"),
        (["--sign-in", "oidc", "--http", "8765", "--host", "0.0.0.0"], "serves this machine only"),
        (["--http", "8765", "--host", "0.0.0.0"], "serves this machine only"),
        (["--http", "8765", "--host", "192.168.1.20"], "every caller would act as the --user"),
    ],
)
def test_a_bad_option_is_refused_in_one_line(arguments: list[str], words: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "multitool.local.cli", "mcp", *arguments],
        env=_env(),
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert words in done.stderr
    assert done.stdout == ""
