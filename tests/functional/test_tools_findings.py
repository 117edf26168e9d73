"""Findings of the runtime review, over moto DynamoDB: asking again after a discard."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import boto3
import pytest
from moto import mock_aws
from multitool.drafts import DraftStatus
from multitool.tables import create_all
from multitool.tools import ToolContext, ToolPorts, run_calls
from multitool.tools.runtime import dynamo_ports

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
EMAIL = ("create_email_draft", {"to": ["guest@partner.org"], "subject": "The doc", "body": "Here it is."})
JIRA = ("create_jira_ticket_draft", {"project": "WEB", "issueType": "Bug", "summary": "Login fails"})


@pytest.fixture
def ports() -> Iterator[ToolPorts]:
    with mock_aws():
        client = boto3.client("dynamodb")
        tables = create_all(client)
        yield dynamo_ports(
            client,
            drafts_table=tables["DRAFTS_TABLE_NAME"],
            directory_table=tables["DIRECTORY_TABLE_NAME"],
            bookings_table=tables["BOOKINGS_TABLE_NAME"],
        )


def test_a_discarded_draft_asked_for_again_comes_back_as_a_fresh_proposal(ports: ToolPorts) -> None:
    ctx = ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone="UTC")
    email, jira = run_calls([EMAIL, JIRA], ctx, ports)
    discarded = ports.drafts.get(email.body["draftId"])
    assert discarded is not None
    ports.drafts.replace(discarded, discarded.model_copy(update={"status": DraftStatus.DISCARDED}))

    email_again, jira_again = run_calls([EMAIL, JIRA], ctx, ports)

    fresh = ports.drafts.get(email_again.body["draftId"])
    assert fresh is not None
    assert fresh.id != discarded.id
    assert fresh.status is DraftStatus.PROPOSED
    assert fresh.payload["draftId"] == fresh.id
    assert jira_again.body["draftId"] == jira.body["draftId"]  # still proposed: the same draft
