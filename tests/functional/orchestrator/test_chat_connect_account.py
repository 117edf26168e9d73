"""POST /chat for a user of a Microsoft 365 deployment who has not connected their calendar yet.

The real chat app on a wire-shaped HTTP API event with the caller's JWT in the Authorization
header; the real AgentCore Identity token source on a real ``bedrock-agentcore`` client under
botocore's Stubber (every request validated against the service model); Graph an in-memory one
that checks every request against Graph's own description; drafts, sessions and consents in moto.
The user consented to the directory scope but not yet to the calendar's: the turn's email is
drafted, its meeting answers the card that connects the calendar, and the JWT is in no draft,
log line, session or turn record.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws
from multitool.api.chat_app import chat_app
from multitool.chat.service import ChatService
from multitool.chat.sessions import DynamoSessionStore
from multitool.local.standins.graph_state import GraphPool, GraphState, WorkingHours
from multitool.ports.agentcore.tokens import AgentCoreTokens
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.ports.connections import DynamoConnections
from multitool.ports.directory import DynamoDirectory
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.microsoft365.graph import CALENDAR_SCOPES, DIRECTORY_SCOPES
from multitool.ports.provider_suites import provider_suites
from multitool.ports.tables import create_all
from multitool.runtimes import AwsClients, build_runtime
from multitool.runtimes.product import product_flows
from multitool.settings.chat import ChatSettings
from multitool.tools import ToolConfig, ToolPorts
from multitool.wiring.orchestrator import aws_chat_turns

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

COMBINED = "Email Kinshuok about the doc and schedule a sync for Thursday"


@pytest.fixture(params=["offline", "offline-converse"])
def turn(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A chat app whose tools run in the orchestrator against the caller's own Microsoft 365."""
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        dynamodb = boto3.client("dynamodb")
        tables = create_all(dynamodb)
        env = {
            **tables,
            "RUNTIME": request.param,
            "DEFAULT_TIMEZONE": "Europe/Berlin",
            "CALENDAR": "microsoft365",
        }
        settings = ChatSettings.from_env(env)
        graph = GraphState()
        graph.add_user("Alex Müller", ALEX, working=WorkingHours(zone="W. Europe Standard Time"))
        graph.add_user(
            "Kinshuok Sharma", "kinshuok@example.com", working=WorkingHours(zone="India Standard Time")
        )
        agentcore = boto3.client("bedrock-agentcore")
        tokens = AgentCoreTokens(
            agentcore,
            workload_name=WORKLOAD,
            credential_providers={"microsoft365": PROVIDER_NAME},
            return_url=RETURN_URL,
            connections=DynamoConnections(tables["LIMITS_TABLE_NAME"], dynamodb),
        )
        ports = ToolPorts(
            directory=DynamoDirectory(settings.directory_table_name, dynamodb),
            calendar=DynamoCalendar(settings.bookings_table_name, dynamodb),
            drafts=DynamoDraftStore(settings.drafts_table_name, dynamodb),
            suites=provider_suites(
                "microsoft365",
                tokens,
                http=GraphPool(graph),
                base_url="http://graph.local/v1.0",  # type: ignore[arg-type]
            ),
        )
        runtime = build_runtime(
            settings, AwsClients(), product_flows(ports, ToolConfig.from_settings(settings))
        )
        service = ChatService(runtime, DynamoSessionStore(settings.sessions_table_name, dynamodb))
        app = chat_app(service=lambda: service, turns=lambda: None, limiter=lambda: None)
        with Stubber(agentcore) as stubber:
            yield {"app": app, "stubber": stubber, "dynamodb": dynamodb, "tables": tables, "service": service}
            stubber.assert_no_pending_responses()


def oauth2_request(scopes: tuple[str, ...]) -> dict[str, Any]:
    return {
        "workloadIdentityToken": WORKLOAD_TOKEN,
        "resourceCredentialProviderName": PROVIDER_NAME,
        "scopes": list(scopes),
        "oauth2Flow": "USER_FEDERATION",
        "resourceOauth2ReturnUrl": RETURN_URL,
    }


def given_agentcore(
    stubber: Stubber, *, asks_consent_for: tuple[str, ...], holds: tuple[tuple[str, ...], ...] = ()
) -> None:
    """AgentCore takes the caller's own JWT for a workload token, answers a token for each scope
    set in ``holds`` (the user consented), and then an authorization URL for ``asks_consent_for``."""
    stubber.add_response(
        "get_workload_access_token_for_jwt",
        {"workloadAccessToken": WORKLOAD_TOKEN},
        {"workloadName": WORKLOAD, "userToken": JWT},  # the caller's own JWT reached the token source
    )
    for scopes in holds:
        stubber.add_response(
            "get_resource_oauth2_token", {"accessToken": f"graph-token-{len(scopes)}"}, oauth2_request(scopes)
        )
    stubber.add_response(
        "get_resource_oauth2_token",
        {"authorizationUrl": AUTH_URL, "sessionUri": SESSION, "sessionStatus": "IN_PROGRESS"},
        oauth2_request(asks_consent_for),
    )


def chat_event(**headers: str) -> dict[str, Any]:
    """Alex's POST /chat with the combined request, the JWT in the Authorization header."""
    return http_api_event(
        "POST",
        "/chat",
        {"message": COMBINED},
        headers={"Authorization": f"Bearer {JWT}", **headers},
        claims={"email": ALEX, "email_verified": "true"},
    )


def test_the_email_is_drafted_and_the_meeting_asks_to_connect_the_calendar(
    turn: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    # Given: AgentCore holds the user's consent for the directory, not yet for the calendar.
    given_agentcore(turn["stubber"], holds=(DIRECTORY_SCOPES,), asks_consent_for=CALENDAR_SCOPES)

    # When
    response = turn["app"].resolve(chat_event(), FakeLambdaContext())

    # Then: an email card and a connect card, in the calls' order.
    assert response["statusCode"] == 200
    body = json_body(response)
    email, connect = body["clientActions"]
    assert email["type"] == "show_new_email_draft"
    assert email["to"][0]["person"]["email"] == "kinshuok@example.com"
    assert {key: connect[key] for key in ("type", "id", "provider", "providerName", "authorizationUrl")} == {
        "type": "show_connect_account",
        "id": "connect-microsoft365",
        "provider": "microsoft365",
        "providerName": "Microsoft 365",
        "authorizationUrl": AUTH_URL,
    }
    assert "Connect your Microsoft 365 account to go on: nothing was sent." in body["clientActionMessages"]
    dynamodb = turn["dynamodb"]
    drafts = dynamodb.scan(TableName=turn["tables"]["DRAFTS_TABLE_NAME"])["Items"]
    assert [item["action"]["S"] for item in drafts] == ["show_new_email_draft"]
    consent = dynamodb.get_item(
        TableName=turn["tables"]["LIMITS_TABLE_NAME"], Key={"pk": {"S": "CONNECTION#user-1#microsoft365"}}
    )["Item"]
    assert (consent["status"]["S"], consent["sessionUri"]["S"]) == ("pending", SESSION)
    # The conversation remembers the draft, not the consent card: no draft behind it to read back.
    [session] = dynamodb.scan(TableName=turn["tables"]["SESSIONS_TABLE_NAME"])["Items"]
    remembered = json.dumps(session["history"])
    assert email["id"] in remembered
    assert "connect-microsoft365" not in remembered
    # The JWT is in no draft, session, turn record or consent, no log line and no answer.
    for name in turn["tables"].values():
        items = dynamodb.scan(TableName=name)["Items"]
        assert JWT not in json.dumps(items), name
    assert JWT not in capsys.readouterr().out
    assert JWT not in json.dumps(body)


def test_a_turn_whose_every_call_needs_the_account_answers_one_connect_card(turn: dict[str, Any]) -> None:
    # Given: no consent at all yet, so the directory read both calls need asks for it.
    given_agentcore(turn["stubber"], asks_consent_for=DIRECTORY_SCOPES)

    body = json_body(turn["app"].resolve(chat_event(), FakeLambdaContext()))

    # Then: the one card that connects the account, and no draft.
    assert [card["type"] for card in body["clientActions"]] == ["show_connect_account"]
    assert body["clientActions"][0]["authorizationUrl"] == AUTH_URL
    assert turn["dynamodb"].scan(TableName=turn["tables"]["DRAFTS_TABLE_NAME"])["Count"] == 0


def test_with_per_user_consent_a_turn_asked_to_run_async_answers_inline_with_the_token(
    turn: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given: the deployed orchestrator's environment, a turns table and per-user consent.
    for key, value in {
        **turn["tables"],
        "CALENDAR": "microsoft365",
        "IDENTITY_WORKLOAD_NAME": WORKLOAD,
        "IDENTITY_PROVIDER": "microsoft365",
        "IDENTITY_CREDENTIAL_PROVIDER": PROVIDER_NAME,
        "IDENTITY_RETURN_URL": RETURN_URL,
        "CONNECTIONS_TABLE_NAME": turn["tables"]["LIMITS_TABLE_NAME"],
    }.items():
        monkeypatch.setenv(key, value)
    aws_chat_turns.cache_clear()
    service = turn["service"]
    app = chat_app(service=lambda: service, turns=aws_chat_turns, limiter=lambda: None)
    given_agentcore(turn["stubber"], asks_consent_for=DIRECTORY_SCOPES)

    try:
        response = app.resolve(chat_event(Prefer="respond-async"), FakeLambdaContext())
    finally:
        aws_chat_turns.cache_clear()

    # Then: the turn ran here, with the user's JWT, and nothing was left for a later invocation.
    assert response["statusCode"] == 200
    assert "Preference-Applied" not in (response.get("headers") or {})
    assert [card["type"] for card in json_body(response)["clientActions"]] == ["show_connect_account"]
    assert turn["dynamodb"].scan(TableName=turn["tables"]["TURNS_TABLE_NAME"])["Count"] == 0
