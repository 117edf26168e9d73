"""The local OIDC stand-in: the code flow with PKCE as Cognito runs it, and the HTTP API's token check."""

from __future__ import annotations

import base64
import json
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey
from multitool.local.standins.oidc import (
    CLIENT_ID,
    SESSION_COOKIE,
    LocalOidc,
    OidcResponse,
    TokenRejected,
    s256,
)

from tests.support.clocks import Clock

ISSUER = "http://127.0.0.1:8123"
PAGE = f"{ISSUER}/"


@dataclass(frozen=True)
class Someone:
    id: str
    email: str
    display_name: str
    timezone: str


PEOPLE = (
    Someone("priya", "priya@example.com", "Priya Raman", "Europe/London"),
    Someone("alex", "alex@example.com", "Alex Kim", "America/New_York"),
)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def oidc(clock: Clock) -> LocalOidc:
    return LocalOidc(people=lambda: PEOPLE, issuer=ISSUER, clock=clock)


def _authorize_params(verifier: str, **overrides: str) -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": PAGE,
        "scope": "openid email profile",
        "state": "st4te",
        "code_challenge": s256(verifier),
        "code_challenge_method": "S256",
        **overrides,
    }


def _form(fields: dict[str, str]) -> bytes:
    return urlencode(fields).encode()


def _location_query(response: OidcResponse) -> dict[str, str]:
    assert response.status == 302, response.body
    location = response.headers["location"]
    assert location.startswith(PAGE)
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def _sign_in(oidc: LocalOidc, user: str = "priya") -> tuple[dict[str, Any], str]:
    """The whole code flow: the form, the code, the token exchange. Returns the tokens and the cookie."""
    verifier = secrets.token_urlsafe(48)
    params = _authorize_params(verifier)
    form = oidc.serve("GET", f"/oauth2/authorize?{urlencode(params)}")
    assert form.status == 200
    assert b'name="username"' in form.body
    signed_in = oidc.serve("POST", "/oauth2/authorize", body=_form({**params, "username": user}))
    answer = _location_query(signed_in)
    assert answer["state"] == "st4te"
    (cookie,) = signed_in.cookies
    assert "HttpOnly" in cookie
    token = oidc.serve(
        "POST",
        "/oauth2/token",
        body=_form(
            {
                "grant_type": "authorization_code",
                "client_id": CLIENT_ID,
                "code": answer["code"],
                "redirect_uri": PAGE,
                "code_verifier": verifier,
            }
        ),
    )
    assert token.status == 200, token.body
    assert token.headers["cache-control"] == "no-store"
    return json.loads(token.body), cookie.split(";")[0]


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# --- the flow ----------------------------------------------------------------------------------------


def test_the_code_flow_with_pkce_gives_cognito_shaped_tokens_the_api_accepts(oidc: LocalOidc) -> None:
    # Given a person who signs in on the form, When the page exchanges the code with its verifier
    tokens, _ = _sign_in(oidc, "priya")
    # Then the ID token carries who they are, for this client, and the API accepts it
    claims = oidc.claims_for(_bearer(tokens["id_token"]))
    assert claims is not None
    assert claims["sub"] == "priya"
    assert claims["aud"] == CLIENT_ID
    assert claims["iss"] == ISSUER
    assert claims["token_use"] == "id"
    assert claims["email"] == "priya@example.com"
    assert claims["name"] == "Priya Raman"
    assert claims["zoneinfo"] == "Europe/London"
    assert claims["cognito:username"] == "priya"
    assert claims["email_verified"] == "true"
    header = json.loads(base64.urlsafe_b64decode(tokens["id_token"].split(".")[0] + "=="))
    assert header["alg"] == "RS256"
    assert header["kid"] == oidc.key.kid
    # And the access token is accepted by its client_id, as Cognito's access tokens are
    access = oidc.claims_for(_bearer(tokens["access_token"]))
    assert access is not None
    assert access["client_id"] == CLIENT_ID
    assert access["token_use"] == "access"
    assert "aud" not in access
    assert tokens["token_type"] == "Bearer"
    assert tokens["expires_in"] == 3600


def test_discovery_and_jwks_publish_only_public_keys(oidc: LocalOidc) -> None:
    discovery = json.loads(oidc.serve("GET", "/.well-known/openid-configuration").body)
    assert discovery["issuer"] == ISSUER
    assert discovery["code_challenge_methods_supported"] == ["S256"]
    assert discovery["response_types_supported"] == ["code"]
    assert discovery["end_session_endpoint"] == f"{ISSUER}/logout"
    (key,) = json.loads(oidc.serve("GET", "/.well-known/jwks.json").body)["keys"]
    assert key["kty"] == "RSA"
    assert key["alg"] == "RS256"
    assert not {"d", "p", "q", "dp", "dq", "qi"} & set(key)


def test_an_open_session_signs_in_again_without_the_form(oidc: LocalOidc) -> None:
    _, cookie = _sign_in(oidc)
    verifier = secrets.token_urlsafe(48)
    again = oidc.serve(
        "GET", f"/oauth2/authorize?{urlencode(_authorize_params(verifier))}", headers={"Cookie": cookie}
    )
    assert "code" in _location_query(again)


def test_a_code_is_single_use_and_needs_its_verifier(oidc: LocalOidc) -> None:
    verifier = secrets.token_urlsafe(48)
    params = _authorize_params(verifier)
    code = _location_query(
        oidc.serve("POST", "/oauth2/authorize", body=_form({**params, "username": "alex"}))
    )["code"]
    exchange = {
        "grant_type": "authorization_code",
        "client_id": CLIENT_ID,
        "code": code,
        "redirect_uri": PAGE,
    }
    wrong = oidc.serve("POST", "/oauth2/token", body=_form({**exchange, "code_verifier": "not-the-verifier"}))
    assert wrong.status == 400
    assert json.loads(wrong.body)["error"] == "invalid_grant"
    # The refused attempt used the code up: a stolen code cannot be tried twice.
    right = oidc.serve("POST", "/oauth2/token", body=_form({**exchange, "code_verifier": verifier}))
    assert right.status == 400
    assert json.loads(right.body)["error_description"] == "the code is unknown, used or expired"


def test_a_code_expires_after_five_minutes(oidc: LocalOidc, clock: Clock) -> None:
    verifier = secrets.token_urlsafe(48)
    params = _authorize_params(verifier)
    code = _location_query(
        oidc.serve("POST", "/oauth2/authorize", body=_form({**params, "username": "alex"}))
    )["code"]
    clock.now += 301
    late = oidc.serve(
        "POST",
        "/oauth2/token",
        body=_form(
            {
                "grant_type": "authorization_code",
                "client_id": CLIENT_ID,
                "code": code,
                "redirect_uri": PAGE,
                "code_verifier": verifier,
            }
        ),
    )
    assert late.status == 400


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"response_type": "token"}, b"the implicit flow is not offered"),
        ({"code_challenge_method": "plain"}, b"PKCE is required"),
        ({"code_challenge": ""}, b"PKCE is required"),
        ({"redirect_uri": "https://evil.example/"}, b"redirect_uri must be one of"),
        ({"client_id": "someone-else"}, b"unknown client_id"),
        ({"scope": "email"}, b"scope must include openid"),
    ],
)
def test_a_bad_authorize_request_is_refused_and_never_redirected(
    oidc: LocalOidc, overrides: dict[str, str], problem: bytes
) -> None:
    response = oidc.serve("GET", f"/oauth2/authorize?{urlencode(_authorize_params('v' * 43, **overrides))}")
    assert response.status == 400
    assert "location" not in response.headers
    assert problem in response.body


def test_an_unknown_person_gets_the_form_again(oidc: LocalOidc) -> None:
    params = _authorize_params("v" * 43)
    response = oidc.serve("POST", "/oauth2/authorize", body=_form({**params, "username": "mallory"}))
    assert response.status == 200
    assert b"Choose who you are." in response.body
    assert response.cookies == ()


def test_refresh_gives_new_tokens_until_the_refresh_token_is_revoked(oidc: LocalOidc, clock: Clock) -> None:
    tokens, _ = _sign_in(oidc)
    refresh = {
        "grant_type": "refresh_token",
        "client_id": CLIENT_ID,
        "refresh_token": tokens["refresh_token"],
    }
    clock.now += 3000
    renewed = oidc.serve("POST", "/oauth2/token", body=_form(refresh))
    assert renewed.status == 200
    fresh = json.loads(renewed.body)
    assert "refresh_token" not in fresh  # as Cognito: the refresh token stays the same
    claims = oidc.claims_for(_bearer(fresh["id_token"]))
    assert claims is not None
    assert claims["exp"] == str(int(clock.now) + 3600)  # as the HTTP API passes claims: strings
    # When the page signs out it revokes the refresh token, Then it no longer refreshes
    revoked = oidc.serve(
        "POST", "/oauth2/revoke", body=_form({"token": tokens["refresh_token"], "client_id": CLIENT_ID})
    )
    assert revoked.status == 200
    again = oidc.serve("POST", "/oauth2/token", body=_form(refresh))
    assert again.status == 400
    assert json.loads(again.body)["error"] == "invalid_grant"


def test_sign_out_ends_the_session_and_returns_to_the_page(oidc: LocalOidc) -> None:
    _, cookie = _sign_in(oidc)
    query = urlencode({"client_id": CLIENT_ID, "logout_uri": PAGE})
    out = oidc.serve("GET", f"/logout?{query}", headers={"Cookie": cookie})
    assert out.status == 302
    assert out.headers["location"] == PAGE
    assert "Max-Age=0" in out.cookies[0]
    # The old cookie no longer signs in silently: the form is shown
    verifier = secrets.token_urlsafe(48)
    again = oidc.serve(
        "GET", f"/oauth2/authorize?{urlencode(_authorize_params(verifier))}", headers={"Cookie": cookie}
    )
    assert again.status == 200
    assert b'name="username"' in again.body
    elsewhere = oidc.serve(
        "GET", f"/logout?{urlencode({'client_id': CLIENT_ID, 'logout_uri': 'https://evil.example/'})}"
    )
    assert elsewhere.status == 400


# --- the token check the HTTP API's JWT authorizer does -------------------------------------------------


def _claims(**overrides: Any) -> dict[str, Any]:
    now = 1_800_000_000
    return {
        "iss": ISSUER,
        "sub": "priya",
        "aud": CLIENT_ID,
        "token_use": "id",
        "iat": now,
        "exp": now + 600,
        **overrides,
    }


def _signed(oidc: LocalOidc, claims: dict[str, Any], key: RSAKey | None = None, **header: Any) -> str:
    signer = key or oidc.key
    return jwt.encode({"alg": "RS256", "kid": oidc.key.kid, **header}, claims, signer)


def _rejected(oidc: LocalOidc, token: str) -> str:
    with pytest.raises(TokenRejected) as caught:
        oidc.claims_for(_bearer(token))
    return caught.value.reason


def test_a_valid_token_passes(oidc: LocalOidc) -> None:
    claims = oidc.claims_for(_bearer(_signed(oidc, _claims())))
    assert claims is not None
    assert claims["sub"] == "priya"


def test_an_expired_token_is_refused(oidc: LocalOidc, clock: Clock) -> None:
    token = _signed(oidc, _claims())
    clock.now += 601
    assert _rejected(oidc, token) == "the token has expired"


def test_a_token_without_expiry_is_refused(oidc: LocalOidc) -> None:
    claims = _claims()
    del claims["exp"]
    assert _rejected(oidc, _signed(oidc, claims)) == "the token is refused: it has no expiry"


def test_a_token_not_valid_yet_is_refused(oidc: LocalOidc) -> None:
    token = _signed(oidc, _claims(nbf=1_800_000_100))
    assert _rejected(oidc, token) == "the token is refused: it is not valid yet"


def test_a_token_for_another_client_is_refused(oidc: LocalOidc) -> None:
    assert _rejected(oidc, _signed(oidc, _claims(aud="another-client"))) == (
        "the token was issued to another client (aud/client_id)"
    )
    access = _claims(client_id="another-client", token_use="access")
    del access["aud"]
    assert _rejected(oidc, _signed(oidc, access)) == "the token was issued to another client (aud/client_id)"


def test_a_token_from_another_issuer_is_refused(oidc: LocalOidc) -> None:
    token = _signed(oidc, _claims(iss="https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Other"))
    assert _rejected(oidc, token) == "the token is refused: it was issued by another issuer"


def test_a_token_signed_by_another_key_is_refused(oidc: LocalOidc) -> None:
    # Same kid, another key: what a forger who read the JWKS would try.
    forged = _signed(oidc, _claims(), key=RSAKey.generate_key(2048, parameters={"kid": str(oidc.key.kid)}))
    assert _rejected(oidc, forged) == "the signature does not verify with the issuer's keys"


def test_a_tampered_token_is_refused(oidc: LocalOidc) -> None:
    header, _, signature = _signed(oidc, _claims()).split(".")
    payload = base64.urlsafe_b64encode(json.dumps(_claims(sub="alex")).encode()).rstrip(b"=").decode()
    assert (
        _rejected(oidc, f"{header}.{payload}.{signature}")
        == "the signature does not verify with the issuer's keys"
    )


def test_alg_none_is_refused(oidc: LocalOidc) -> None:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    unsigned = f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(_claims())}."
    assert _rejected(oidc, unsigned) == "the token's algorithm is not RS256"


def test_a_token_of_an_earlier_run_is_refused(oidc: LocalOidc, clock: Clock) -> None:
    earlier = LocalOidc(people=lambda: PEOPLE, issuer=ISSUER, clock=clock)
    token = _signed(earlier, _claims())
    assert _rejected(oidc, token) == "the token is not a JWT signed by a key of the issuer"


@pytest.mark.parametrize("value", ["Basic cHJpeWE6eA==", "Bearer", "Bearer not-a-jwt"])
def test_a_malformed_authorization_header_is_refused(oidc: LocalOidc, value: str) -> None:
    with pytest.raises(TokenRejected):
        oidc.claims_for({"authorization": value})


def test_no_authorization_header_is_no_claims(oidc: LocalOidc) -> None:
    assert oidc.claims_for({"X-Local-User": "priya"}) is None


def test_the_session_cookie_name_is_the_providers_own(oidc: LocalOidc) -> None:
    _, cookie = _sign_in(oidc)
    assert cookie.startswith(f"{SESSION_COOKIE}=")
