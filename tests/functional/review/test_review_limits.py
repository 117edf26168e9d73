"""The review Lambda's recipient limits on HTTP API v2 events against moto (DynamoDB, SES v2).

A confirm may replace every recipient of a card, so the confirm, not the model, bounds what one
user can mail from the organization's address: outside addresses capped or refused, a daily quota
per user counted by one conditional write, approval before a self-registered user can act.
"""

from __future__ import annotations

from typing import Any

import pytest
from multitool.ports.quota import quota_key
from multitool.wiring.review import aws_reviewer

from functions.review.handler import handler
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.moto_tables import Tables
from tests.support.review_support import (
    KINSHUOK,
    NOW,
    OWNER,
    PRIYA,
    SLOTS,
    email_draft,
    meeting_draft,
    resolved,
)

PHISHING = {
    "to": [f"victim{i}@outside.test" for i in range(20)],
    "cc": [f"target{i}@elsewhere.test" for i in range(20)],
    "subject": "Security alert from IT",
    "body": "Your password expires today: sign in at the link below.",
}


def used_today(aws: Tables, user: str = OWNER) -> tuple[int, int]:
    """The recipients ``user`` mailed on the reviewer's day (its clock reads the pinned ``NOW``): all
    of them, and those outside the sender's domain."""
    day = NOW.date().isoformat()
    item = aws.client.get_item(
        TableName=aws.names["LIMITS_TABLE_NAME"], Key={"pk": {"S": quota_key(user, day)}}
    ).get("Item", {})
    return int(item.get("total", {}).get("N", "0")), int(item.get("outside", {}).get("N", "0"))


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


def test_the_relay_attempt_is_refused_by_default_and_nothing_is_sent(review_aws: Tables) -> None:
    # Given a card "Email Priya about lunch"
    draft = review_aws.add(
        email_draft(to=[resolved("Priya", PRIYA)], subject="Lunch", body="Lunch on Friday?")
    )

    # When its confirm replaces everything: 40 outside addresses and a phishing mail
    response = confirm(draft.id, PHISHING)

    # Then the default deployment (20 outside addresses a day) refuses it before SES sees it
    assert response["statusCode"] == 429
    error = json_body(response)["error"]
    assert error["code"] == "recipient_quota_exceeded"
    assert "20 a day outside" in error["message"]
    assert 1 <= int(response["headers"]["Retry-After"]) <= 24 * 3600
    assert review_aws.sent() == []
    assert used_today(review_aws) == (0, 0)
    # and the card is as it was: nothing lost, confirmable with fewer recipients
    assert review_aws.drafts.get(draft.id) == draft
    assert confirm(draft.id, {})["statusCode"] == 200


def test_with_outside_recipients_off_an_outside_address_is_422_naming_it(
    review_aws: Tables, limits: Any
) -> None:
    limits(OUTSIDE_RECIPIENTS="off", RECIPIENT_DOMAINS="example.com, corp.example")
    draft = review_aws.add(email_draft())

    refused = confirm(draft.id, {"cc": ["ops@corp.example", "attacker@evil.test"]})

    assert refused["statusCode"] == 422
    error = json_body(refused)["error"]
    assert (error["code"], error["field"]) == ("recipient_not_allowed", "cc[1]")
    assert "attacker@evil.test" in error["message"]
    assert review_aws.sent() == []
    accepted = confirm(draft.id, {"cc": ["ops@corp.example"]})
    assert accepted["statusCode"] == 200
    assert used_today(review_aws) == (2, 0)


def test_the_daily_quota_stops_one_user_and_leaves_another_served(review_aws: Tables, limits: Any) -> None:
    limits(RECIPIENTS_PER_DAY="3")
    first = review_aws.add(email_draft(session="s-1"))
    second = review_aws.add(email_draft(session="s-2"))
    theirs = review_aws.add(email_draft(owner="user-2", session="s-3"))

    ok = confirm(first.id, {"cc": ["a@example.com", "b@example.com"]})
    over = confirm(second.id, {"cc": ["c@example.com"]})
    other = confirm(theirs.id, {}, sub="user-2")

    assert ok["statusCode"] == 200
    assert over["statusCode"] == 429
    assert json_body(over)["error"]["code"] == "recipient_quota_exceeded"
    assert "used 3 today" in json_body(over)["error"]["message"]
    assert other["statusCode"] == 200
    assert [m.destinations["ToAddresses"] for m in review_aws.sent()] == [[KINSHUOK.email], [KINSHUOK.email]]
    assert used_today(review_aws) == (3, 0)
    assert used_today(review_aws, "user-2") == (1, 0)
    assert review_aws.drafts.get(second.id) == second


def test_meeting_invitations_to_outside_attendees_count_the_same(review_aws: Tables, limits: Any) -> None:
    limits(OUTSIDE_RECIPIENTS_PER_DAY="1")
    mine = "me@example.com"
    claims = {"email": mine, "email_verified": "true"}
    draft = review_aws.add(meeting_draft(attendees=[resolved("Kinshuok", KINSHUOK)]))
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
    assert used_today(review_aws) == (2, 1)


def test_a_send_ses_refuses_gives_its_count_back(review_aws: Tables, limits: Any) -> None:
    limits(SENDER_EMAIL="nobody@example.com")  # not an SES identity: SES rejects the send
    draft = review_aws.add(email_draft())

    response = confirm(draft.id, {})

    assert response["statusCode"] == 502
    assert json_body(response)["error"]["code"] == "mail_rejected"
    assert used_today(review_aws) == (0, 0)


def test_with_approval_on_an_unapproved_user_cannot_confirm(review_aws: Tables, limits: Any) -> None:
    limits(APPROVED_GROUP="senders")
    draft = review_aws.add(email_draft())

    waiting = confirm(draft.id, {})
    approved = confirm(draft.id, {}, claims={"cognito:groups": "[admins senders]"})

    assert waiting["statusCode"] == 403
    assert json_body(waiting)["error"]["code"] == "approval_required"
    assert approved["statusCode"] == 200
    assert len(review_aws.sent()) == 1


def test_with_approval_on_another_users_draft_is_still_404(review_aws: Tables, limits: Any) -> None:
    limits(APPROVED_GROUP="senders")
    draft = review_aws.add(email_draft())

    assert confirm(draft.id, {}, sub="user-2")["statusCode"] == 404
