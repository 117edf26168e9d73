"""The page's side of the consent, in Chromium against ``multitool serve``: a turn that needs the user's own
account shows the consent card, its link leaves for the provider, the page comes back with ``session_id``,
posts it to ``POST /connections/complete`` signed in, cleans the address bar and offers the waiting message
again. The local server has no identity stand-in wired in yet, so the three exchanges that would leave
for a provider suite (the turn's 403, the provider's consent page, the callback's answer) are answered
in the browser's network layer from the API's own shapes; the rest is the real page and server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

SESSION = "urn:ietf:params:oauth:request_uri:e2e-session"
CONSENT = "https://login.example.com/consent?request_uri=e2e"
ASKED = "Schedule a sync with Priya on Thursday"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with local_server() as url:
        yield url


@pytest.fixture
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    with ready_page(browser, server_url, height=1200) as opened:
        yield opened


def test_consent_card_leaves_for_the_provider_and_the_page_finishes_it(page: Page, server_url: str) -> None:
    completed: list[dict[str, Any]] = []

    def turn_needs_account(route: Route) -> None:
        route.fulfill(
            status=403,
            content_type="application/json",
            body=json.dumps(
                {
                    "error": {
                        "code": "account_not_connected",
                        "message": "Connect your Microsoft 365 account to go on; nothing was sent.",
                        "provider": "microsoft365",
                        "authorizationUrl": CONSENT,
                    }
                }
            ),
        )

    def provider_consents(route: Route) -> None:
        # The provider, then AgentCore, send the browser back to the return URL with the session.
        route.fulfill(status=302, headers={"Location": f"{server_url}?session_id={SESSION}"})

    def callback(route: Route) -> None:
        completed.append(
            {"body": json.loads(route.request.post_data or "{}"), "headers": route.request.headers}
        )
        route.fulfill(
            status=200,
            content_type="application/json",
            body=json.dumps(
                {"provider": "microsoft365", "providerName": "Microsoft 365", "status": "connected"}
            ),
        )

    page.route("**/chat", turn_needs_account)
    page.route("https://login.example.com/**", provider_consents)
    page.route("**/connections/complete", callback)

    # Ask: the turn needs the account, so the answer is the consent card, and the message waits.
    box = page.get_by_role("textbox", name="Your message")
    box.fill(ASKED)
    box.press("Enter")
    card = page.locator("article.card-show_connect_account")
    expect(card).to_be_visible()
    expect(card.get_by_role("heading")).to_contain_text("Connect your")
    expect(card).to_contain_text("nothing was sent")

    # Consent: the link leaves for the provider and comes back to the page, which finishes it signed in.
    card.get_by_role("link", name="Connect").click()
    page.wait_for_url(lambda url: "session_id" not in url and url.startswith(server_url))
    expect(page.locator("#alert")).to_contain_text("Microsoft 365 is connected")
    assert len(completed) == 1
    assert completed[0]["body"] == {"sessionUri": SESSION, "provider": "microsoft365"}
    assert completed[0]["headers"].get("x-local-user")  # signed in: the local sign-in header
    # The message that waited is offered again.
    expect(box).to_have_value(ASKED)
