"""No request makes the HTTP APIs answer 5xx: bodies, headers and paths of any shape, on real handlers.

Events are API Gateway HTTP API v2 payloads (``tests.support.http_events``) sent to the
deployed orchestrator and review handlers over moto (DynamoDB, SES v2); the
local server's own routes (sandbox outbox, directory, page files) are swept
through :func:`multitool.local.sandbox.server.route_request` with the same inputs.
Every answer must be below 500 and carry a JSON error body when it is an error.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import boto3
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from moto import mock_aws
from multitool.local.sandbox.api_gateway import LocalApi
from multitool.local.sandbox.embedded import load_seed
from multitool.local.sandbox.server import repo_root, route_request
from multitool.local.standins.jira_server import start_fake_jira
from multitool.ports.directory import seed_people
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.tables import create_all
from multitool.wiring.orchestrator import aws_chat_service
from multitool.wiring.review import aws_reviewer

from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.review_support import OWNER, SENDER, email_draft, jira_draft, meeting_draft

SWEEP = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
UNDECODABLE = b'{"subject": "\xff"}'


@pytest.fixture(scope="module")
def aws() -> Iterator[dict[str, Any]]:
    """Every table in moto, the sender verified, the Jira sandbox, the offline runtime: all of it runs."""
    with pytest.MonkeyPatch.context() as patch, mock_aws(), start_fake_jira() as jira:
        dynamodb = boto3.client("dynamodb")
        boto3.client("sesv2").create_email_identity(EmailIdentity=SENDER)
        tables = create_all(dynamodb)
        seed_people(dynamodb, tables["DIRECTORY_TABLE_NAME"], load_seed().people)
        for name, value in tables.items():
            patch.setenv(name, value)
        patch.setenv("RUNTIME", "offline")
        patch.setenv("SENDER_EMAIL", SENDER)
        patch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
        patch.delenv("JIRA_SECRET_ARN", raising=False)
        patch.setenv("SANDBOX", "true")
        patch.setenv("JIRA_BASE_URL", jira.url)
        aws_chat_service.cache_clear()
        aws_reviewer.cache_clear()
        yield {"dynamodb": dynamodb, "drafts": DynamoDraftStore(tables["DRAFTS_TABLE_NAME"], dynamodb)}
        aws_chat_service.cache_clear()
        aws_reviewer.cache_clear()


def review(event: dict[str, Any]) -> dict[str, Any]:
    from functions.review.handler import handler

    return handler(event, FakeLambdaContext())  # type: ignore[no-any-return]


def chat(event: dict[str, Any]) -> dict[str, Any]:
    from functions.orchestrator.handler import handler

    return handler(event, FakeLambdaContext())  # type: ignore[no-any-return]


def assert_client_error_at_most(response: dict[str, Any]) -> None:
    assert response["statusCode"] < 500, response.get("body")
    if response["statusCode"] >= 400:
        error = json_body(response)["error"]
        assert isinstance(error["code"], str)
        assert isinstance(error["message"], str)
        assert error["code"]
        assert error["message"]


def review_event(method: str, draft_id: str, verb: str, **kwargs: Any) -> dict[str, Any]:
    path = f"/actions/{quote(draft_id, safe='')}" + (f"/{verb}" if verb else "")
    route = "POST /actions/{id}/" + verb if verb else "GET /actions/{id}"
    return http_api_event(
        method, path, sub=OWNER, path_parameters={"id": draft_id}, route_key=route, **kwargs
    )


# --------------------------------------------------------------------------- the reported defect


def test_a_confirm_body_that_is_not_utf8_is_400_bad_request_like_chat(aws: dict[str, Any]) -> None:
    [draft] = aws["drafts"].create_many([email_draft()])

    response = review(review_event("POST", draft.id, "confirm", body=UNDECODABLE))

    assert response["statusCode"] == 400
    error = json_body(response)["error"]
    assert error["code"] == "bad_request"
    assert "UTF-8" in error["message"]
    assert aws["drafts"].get(draft.id) == draft  # nothing was sent or moved


@pytest.mark.parametrize(
    ("body", "is_base64"),
    [
        (base64.b64encode(UNDECODABLE).decode(), True),  # base64 of bytes that are not UTF-8
        ('{"subject": "x"}', True),  # flagged base64, but plain JSON
        ("bm90IGpzb24=%%%", True),  # flagged base64, not base64 at all
        ("\ud800", True),  # flagged base64 with a lone surrogate (cannot even be encoded)
    ],
)
def test_bodies_the_flag_says_are_base64_but_cannot_be_decoded_are_400_on_both_apps(
    aws: dict[str, Any], body: str, is_base64: bool
) -> None:
    [draft] = aws["drafts"].create_many([email_draft()])
    for event in (
        review_event("POST", draft.id, "confirm"),
        http_api_event("POST", "/chat", sub=OWNER),
    ):
        event["body"], event["isBase64Encoded"] = body, is_base64
        response = review(event) if event["rawPath"] != "/chat" else chat(event)

        assert response["statusCode"] == 400, response["body"]
        assert json_body(response)["error"]["code"] == "bad_request"


def test_edits_with_a_lone_surrogate_are_400_and_the_draft_stays_proposed(aws: dict[str, Any]) -> None:
    [draft] = aws["drafts"].create_many([email_draft()])

    response = review(review_event("POST", draft.id, "confirm", body='{"subject": "\\ud800 hi"}'))

    assert response["statusCode"] == 400
    assert json_body(response)["error"]["code"] == "bad_request"
    assert aws["drafts"].get(draft.id) == draft


def test_a_chat_message_with_a_lone_surrogate_is_400_naming_the_body(aws: dict[str, Any]) -> None:
    response = chat(http_api_event("POST", "/chat", '{"message": "\ud800"}', sub=OWNER))

    assert response["statusCode"] == 400
    message = json_body(response)["error"]["message"]
    assert "''" not in message
    assert "UTF-8" in message


# --------------------------------------------------------------------------- the sweep

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
card_fields = st.sampled_from(
    [
        "to",
        "cc",
        "subject",
        "body",
        "title",
        "attendees",
        "slot",
        "project",
        "issueType",
        "summary",
        "description",
        "priority",
        "assignee",
        "fields",
        "",
    ]
)
edits = st.dictionaries(card_fields, json_values, max_size=4).map(json.dumps)
nested = st.integers(min_value=1, max_value=200_000).map(lambda n: "[" * n + "]" * n)
text_bodies = st.one_of(edits, st.text(), json_values.map(json.dumps), nested, st.just(""))
header_values = st.text(max_size=200) | st.sampled_from(["", " ", '"', "\x00", "ü", "a" * 129, "\r\n"])


@st.composite
def bodies(draw: st.DrawFn) -> tuple[str | None, bool]:
    """A body as API Gateway may pass it: text, base64 bytes, or the flag and the content at odds."""
    kind = draw(st.sampled_from(["text", "base64", "flag-without-base64", "base64-without-flag", "none"]))
    if kind == "none":
        return None, False
    if kind == "text":
        return draw(text_bodies), False
    raw = draw(st.binary(max_size=200) | text_bodies.map(lambda t: t.encode("utf-8", "surrogatepass")))
    encoded = base64.b64encode(raw).decode("ascii")
    if kind == "base64":
        return encoded, True
    if kind == "base64-without-flag":
        return encoded, False
    return draw(text_bodies), True


@st.composite
def headers(draw: st.DrawFn) -> dict[str, str]:
    names = st.sampled_from(["Idempotency-Key", "Content-Type", "Content-Length", "X-Local-User", "Cookie"])
    return draw(st.dictionaries(names, header_values, max_size=3))


# What API Gateway can pass as a path parameter: decoded text (never a lone surrogate).
draft_ids = st.one_of(
    st.text(st.characters(exclude_categories=["Cs"]), max_size=80),
    st.sampled_from(["", "%00", "a\x00b", "%ff%fe", "..", "a/b", "d_" + "f" * 5000, "é" * 300]),
)


def with_body(event: dict[str, Any], body: tuple[str | None, bool]) -> dict[str, Any]:
    text, is_base64 = body
    event.pop("body", None)
    if text is not None:
        event["body"] = text
    event["isBase64Encoded"] = is_base64
    return event


@SWEEP
@given(body=bodies(), extra=headers(), kind=st.sampled_from(["email", "meeting", "jira"]))
def test_no_confirm_body_or_header_makes_the_review_api_fail(
    aws: dict[str, Any], body: tuple[str | None, bool], extra: dict[str, str], kind: str
) -> None:
    make = {"email": email_draft, "meeting": meeting_draft, "jira": jira_draft}[kind]
    [draft] = aws["drafts"].create_many([make(session=os.urandom(6).hex())])

    for method, verb in (("POST", "confirm"), ("POST", "discard"), ("GET", "")):
        event = with_body(review_event(method, draft.id, verb, headers=extra), body)

        assert_client_error_at_most(review(event))


@SWEEP
@given(draft_id=draft_ids, body=bodies(), verb=st.sampled_from(["", "confirm", "discard"]))
def test_no_path_makes_the_review_api_fail(
    aws: dict[str, Any], draft_id: str, body: tuple[str | None, bool], verb: str
) -> None:
    event = with_body(review_event("POST" if verb else "GET", draft_id, verb), body)

    assert_client_error_at_most(review(event))


@settings(SWEEP, max_examples=80)
@given(body=bodies(), extra=headers())
def test_no_chat_body_or_header_makes_the_chat_api_fail(
    aws: dict[str, Any], body: tuple[str | None, bool], extra: dict[str, str]
) -> None:
    event = with_body(http_api_event("POST", "/chat", sub=OWNER, headers=extra), body)

    assert_client_error_at_most(chat(event))


@pytest.fixture(scope="module")
def local_api(aws: dict[str, Any]) -> LocalApi:
    return LocalApi(repo_root() / "functions", load_seed(), outbox=lambda user: {"emails": [], "issues": []})


@settings(SWEEP, max_examples=150)
@given(
    method=st.sampled_from(["GET", "POST", "HEAD", "PUT", "DELETE"]),
    path=st.one_of(
        st.sampled_from(
            [
                "/sandbox/outbox",
                "/local/users",
                "/config.json",
                "/",
                "/app.js",
                "/chat",
                "/actions/x",
                "/actions/x/confirm",
                "/%00",
                "/%ff",
                "/..%2f..%2fetc%2fpasswd",
                "/" + "a" * 5000,
            ]
        ),
        st.text(max_size=60).map(lambda t: "/" + t),
        st.text(max_size=60).map(lambda t: "/" + quote(t, safe="/%")),
    ),
    query=st.text(max_size=30),
    body=st.binary(max_size=300),
    extra=headers(),
)
# A target that starts with "//" is a path, never an authority ("//[" once raised "Invalid IPv6 URL").
@example(method="GET", path="//[", query="", body=b"", extra={})
@example(method="POST", path="//[::1/chat", query="a=1", body=b"{}", extra={})
def test_no_request_makes_the_local_server_fail(
    local_api: LocalApi, method: str, path: str, query: str, body: bytes, extra: dict[str, str]
) -> None:
    response = route_request(
        local_api,
        repo_root() / "web",
        method,
        path + (f"?{query}" if query else ""),
        headers={"X-Local-User": "jordan", **extra},
        body=body,
    )

    assert response.status < 500, response.body[:300]
    if response.status >= 400:
        assert isinstance(response.json(), dict)
