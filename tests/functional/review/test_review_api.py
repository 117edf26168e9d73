"""The review Lambda on HTTP API v2 events against moto (DynamoDB, SES v2): get, confirm, discard."""

from __future__ import annotations

import email
import email.policy
import io
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import boto3
import pytest
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.wiring.review import aws_reviewer

from functions.review.handler import handler
from tests.functional.review.test_review_limits import confirm
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.moto_tables import REGION, Tables
from tests.support.review_support import (
    KIN_LEE,
    KINSHUOK,
    OWNER,
    SENDER,
    SLOTS,
    ambiguous,
    email_draft,
    meeting_draft,
)


def call(
    method: str, draft_id: str, verb: str = "", body: Any = None, sub: str | None = OWNER
) -> dict[str, Any]:
    path = f"/actions/{draft_id}" + (f"/{verb}" if verb else "")
    route = "/actions/{id}" + (f"/{verb}" if verb else "")
    event = http_api_event(
        method, path, body, sub=sub, path_parameters={"id": draft_id}, route_key=f"{method} {route}"
    )
    response: dict[str, Any] = handler(event, FakeLambdaContext())
    return response


def test_the_owner_gets_the_action_with_its_card(review_aws: Tables) -> None:
    draft = review_aws.add(email_draft())

    response = call("GET", draft.id)

    assert response["statusCode"] == 200
    assert response["headers"]["Content-Type"] == "application/json"
    body = json_body(response)
    assert body["id"] == draft.id
    assert body["status"] == "proposed"
    assert body["card"]["type"] == "show_new_email_draft"
    assert body["card"]["to"][0]["person"]["email"] == "kinshuok@example.com"
    assert body["retryable"] is True


@pytest.mark.parametrize(("method", "verb"), [("GET", ""), ("POST", "confirm"), ("POST", "discard")])
def test_another_users_action_is_404_and_untouched(review_aws: Tables, method: str, verb: str) -> None:
    draft = review_aws.add(email_draft())

    response = call(method, draft.id, verb, {} if method == "POST" else None, sub="user-2")

    assert response["statusCode"] == 404
    assert json_body(response)["error"]["code"] == "not_found"
    assert review_aws.drafts.get(draft.id) == draft
    assert review_aws.sent() == []


def test_without_a_signed_in_user_it_is_401(review_aws: Tables) -> None:
    draft = review_aws.add(email_draft())
    response = call("POST", draft.id, "confirm", {}, sub=None)
    assert response["statusCode"] == 401
    assert json_body(response)["error"]["code"] == "unauthenticated"


def test_confirm_sends_the_edited_email_once_through_ses(review_aws: Tables, logs: io.StringIO) -> None:
    draft = review_aws.add(email_draft())
    edits = {"subject": "The doc (final)", "body": "Confidential body text 7f3a", "cc": ["boss@example.com"]}

    first = call("POST", draft.id, "confirm", edits)
    again = call("POST", draft.id, "confirm", edits)

    assert first["statusCode"] == 200
    done = json_body(first)
    assert done["status"] == "done"
    assert done["retryable"] is False
    [message] = review_aws.sent()
    assert done["result"]["messageId"] == message.id
    assert message.source == f"multitool <{SENDER}>"  # no requester name in the token
    assert message.subject == "The doc (final)"
    assert message.body == "Confidential body text 7f3a"
    assert message.destinations == {
        "ToAddresses": ["kinshuok@example.com"],
        "CcAddresses": ["boss@example.com"],
    }
    assert again["statusCode"] == 200
    assert json_body(again)["result"] == done["result"]
    logged = logs.getvalue()
    assert draft.id in logged  # the outcome is logged, by id
    assert "Confidential body text 7f3a" not in logged
    assert "The doc (final)" not in logged
    assert "kinshuok@example.com" not in logged


def test_a_confirm_with_changed_content_after_done_is_409(review_aws: Tables) -> None:
    draft = review_aws.add(email_draft())
    call("POST", draft.id, "confirm", {})

    response = call("POST", draft.id, "confirm", {"body": "Something else"})

    assert response["statusCode"] == 409
    body = json_body(response)
    assert body["error"]["code"] == "already_done"
    assert body["action"]["status"] == "done"
    assert len(review_aws.sent()) == 1


def test_an_unsettled_name_is_422_naming_the_field(review_aws: Tables) -> None:
    draft = review_aws.add(email_draft(to=[ambiguous("Kin", KINSHUOK, KIN_LEE)]))

    refused = call("POST", draft.id, "confirm", {"subject": "Hi"})
    settled = call("POST", draft.id, "confirm", {"to": [KIN_LEE.id]})

    assert refused["statusCode"] == 422
    error = json_body(refused)["error"]
    assert (error["code"], error["field"]) == ("invalid_edits", "to[0]")
    assert settled["statusCode"] == 200
    assert review_aws.sent()[0].destinations["ToAddresses"] == ["kin.lee@example.com"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ("{not json", 400, "bad_request"),
        (["a"], 400, "bad_request"),
        ({"subject": 7}, 422, "invalid_edits"),
        ({"unknownField": 1}, 422, "invalid_edits"),
    ],
)
def test_bad_bodies_get_a_clear_error_and_lose_nothing(
    review_aws: Tables, body: Any, status: int, code: str
) -> None:
    draft = review_aws.add(email_draft())

    response = call("POST", draft.id, "confirm", body)

    assert response["statusCode"] == status
    assert json_body(response)["error"]["code"] == code
    assert review_aws.drafts.get(draft.id) == draft


def test_discard_then_confirm_is_409_and_nothing_is_sent(review_aws: Tables) -> None:
    draft = review_aws.add(email_draft())

    discarded = call("POST", draft.id, "discard")
    confirm = call("POST", draft.id, "confirm", {})

    assert discarded["statusCode"] == 200
    assert json_body(discarded)["status"] == "discarded"
    assert confirm["statusCode"] == 409
    assert json_body(confirm)["error"]["code"] == "discarded"
    assert review_aws.sent() == []


def test_discard_after_done_is_409(review_aws: Tables) -> None:
    draft = review_aws.add(email_draft())
    call("POST", draft.id, "confirm", {})

    response = call("POST", draft.id, "discard")

    assert response["statusCode"] == 409
    assert json_body(response)["error"]["code"] == "already_done"


def test_a_rejected_send_leaves_the_action_failed_with_the_edits_and_a_retry_succeeds(
    review_aws: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    draft = review_aws.add(email_draft())
    monkeypatch.setenv("SENDER_EMAIL", "not-verified@example.com")
    aws_reviewer.cache_clear()

    failed = call("POST", draft.id, "confirm", {"subject": "Kept subject"})

    assert failed["statusCode"] == 502
    body = json_body(failed)
    assert body["error"]["code"] == "mail_rejected"
    assert body["error"]["retryable"] is True
    assert body["action"]["status"] == "failed"
    stored = json_body(call("GET", draft.id))
    assert stored["status"] == "failed"
    assert "MessageRejected" in stored["error"]
    assert stored["edits"]["subject"] == "Kept subject"
    assert stored["retryable"] is True

    boto3.client("sesv2", region_name=REGION).create_email_identity(EmailIdentity="not-verified@example.com")
    retried = call("POST", draft.id, "confirm", {})

    assert retried["statusCode"] == 200
    [message] = review_aws.sent()
    assert message.subject == "Kept subject"


def test_confirming_a_meeting_sends_an_ical_request_and_books_the_slot(review_aws: Tables) -> None:
    draft = review_aws.add(meeting_draft())
    slot = {"start": SLOTS[1][0].isoformat(), "end": SLOTS[1][1].isoformat()}

    response = call("POST", draft.id, "confirm", {"slot": slot})

    assert response["statusCode"] == 200
    [message] = review_aws.sent()
    assert "kinshuok@example.com" in message.destinations
    parsed = email.message_from_string(message.raw_data)
    [calendar] = [p for p in parsed.walk() if p.get_content_type() == "text/calendar"]
    assert calendar.get_param("method") == "REQUEST"
    ics = calendar.get_payload(decode=True)
    assert isinstance(ics, bytes)
    assert f"UID:{draft.id}".encode() in ics
    assert b"DTSTART;TZID=Europe/Berlin:20261203T100000" in ics
    calendar_port = DynamoCalendar(review_aws.names["BOOKINGS_TABLE_NAME"], review_aws.client)
    busy = calendar_port.busy(["kinshuok@example.com"], SLOTS[0][0], SLOTS[1][1] + timedelta(hours=1))
    assert [(i.start, i.end) for i in busy["kinshuok@example.com"]] == [SLOTS[1]]


def test_an_unknown_route_is_a_json_404(review_aws: Tables) -> None:
    event = http_api_event("POST", "/actions/d_1/archive", {}, sub=OWNER)
    response = handler(event, FakeLambdaContext())
    assert response["statusCode"] == 404
    assert json_body(response)["error"]["code"] == "not_found"


def test_sandbox_results_are_labelled(review_aws: Tables, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SANDBOX", "true")
    aws_reviewer.cache_clear()
    draft = review_aws.add(email_draft())

    response = call("POST", draft.id, "confirm", {})

    assert json_body(response)["result"]["sandbox"] is True


@pytest.mark.parametrize(
    ("subject", "sent_subject"),
    [
        ("A\x00B\x1b[31mC\x07", "ABC"),
        ("Q3\u2028plan\u0085review", "Q3 plan review"),
        ("Plan\r\nBcc: everyone@example.com", "Plan Bcc: everyone@example.com"),
    ],
)
def test_a_confirmed_subject_reaches_ses_without_controls_or_line_breaks(
    review_aws: Tables, subject: str, sent_subject: str
) -> None:
    draft = review_aws.add(email_draft())

    response = call(
        "POST", draft.id, "confirm", {"subject": subject, "body": "Hi,\r\n\r\nsee\x00 below\u2028ok"}
    )

    assert response["statusCode"] == 200
    [message] = review_aws.sent()
    assert message.subject == sent_subject
    assert message.body == "Hi,\n\nsee below\nok"
    assert json_body(response)["edits"]["subject"] == sent_subject


def test_a_confirmed_subject_that_is_only_controls_is_the_empty_subject_error(review_aws: Tables) -> None:
    draft = review_aws.add(email_draft())

    cleaned = call("POST", draft.id, "confirm", {"subject": "\x00\r\n\u2028\x1b[0m"})
    empty = call("POST", draft.id, "confirm", {"subject": ""})

    assert cleaned["statusCode"] == empty["statusCode"] == 422
    assert json_body(cleaned)["error"] == json_body(empty)["error"]
    assert json_body(cleaned)["error"]["field"] == "subject"
    assert review_aws.sent() == []
    assert call("GET", draft.id)["statusCode"] == 200
    assert json_body(call("GET", draft.id))["status"] == "proposed"


ALEX = {"name": "Alex Müller", "email": "alex.mueller@example.com", "email_verified": "true"}


@pytest.fixture
def send_requests() -> Iterator[list[dict[str, Any]]]:
    """SendEmail requests of the clients the review function makes (moto keeps no Reply-To)."""
    seen: list[dict[str, Any]] = []

    def record(params: dict[str, Any], **_: Any) -> None:
        seen.append(params)

    events = boto3._get_default_session().events
    events.register("provide-client-params.sesv2.SendEmail", record)
    aws_reviewer.cache_clear()
    yield seen
    events.unregister("provide-client-params.sesv2.SendEmail", record)


def test_mail_is_from_the_requester_via_multitool_and_replies_go_to_their_verified_address(
    review_aws: Tables, send_requests: list[dict[str, Any]]
) -> None:
    draft = review_aws.add(email_draft())

    assert confirm(draft.id, {}, claims=ALEX)["statusCode"] == 200

    [message] = review_aws.sent()
    [mailbox] = email.message_from_string(f"From: {message.source}\n\n", policy=email.policy.default)[
        "From"
    ].addresses
    assert (mailbox.display_name, mailbox.addr_spec) == ("Alex Müller via multitool", SENDER)
    [request] = send_requests
    assert request["ReplyToAddresses"] == ["alex.mueller@example.com"]


def test_an_unverified_address_is_no_reply_to(
    review_aws: Tables, send_requests: list[dict[str, Any]]
) -> None:
    draft = review_aws.add(email_draft())

    assert confirm(draft.id, {}, claims={**ALEX, "email_verified": "false"})["statusCode"] == 200

    [request] = send_requests
    assert "ReplyToAddresses" not in request


def test_the_meeting_invitation_reaches_the_organizer_from_them_via_multitool(review_aws: Tables) -> None:
    draft = review_aws.add(meeting_draft())

    response = confirm(
        draft.id, {"slot": {"start": SLOTS[0][0].isoformat(), "end": SLOTS[0][1].isoformat()}}, claims=ALEX
    )

    assert response["statusCode"] == 200
    [message] = review_aws.sent()
    assert set(message.destinations) == {"alex.mueller@example.com", "kinshuok@example.com"}
    # moto keeps the raw message as text; its 8-bit UTF-8 parts are read back as bytes
    parsed = email.message_from_bytes(message.raw_data.encode(), policy=email.policy.default)
    assert [a.addr_spec for a in parsed["To"].addresses] == [
        "kinshuok@example.com",
        "alex.mueller@example.com",
    ]
    [sender] = parsed["From"].addresses
    assert (sender.display_name, sender.addr_spec) == ("Alex Müller via multitool", SENDER)
    assert parsed["Reply-To"] == "alex.mueller@example.com"
    [calendar] = [p for p in parsed.walk() if p.get_content_type() == "text/calendar"]
    assert 'ORGANIZER;CN="Alex Müller":mailto:alex.mueller@example.com' in calendar.get_content().replace(
        "\r\n ", ""
    )
