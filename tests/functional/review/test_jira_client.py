"""The Jira Cloud client against the loopback fake Jira: success and every failure Jira answers with."""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
import urllib3
from moto import mock_aws
from multitool.local.standins.jira_server import FakeJira, start_fake_jira
from multitool.ports.atlassian.jira_cloud import DeferredJiraClient, JiraCloudClient, SecretsJiraCredentials
from multitool.ports.jira import (
    IssueRequest,
    JiraNotConfigured,
    JiraRateLimited,
    JiraRejected,
    JiraUnauthorized,
    JiraUnavailable,
)

EMAIL = "bot@example.com"
TOKEN = "jira-api-token-123"
ISSUE = IssueRequest(
    project="WEB",
    issue_type="Bug",
    summary="Checkout button does nothing",
    description="Steps:\n1. add to cart\n2. click checkout\n\nNothing happens.",
    priority="High",
)


@pytest.fixture(scope="module")
def jira() -> Iterator[FakeJira]:
    server = start_fake_jira(email=EMAIL, api_token=TOKEN)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def http() -> urllib3.PoolManager:
    return urllib3.PoolManager()


@pytest.fixture
def client(jira: FakeJira, http: urllib3.PoolManager) -> JiraCloudClient:
    return JiraCloudClient(jira.url, EMAIL, TOKEN, http)


def test_create_issue_returns_key_and_browse_url_and_sends_adf(
    jira: FakeJira, client: JiraCloudClient
) -> None:
    created = client.create_issue(ISSUE)

    assert created.key.startswith("WEB-")
    assert created.url == f"{jira.url}/browse/{created.key}"
    stored = jira.issue(created.key)
    assert stored is not None
    fields = stored["fields"]
    assert fields["summary"] == ISSUE.summary
    assert fields["priority"] == {"name": "High"}
    assert fields["description"]["type"] == "doc"
    assert len(fields["description"]["content"]) == 2


def test_assignee_email_becomes_a_jira_account_id(jira: FakeJira, client: JiraCloudClient) -> None:
    created = client.create_issue(
        IssueRequest(
            project="OPS", issue_type="Task", summary="Rotate keys", assignee_email="kin@example.com"
        )
    )

    stored = jira.issue(created.key)
    assert stored is not None
    assert stored["fields"]["assignee"] == {"accountId": FakeJira.account_id("kin@example.com")}


def test_400_carries_jiras_field_errors(jira: FakeJira, client: JiraCloudClient) -> None:
    jira.fail_next(400, errors={"components": "Component is required."}, error_messages=["Bad request"])

    with pytest.raises(JiraRejected) as caught:
        client.create_issue(ISSUE)

    assert caught.value.errors == {"components": "Component is required."}
    assert caught.value.messages == ["Bad request"]
    assert "components: Component is required." in caught.value.reason


def test_a_field_jira_validates_is_reported_by_name(client: JiraCloudClient) -> None:
    with pytest.raises(JiraRejected) as caught:
        client.create_issue(IssueRequest(project="NOPE", issue_type="Bug", summary="x"))
    assert "project" in caught.value.errors


def test_401_is_unauthorized_and_the_token_is_not_in_the_reason(
    jira: FakeJira, http: urllib3.PoolManager
) -> None:
    wrong = JiraCloudClient(jira.url, EMAIL, "wrong-token", http)

    with pytest.raises(JiraUnauthorized) as caught:
        wrong.create_issue(ISSUE)

    assert "401" in caught.value.reason
    assert "wrong-token" not in caught.value.reason


def test_429_keeps_retry_after(jira: FakeJira, http: urllib3.PoolManager) -> None:
    jira.fail_next(429, retry_after=17)
    client = JiraCloudClient(jira.url, EMAIL, TOKEN, http, deadline=lambda: 15.0)

    with pytest.raises(JiraRateLimited) as caught:  # no time to wait 17 s for another try
        client.create_issue(ISSUE)

    assert caught.value.retry_after == 17
    assert "17" in caught.value.reason


def test_a_short_retry_after_is_waited_and_the_create_tried_again(
    jira: FakeJira, client: JiraCloudClient
) -> None:
    before = len(jira.requests)
    jira.fail_next(429, retry_after=1)

    created = client.create_issue(ISSUE)

    assert jira.issue(created.key) is not None
    assert len(jira.requests) == before + 2  # a throttled create was not made: asked again once


@pytest.mark.parametrize("status", [500, 502, 503])
def test_5xx_is_unavailable_and_never_retried(jira: FakeJira, client: JiraCloudClient, status: int) -> None:
    before = len(jira.requests)
    jira.fail_next(status, times=2)

    with pytest.raises(JiraUnavailable, match=str(status)):
        client.create_issue(ISSUE)

    assert len(jira.requests) == before + 1  # a create that may have reached Jira is not repeated
    jira.next_failure()  # drop the unused second failure


def test_no_server_is_unavailable(http: urllib3.PoolManager) -> None:
    server = start_fake_jira()
    url = server.url
    server.stop()

    with pytest.raises(JiraUnavailable, match="could not be reached"):
        JiraCloudClient(url, EMAIL, TOKEN, http).create_issue(ISSUE)


def test_browse_page_is_labelled_as_a_sandbox(
    jira: FakeJira, client: JiraCloudClient, http: urllib3.PoolManager
) -> None:
    created = client.create_issue(ISSUE)
    page = http.request("GET", created.url)
    assert page.status == 200
    assert b"Sandbox Jira: not a real issue" in page.data


@mock_aws
def test_secret_is_read_once_and_builds_the_client(jira: FakeJira, http: urllib3.PoolManager) -> None:
    secrets = boto3.client("secretsmanager", region_name="us-east-1")
    arn = secrets.create_secret(
        Name="jira", SecretString=json.dumps({"baseUrl": jira.url + "/", "email": EMAIL, "apiToken": TOKEN})
    )["ARN"]
    credentials = SecretsJiraCredentials(secrets, arn)
    built: list[int] = []

    def build() -> JiraCloudClient:
        value = credentials.get()
        built.append(1)
        return JiraCloudClient(value.base_url, value.email, value.api_token, http)

    deferred = DeferredJiraClient(build)
    assert built == []  # nothing is read until a Jira confirm needs it

    first = deferred.create_issue(ISSUE)
    secrets.update_secret(SecretId=arn, SecretString="{}")
    second = deferred.create_issue(ISSUE)

    assert built == [1]
    assert first.key != second.key
    assert credentials.get().base_url == jira.url


@mock_aws
@pytest.mark.parametrize("value", ["not json", json.dumps({"baseUrl": "https://x.atlassian.net"})])
def test_a_malformed_secret_is_not_configured(value: str) -> None:
    secrets = boto3.client("secretsmanager", region_name="us-east-1")
    arn = secrets.create_secret(Name="jira", SecretString=value)["ARN"]

    with pytest.raises(JiraNotConfigured, match="baseUrl"):
        SecretsJiraCredentials(secrets, arn).get()


@mock_aws
def test_a_missing_secret_is_not_configured() -> None:
    secrets = boto3.client("secretsmanager", region_name="us-east-1")
    with pytest.raises(JiraNotConfigured, match="ResourceNotFoundException"):
        SecretsJiraCredentials(secrets, "arn:aws:secretsmanager:us-east-1:123456789012:secret:nope").get()
