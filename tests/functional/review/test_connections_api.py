"""The consent callback and the connections routes of the review API, on HTTP API v2 events with the JWT
authorizer's claims and the caller's bearer token; CompleteResourceTokenAuth on a real bedrock-agentcore
client under Stubber (validated against the layer's model), consents in moto's DynamoDB."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from multitool.api.review_app import review_app
from multitool.ports.connections import DynamoConnections
from multitool.review.accounts import Accounts

from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.moto_tables import Tables

SESSION = "urn:ietf:params:oauth:request_uri:a1b2c3d4-session"
ANA_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbmEifQ.c2lnbmF0dXJl"
MALLORY_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.c2lnbmF0dXJl"


class Api:
    def __init__(self, app: Any, stubber: Stubber, connections: DynamoConnections) -> None:
        self.app = app
        self.stubber = stubber
        self.connections = connections

    def call(
        self, method: str, path: str, body: Any = None, *, sub: str, token: str | None
    ) -> dict[str, Any]:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        event = http_api_event(method, path, body, sub=sub, headers=headers)
        response: dict[str, Any] = self.app.resolve(event, FakeLambdaContext())
        return response


@pytest.fixture
def api(moto_tables: Tables, monkeypatch: pytest.MonkeyPatch) -> Iterator[Api]:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    client = boto3.client("bedrock-agentcore", region_name="us-east-1")
    connections = DynamoConnections(moto_tables.names["LIMITS_TABLE_NAME"], moto_tables.client)
    accounts = Accounts(client, connections, ("microsoft365",))
    app = review_app(
        reviewer=lambda: pytest.fail("no review here"), limiter=lambda: None, accounts=lambda: accounts
    )
    with Stubber(client) as stubber:
        yield Api(app, stubber, connections)
        stubber.assert_no_pending_responses()


def test_the_user_who_asked_finishes_the_consent_with_their_own_token(api: Api) -> None:
    api.connections.pending("ana", "microsoft365", SESSION)
    api.stubber.add_response(
        "complete_resource_token_auth", {}, {"sessionUri": SESSION, "userIdentifier": {"userToken": ANA_JWT}}
    )

    response = api.call(
        "POST",
        "/connections/complete",
        {"sessionUri": SESSION, "provider": "microsoft365"},
        sub="ana",
        token=ANA_JWT,
    )

    assert response["statusCode"] == 200
    assert json_body(response) == {
        "provider": "microsoft365",
        "providerName": "Microsoft 365",
        "status": "connected",
    }
    connection = api.connections.get("ana", "microsoft365")
    assert connection is not None
    assert connection.status == "completed"


def test_another_signed_in_user_cannot_finish_someone_elses_consent(api: Api) -> None:
    api.connections.pending("ana", "microsoft365", SESSION)

    # Mallory got Ana's link (forwarded by mistake), consented, and the return URL reached her page.
    response = api.call(
        "POST",
        "/connections/complete",
        {"sessionUri": SESSION, "provider": "microsoft365"},
        sub="mallory",
        token=MALLORY_JWT,
    )

    assert response["statusCode"] == 403
    assert json_body(response)["error"]["code"] == "consent_not_yours"
    # Nothing reached AgentCore (the Stubber has no response queued) and Ana's consent still waits for her.
    connection = api.connections.get("ana", "microsoft365")
    assert connection is not None
    assert (connection.status, connection.session_uri) == ("pending", SESSION)
    assert api.connections.get("mallory", "microsoft365") is None


def test_a_consent_is_finished_once(api: Api) -> None:
    api.connections.pending("ana", "microsoft365", SESSION)
    api.stubber.add_response(
        "complete_resource_token_auth", {}, {"sessionUri": SESSION, "userIdentifier": {"userToken": ANA_JWT}}
    )
    body = {"sessionUri": SESSION, "provider": "microsoft365"}
    assert api.call("POST", "/connections/complete", body, sub="ana", token=ANA_JWT)["statusCode"] == 200

    again = api.call("POST", "/connections/complete", body, sub="ana", token=ANA_JWT)

    assert again["statusCode"] == 403


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"provider": "microsoft365"}, "sessionUri"),
        ({"sessionUri": "https://evil.example.com/", "provider": "microsoft365"}, "sessionUri"),
        ({"sessionUri": SESSION + " x", "provider": "microsoft365"}, "sessionUri"),
        ({"sessionUri": SESSION, "provider": "google"}, "provider"),
    ],
)
def test_a_malformed_callback_is_a_400_naming_the_field(api: Api, body: dict[str, Any], field: str) -> None:
    api.connections.pending("ana", "microsoft365", SESSION)

    response = api.call("POST", "/connections/complete", body, sub="ana", token=ANA_JWT)

    assert response["statusCode"] == 400
    assert json_body(response)["error"]["field"] == field
    connection = api.connections.get("ana", "microsoft365")
    assert connection is not None
    assert connection.status == "pending"


def test_no_bearer_token_is_refused_before_anything_changes(api: Api) -> None:
    api.connections.pending("ana", "microsoft365", SESSION)

    response = api.call("POST", "/connections/complete", {"sessionUri": SESSION}, sub="ana", token=None)

    assert response["statusCode"] == 400
    assert json_body(response)["error"]["field"] == "Authorization"


def test_agentcore_refusing_the_completion_is_answered_as_the_provider_error(api: Api) -> None:
    api.connections.pending("ana", "microsoft365", SESSION)
    api.stubber.add_client_error(
        "complete_resource_token_auth",
        service_error_code="ThrottlingException",
        http_status_code=429,
        expected_params={"sessionUri": SESSION, "userIdentifier": {"userToken": ANA_JWT}},
    )

    response = api.call("POST", "/connections/complete", {"sessionUri": SESSION}, sub="ana", token=ANA_JWT)

    assert response["statusCode"] == 503
    assert json_body(response)["error"] == {
        "code": "provider_throttled",
        "message": "Too many requests for Microsoft 365 accounts; try again shortly.",
        "provider": "microsoft365",
    }
    assert response["headers"]["Retry-After"] == "2"


def test_a_finished_consent_is_listed_connected_before_its_token_is_used(api: Api) -> None:
    api.connections.pending("ana", "microsoft365", SESSION)
    listed = json_body(api.call("GET", "/connections", sub="ana", token=ANA_JWT))
    assert listed["connections"][0]["status"] == "pending"
    api.stubber.add_response(
        "complete_resource_token_auth", {}, {"sessionUri": SESSION, "userIdentifier": {"userToken": ANA_JWT}}
    )
    body = {"sessionUri": SESSION, "provider": "microsoft365"}
    assert api.call("POST", "/connections/complete", body, sub="ana", token=ANA_JWT)["statusCode"] == 200

    listed = json_body(api.call("GET", "/connections", sub="ana", token=ANA_JWT))

    assert listed["connections"][0]["status"] == "connected"


def test_list_and_disconnect(api: Api) -> None:
    listed = api.call("GET", "/connections", sub="ana", token=ANA_JWT)
    assert json_body(listed) == {
        "connections": [
            {"provider": "microsoft365", "providerName": "Microsoft 365", "status": "not_connected"}
        ]
    }
    api.connections.connected("ana", "microsoft365")
    assert (
        json_body(api.call("GET", "/connections", sub="ana", token=ANA_JWT))["connections"][0]["status"]
        == "connected"
    )

    response = api.call("POST", "/connections/microsoft365/disconnect", sub="ana", token=ANA_JWT)

    assert response["statusCode"] == 200
    assert json_body(response)["status"] == "disconnected"
    connection = api.connections.get("ana", "microsoft365")
    assert connection is not None
    assert connection.status == "disconnected"
    # Another user's accounts are untouched and unseen.
    assert json_body(api.call("GET", "/connections", sub="bo", token=MALLORY_JWT))["connections"][0][
        "status"
    ] == ("not_connected")
    assert api.call("POST", "/connections/slack/disconnect", sub="ana", token=ANA_JWT)["statusCode"] == 400


def test_a_deployment_without_identity_answers_404() -> None:
    app = review_app(
        reviewer=lambda: pytest.fail("no review here"), limiter=lambda: None, accounts=lambda: None
    )
    response = app.resolve(http_api_event("GET", "/connections", sub="ana"), FakeLambdaContext())
    assert response["statusCode"] == 404
    assert json_body(response)["error"]["code"] == "not_found"
