"""The review Lambda's recipient limits on HTTP API v2 events against moto (DynamoDB, SES v2).

A confirm may replace every recipient of a card, so the confirm, not the model, bounds what one
user can mail from the organization's address: outside addresses capped or refused, a daily quota
per user counted by one conditional write, approval before a self-registered user can act.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from moto import mock_aws
from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends
from multitool.api.review_app import aws_reviewer
from multitool.drafts import Draft
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.quota import quota_key
from multitool.ports.tables import create_all

from functions.review.handler import handler
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.review_support import (
    KINSHUOK,
    OWNER,
    PRIYA,
    SENDER,
    SLOTS,
    email_draft,
    meeting_draft,
    resolved,
)

REGION = "us-east-1"
PHISHING = {
    "to": [f"victim{i}@outside.test" for i in range(20)],
    "cc": [f"target{i}@elsewhere.test" for i in range(20)],
    "subject": "Security alert from IT",
    "body": "Your password expires today: sign in at the link below.",
}


@dataclass
class Aws:
    dynamodb: Any
    tables: dict[str, str]

    @property
    def drafts(self) -> DynamoDraftStore:
        return DynamoDraftStore(self.tables["DRAFTS_TABLE_NAME"], self.dynamodb)

    def add(self, draft: Draft) -> Draft:
        [stored] = self.drafts.create_many([draft])
        return stored

    def used_today(self, user: str = OWNER) -> tuple[int, int]:
        day = datetime.now(UTC).date().isoformat()
        item = self.dynamodb.get_item(
            TableName=self.tables["LIMITS_TABLE_NAME"], Key={"pk": {"S": quota_key(user, day)}}
        ).get("Item", {})
        return int(item.get("total", {}).get("N", "0")), int(item.get("outside", {}).get("N", "0"))

    @staticmethod
    def sent() -> list[Any]:
        return list(ses_backends[DEFAULT_ACCOUNT_ID][REGION].sent_messages)


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Aws]:
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        sesv2 = boto3.client("sesv2", region_name=REGION)
        sesv2.create_email_identity(EmailIdentity=SENDER)
        tables = create_all(dynamodb)
        for name, value in tables.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("SENDER_EMAIL", SENDER)  # inside domain: example.com (the sender's)
        for name in (
            "JIRA_SECRET_ARN",
            "SANDBOX",
            "RECIPIENT_DOMAINS",
            "OUTSIDE_RECIPIENTS",
            "APPROVED_GROUP",
        ):
            monkeypatch.delenv(name, raising=False)
        aws_reviewer.cache_clear()
        yield Aws(dynamodb, tables)
    aws_reviewer.cache_clear()


@pytest.fixture
def limits(monkeypatch: pytest.MonkeyPatch) -> Any:
    def set_limits(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        aws_reviewer.cache_clear()

    return set_limits


def confirm(
    draft_id: str, body: Any, sub: str = OWNER, claims: dict[str, Any] | None = None
) -> dict[str, Any]:
    event = http_api_event(
        "POST",
        f"/actions/{draft_id}/confirm",
        body,
        sub=sub,
        path_parameters={"id": draft_id},
        route_key="POST /actions/{id}/confirm",
        claims=claims,
    )
    response: dict[str, Any] = handler(event, FakeLambdaContext())
    return response


def test_the_relay_attempt_is_refused_by_default_and_nothing_is_sent(aws: Aws) -> None:
    # Given a card "Email Priya about lunch"
    draft = aws.add(email_draft(to=[resolved("Priya", PRIYA)], subject="Lunch", body="Lunch on Friday?"))

    # When its confirm replaces everything: 40 outside addresses and a phishing mail
    response = confirm(draft.id, PHISHING)

    # Then the default deployment (20 outside addresses a day) refuses it before SES sees it
    assert response["statusCode"] == 429
    error = json_body(response)["error"]
    assert error["code"] == "recipient_quota_exceeded"
    assert "20 a day outside" in error["message"]
    assert 1 <= int(response["headers"]["Retry-After"]) <= 24 * 3600
    assert aws.sent() == []
    assert aws.used_today() == (0, 0)
    # and the card is as it was: nothing lost, confirmable with fewer recipients
    assert aws.drafts.get(draft.id) == draft
    assert confirm(draft.id, {})["statusCode"] == 200


def test_with_outside_recipients_off_an_outside_address_is_422_naming_it(aws: Aws, limits: Any) -> None:
    limits(OUTSIDE_RECIPIENTS="off", RECIPIENT_DOMAINS="example.com, corp.example")
    draft = aws.add(email_draft())

    refused = confirm(draft.id, {"cc": ["ops@corp.example", "attacker@evil.test"]})

    assert refused["statusCode"] == 422
    error = json_body(refused)["error"]
    assert (error["code"], error["field"]) == ("recipient_not_allowed", "cc[1]")
    assert "attacker@evil.test" in error["message"]
    assert aws.sent() == []
    accepted = confirm(draft.id, {"cc": ["ops@corp.example"]})
    assert accepted["statusCode"] == 200
    assert aws.used_today() == (2, 0)


def test_the_daily_quota_stops_one_user_and_leaves_another_served(aws: Aws, limits: Any) -> None:
    limits(RECIPIENTS_PER_DAY="3")
    first = aws.add(email_draft(session="s-1"))
    second = aws.add(email_draft(session="s-2"))
    theirs = aws.add(email_draft(owner="user-2", session="s-3"))

    ok = confirm(first.id, {"cc": ["a@example.com", "b@example.com"]})
    over = confirm(second.id, {"cc": ["c@example.com"]})
    other = confirm(theirs.id, {}, sub="user-2")

    assert ok["statusCode"] == 200
    assert over["statusCode"] == 429
    assert json_body(over)["error"]["code"] == "recipient_quota_exceeded"
    assert "used 3 today" in json_body(over)["error"]["message"]
    assert other["statusCode"] == 200
    assert [m.destinations["ToAddresses"] for m in aws.sent()] == [[KINSHUOK.email], [KINSHUOK.email]]
    assert aws.used_today() == (3, 0)
    assert aws.used_today("user-2") == (1, 0)
    assert aws.drafts.get(second.id) == second


def test_meeting_invitations_to_outside_attendees_count_the_same(aws: Aws, limits: Any) -> None:
    limits(OUTSIDE_RECIPIENTS_PER_DAY="1")
    mine = "me@example.com"
    claims = {"email": mine, "email_verified": "true"}
    draft = aws.add(meeting_draft(attendees=[resolved("Kinshuok", KINSHUOK)]))
    slot = {"start": SLOTS[0][0].isoformat(), "end": SLOTS[0][1].isoformat()}

    over = confirm(
        draft.id,
        {"slot": slot, "attendees": [KINSHUOK.id, "x@outside.test", "y@outside.test"]},
        claims=claims,
    )
    ok = confirm(draft.id, {"slot": slot, "attendees": [KINSHUOK.id, "x@outside.test", mine]}, claims=claims)

    assert over["statusCode"] == 429
    assert ok["statusCode"] == 200
    # the requester's own copy of the invitation is not counted
    assert aws.used_today() == (2, 1)


def test_a_send_ses_refuses_gives_its_count_back(aws: Aws, limits: Any) -> None:
    limits(SENDER_EMAIL="nobody@example.com")  # not an SES identity: SES rejects the send
    draft = aws.add(email_draft())

    response = confirm(draft.id, {})

    assert response["statusCode"] == 502
    assert json_body(response)["error"]["code"] == "mail_rejected"
    assert aws.used_today() == (0, 0)


def test_with_approval_on_an_unapproved_user_cannot_confirm(aws: Aws, limits: Any) -> None:
    limits(APPROVED_GROUP="senders")
    draft = aws.add(email_draft())

    waiting = confirm(draft.id, {})
    approved = confirm(draft.id, {}, claims={"cognito:groups": "[admins senders]"})

    assert waiting["statusCode"] == 403
    assert json_body(waiting)["error"]["code"] == "approval_required"
    assert approved["statusCode"] == 200
    assert len(aws.sent()) == 1


def test_with_approval_on_another_users_draft_is_still_404(aws: Aws, limits: Any) -> None:
    limits(APPROVED_GROUP="senders")
    draft = aws.add(email_draft())

    assert confirm(draft.id, {}, sub="user-2")["statusCode"] == 404
