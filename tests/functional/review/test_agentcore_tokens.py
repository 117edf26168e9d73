"""The AgentCore Identity token source on a real ``bedrock-agentcore`` client under botocore's Stubber:
every request is validated against the layer's service model before the stub answers, and every
answer against the model's output shape. Consents are kept in moto's DynamoDB."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore
import pytest
from botocore.stub import Stubber
from multitool.ports.agentcore.tokens import AgentCoreTokens
from multitool.ports.connections import ConsentNotFound, DynamoConnections
from multitool.ports.tokens import (
    Account,
    AccountNotConnected,
    ProviderRefused,
    ProviderThrottled,
    ProviderUnavailable,
)

from tests.support.moto_tables import Tables

WORKLOAD = "multitool-identity-a1b2c3"
PROVIDER_NAME = "multitool-microsoft365-a1b2c3"
RETURN_URL = "https://chat.example.com/connected"
SCOPES = ["offline_access", "Calendars.ReadWrite", "Mail.Send", "User.ReadBasic.All"]
JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJl"
OTHER_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTIifQ.c2lnbmF0dXJl"
WORKLOAD_TOKEN = "workload-access-token-for-user-1"
SESSION = "urn:ietf:params:oauth:request_uri:a1b2c3d4-session"
AUTH_URL = "https://bedrock-agentcore.us-east-1.amazonaws.com/identities/oauth2/authorize?request_uri=abc"
USER = Account("user-1", "ana@example.com", JWT)


@pytest.fixture
def identity(
    moto_tables: Tables, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[AgentCoreTokens, Stubber, DynamoConnections]]:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    client = boto3.client("bedrock-agentcore", region_name="us-east-1")
    connections = DynamoConnections(moto_tables.names["LIMITS_TABLE_NAME"], moto_tables.client)
    tokens = AgentCoreTokens(
        client,
        workload_name=WORKLOAD,
        credential_providers={"microsoft365": PROVIDER_NAME},
        return_url=RETURN_URL,
        connections=connections,
    )
    with Stubber(client) as stubber:
        yield tokens, stubber, connections
        stubber.assert_no_pending_responses()


def expect_workload_token(stubber: Stubber, user_token: str = JWT) -> None:
    stubber.add_response(
        "get_workload_access_token_for_jwt",
        {"workloadAccessToken": WORKLOAD_TOKEN},
        {"workloadName": WORKLOAD, "userToken": user_token},
    )


def oauth2_request(**extra: Any) -> dict[str, Any]:
    return {
        "workloadIdentityToken": WORKLOAD_TOKEN,
        "resourceCredentialProviderName": PROVIDER_NAME,
        "scopes": SCOPES,
        "oauth2Flow": "USER_FEDERATION",
        "resourceOauth2ReturnUrl": RETURN_URL,
        **extra,
    }


def test_layer_botocore_has_every_identity_operation() -> None:
    model = botocore.session.get_session().get_service_model("bedrock-agentcore")
    pinned = re.search(r"^botocore==(\S+)", Path("infra/layer.lock").read_text(), re.M)
    assert pinned is not None
    assert botocore.__version__ == pinned.group(1)
    for operation in ("GetWorkloadAccessTokenForJWT", "GetResourceOauth2Token", "CompleteResourceTokenAuth"):
        assert operation in model.operation_names
    # Nothing removes a user's token from the vault: the docs and disconnect rely on it.
    assert not [
        name
        for name in model.operation_names
        if name.startswith(("Delete", "Revoke", "Remove")) and ("Token" in name or "Oauth2" in name)
    ]


def test_a_consented_user_gets_the_access_token(identity) -> None:
    tokens, stubber, connections = identity
    expect_workload_token(stubber)
    stubber.add_response("get_resource_oauth2_token", {"accessToken": "graph-token"}, oauth2_request())

    assert tokens.access_token("microsoft365", USER, SCOPES) == "graph-token"
    connection = connections.get("user-1", "microsoft365")
    assert connection is not None
    assert connection.status == "connected"


def test_no_consent_yet_answers_the_link_and_keeps_the_session_for_its_user(identity) -> None:
    tokens, stubber, connections = identity
    expect_workload_token(stubber)
    stubber.add_response(
        "get_resource_oauth2_token",
        {"authorizationUrl": AUTH_URL, "sessionUri": SESSION, "sessionStatus": "IN_PROGRESS"},
        oauth2_request(),
    )

    with pytest.raises(AccountNotConnected) as raised:
        tokens.access_token("microsoft365", USER, SCOPES)

    assert raised.value.status == 403
    assert raised.value.detail() == {
        "provider": "microsoft365",
        "providerName": "Microsoft 365",
        "authorizationUrl": AUTH_URL,
    }
    connection = connections.get("user-1", "microsoft365")
    assert connection is not None
    assert (connection.status, connection.session_uri) == ("pending", SESSION)
    assert connections.get("user-2", "microsoft365") is None


def test_after_the_callback_the_session_goes_back_and_the_token_comes(identity) -> None:
    tokens, stubber, connections = identity
    connections.pending("user-1", "microsoft365", SESSION)
    connections.complete("user-1", "microsoft365", SESSION)
    expect_workload_token(stubber)
    stubber.add_response(
        "get_resource_oauth2_token", {"accessToken": "graph-token"}, oauth2_request(sessionUri=SESSION)
    )

    assert tokens.access_token("microsoft365", USER, SCOPES) == "graph-token"
    connection = connections.get("user-1", "microsoft365")
    assert connection is not None
    assert (connection.status, connection.session_uri) == ("connected", None)


def test_an_expired_session_asks_again_for_a_fresh_link(identity) -> None:
    tokens, stubber, connections = identity
    connections.pending("user-1", "microsoft365", SESSION)
    expect_workload_token(stubber)
    stubber.add_client_error(
        "get_resource_oauth2_token",
        service_error_code="ValidationException",
        service_message="Session expired",
        http_status_code=400,
        expected_params=oauth2_request(sessionUri=SESSION),
    )
    fresh = "urn:ietf:params:oauth:request_uri:fresh-session"
    stubber.add_response(
        "get_resource_oauth2_token", {"authorizationUrl": AUTH_URL, "sessionUri": fresh}, oauth2_request()
    )

    with pytest.raises(AccountNotConnected) as raised:
        tokens.access_token("microsoft365", USER, SCOPES)

    assert raised.value.authorization_url == AUTH_URL
    connection = connections.get("user-1", "microsoft365")
    assert connection is not None
    assert connection.session_uri == fresh


def test_a_failed_session_asks_again_for_a_fresh_link(identity) -> None:
    tokens, stubber, connections = identity
    connections.pending("user-1", "microsoft365", SESSION)
    expect_workload_token(stubber)
    stubber.add_response(
        "get_resource_oauth2_token",
        {"sessionUri": SESSION, "sessionStatus": "FAILED"},
        oauth2_request(sessionUri=SESSION),
    )
    stubber.add_response(
        "get_resource_oauth2_token",
        {"authorizationUrl": AUTH_URL, "sessionUri": SESSION + "2"},
        oauth2_request(),
    )

    with pytest.raises(AccountNotConnected):
        tokens.access_token("microsoft365", USER, SCOPES)


def test_a_disconnected_account_forces_a_new_consent(identity) -> None:
    tokens, stubber, connections = identity
    connections.disconnected("user-1", "microsoft365")
    expect_workload_token(stubber)
    stubber.add_response(
        "get_resource_oauth2_token",
        {"authorizationUrl": AUTH_URL, "sessionUri": SESSION},
        oauth2_request(forceAuthentication=True),
    )

    with pytest.raises(AccountNotConnected):
        tokens.access_token("microsoft365", USER, SCOPES)


@pytest.mark.parametrize(
    ("code", "status", "raised"),
    [
        ("AccessDeniedException", 403, ProviderRefused),
        ("ResourceNotFoundException", 404, ProviderRefused),
        ("ThrottlingException", 429, ProviderThrottled),
        ("InternalServerException", 500, ProviderUnavailable),
        ("UnauthorizedException", 401, AccountNotConnected),
    ],
)
def test_identity_errors_become_the_provider_errors(identity, code: str, status: int, raised: type) -> None:
    tokens, stubber, _ = identity
    expect_workload_token(stubber)
    stubber.add_client_error(
        "get_resource_oauth2_token",
        service_error_code=code,
        http_status_code=status,
        expected_params=oauth2_request(),
    )

    with pytest.raises(raised) as error:
        tokens.access_token("microsoft365", USER, SCOPES)

    if raised is ProviderThrottled:
        assert error.value.headers() == {"Retry-After": "2"}
    if raised is AccountNotConnected:
        assert error.value.authorization_url is None


def test_a_workload_token_refused_is_mapped_too(identity) -> None:
    tokens, stubber, _ = identity
    stubber.add_client_error(
        "get_workload_access_token_for_jwt",
        service_error_code="AccessDeniedException",
        http_status_code=403,
        expected_params={"workloadName": WORKLOAD, "userToken": JWT},
    )

    with pytest.raises(ProviderRefused):
        tokens.access_token("microsoft365", USER, SCOPES)


def test_one_workload_token_per_user_token(identity) -> None:
    tokens, stubber, _ = identity
    expect_workload_token(stubber)
    stubber.add_response("get_resource_oauth2_token", {"accessToken": "t1"}, oauth2_request())
    stubber.add_response("get_resource_oauth2_token", {"accessToken": "t2"}, oauth2_request())

    assert tokens.access_token("microsoft365", USER, SCOPES) == "t1"
    assert tokens.access_token("microsoft365", USER, SCOPES) == "t2"


def test_no_user_token_or_no_provider_sends_nothing(identity) -> None:
    tokens, _, _ = identity
    with pytest.raises(AccountNotConnected) as raised:
        tokens.access_token("microsoft365", Account("user-1"), SCOPES)
    assert raised.value.authorization_url is None
    with pytest.raises(ProviderRefused):
        tokens.access_token("google", USER, SCOPES)


def test_a_consent_completes_only_for_the_user_who_asked(identity) -> None:
    _, _, connections = identity
    connections.pending("user-1", "microsoft365", SESSION)

    with pytest.raises(ConsentNotFound):
        connections.complete("user-2", "microsoft365", SESSION)
    with pytest.raises(ConsentNotFound):
        connections.complete("user-1", "microsoft365", SESSION + "-other")
    connections.complete("user-1", "microsoft365", SESSION)
    with pytest.raises(ConsentNotFound):  # once
        connections.complete("user-1", "microsoft365", SESSION)
