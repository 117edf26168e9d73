"""The whole consent flow against the local AgentCore Identity stand-in: ask, get the link, consent at the
provider, come back, finish it as the user who asked (another user cannot), then the token; disconnect
asks for a new consent. The review API's callback route is the one deployed."""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from botocore.exceptions import ClientError, ParamValidationError
from multitool.api.review_app import review_app
from multitool.local.standins.identity import LocalIdentity
from multitool.ports.agentcore.tokens import AgentCoreTokens
from multitool.ports.connections import DynamoConnections
from multitool.ports.tokens import Account, AccountNotConnected
from multitool.review.accounts import Accounts

from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.moto_tables import Tables

WORKLOAD = "multitool-identity-local"
PAGE = "http://localhost:8000/"
CONSENT = "http://localhost:8000/local-identity/consent"
SCOPES = ["Calendars.ReadWrite"]


def jwt(sub: str) -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    return f"{part({'alg': 'RS256'})}.{part({'sub': sub})}.c2lnbmF0dXJl"


@pytest.fixture
def flow(moto_tables: Tables) -> tuple[LocalIdentity, AgentCoreTokens, Any]:
    identity = LocalIdentity(workloads={WORKLOAD: (PAGE,)}, consent_base=CONSENT)
    connections = DynamoConnections(moto_tables.names["LIMITS_TABLE_NAME"], moto_tables.client)
    tokens = AgentCoreTokens(
        identity,  # type: ignore[arg-type]
        workload_name=WORKLOAD,
        credential_providers={"microsoft365": "multitool-microsoft365"},
        return_url=PAGE,
        connections=connections,
    )
    accounts = Accounts(identity, connections, ("microsoft365",))  # type: ignore[arg-type]
    app = review_app(
        reviewer=lambda: pytest.fail("no review here"), limiter=lambda: None, accounts=lambda: accounts
    )
    return identity, tokens, app


def complete(app: Any, sub: str, session: str) -> dict[str, Any]:
    event = http_api_event(
        "POST",
        "/connections/complete",
        {"sessionUri": session},
        sub=sub,
        headers={"authorization": f"Bearer {jwt(sub)}"},
    )
    response: dict[str, Any] = app.resolve(event, FakeLambdaContext())
    return response


def test_ask_consent_come_back_finish_and_use(flow) -> None:
    identity, tokens, app = flow
    ana = Account("ana", "ana@example.com", jwt("ana"))

    # Given Ana has not connected her account: the token source answers the link.
    with pytest.raises(AccountNotConnected) as raised:
        tokens.access_token("microsoft365", ana, SCOPES)
    link = raised.value.authorization_url
    assert link is not None
    assert link.startswith(CONSENT)
    session = parse_qs(urlsplit(link).query)["request_uri"][0]

    # When she consents, the browser comes back to the page with the session.
    back = identity.consent(session)
    assert back == f"{PAGE}?session_id={session.replace(':', '%3A')}"

    # Mallory, signed in, cannot finish Ana's consent; Ana can.
    assert complete(app, "mallory", session)["statusCode"] == 403
    done = complete(app, "ana", session)
    assert done["statusCode"] == 200, json_body(done)

    # Then her token comes from the vault, on the way back and afterwards.
    assert tokens.access_token("microsoft365", ana, SCOPES) == "local-multitool-microsoft365-ana"
    assert tokens.access_token("microsoft365", ana, SCOPES) == "local-multitool-microsoft365-ana"
    listed = app.resolve(http_api_event("GET", "/connections", sub="ana"), FakeLambdaContext())
    assert json_body(listed)["connections"][0]["status"] == "connected"

    # Disconnect: the next use asks for a new consent instead of taking the vault's token.
    app.resolve(
        http_api_event("POST", "/connections/microsoft365/disconnect", sub="ana"), FakeLambdaContext()
    )
    with pytest.raises(AccountNotConnected) as again:
        tokens.access_token("microsoft365", ana, SCOPES)
    assert again.value.authorization_url is not None


def test_the_stand_in_refuses_another_users_completion_itself(flow) -> None:
    identity, tokens, _ = flow
    with pytest.raises(AccountNotConnected) as raised:
        tokens.access_token("microsoft365", Account("ana", None, jwt("ana")), SCOPES)
    session = parse_qs(urlsplit(raised.value.authorization_url or "").query)["request_uri"][0]
    identity.consent(session)

    with pytest.raises(ClientError) as refused:
        identity.complete_resource_token_auth(
            sessionUri=session, userIdentifier={"userToken": jwt("mallory")}
        )
    assert refused.value.response["Error"]["Code"] == "AccessDeniedException"


def test_the_stand_in_validates_against_botocores_model(flow) -> None:
    identity, _, _ = flow
    with pytest.raises(ParamValidationError):
        identity.get_resource_oauth2_token(
            workloadIdentityToken="x", scopes=SCOPES, oauth2Flow="USER_FEDERATION"
        )
    with pytest.raises(ParamValidationError):
        identity.complete_resource_token_auth(sessionUri="urn:ietf:params:oauth:request_uri:x")
