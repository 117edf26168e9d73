"""Sign-in in a real browser: the page's code flow with PKCE against ``multitool serve --sign-in oidc``.

The local OIDC stand-in plays Cognito's managed login; the local API checks the ID token as the HTTP
API's JWT authorizer does. One server for the module, a fresh browser context per test.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser, Page, Response, expect

from tests.e2e.test_chat_page import COMBINED, EMAIL_CARD, MEETING_CARD, send, settle_names
from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
# Written where the suite keeps its artifacts; docs/signed-in.png is a copy of one run's.
SCREENSHOT = REPO / "artifacts" / "signed-in.png"
CLIENT_ID = "multitool-local-page"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with local_server(args=("--sign-in", "oidc")) as url:
        yield url


@pytest.fixture
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    with ready_page(browser, server_url, height=1000) as opened:
        yield opened


def post_form(url: str, fields: dict[str, str]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=urlencode(fields).encode(), method="POST")
    request.add_header("Content-Type", "application/x-www-form-urlencoded")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def api_status(server_url: str, path: str, headers: dict[str, str]) -> int:
    request = urllib.request.Request(server_url.rstrip("/") + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def sign_in(page: Page, user: str = "priya") -> dict[str, Any]:
    """Click Sign in, choose the person on the stand-in's form; returns the token response the page got."""
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/oauth2/authorize\?"))
    page.get_by_label("Who are you?").select_option(user)
    with page.expect_response(lambda r: r.url.endswith("/oauth2/token")) as answer:
        page.get_by_role("button", name="Sign in").click()
    tokens: dict[str, Any] = answer.value.json()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    return tokens


def test_sign_in_chat_reload_confirm_and_sign_out(page: Page, server_url: str) -> None:
    # Given the page, signed out: it offers Sign in and nothing else
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    expect(page.locator("#signed-in-as")).to_be_hidden()
    expect(page.locator("#signin-local")).to_be_hidden()

    # When the person signs in through the code flow with PKCE
    authorize: list[str] = []
    page.on("request", lambda r: authorize.append(r.url) if "/oauth2/authorize?" in r.url else None)
    tokens = sign_in(page, "priya")

    # Then the page is back at its own URL (no code left in it) and says who is signed in
    expect(page).to_have_url(server_url)
    expect(page.locator("#signed-in-name")).to_have_text("Priya Patel")
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    assert "code_challenge_method=S256" in authorize[0]
    assert "response_type=code" in authorize[0]
    # and no token is in web storage: they live in the page's memory only
    stored = page.evaluate(
        "() => JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])"
    )
    for token in (tokens["id_token"], tokens["access_token"], tokens["refresh_token"]):
        assert token not in stored
    assert "eyJ" not in stored

    # When they send a combined request, Then the API accepts their token and both cards come back
    with page.expect_request(lambda r: r.url.endswith("/chat") and r.method == "POST") as chat:
        turn = send(page, COMBINED)
    assert chat.value.headers["authorization"].startswith("Bearer eyJ")
    assert "x-local-user" not in chat.value.headers
    expect(turn.locator(EMAIL_CARD)).to_have_count(1)
    expect(turn.locator(MEETING_CARD)).to_have_count(1)
    SCREENSHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))

    # When the page is reloaded, Then it signs in again through the provider's session, without the form
    forms: list[str] = []
    granted: list[Response] = []
    page.on("response", lambda r: forms.append(r.url) if _is_sign_in_form(r) else None)
    page.on("response", lambda r: granted.append(r) if r.url.endswith("/oauth2/token") else None)
    page.reload()
    expect(page.locator("#signed-in-name")).to_have_text("Priya Patel", timeout=20_000)
    expect(page).to_have_url(server_url)
    assert forms == []

    # When they confirm a new email card, Then it is sent as them
    turn = send(page, COMBINED)
    email = turn.locator(EMAIL_CARD)
    settle_names(email)
    email.get_by_role("button", name="Confirm and send").click()
    expect(email.locator(".card-status")).to_have_text("Sent", timeout=20_000)
    # and the sandbox outbox shows it, read with their token
    expect(page.locator("#outbox")).to_be_visible()
    expect(page.get_by_test_id("outbox-mail")).to_have_count(1)
    expect(page.locator("#alert")).to_be_hidden()

    # When they sign out, Then the refresh token the page holds (from the sign-in after the reload) is
    # revoked and the page is signed out
    (after_reload,) = granted
    refresh_token = after_reload.json()["refresh_token"]
    with page.expect_request(lambda r: r.url.endswith("/oauth2/revoke")):
        page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible(timeout=20_000)
    expect(page.locator("#signed-in-as")).to_be_hidden()
    status, body = post_form(
        f"{server_url}oauth2/token",
        {"grant_type": "refresh_token", "client_id": CLIENT_ID, "refresh_token": refresh_token},
    )
    assert (status, body["error"]) == (400, "invalid_grant")
    # and a reload stays signed out (the provider's session ended too)
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()


def _is_sign_in_form(response: Response) -> bool:
    return "/oauth2/authorize" in response.url and response.status == 200


def test_the_api_checks_tokens_as_the_jwt_authorizer_does(page: Page, server_url: str) -> None:
    # Given a signed-in page's ID token
    tokens = sign_in(page, "alex-chen")
    expect(page.locator("#signed-in-name")).to_have_text(re.compile("Alex"))
    good = {"Authorization": f"Bearer {tokens['id_token']}"}
    # Then the API answers it, and refuses a tampered one, a missing one and alg none with 401
    assert api_status(server_url, "/actions/no-such-draft", good) == 404
    header, payload, _ = tokens["id_token"].split(".")
    assert api_status(server_url, "/actions/x", {"Authorization": f"Bearer {header}.{payload}.AAAA"}) == 401
    unsigned = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0." + payload + "."
    assert api_status(server_url, "/actions/x", {"Authorization": f"Bearer {unsigned}"}) == 401
    assert api_status(server_url, "/actions/x", {}) == 401
    # and the local header signs no one in: only a valid token does, everywhere, the outbox included
    assert api_status(server_url, "/actions/no-such-draft", {"X-Local-User": "jordan"}) == 401
    assert api_status(server_url, "/sandbox/outbox", {"X-Local-User": "jordan"}) == 401
    assert api_status(server_url, "/sandbox/outbox", good) == 200


def test_a_sign_in_answer_that_is_not_the_pages_own_is_refused(page: Page, server_url: str) -> None:
    # When the page is opened with a code and a state it never asked for (a forged callback)
    page.goto(f"{server_url}?code=forged&state=not-mine")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    # Then it shows why, strips the code from the URL, and stays signed out
    expect(page.locator("#alert")).to_contain_text("does not belong to this page's request")
    expect(page).to_have_url(server_url)
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
