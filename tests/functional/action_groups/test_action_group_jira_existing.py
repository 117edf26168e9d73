"""The Jira action groups on existing issues, on wire-shaped Bedrock action-group events: the issue
read through the reading account's secret (moto Secrets Manager) from the loopback fake Jira."""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
from multitool.local.standins.jira_server import FakeJira, start_fake_jira
from multitool.wiring.action_groups import aws_environment

from tests.support.bedrock_events import (
    LambdaContextStub,
    assert_bedrock_response,
    bedrock_action_event,
    response_body,
    tool_handler,
)
from tests.support.moto_tables import REGION, Tables

SESSION = {"userId": "user-1", "timezone": "Europe/Berlin", "now": "2026-12-01T10:00:00+01:00"}


@pytest.fixture
def jira(moto_tables: Tables, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeJira]:
    with start_fake_jira(seeded=True) as server:
        secrets = boto3.client("secretsmanager", region_name=REGION)
        value = {"baseUrl": server.url, "email": server.email, "apiToken": server.api_token}
        arn = secrets.create_secret(Name="multitool/jira-reader", SecretString=json.dumps(value))["ARN"]
        monkeypatch.setenv("JIRA_READER_SECRET_ARN", arn)
        aws_environment.cache_clear()
        yield server
        aws_environment.cache_clear()
        assert server.violations == []


def invoke(group: str, path: str, properties: dict[str, object]) -> dict[str, object]:
    event = bedrock_action_event(
        group, path, "POST", properties, SESSION, input_text="add a comment to WEB-12"
    )
    response = tool_handler(group)(event, LambdaContextStub())
    assert_bedrock_response(response)
    body: dict[str, object] = response_body(response)
    return body


def test_a_comment_card_from_an_action_group_event_names_the_issue(jira: FakeJira) -> None:
    body = invoke(
        "jira_comment",
        "/jira-comments",
        {
            "issue": {"said": "the login crash ticket", "words": ["login", "crash"]},
            "comment": "Fixed in build 42",
        },
    )

    assert body.get("action") == "show_jira_comment", body
    issue = body["issue"]
    assert isinstance(issue, dict)
    assert issue["item"]["fields"]["key"] == "WEB-12"
    assert jira.issue("WEB-12").get("comments") is None  # a card, nothing posted


def test_a_transition_card_offers_what_the_issue_offers(jira: FakeJira) -> None:
    body = invoke(
        "jira_transition",
        "/jira-transitions",
        {"issue": {"said": "WEB-9", "key": "WEB-9"}, "status": "close"},
    )

    assert body["transition"] == "41"
    issue = body["issue"]
    assert isinstance(issue, dict)
    assert [t["toStatus"] for t in issue["item"]["fields"]["transitions"]] == ["In Progress", "Done"]


def test_the_account_that_writes_is_never_the_one_a_card_reads_with(
    moto_tables: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only the review's secret configured: the cards that name an issue read nothing with it.
    monkeypatch.setenv("JIRA_SECRET_ARN", "arn:aws:secretsmanager:us-east-1:123456789012:secret:jira")
    monkeypatch.delenv("JIRA_READER_SECRET_ARN", raising=False)
    aws_environment.cache_clear()
    try:
        body = invoke("jira_comment", "/jira-comments", {"issue": {"said": "WEB-12"}, "comment": "Fixed"})
    finally:
        aws_environment.cache_clear()

    assert body == {
        "error": {
            "code": "provider_refused",
            "message": "Jira is not configured in this deployment: no issue can be found.",
        }
    }
