"""The MCP server's token check, in process: which tokens ``/mcp`` refuses, with which answer.

The app is the one ``multitool mcp --http --sign-in oidc`` serves (the SDK's bearer middleware in
front of the streamable HTTP endpoint, the local OIDC stand-in beside it), with the provider's clock
in the test's hands so a token can expire. Tokens come from the provider's own code flow.
"""

from __future__ import annotations

import html
import json
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from multitool.local.mcp.auth import AudienceTokenVerifier, resource_url, token_user
from multitool.local.mcp.server import LocalGateway, build_server, http_app
from multitool.local.sandbox.embedded import load_seed
from multitool.local.standins.oidc import CLIENT_ID, MCP_CLIENT_ID, MCP_SCOPE, LocalOidc, s256
from multitool.tools import REGISTRY
from starlette.testclient import TestClient

from tests.support.clocks import Clock

ROOT = Path(__file__).resolve().parents[3]
ISSUER = "http://127.0.0.1:8765"
RESOURCE = resource_url("127.0.0.1", 8765)
OTHER_RESOURCE = "http://127.0.0.1:8765/other"
CALLBACK = "http://127.0.0.1:40111/callback"  # the pre-registered client's loopback callback, any port
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def oidc(clock: Clock) -> LocalOidc:
    seed = load_seed()
    return LocalOidc(
        people=lambda: seed.people, issuer=ISSUER, clock=clock, resources=(RESOURCE, OTHER_RESOURCE)
    )


@pytest.fixture
def client(oidc: LocalOidc, clock: Clock) -> Iterator[TestClient]:
    seed = load_seed()
    person = seed.person(seed.default_user)
    assert person is not None
    gateway = LocalGateway(ROOT / "functions", person, secrets.token_bytes(32))
    server = build_server(gateway, token_user(seed.person))
    app = http_app(server, (oidc, RESOURCE))
    with TestClient(app, base_url=ISSUER) as test_client:
        yield test_client


def _tokens(oidc: LocalOidc, *, client_id: str, redirect: str, scope: str, **extra: str) -> dict[str, Any]:
    verifier = secrets.token_urlsafe(48)
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect,
        "scope": scope,
        "state": "s",
        "code_challenge": s256(verifier),
        "code_challenge_method": "S256",
        **extra,
    }
    # The person at the browser: the sign-in form (for an MCP client, also its consent screen), answered
    form = oidc.serve("GET", f"/oauth2/authorize?{urlencode(params)}")
    assert form.status == 200, form.body
    signed_in = oidc.serve(
        "POST",
        "/oauth2/authorize",
        body=urlencode({**_hidden(form.body.decode()), "username": "priya"}).encode(),
    )
    assert signed_in.status == 302, signed_in.body
    code = dict(parse_qsl(urlsplit(signed_in.headers["location"]).query))["code"]
    form = {
        "grant_type": "authorization_code",
        "client_id": client_id,
        "code": code,
        "redirect_uri": redirect,
        "code_verifier": verifier,
        **extra,
    }
    answer = oidc.serve("POST", "/oauth2/token", body=urlencode(form).encode())
    assert answer.status == 200, answer.body
    tokens: dict[str, Any] = json.loads(answer.body)
    return tokens


def _hidden(form: str) -> dict[str, str]:
    """The hidden fields of a form the provider showed (the request, and its one-time consent token)."""
    return {
        name: html.unescape(value)
        for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form)
    }


def _mcp_token(oidc: LocalOidc, *, scope: str = MCP_SCOPE, resource: str = RESOURCE) -> str:
    return str(
        _tokens(oidc, client_id=MCP_CLIENT_ID, redirect=CALLBACK, scope=scope, resource=resource)[
            "access_token"
        ]
    )


def _list(client: TestClient, token: str | None) -> Any:
    headers = HEADERS | ({"authorization": f"Bearer {token}"} if token else {})
    return client.post("/mcp", json=LIST, headers=headers)


def test_a_token_issued_for_this_server_with_the_scope_lists_the_tools(
    client: TestClient, oidc: LocalOidc
) -> None:
    answer = _list(client, _mcp_token(oidc))
    assert answer.status_code == 200, answer.text
    assert len(answer.json()["result"]["tools"]) == len(REGISTRY)


def _refusal(answer: Any, status: int, error: str) -> None:
    assert answer.status_code == status, answer.text
    challenge = answer.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert f'error="{error}"' in challenge
    assert f'resource_metadata="{ISSUER}/.well-known/oauth-protected-resource/mcp"' in challenge
    assert answer.json()["error"] == error


def test_no_token_is_401_naming_the_resource_metadata(client: TestClient) -> None:
    _refusal(_list(client, None), 401, "invalid_token")
    _refusal(
        client.post("/mcp", json=LIST, headers=HEADERS | {"authorization": "Basic eDp5"}),
        401,
        "invalid_token",
    )


def test_an_expired_token_is_401(client: TestClient, oidc: LocalOidc, clock: Clock) -> None:
    token = _mcp_token(oidc)
    clock.now += oidc.token_seconds + 1
    _refusal(_list(client, token), 401, "invalid_token")


def test_a_token_for_another_audience_is_401(client: TestClient, oidc: LocalOidc) -> None:
    page = _tokens(oidc, client_id=CLIENT_ID, redirect=f"{ISSUER}/", scope="openid email profile")
    _refusal(_list(client, page["access_token"]), 401, "invalid_token")  # the page's: aud is no resource
    _refusal(_list(client, page["id_token"]), 401, "invalid_token")
    _refusal(_list(client, _mcp_token(oidc, resource=OTHER_RESOURCE)), 401, "invalid_token")


def test_a_token_of_another_issuer_is_401(client: TestClient, clock: Clock) -> None:
    seed = load_seed()
    stranger = LocalOidc(people=lambda: seed.people, issuer=ISSUER, clock=clock, resources=(RESOURCE,))
    _refusal(_list(client, _mcp_token(stranger)), 401, "invalid_token")  # same claims, another key


def test_a_token_without_the_tools_scope_is_403(client: TestClient, oidc: LocalOidc) -> None:
    _refusal(_list(client, _mcp_token(oidc, scope="openid")), 403, "insufficient_scope")


@pytest.mark.parametrize(
    ("claims_change", "reason"),
    [
        ({"token_use": "id"}, "not an access token"),
        ({"aud": OTHER_RESOURCE}, "another client"),
    ],
)
def test_the_verifier_says_which_check_failed(
    oidc: LocalOidc, claims_change: dict[str, str], reason: str
) -> None:
    from joserfc import jwt
    from multitool.local.sandbox.jwt_authorizer import TokenRejected

    claims = {
        "iss": ISSUER,
        "sub": "priya",
        "exp": 1_800_003_600,
        "client_id": MCP_CLIENT_ID,
        "token_use": "access",
        "aud": RESOURCE,
        "scope": MCP_SCOPE,
        **claims_change,
    }
    token = jwt.encode({"alg": "RS256", "kid": oidc.key.kid}, claims, oidc.key)
    with pytest.raises(TokenRejected, match=reason):
        AudienceTokenVerifier(oidc.authorizer(), RESOURCE).check(token)


def test_registration_takes_public_loopback_or_https_clients_only(client: TestClient) -> None:
    good = client.post("/oauth2/register", json={"redirect_uris": [CALLBACK], "client_name": "Editor"})
    assert good.status_code == 201, good.text
    assert good.json()["token_endpoint_auth_method"] == "none"
    assert good.json()["client_id"].startswith("mcp-")
    for body, words in [
        ({"redirect_uris": ["http://evil.example/cb"]}, "neither a loopback"),
        ({"redirect_uris": []}, "non-empty list"),
        ({"redirect_uris": [CALLBACK], "grant_types": ["client_credentials"]}, "grant_types"),
    ]:
        refused = client.post("/oauth2/register", json=body)
        assert refused.status_code == 400
        assert words in refused.json()["error_description"]
    assert (
        client.post(
            "/oauth2/register", content=b"[", headers={"content-type": "application/json"}
        ).status_code
        == 400
    )


def test_only_native_clients_get_a_loopback_callback_on_any_port(oidc: LocalOidc) -> None:
    def authorize(client_id: str, redirect: str) -> int:
        params = {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect,
            "scope": "openid",
            "code_challenge": s256("v" * 43),
            "code_challenge_method": "S256",
        }
        return oidc.serve("GET", f"/oauth2/authorize?{urlencode(params)}").status

    assert authorize(MCP_CLIENT_ID, "http://127.0.0.1:1234/callback") == 200
    assert authorize(MCP_CLIENT_ID, "http://127.0.0.1:1234/elsewhere") == 400
    assert authorize(CLIENT_ID, f"{ISSUER}/") == 200
    assert authorize(CLIENT_ID, "http://127.0.0.1:9999/") == 400  # the page's callback is exact


CLIENT_DOCUMENT = "https://editor.example/oauth/client.json"


def test_the_sdk_client_signs_in_with_a_client_id_metadata_document(clock: Clock) -> None:
    """The 2026 revision's way to register: the client id is the URL of the client's own document."""
    import anyio
    import httpx
    from mcp import ClientSession
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.auth import OAuthClientMetadata

    from tests.support.mcp_storage import MemoryStorage

    fetched: list[str] = []

    def fetch(url: str) -> bytes:
        fetched.append(url)
        document = {"client_id": CLIENT_DOCUMENT, "client_name": "Editor", "redirect_uris": [CALLBACK]}
        return json.dumps(document).encode()

    seed = load_seed()
    oidc = LocalOidc(
        people=lambda: seed.people, issuer=ISSUER, clock=clock, resources=(RESOURCE,), fetch_document=fetch
    )
    person = seed.person(seed.default_user)
    assert person is not None
    server = build_server(
        LocalGateway(ROOT / "functions", person, secrets.token_bytes(32)), token_user(seed.person)
    )
    app = http_app(server, (oidc, RESOURCE))
    answers: list[dict[str, str]] = []

    async def run() -> list[str]:
        transport = httpx.ASGITransport(app=app)

        async def open_in_browser(url: str) -> None:
            async with httpx.AsyncClient(transport=transport) as browser:
                form = await browser.get(url)
                assert form.status_code == 200, form.text
                signed_in = await browser.post(
                    f"{ISSUER}/oauth2/authorize", data={**_hidden(form.text), "username": "priya"}
                )
            answers.append(dict(parse_qsl(urlsplit(signed_in.headers["location"]).query)))

        async def callback() -> tuple[str, str | None]:
            return answers[-1]["code"], answers[-1].get("state")

        auth = OAuthClientProvider(
            server_url=RESOURCE,
            client_metadata=OAuthClientMetadata(redirect_uris=[CALLBACK], token_endpoint_auth_method="none"),
            storage=MemoryStorage(),
            redirect_handler=open_in_browser,
            callback_handler=callback,
            client_metadata_url=CLIENT_DOCUMENT,
        )
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=transport, auth=auth, timeout=30) as http,
            streamable_http_client(RESOURCE, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return [tool.name for tool in (await session.list_tools()).tools]

    names = anyio.run(run)
    assert len(names) == len(REGISTRY)
    assert fetched == [CLIENT_DOCUMENT]  # fetched once, then known
    assert answers[0]["iss"] == ISSUER


@pytest.mark.parametrize(
    "document",
    [
        {"client_id": "https://other.example/client.json", "redirect_uris": [CALLBACK]},  # not its own id
        {"client_id": CLIENT_DOCUMENT, "redirect_uris": ["http://evil.example/cb"]},
        {
            "client_id": CLIENT_DOCUMENT,
            "redirect_uris": [CALLBACK],
            "token_endpoint_auth_method": "private_key_jwt",
        },
        ["not", "an", "object"],
    ],
)
def test_a_client_document_that_does_not_describe_a_public_client_at_that_url_is_refused(
    clock: Clock, document: Any
) -> None:
    seed = load_seed()
    oidc = LocalOidc(
        people=lambda: seed.people,
        issuer=ISSUER,
        clock=clock,
        resources=(RESOURCE,),
        fetch_document=lambda _url: json.dumps(document).encode(),
    )
    params = {
        "response_type": "code",
        "client_id": CLIENT_DOCUMENT,
        "redirect_uri": CALLBACK,
        "scope": MCP_SCOPE,
        "code_challenge": s256("v" * 43),
        "code_challenge_method": "S256",
    }
    # The document is read when the user answers the form (nobody's request fetches it), and refused then
    form = oidc.serve("GET", f"/oauth2/authorize?{urlencode(params)}")
    answer = oidc.serve(
        "POST",
        "/oauth2/authorize",
        body=urlencode({**_hidden(form.body.decode()), "username": "priya"}).encode(),
    )
    assert answer.status == 400
    assert b"unknown client_id" in answer.body
    assert "location" not in answer.headers
