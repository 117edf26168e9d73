"""The consent card: from the token source's error to a typed card in the client-action union, and a
confirm that needs a connection answering 403 with the link (the confirm stays confirmable)."""

from __future__ import annotations

import json
from typing import Any

from multitool.api.chat_app import chat_app
from multitool.api.review_app import review_app
from multitool.cards.client_actions import (
    SCHEMA_PATH,
    caption,
    card_from_payload,
    client_action_adapter,
    schema_text,
)
from multitool.ports.tokens import AccountNotConnected
from multitool.toolkit.connect import ConnectAccountCard, connect_card, connect_payload

from tests.support.http_events import FakeLambdaContext, http_api_event, json_body

URL = "https://bedrock-agentcore.us-east-1.amazonaws.com/identities/oauth2/authorize?request_uri=abc"


def test_the_link_becomes_a_card_a_turn_carries_like_any_other() -> None:
    error = AccountNotConnected("microsoft365", authorization_url=URL)

    payload = connect_payload(error)
    assert payload is not None
    card = card_from_payload(payload)

    assert isinstance(card, ConnectAccountCard)
    assert card.to_wire() == {
        "type": "show_connect_account",
        "id": "connect-microsoft365",
        "provider": "microsoft365",
        "providerName": "Microsoft 365",
        "authorizationUrl": URL,
        "notes": [],
        "revises": None,
        "links": [],
    }
    assert caption(card) == "Connect your Microsoft 365 account to go on: nothing was sent."
    assert client_action_adapter().validate_python(card.to_wire()) == card


def test_no_link_no_card() -> None:
    assert connect_card(AccountNotConnected("google")) is None
    assert connect_payload(AccountNotConnected("google")) is None


def test_the_page_schema_has_the_card() -> None:
    schema = json.loads(schema_text())
    assert "show_connect_account" in schema["discriminator"]["mapping"]
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text()  # committed as generated


class NeedsConnection:
    def confirm(self, *_args: Any) -> Any:
        raise AccountNotConnected("google", authorization_url=URL)


def test_a_confirm_that_needs_a_connection_answers_the_link() -> None:
    app = review_app(reviewer=lambda: NeedsConnection(), limiter=lambda: None, accounts=lambda: None)  # type: ignore[arg-type, return-value]

    response = app.resolve(http_api_event("POST", "/actions/d_1/confirm", {}, sub="ana"), FakeLambdaContext())

    assert response["statusCode"] == 403
    assert json_body(response) == {
        "error": {
            "code": "account_not_connected",
            "message": "Connect your Google Workspace account to go on; nothing was sent.",
            "provider": "google",
            "providerName": "Google Workspace",
            "authorizationUrl": URL,
        }
    }


def test_a_turn_that_needs_a_connection_answers_the_link_the_page_shows() -> None:
    def raising() -> Any:
        raise AccountNotConnected("microsoft365", authorization_url=URL)

    app = chat_app(service=raising, turns=lambda: None, limiter=lambda: None)
    event = http_api_event(
        "GET", "/sessions/s-1", path_parameters={"id": "s-1"}, route_key="GET /sessions/{id}"
    )

    response = app.resolve(event, FakeLambdaContext())

    assert response["statusCode"] == 403
    assert json_body(response)["error"] == {
        "code": "account_not_connected",
        "message": "Connect your Microsoft 365 account to go on; nothing was sent.",
        "provider": "microsoft365",
        "providerName": "Microsoft 365",
        "authorizationUrl": URL,
    }
