"""A confirm on a Microsoft 365 deployment whose user has not connected the calendar yet, over HTTP.

The review app on wire-shaped HTTP API events with the caller's JWT in the Authorization header;
the real AgentCore Identity token source on a real ``bedrock-agentcore`` client under botocore's
Stubber (every request validated against the service model); Graph an in-memory one that checks
every request against Graph's own description; drafts and consents in moto.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws
from multitool.api.review_app import review_app
from multitool.drafts import DraftStatus
from multitool.local.standins.graph_state import GraphPool, GraphState, WorkingHours
from multitool.ports.agentcore.tokens import AgentCoreTokens
from multitool.ports.connections import DynamoConnections
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.microsoft365.graph import CALENDAR_SCOPES
from multitool.ports.tables import create_all
from multitool.review import ReviewConfig
from multitool.review.reviewer import Reviewer
from multitool.settings.review import ReviewSettings
from multitool.wiring.review import caller_suites

from tests.support.agentcore_identity import (
    ALEX,
    AUTH_URL,
    JWT,
    PROVIDER_NAME,
    RETURN_URL,
    SESSION,
    WORKLOAD,
    WORKLOAD_TOKEN,
)
from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.review_support import KINSHUOK, NOW, OWNER, PRIYA, SENDER, SLOTS, meeting_draft, resolved

FIRST = {"start": SLOTS[0][0].isoformat(), "end": SLOTS[0][1].isoformat()}


@pytest.fixture
def review(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        dynamodb = boto3.client("dynamodb")
        tables = create_all(dynamodb)
        settings = ReviewSettings.from_env(
            {
                **tables,
                "SENDER_EMAIL": SENDER,
                "CALENDAR": "microsoft365",
                "PROVIDER_BASE_URL": "http://graph.local/v1.0",
            }
        )
        graph = GraphState()
        for name, email, zone in [
            ("Alex Müller", ALEX, "W. Europe Standard Time"),
            (PRIYA.display_name, PRIYA.email, "W. Europe Standard Time"),
            (KINSHUOK.display_name, KINSHUOK.email, "India Standard Time"),
        ]:
            graph.add_user(name, email, working=WorkingHours(zone=zone))
        agentcore = boto3.client("bedrock-agentcore")
        tokens = AgentCoreTokens(
            agentcore,
            workload_name=WORKLOAD,
            credential_providers={"microsoft365": PROVIDER_NAME},
            return_url=RETURN_URL,
            connections=DynamoConnections(tables["LIMITS_TABLE_NAME"], dynamodb),
        )
        drafts = DynamoDraftStore(tables["DRAFTS_TABLE_NAME"], dynamodb)
        reviewer = Reviewer(
            drafts,
            mailer=None,  # type: ignore[arg-type]  # a provider deployment mails from the user's own mailbox
            calendar=None,  # type: ignore[arg-type]
            jira=None,
            config=ReviewConfig(sender_email=SENDER),
            clock=lambda: NOW,
            suites=caller_suites(settings, GraphPool(graph), tokens),  # type: ignore[arg-type]
        )
        app = review_app(lambda: reviewer, lambda: None, lambda: None)
        with Stubber(agentcore) as stubber:
            yield {"app": app, "stubber": stubber, "drafts": drafts, "graph": graph}
            stubber.assert_no_pending_responses()


def oauth2_request(**extra: Any) -> dict[str, Any]:
    return {
        "workloadIdentityToken": WORKLOAD_TOKEN,
        "resourceCredentialProviderName": PROVIDER_NAME,
        "scopes": list(CALENDAR_SCOPES),
        "oauth2Flow": "USER_FEDERATION",
        "resourceOauth2ReturnUrl": RETURN_URL,
        **extra,
    }


def confirm(app: Any, draft_id: str) -> dict[str, Any]:
    event = http_api_event(
        "POST",
        f"/actions/{draft_id}/confirm",
        {"slot": FIRST},
        sub=OWNER,
        path_parameters={"id": draft_id},
        route_key="POST /actions/{id}/confirm",
        headers={"Authorization": f"Bearer {JWT}"},
        claims={"email": ALEX, "email_verified": "true"},
    )
    response: dict[str, Any] = app.resolve(event, FakeLambdaContext())
    return response


def test_a_confirm_before_consent_is_403_with_the_link_and_the_draft_stays_confirmable(
    review: dict[str, Any],
) -> None:
    # Given: a meeting card, and AgentCore holding no consent of this user for the calendar.
    [draft] = review["drafts"].create_many([meeting_draft(attendees=[resolved("Priya", PRIYA)])])
    stubber: Stubber = review["stubber"]
    stubber.add_response(
        "get_workload_access_token_for_jwt",
        {"workloadAccessToken": WORKLOAD_TOKEN},
        {"workloadName": WORKLOAD, "userToken": JWT},  # the caller's own JWT, from the Authorization header
    )
    stubber.add_response(
        "get_resource_oauth2_token",
        {"authorizationUrl": AUTH_URL, "sessionUri": SESSION, "sessionStatus": "IN_PROGRESS"},
        oauth2_request(),
    )

    # When
    refused = confirm(review["app"], draft.id)

    # Then: the consent link, and nothing booked.
    assert refused["statusCode"] == 403
    body = json_body(refused)
    assert body["error"] == {
        "code": "account_not_connected",
        "message": "Connect your Microsoft 365 account to go on; nothing was sent.",
        "provider": "microsoft365",
        "providerName": "Microsoft 365",
        "authorizationUrl": AUTH_URL,
    }
    assert body["action"]["status"] == "proposed"
    assert review["graph"].events == []

    # When the user has consented (the vault answers the token for the session it started)
    stubber.add_response(
        "get_resource_oauth2_token", {"accessToken": "graph-token"}, oauth2_request(sessionUri=SESSION)
    )
    for _ in range(2):  # the slot re-check and the booking
        stubber.add_response("get_resource_oauth2_token", {"accessToken": "graph-token"}, oauth2_request())
    booked = confirm(review["app"], draft.id)

    # Then the same draft is booked
    assert booked["statusCode"] == 200, json_body(booked)
    assert json_body(booked)["status"] == "done"
    assert review["drafts"].get(draft.id).status is DraftStatus.DONE  # type: ignore[union-attr]
    assert len(review["graph"].events) == 1
