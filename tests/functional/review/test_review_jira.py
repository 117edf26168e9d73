"""Confirming Jira tickets through the review Lambda: secret in (moto) Secrets Manager, loopback fake Jira."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from multitool.drafts import DraftStatus
from multitool.local.standins.jira_server import FakeJira, start_fake_jira
from multitool.wiring.review import aws_reviewer

from functions.review.handler import handler
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.moto_tables import REGION, Tables
from tests.support.review_support import OWNER, PRIYA, jira_draft, resolved

JIRA_EMAIL = "jira-bot@example.com"
JIRA_TOKEN = "ATATT3xFfGF0-secret-token"


@dataclass
class Setup(Tables):
    jira: FakeJira
    secrets: Any


@pytest.fixture(scope="module")
def fake_jira() -> Iterator[FakeJira]:
    server = start_fake_jira(email=JIRA_EMAIL, api_token=JIRA_TOKEN)
    yield server
    server.stop()


@pytest.fixture
def setup(review_aws: Tables, fake_jira: FakeJira, monkeypatch: pytest.MonkeyPatch) -> Setup:
    """``review_aws`` with the Jira secret in Secrets Manager, pointing at the fake Jira."""
    secrets = boto3.client("secretsmanager", region_name=REGION)
    arn = secrets.create_secret(
        Name="multitool/jira",
        SecretString=json.dumps({"baseUrl": fake_jira.url, "email": JIRA_EMAIL, "apiToken": JIRA_TOKEN}),
    )["ARN"]
    monkeypatch.setenv("JIRA_SECRET_ARN", arn)
    aws_reviewer.cache_clear()
    return Setup(review_aws.client, review_aws.names, fake_jira, secrets)


def confirm(draft_id: str, body: dict[str, Any]) -> dict[str, Any]:
    event = http_api_event(
        "POST",
        f"/actions/{draft_id}/confirm",
        body,
        sub=OWNER,
        path_parameters={"id": draft_id},
        route_key="POST /actions/{id}/confirm",
    )
    response: dict[str, Any] = handler(event, FakeLambdaContext())
    return response


def test_confirm_creates_the_issue_and_stores_key_and_url(setup: Setup) -> None:
    draft = setup.add(jira_draft(assignee=resolved("Priya", PRIYA)))

    response = confirm(draft.id, {"summary": "Checkout ignores clicks", "priority": "Highest"})

    assert response["statusCode"] == 200
    result = json_body(response)["result"]
    issue = setup.jira.issue(result["issueKey"])
    assert issue is not None
    assert result["issueUrl"] == f"{setup.jira.url}/browse/{result['issueKey']}"
    fields = issue["fields"]
    assert fields["summary"] == "Checkout ignores clicks"
    assert fields["priority"] == {"name": "Highest"}
    assert fields["description"]["type"] == "doc"
    assert fields["assignee"] == {"accountId": FakeJira.account_id(PRIYA.email)}
    stored = setup.drafts.get(draft.id)
    assert stored is not None
    assert stored.result == result
    assert confirm(draft.id, {})["statusCode"] == 200  # the same content again: no second issue
    assert len([i for i in setup.jira.issues if i["key"] == result["issueKey"]]) == 1


@pytest.mark.parametrize(
    ("status", "options", "http_status", "code", "reason"),
    [
        (500, {}, 503, "jira_unavailable", "HTTP 500"),
        # A gateway's 503 to a create: Jira may have made the issue (never sent twice, the user checks).
        (503, {}, 502, "jira_outcome_unknown", "HTTP 503"),
        (429, {"retry_after": 42}, 503, "jira_rate_limited", "retry after 42 s"),
        (400, {"errors": {"components": "Component is required."}}, 502, "jira_rejected", "components"),
        (401, {}, 502, "jira_unauthorized", "HTTP 401"),
    ],
)
def test_a_failed_create_leaves_the_draft_failed_retryable_with_the_edits(
    setup: Setup,
    logs: io.StringIO,
    status: int,
    options: dict[str, Any],
    http_status: int,
    code: str,
    reason: str,
) -> None:
    draft = setup.add(jira_draft(summary=f"Case {status}"))
    setup.jira.fail_next(status, **options)
    issues_before = len(setup.jira.issues)

    failed = confirm(draft.id, {"description": "Edited description", "priority": "Low"})

    assert failed["statusCode"] == http_status
    body = json_body(failed)
    assert body["error"]["code"] == code
    assert body["error"]["retryable"] is True
    assert reason in body["error"]["message"]
    if "retry_after" in options:
        assert failed["headers"]["Retry-After"] == str(options["retry_after"])
    stored = setup.drafts.get(draft.id)
    assert stored is not None
    assert stored.status is DraftStatus.FAILED
    assert stored.error is not None
    assert reason in stored.error
    assert stored.edits is not None
    assert (stored.edits["description"], stored.edits["priority"]) == ("Edited description", "Low")
    assert len(setup.jira.issues) == issues_before
    assert JIRA_TOKEN not in logs.getvalue()
    assert "Edited description" not in logs.getvalue()

    retried = confirm(draft.id, {})

    assert retried["statusCode"] == 200
    key = json_body(retried)["result"]["issueKey"]
    issue = setup.jira.issue(key)
    assert issue is not None
    assert issue["fields"]["priority"] == {"name": "Low"}
    assert issue["fields"]["summary"] == f"Case {status}"


def test_wrong_credentials_in_the_secret_are_reported_without_the_token(
    setup: Setup, logs: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    arn = setup.secrets.create_secret(
        Name="multitool/jira-wrong",
        SecretString=json.dumps(
            {"baseUrl": setup.jira.url, "email": JIRA_EMAIL, "apiToken": "wrong-token-9"}
        ),
    )["ARN"]
    monkeypatch.setenv("JIRA_SECRET_ARN", arn)
    aws_reviewer.cache_clear()
    draft = setup.add(jira_draft())

    response = confirm(draft.id, {})

    assert response["statusCode"] == 502
    assert json_body(response)["error"]["code"] == "jira_unauthorized"
    assert "wrong-token-9" not in response["body"]
    assert "wrong-token-9" not in logs.getvalue()


def test_without_a_jira_secret_a_ticket_confirm_is_503_and_the_draft_is_untouched(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JIRA_SECRET_ARN")
    aws_reviewer.cache_clear()
    draft = setup.add(jira_draft())

    response = confirm(draft.id, {})

    assert response["statusCode"] == 503
    assert json_body(response)["error"] == {
        "code": "not_configured",
        "message": "Jira is not configured in this deployment.",
    }
    assert setup.drafts.get(draft.id) == draft


def test_a_missing_secret_fails_the_draft_with_a_clear_reason(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JIRA_SECRET_ARN", "arn:aws:secretsmanager:us-east-1:123456789012:secret:gone")
    aws_reviewer.cache_clear()
    draft = setup.add(jira_draft())

    response = confirm(draft.id, {})

    assert response["statusCode"] == 503
    body = json_body(response)
    assert body["error"]["code"] == "jira_not_configured"
    assert "could not be read" in body["error"]["message"]
    assert body["action"]["status"] == "failed"


def test_unknown_project_in_the_edits_is_422(setup: Setup) -> None:
    draft = setup.add(jira_draft())
    response = confirm(draft.id, {"project": "NOPE"})
    assert response["statusCode"] == 422
    assert json_body(response)["error"]["field"] == "project"


def test_a_confirmed_summary_with_line_breaks_is_created_on_one_line(setup: Setup) -> None:
    draft = setup.add(jira_draft())

    response = confirm(
        draft.id,
        {
            "summary": "Checkout\r\nignores\x00 clicks\x1b[31m",
            "description": "Steps:\r\n1. add\u2028 2. pay\x07",
        },
    )

    assert response["statusCode"] == 200
    issue = setup.jira.issue(json_body(response)["result"]["issueKey"])
    assert issue is not None
    assert issue["fields"]["summary"] == "Checkout ignores clicks"
    *described, requested = issue["fields"]["description"]["content"]
    assert requested["content"][0]["text"] == f"Requested by the multitool user {OWNER}"
    assert described == [
        {
            "type": "paragraph",
            "content": [
                {"type": "text", "text": "Steps:"},
                {"type": "hardBreak"},
                {"type": "text", "text": "1. add"},
                {"type": "hardBreak"},
                {"type": "text", "text": " 2. pay"},
            ],
        }
    ]
