"""The consent flow end to end in Chromium against ``multitool serve --calendar microsoft365 --consent``,
nothing stubbed: the page signs in at the local OIDC stand-in, the turn's tools ask the local AgentCore
Identity stand-in for the user's token over the real ``bedrock-agentcore`` client, its consent page plays
Microsoft's, the callback finishes it as the signed-in user, and the Graph stand-in books the event only
with the token issued for that user. At a laptop's width and a phone's."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.test_chat_page import ARTIFACTS, EMAIL_CARD, MEETING_CARD, settle_names
from tests.e2e.test_sign_in import sign_in
from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

ASKED = "Email Priya about the doc and schedule a sync with Priya on Thursday"
CONNECT_CARD = "article.card-show_connect_account"
SIZES = {"laptop": {"width": 1360, "height": 1100}, "phone": {"width": 390, "height": 844, "mobile": True}}


@dataclass(frozen=True)
class Served:
    page: str
    graph: str


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    output: list[str] = []
    with local_server(args=("--calendar", "microsoft365", "--consent"), output=output) as url:
        [line] = [line for line in output if "Graph stand-in at " in line]
        yield Served(url, line.split("Graph stand-in at ", 1)[1].split()[0])


def opened(browser: Browser, served: Served, size: str) -> Any:
    return ready_page(browser, served.page, **SIZES[size])


def graph_events(served: Served) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{served.graph}/_local/events", timeout=10) as response:
        value: list[dict[str, Any]] = json.load(response)["value"]
        return value


def ask(page: Page, text: str) -> None:
    box = page.get_by_role("textbox", name="Your message")
    box.fill(text)
    box.press("Enter")


def accounts_row(page: Page) -> Any:
    return page.get_by_test_id("connected-account").filter(has_text="Microsoft 365")


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_ask_consent_come_back_the_page_retries_and_the_meeting_is_booked_in_the_users_calendar(
    browser: Browser, served: Served, size: str
) -> None:
    user = {"laptop": "jordan", "phone": "kinshuok"}[size]
    address = {"jordan": "jordan.lee@example.com", "kinshuok": "kinshuok.sharma@example.com"}[user]
    with opened(browser, served, size) as page:
        sign_in(page, user)
        expect(accounts_row(page)).to_have_attribute("data-status", "not_connected")

        # When the user asks for a mail and a meeting: both need their own directory and calendar,
        # so the turn answers the consent card and nothing else
        ask(page, ASKED)
        card = page.locator(CONNECT_CARD)
        expect(card).to_be_visible(timeout=30_000)
        expect(card.get_by_role("heading")).to_have_text("Connect your Microsoft 365 account")
        expect(page.locator(EMAIL_CARD)).to_have_count(0)
        page.screenshot(path=str(ARTIFACTS / f"consent-card-{size}.png"))

        # and connects: the provider's consent page (the local stand-in) names them and what is asked
        card.get_by_role("link", name="Connect Microsoft 365").click()
        expect(page.get_by_role("heading")).to_contain_text("multitool asks for access")
        expect(page.locator("body")).to_contain_text("Allow multitool to read your calendar and send mail as")
        expect(page.locator("body")).to_contain_text(address)
        page.screenshot(path=str(ARTIFACTS / f"consent-page-{size}.png"))
        page.get_by_role("button", name="Allow").click()

        # Then the page, back with the session, finishes the consent and sends the message again
        page.wait_for_url(lambda url: url.startswith(served.page) and "session_id" not in url)
        expect(page.locator("#alert")).to_contain_text("Microsoft 365 is connected")
        email, meeting = page.locator(EMAIL_CARD), page.locator(MEETING_CARD)
        expect(meeting).to_be_visible(timeout=30_000)
        expect(email).to_be_visible()
        expect(accounts_row(page)).to_have_attribute("data-status", "connected")
        page.screenshot(path=str(ARTIFACTS / f"consent-connected-{size}.png"), full_page=True)

        # and the meeting's confirm books the event in the signed-in user's own calendar
        before = len(graph_events(served))
        settle_names(meeting)
        meeting.get_by_role("button", name="Confirm").click()
        expect(meeting.locator(".card-status")).to_have_text("Invitation sent", timeout=30_000)
        events = graph_events(served)
        assert len(events) == before + 1
        assert events[-1]["organizer"]["emailAddress"]["address"] == address
        assert "priya.patel@example.com" in [a["emailAddress"]["address"] for a in events[-1]["attendees"]]

        # When they disconnect from the accounts list, the next turn asks for the consent again
        accounts_row(page).get_by_role("button", name="Disconnect Microsoft 365").click()
        expect(page.locator("#alert")).to_contain_text("Microsoft 365 is disconnected")
        expect(accounts_row(page)).to_have_attribute("data-status", "disconnected")
        # (the consent card of the first turn was not kept: the conversation read back holds drafts only)
        expect(page.locator(CONNECT_CARD)).to_have_count(0)
        ask(page, "Schedule a sync with Priya on Friday")
        expect(page.locator(CONNECT_CARD)).to_have_count(1, timeout=30_000)


def test_a_consent_link_opened_by_another_signed_in_user_is_refused(browser: Browser, served: Served) -> None:
    with opened(browser, served, "laptop") as priya:
        sign_in(priya, "priya")
        ask(priya, "Schedule a sync with Jordan on Thursday")
        link = priya.locator(CONNECT_CARD).get_by_role("link", name="Connect Microsoft 365")
        expect(link).to_be_visible(timeout=30_000)
        consent_url = link.get_attribute("href")
        assert consent_url

        # When Alex, signed in on their own browser, opens Priya's link and allows it
        with opened(browser, served, "laptop") as alex:
            sign_in(alex, "alex-chen")
            alex.goto(consent_url)
            alex.get_by_role("button", name="Allow").click()

            # Then Alex's page is refused the consent, and nothing is connected for Alex
            alex.wait_for_url(lambda url: url.startswith(served.page) and "session_id" not in url)
            expect(alex.locator("#alert")).to_contain_text("Your account was not connected")
            expect(alex.locator("#alert")).to_contain_text("not started by you")
            expect(accounts_row(alex)).to_have_attribute("data-status", "not_connected")
            alex.screenshot(path=str(ARTIFACTS / "consent-not-yours.png"))

        # nor for Priya, whose link it was
        priya.reload()
        expect(priya.locator("body")).to_have_attribute("data-ready", "true")
        expect(accounts_row(priya)).to_have_attribute("data-status", "pending")


def test_deny_comes_back_with_nothing_connected_and_the_page_says_so(
    browser: Browser, served: Served
) -> None:
    with opened(browser, served, "phone") as page:
        sign_in(page, "alex-muller")
        ask(page, "Schedule a sync with Priya on Thursday")
        page.locator(CONNECT_CARD).get_by_role("link", name="Connect Microsoft 365").click()

        page.get_by_role("button", name="Deny").click()

        page.wait_for_url(lambda url: url.startswith(served.page) and "error=" not in url)
        expect(page.locator("#alert")).to_contain_text("the consent was declined")
        # what the user asked is back in the composer, not sent and not lost
        expect(page.get_by_role("textbox", name="Your message")).to_have_value(
            "Schedule a sync with Priya on Thursday"
        )
        expect(accounts_row(page)).to_have_attribute("data-status", "pending")
        expect(page.locator(MEETING_CARD)).to_have_count(0)
        page.screenshot(path=str(ARTIFACTS / "consent-denied-phone.png"))
