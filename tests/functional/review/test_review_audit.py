"""Who did what: every side effect is logged and recorded by the acting user's sub, never an address."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from multitool.ports.audit import audit_key
from multitool.ports.jira import IssueRequest, issue_fields
from multitool.review import Caller
from multitool.tools.jira.confirm import requester

from tests.functional.review.test_review_limits import confirm
from tests.support.moto_tables import Tables
from tests.support.review_support import NOW, OWNER, email_draft


def _records(review_aws: Tables, user: str = OWNER) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = review_aws.client.query(
        TableName=review_aws.names["AUDIT_TABLE_NAME"],
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": audit_key(user)}},
    )["Items"]
    return items


def test_a_sent_mail_leaves_an_audit_record_and_a_log_line_by_sub(
    review_aws: Tables, logs: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUDIT_RETENTION_DAYS", "400")
    from multitool.wiring.review import aws_reviewer

    aws_reviewer.cache_clear()
    draft = review_aws.add(email_draft())

    response = confirm(draft.id, {"cc": ["boss@example.com"], "subject": "Quarterly numbers 9c1e"})

    assert response["statusCode"] == 200
    (record,) = _records(review_aws)
    assert record["draftId"] == {"S": draft.id}
    assert (record["action"]["S"], record["outcome"]["S"], record["recipients"]["N"]) == (
        "show_new_email_draft",
        "done",
        "2",
    )
    assert set(record["ids"]["M"]) == {"messageId"}
    days_kept = (int(record["expiresAt"]["N"]) - NOW.timestamp()) / 86400  # the reviewer's clock reads NOW
    assert 399 < days_kept <= 400
    stored = json.dumps(record)
    assert "example.com" not in stored  # ids and counts only
    assert "Quarterly" not in stored
    (done,) = [json.loads(line) for line in logs.getvalue().splitlines() if '"Action done"' in line]
    assert (done["user_id"], done["recipients"], done["draft_id"]) == (OWNER, 2, draft.id)
    assert "example.com" not in logs.getvalue()


def test_a_failed_send_is_recorded_as_failed(review_aws: Tables, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SENDER_EMAIL", "nobody@example.com")  # SES rejects: not an identity
    from multitool.wiring.review import aws_reviewer

    aws_reviewer.cache_clear()
    draft = review_aws.add(email_draft())

    assert confirm(draft.id, {})["statusCode"] == 502
    (record,) = _records(review_aws)
    assert record["outcome"] == {"S": "failed"}
    assert "ids" not in record


def test_a_jira_issue_says_who_requested_it() -> None:
    caller = Caller("sub-123", email="jordan@example.com", name="Jordan Lee")
    fields = issue_fields(
        IssueRequest("WEB", "Bug", "Checkout broken", "Steps: click", requested_by=requester(caller))
    )
    last = fields["description"]["content"][-1]
    assert last["content"] == [
        {"type": "text", "text": "Requested by Jordan Lee <jordan@example.com> via multitool"}
    ]
    assert requester(Caller("sub-123")) == "the multitool user sub-123"
    # an issue without a description still names its requester
    bare = issue_fields(IssueRequest("WEB", "Bug", "Checkout broken", requested_by=requester(caller)))
    assert bare["description"]["content"][0]["content"][0]["text"].startswith("Requested by Jordan Lee")
