"""``multitool mcp --http`` answers this machine only, and its sign-in gives a code only to an
application the user allowed: real HTTP against the app the command serves (uvicorn on loopback),
with foreign Host and Origin headers, form and text/plain registrations, and client ID metadata
documents whose fetches are counted."""

from __future__ import annotations

import html
import json
import re
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
import uvicorn
from multitool.local.mcp.auth import resource_url, token_user
from multitool.local.mcp.server import LocalGateway, build_server, http_app
from multitool.local.sandbox.embedded import load_seed
from multitool.local.standins.oidc import CLIENT_ID, MCP_SCOPE, LocalOidc, s256
from multitool.tools import REGISTRY

ROOT = Path(__file__).resolve().parents[3]
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
DOCUMENT = "https://editor.example/oauth/client.json"
ATTACKER_CALLBACK = "https://attacker.example/callback"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def _serving(app: Any, port: int) -> Iterator[str]:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive(), "the MCP server stopped at start"
        assert time.monotonic() < deadline, "the MCP server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _gateway() -> tuple[LocalGateway, Any]:
    seed = load_seed()
    person = seed.person(seed.default_user)
    assert person is not None
    return LocalGateway(ROOT / "functions", person, secrets.token_bytes(32)), seed


@pytest.fixture(scope="module")
def plain() -> Iterator[str]:
    """``multitool mcp --http PORT`` (no sign-in: every call as the user it was started as)."""
    gateway, _ = _gateway()
    with _serving(http_app(build_server(gateway)), _free_port()) as base:
        yield base


class Documents:
    """The client ID metadata documents 'on the internet', and how often each was fetched."""

    def __init__(self) -> None:
        self.fetched: list[str] = []
        self.served: dict[str, Any] = {}

    def __call__(self, url: str) -> bytes:
        self.fetched.append(url)
        if url not in self.served:
            raise OSError("404")
        return json.dumps(self.served[url]).encode()


@pytest.fixture
def signed(request: pytest.FixtureRequest) -> Iterator[tuple[str, Documents]]:
    """``multitool mcp --http PORT --sign-in oidc``: the resource server and its authorization server."""
    gateway, seed = _gateway()
    port = _free_port()
    documents = Documents()
    resource = resource_url("127.0.0.1", port)
    oidc = LocalOidc(
        people=lambda: seed.people,
        issuer=f"http://127.0.0.1:{port}",
        resources=(resource,),
        fetch_document=documents,
    )
    app = http_app(build_server(gateway, token_user(seed.person)), (oidc, resource))
    with _serving(app, port) as base:
        yield base, documents


# --- 17: Host and Origin ----------------------------------------------------------------------------------


def test_an_mcp_client_on_this_machine_lists_the_tools(plain: str) -> None:
    answer = httpx.post(f"{plain}/mcp", json=LIST, headers=MCP_HEADERS)
    assert answer.status_code == 200, answer.text
    assert len(answer.json()["result"]["tools"]) == len(REGISTRY)
    local_page = httpx.post(
        f"{plain}/mcp", json=LIST, headers={**MCP_HEADERS, "origin": "http://localhost:6274"}
    )
    assert local_page.status_code == 200  # a client's page on this machine (the MCP Inspector's port)


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"host": "attacker.example"}, 421),  # DNS rebinding: the page's own name, resolved to 127.0.0.1
        ({"host": "attacker.example:{port}"}, 421),
        ({"origin": "https://attacker.example"}, 403),
        ({"origin": "null"}, 403),
    ],
)
def test_a_web_page_cannot_call_the_tools(plain: str, headers: dict[str, str], status: int) -> None:
    port = str(urlsplit(plain).port)
    headers = {k: v.replace("{port}", port) for k, v in headers.items()}

    answer = httpx.post(f"{plain}/mcp", json=LIST, headers={**MCP_HEADERS, **headers})

    assert answer.status_code == status, answer.text
    assert "tools" not in answer.text


@pytest.mark.parametrize(
    ("method", "path", "headers"),
    [
        ("GET", "/oauth2/authorize", {"host": "attacker.example"}),
        ("POST", "/oauth2/register", {"origin": "https://attacker.example"}),
        ("GET", "/.well-known/oauth-authorization-server", {"host": "attacker.example"}),
        ("POST", "/oauth2/token", {"origin": "https://attacker.example"}),
    ],
)
def test_a_web_page_cannot_reach_the_sign_in_either(
    signed: tuple[str, Documents], method: str, path: str, headers: dict[str, str]
) -> None:
    base, _ = signed

    answer = httpx.request(method, f"{base}{path}", headers=headers, json={"redirect_uris": []})

    assert answer.status_code in (403, 421), answer.text


# --- 18: registration, consent, client documents -------------------------------------------------------


def _hidden(form: str) -> dict[str, str]:
    return {
        name: html.unescape(value)
        for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form)
    }


def _authorize_params(client_id: str, redirect: str) -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect,
        "scope": MCP_SCOPE,
        "state": "s",
        "code_challenge": s256("v" * 43),
        "code_challenge_method": "S256",
    }


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]
)
def test_registration_takes_a_json_body_only(signed: tuple[str, Documents], content_type: str) -> None:
    base, _ = signed
    body = json.dumps({"redirect_uris": [ATTACKER_CALLBACK], "client_name": "Editor"})

    # A page's form or text/plain fetch: a simple request, no CORS preflight
    refused = httpx.post(f"{base}/oauth2/register", content=body, headers={"content-type": content_type})
    registered = httpx.post(
        f"{base}/oauth2/register", content=body, headers={"content-type": "application/json"}
    )

    assert refused.status_code == 400, refused.text
    assert refused.json()["error"] == "invalid_client_metadata"
    assert registered.status_code == 201


def _sign_in_to_the_page(browser: httpx.Client, base: str, user: str = "priya") -> None:
    """Sign in once (multitool's own page client): the browser keeps the session cookie."""
    params = {**_authorize_params(CLIENT_ID, f"{base}/"), "scope": "openid"}
    form = browser.get(f"{base}/oauth2/authorize", params=params)
    assert form.status_code == 200
    signed_in = browser.post(f"{base}/oauth2/authorize", data={**_hidden(form.text), "username": user})
    assert signed_in.status_code == 302, signed_in.text


def test_a_registered_client_gets_no_code_on_a_sign_in_cookie_alone(signed: tuple[str, Documents]) -> None:
    base, _ = signed
    client_id = httpx.post(
        f"{base}/oauth2/register",
        json={"redirect_uris": [ATTACKER_CALLBACK], "client_name": "Totally Editor"},
    ).json()["client_id"]
    with httpx.Client() as browser:
        # Given a developer who signed in earlier (the cookie is sent on a top-level navigation)
        _sign_in_to_the_page(browser, base)

        # When a page sends the browser to authorize a client it registered, with its own redirect URI
        answer = browser.get(
            f"{base}/oauth2/authorize", params=_authorize_params(client_id, ATTACKER_CALLBACK)
        )

        # Then no code: a consent screen naming the client and where its answer would go
        assert answer.status_code == 200, answer.headers
        assert "location" not in answer.headers
        assert "Totally Editor" in answer.text
        assert "attacker.example" in answer.text
        # And only once the user allows it does the client get a code, and then without asking again
        allowed = browser.post(f"{base}/oauth2/authorize", data={**_hidden(answer.text), "decision": "allow"})
        assert allowed.status_code == 302
        assert allowed.headers["location"].startswith(f"{ATTACKER_CALLBACK}?code=")
        again = browser.get(
            f"{base}/oauth2/authorize", params=_authorize_params(client_id, ATTACKER_CALLBACK)
        )
        assert again.status_code == 302


def test_denying_a_client_sends_it_access_denied(signed: tuple[str, Documents]) -> None:
    base, _ = signed
    client_id = httpx.post(f"{base}/oauth2/register", json={"redirect_uris": [ATTACKER_CALLBACK]}).json()[
        "client_id"
    ]
    with httpx.Client() as browser:
        _sign_in_to_the_page(browser, base)
        consent = browser.get(
            f"{base}/oauth2/authorize", params=_authorize_params(client_id, ATTACKER_CALLBACK)
        )
        denied = browser.post(f"{base}/oauth2/authorize", data={**_hidden(consent.text), "decision": "deny"})

    answer = dict(parse_qsl(urlsplit(denied.headers["location"]).query))
    assert answer["error"] == "access_denied"
    assert "code" not in answer


def test_a_sign_in_posted_without_the_form_this_server_showed_gets_no_code(
    signed: tuple[str, Documents],
) -> None:
    base, _ = signed
    client_id = httpx.post(f"{base}/oauth2/register", json={"redirect_uris": [ATTACKER_CALLBACK]}).json()[
        "client_id"
    ]
    forged = {**_authorize_params(client_id, ATTACKER_CALLBACK), "username": "priya"}

    answer = httpx.post(f"{base}/oauth2/authorize", data=forged)
    reused_elsewhere = httpx.post(
        f"{base}/oauth2/authorize", data={**forged, "consent": _consent_for(base, CLIENT_ID, f"{base}/")}
    )

    assert answer.status_code == 400
    assert "location" not in answer.headers
    assert reused_elsewhere.status_code == 400


def _consent_for(base: str, client_id: str, redirect: str) -> str:
    """A consent token the server showed for another client (multitool's page has none: any value)."""
    form = httpx.get(
        f"{base}/oauth2/authorize", params=_authorize_params(client_id, redirect) | {"scope": "openid"}
    )
    return _hidden(form.text).get("consent", "not-shown")


def test_a_client_document_is_fetched_only_when_a_user_answers_and_once(
    signed: tuple[str, Documents],
) -> None:
    base, documents = signed
    callback = "http://127.0.0.1:40111/callback"
    documents.served[DOCUMENT] = {"client_id": DOCUMENT, "client_name": "Editor", "redirect_uris": [callback]}
    params = _authorize_params(DOCUMENT, callback)

    # Requests nobody answered fetch nothing
    forms = [httpx.get(f"{base}/oauth2/authorize", params=params) for _ in range(3)]
    assert [f.status_code for f in forms] == [200, 200, 200]
    assert documents.fetched == []
    # The user signs in and allows it: fetched once
    signed_in = httpx.post(f"{base}/oauth2/authorize", data={**_hidden(forms[0].text), "username": "priya"})
    assert signed_in.status_code == 302, signed_in.text
    code = dict(parse_qsl(urlsplit(signed_in.headers["location"]).query))["code"]
    # The token endpoint and a second sign-in use what was fetched
    tokens = httpx.post(
        f"{base}/oauth2/token",
        data={"grant_type": "authorization_code", "client_id": DOCUMENT, "code": code,
              "redirect_uri": callback, "code_verifier": "v" * 43},
    )  # fmt: skip
    assert tokens.status_code == 200, tokens.text
    again = httpx.post(f"{base}/oauth2/authorize", data={**_hidden(forms[1].text), "username": "priya"})
    assert again.status_code == 302
    assert documents.fetched == [DOCUMENT]


def test_a_client_document_that_cannot_be_read_is_not_fetched_again_on_every_request(
    signed: tuple[str, Documents],
) -> None:
    base, documents = signed
    missing = "https://gone.example/client.json"
    params = _authorize_params(missing, "http://127.0.0.1:40111/callback")
    forms = [httpx.get(f"{base}/oauth2/authorize", params=params) for _ in range(3)]

    answers = [
        httpx.post(f"{base}/oauth2/authorize", data={**_hidden(f.text), "username": "priya"}) for f in forms
    ]
    token = httpx.post(
        f"{base}/oauth2/token",
        data={"grant_type": "refresh_token", "client_id": missing, "refresh_token": "x"},
    )

    assert [a.status_code for a in answers] == [400, 400, 400]
    assert "unknown client_id" in answers[0].text
    assert token.status_code == 400
    assert documents.fetched == [missing]
