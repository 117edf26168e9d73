"""The ports: names whose lookup key DynamoDB cannot hold."""

from __future__ import annotations

from email import message_from_bytes
from email.policy import default
from typing import Any

import pytest
import urllib3
from botocore.exceptions import ClientError
from multitool.ports.atlassian.jira_cloud import JiraCloudClient
from multitool.ports.aws.ses_mail import SesMailer
from multitool.ports.directory import NAME_PREFIX, DynamoDirectory, normalize_name
from multitool.ports.jira import IssueRequest, JiraOutcomeUnknown, JiraUnavailable
from multitool.ports.mail import Mail
from multitool.toolkit.context import MAX_NAME_CHARS

MAX_KEY_BYTES = 2048  # DynamoDB's limit on a partition key value


class KeyCheckingDynamo:
    """batch_get_item as DynamoDB answers it: a key over 2048 bytes fails the whole request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def batch_get_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(RequestItems)
        for table in RequestItems.values():
            for key in table["Keys"]:
                if len(key["pk"]["S"].encode()) > MAX_KEY_BYTES:
                    raise ClientError(
                        {"Error": {"Code": "ValidationException", "Message": "Key too large"}}, "BatchGetItem"
                    )
        return {"Responses": {name: [] for name in RequestItems}, "UnprocessedKeys": {}}


@pytest.mark.parametrize("name", ["\ufdfa" * MAX_NAME_CHARS, "\u3300" * MAX_NAME_CHARS])
def test_a_name_whose_normalized_key_is_too_long_for_dynamodb_is_unknown(name: str) -> None:
    # Given a name within the tools' length limit whose NFKD form expands past DynamoDB's key limit
    assert len((NAME_PREFIX + normalize_name(name)).encode()) > MAX_KEY_BYTES
    client = KeyCheckingDynamo()
    # When it is resolved with an ordinary name in one read
    found = DynamoDirectory("directory", client).resolve(["Kinshuok", name])  # type: ignore[arg-type]
    # Then it is simply unknown (no person can answer to it), and the other name is still looked up
    assert found[name].status.value == "unknown"
    assert found["Kinshuok"].status.value == "unknown"
    [request] = client.requests
    assert request["directory"]["Keys"] == [{"pk": {"S": "NAME#kinshuok"}, "sk": {"S": "NAME"}}]


# -- mail: a subject is one header line ------------------------------------------------------------

INVITATION = b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n"


class RecordingSes:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def send_email(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(kwargs)
        return {"MessageId": "m-1"}


@pytest.mark.parametrize("title", ["Sync\nBcc: someone@example.org", "Sync\r\n about\rthe doc"])
def test_a_line_break_in_an_invitation_subject_is_folded_not_a_crash(title: str) -> None:
    # Given a meeting title with line breaks (the model's or the user's edit)
    client = RecordingSes()
    mail = Mail(
        to=("kinshuok@example.com",), subject=f"Invitation: {title}", text="hi", invitation=INVITATION
    )
    # When the invitation is sent
    sent = SesMailer(client, "assistant@example.com").send(mail)  # type: ignore[arg-type]
    # Then it goes out with a one-line subject and no header the title tried to add
    assert sent.message_id == "m-1"
    raw = client.calls[0]["Content"]["Raw"]["Data"]
    message = message_from_bytes(raw, policy=default)
    assert message["Subject"] == "Invitation: " + " ".join(title.split())
    assert message["Bcc"] is None


def test_a_line_break_in_a_plain_subject_is_folded() -> None:
    client = RecordingSes()
    SesMailer(client, "assistant@example.com").send(  # type: ignore[arg-type]
        Mail(to=("kinshuok@example.com",), subject="The doc\r\nand more", text="Line one\nLine two")
    )
    simple = client.calls[0]["Content"]["Simple"]
    assert simple["Subject"]["Data"] == "The doc and more"
    assert simple["Body"]["Text"]["Data"] == "Line one\nLine two"


# -- Jira: a create whose answer was lost may have happened ---------------------------------------


class FailingHttp:
    """urllib3's PoolManager.request, failing the way a network does."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.calls: list[tuple[str, str]] = []

    def request(self, method: str, url: str, **_kwargs: Any) -> Any:
        self.calls.append((method, url))
        raise self.error


ISSUE = IssueRequest(project="WEB", issue_type="Bug", summary="Login fails")


@pytest.mark.parametrize(
    "error",
    [
        urllib3.exceptions.ReadTimeoutError(None, "/rest/api/3/issue", "Read timed out."),  # type: ignore[arg-type]
        urllib3.exceptions.ProtocolError("Connection aborted.", ConnectionResetError()),
    ],
)
def test_a_create_sent_but_unanswered_may_have_created_the_issue(error: Exception) -> None:
    # Given Jira received the create but its answer never came back
    http = FailingHttp(error)
    client = JiraCloudClient("https://example.atlassian.net", "bot@example.com", "token", http)  # type: ignore[arg-type]
    # When the issue is created
    with pytest.raises(JiraOutcomeUnknown) as raised:
        client.create_issue(ISSUE)
    # Then the user is told to look in Jira before confirming again (a blind retry could duplicate it)
    assert "may have been carried out" in raised.value.reason
    assert raised.value.code == "jira_outcome_unknown"
    assert http.calls == [("POST", "https://example.atlassian.net/rest/api/3/issue")]


def test_a_create_that_never_reached_jira_is_unavailable() -> None:
    error = urllib3.exceptions.MaxRetryError(
        None,  # type: ignore[arg-type]
        "/rest/api/3/issue",
        urllib3.exceptions.NewConnectionError(None, "Connection refused"),  # type: ignore[arg-type]
    )
    client = JiraCloudClient("https://example.atlassian.net", "bot@example.com", "token", FailingHttp(error))  # type: ignore[arg-type]
    with pytest.raises(JiraUnavailable) as raised:
        client.create_issue(ISSUE)
    assert not isinstance(raised.value, JiraOutcomeUnknown)
