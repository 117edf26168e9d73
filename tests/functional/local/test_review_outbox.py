"""The sandbox outbox reads back what the local SES (moto) accepted and what the fake Jira created."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
import urllib3
from moto import mock_aws
from moto.server import ThreadedMotoServer
from multitool.local.sandbox.outbox import outbox, sent_mail, sent_mail_from_server
from multitool.local.standins.jira_server import start_fake_jira
from multitool.ports.atlassian.jira_cloud import JiraCloudClient
from multitool.ports.aws.ses_mail import SesMailer
from multitool.ports.jira import IssueRequest
from multitool.ports.mail import Mail
from multitool.tools.meeting.invitations import Invitation, Participant, build_invitation

SENDER = "assistant@example.com"
START = datetime(2026, 12, 3, 8, 0, tzinfo=UTC)
END = datetime(2026, 12, 3, 8, 30, tzinfo=UTC)


def _send_both(client: Any, subject: str) -> None:
    client.create_email_identity(EmailIdentity=SENDER)
    mailer = SesMailer(client, SENDER)
    mailer.send(Mail(to=("kin@example.com",), cc=("zoe@example.com",), subject=subject, text="Plain body"))
    ics = build_invitation(
        Invitation(
            uid="d_outbox",
            title=f"{subject} sync",
            organizer=Participant(SENDER),
            attendees=[Participant("kin@example.com", "Kin"), Participant("zoe@example.com")],
            start=START,
            end=END,
            timezone="UTC",
        )
    )
    mailer.send(
        Mail(
            to=("kin@example.com", "zoe@example.com"),
            subject=f"Invitation: {subject}",
            text="Join",
            invitation=ics,
        )
    )


def _check(entries: list[dict[str, Any]], subject: str) -> None:
    mine = [e for e in entries if subject in e["subject"]]
    assert [e["subject"] for e in mine] == [f"Invitation: {subject}", subject]  # newest first
    invite, plain = mine
    assert plain["to"] == ["kin@example.com"]
    assert plain["cc"] == ["zoe@example.com"]
    assert plain["body"] == "Plain body"
    assert plain["invitation"] is None
    assert invite["to"] == ["kin@example.com", "zoe@example.com"]
    assert invite["body"] == "Join"
    assert invite["invitation"]["method"] == "REQUEST"
    assert invite["invitation"]["uid"] == "d_outbox"
    assert invite["invitation"]["title"] == f"{subject} sync"
    assert invite["invitation"]["start"] == START.isoformat()
    assert invite["invitation"]["attendees"] == ["kin@example.com", "zoe@example.com"]
    assert all(e["sandbox"] is True and e["from"] == SENDER for e in mine)


def test_in_process_moto_mail_is_read_back() -> None:
    subject = f"Doc {uuid.uuid4().hex[:6]}"
    with mock_aws():
        _send_both(boto3.client("sesv2", region_name="us-east-1"), subject)
        _check(sent_mail(), subject)


@pytest.fixture(scope="module")
def moto_server() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


def test_a_moto_servers_mail_is_read_over_http(moto_server: str) -> None:
    subject = f"Doc {uuid.uuid4().hex[:6]}"
    client = boto3.client("sesv2", region_name="us-east-1", endpoint_url=moto_server)

    _send_both(client, subject)

    _check(sent_mail_from_server(moto_server), subject)


def test_the_outbox_lists_sandbox_issues_with_their_browse_links() -> None:
    with start_fake_jira() as jira:
        client = JiraCloudClient(jira.url, jira.email, jira.api_token, urllib3.PoolManager())
        client.create_issue(IssueRequest(project="WEB", issue_type="Bug", summary="First"))
        client.create_issue(IssueRequest(project="OPS", issue_type="Task", summary="Second"))

        box = outbox(lambda: [], jira)

    assert box["sandbox"] is True
    assert box["emails"] == []
    assert [(i["key"], i["summary"]) for i in box["issues"]] == [("OPS-1", "Second"), ("WEB-1", "First")]
    assert box["issues"][0]["url"] == f"{jira.url}/browse/OPS-1"
