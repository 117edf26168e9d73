"""The organization-wide Entra credential: client credentials against the token endpoint, cached,
and its refusals as the provider errors (the user is told what an administrator must fix)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

import pytest
from multitool.ports import retry
from multitool.ports.microsoft365.tokens import ClientCredentials, EntraAppTokenSource, FixedTokenSource
from multitool.ports.tokens import Account, AccountNotConnected, ProviderUnavailable

CREDENTIALS = ClientCredentials("contoso.onmicrosoft.com", "app-id", "s3cret")


class Response:
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status = status
        self.data = json.dumps(body).encode()
        self.headers: dict[str, str] = {}


class TokenEndpoint:
    def __init__(self, *answers: Response) -> None:
        self.answers = list(answers)
        self.requests: list[tuple[str, str, dict[str, list[str]]]] = []

    def request(self, method: str, url: str, body: bytes, **_: Any) -> Response:
        self.requests.append((method, url, parse_qs(body.decode())))
        return self.answers.pop(0)


def source(
    endpoint: TokenEndpoint, now: list[float], waits: list[float] | None = None
) -> EntraAppTokenSource:
    return EntraAppTokenSource(
        lambda: CREDENTIALS,
        endpoint,  # type: ignore[arg-type]
        clock=lambda: now[0],
        sleep=(waits if waits is not None else []).append,
    )


def test_the_app_token_is_fetched_once_and_renewed_before_it_expires() -> None:
    endpoint = TokenEndpoint(
        Response(200, {"access_token": "t1", "expires_in": 3599, "token_type": "Bearer"}),
        Response(200, {"access_token": "t2", "expires_in": 3599, "token_type": "Bearer"}),
    )
    now = [1000.0]
    tokens = source(endpoint, now)

    first = tokens.access_token("microsoft365", Account("u1"), ["Mail.Send"])
    second = tokens.access_token("microsoft365", Account("u2"), ["Calendars.ReadWrite"])
    now[0] += 3599 - 299  # inside the last five minutes
    third = tokens.access_token("microsoft365", Account("u1"), ["Mail.Send"])

    assert (first, second, third) == ("t1", "t1", "t2")
    method, url, form = endpoint.requests[0]
    assert (method, url) == (
        "POST",
        "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token",
    )
    assert form == {
        "client_id": ["app-id"],
        "client_secret": ["s3cret"],
        "scope": ["https://graph.microsoft.com/.default"],
        "grant_type": ["client_credentials"],
    }


def test_a_refused_credential_says_an_administrator_must_fix_it() -> None:
    endpoint = TokenEndpoint(Response(401, {"error": "invalid_client", "error_description": "AADSTS7000215"}))

    with pytest.raises(AccountNotConnected, match=r"invalid_client.*administrator"):
        source(endpoint, [0.0]).access_token("microsoft365", Account("u"), ["Mail.Send"])


def test_entra_failing_is_provider_unavailable_once_the_retries_are_spent() -> None:
    endpoint = TokenEndpoint(*[Response(503, {})] * retry.MAX_ATTEMPTS)
    with pytest.raises(ProviderUnavailable):
        source(endpoint, [0.0]).access_token("microsoft365", Account("u"), [])
    assert len(endpoint.requests) == retry.MAX_ATTEMPTS


def test_entra_throttling_or_failing_once_is_retried_as_every_provider_request() -> None:
    endpoint = TokenEndpoint(
        Response(429, {}),
        Response(503, {}),
        Response(200, {"access_token": "t1", "expires_in": 3599, "token_type": "Bearer"}),
    )
    waits: list[float] = []

    assert source(endpoint, [0.0], waits).access_token("microsoft365", Account("u"), []) == "t1"
    assert len(endpoint.requests) == 3
    assert len(waits) == 2


def test_the_secret_must_hold_the_three_fields_and_google_has_no_microsoft_token() -> None:
    assert ClientCredentials.from_secret(
        '{"tenantId": "t", "clientId": "c", "clientSecret": "s"}'
    ) == ClientCredentials("t", "c", "s")
    with pytest.raises(ValueError, match="tenantId"):
        ClientCredentials.from_secret('{"tenantId": "t"}')
    with pytest.raises(AccountNotConnected):
        source(TokenEndpoint(), [0.0]).access_token("google", Account("u"), [])
    with pytest.raises(AccountNotConnected):
        FixedTokenSource("t").access_token("google", Account("u"), [])
