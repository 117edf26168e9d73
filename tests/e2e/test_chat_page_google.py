"""The page against ``multitool serve --calendar google``: proposals from the local Google stand-in's
people and meetings, a confirmed meeting an event on the organizer's primary calendar (Google sends
the invitations, ``sendUpdates=all``), a confirmed email a Gmail send from the user's own mailbox,
and the page's sandbox outbox listing both from the stand-in (not the SES sandbox's).

At a laptop's width and a phone's; the screenshots go to ``artifacts/``."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.test_chat_page import ARTIFACTS, EMAIL_CARD, MEETING_CARD, api_get, send, settle_names
from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

JORDAN = "jordan.lee@example.com"  # the seed's default user, the page's signed-in person
PRIYA = "priya.patel@example.com"
SCREENS = [
    pytest.param((1360, 1400, False), id="laptop-1360"),
    pytest.param((390, 844, True), id="phone-390x844"),
]


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, str]]:
    """The page's URL and the Google stand-in's, read from what ``multitool serve`` prints."""
    output: list[str] = []
    with local_server(args=("--calendar", "google"), output=output) as url:
        [line] = [line for line in output if "Google stand-in at " in line]
        assert "unchecked" not in line, "the stand-in checks every request against the discovery documents"
        yield url, line.split("Google stand-in at ", 1)[1].split()[0]


@pytest.fixture
def screen_page(browser: Browser, servers: tuple[str, str], request: pytest.FixtureRequest) -> Iterator[Page]:
    width, height, mobile = request.param
    with ready_page(browser, servers[0], width=width, height=height, mobile=mobile) as opened:
        yield opened


def google_view(google_url: str, what: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{google_url}/_local/{what}", timeout=10) as response:
        value: list[dict[str, Any]] = json.load(response)["value"]
        return value


@pytest.mark.parametrize("screen_page", SCREENS, indirect=True)
def test_propose_confirm_the_event_and_the_mail_are_in_google_workspace(
    screen_page: Page, servers: tuple[str, str]
) -> None:
    page = screen_page
    width = page.viewport_size["width"] if page.viewport_size else 0
    server_url, google_url = servers
    events_before = google_view(google_url, "events")
    invitations_before = len(google_view(google_url, "invitations"))
    sent_before = len(google_view(google_url, "sent"))
    outbox_before = len(api_get(server_url, "/sandbox/outbox")["emails"])

    # When the user asks for a mail and a meeting (Priya in London and Jordan in New York share
    # their afternoon), and confirms both cards
    turn = send(page, "Email Priya about the doc and schedule a sync for Thursday")
    email, meeting = turn.locator(EMAIL_CARD), turn.locator(MEETING_CARD)
    settle_names(email)
    settle_names(meeting)
    meeting.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"google-{width}-cards.png"))
    confirm = meeting.get_by_role("button", name="Confirm")
    confirm.scroll_into_view_if_needed()
    confirm.click()
    expect(meeting.locator(".card-status")).to_have_text("Invitation sent", timeout=30_000)
    send_mail = email.get_by_role("button", name="Confirm and send")
    send_mail.scroll_into_view_if_needed()
    send_mail.click()
    expect(email.locator(".card-status")).to_have_text("Sent", timeout=30_000)
    meeting.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"google-{width}-confirmed.png"))

    # Then the meeting is one new event on Jordan's primary calendar, with Priya invited,
    events = google_view(google_url, "events")
    [new] = [e for e in events if e["id"] not in {b["id"] for b in events_before}]
    assert new["organizer"]["email"] == JORDAN
    assert new["status"] == "confirmed"
    assert PRIYA in [a["email"] for a in new["attendees"]]
    # by Google itself (the insert asked sendUpdates=all),
    invitations = google_view(google_url, "invitations")[invitations_before:]
    assert {"to": PRIYA, "eventId": new["id"], "summary": new["summary"]} in invitations
    # the mail left from Jordan's own Gmail,
    [mail] = google_view(google_url, "sent")[sent_before:]
    assert mail["from"] == JORDAN
    assert mail["to"] == PRIYA
    # and nothing went out through the sandbox's own SES
    assert len(api_get(server_url, "/sandbox/outbox")["emails"]) == outbox_before

    # The page's outbox says where mail and meetings went, and lists them from the stand-in
    if page.locator("#drawer-toggle").get_attribute("aria-expanded") == "true" and width < 800:
        page.locator("#drawer-toggle").click()  # on a phone the chat covers the workspace
    outbox = page.locator("#outbox")
    outbox.get_by_role("button", name="Refresh").click()
    expect(outbox.locator("#outbox-note")).to_contain_text("a local Google Workspace stand-in")
    expect(outbox).not_to_contain_text("SES")
    expect(outbox.locator("#outbox-mail-title")).to_have_text("Sent from your Google Workspace mailbox")
    expect(outbox.get_by_test_id("outbox-mail").first).to_contain_text(f"to {PRIYA}")
    expect(outbox.locator("#outbox-events-title")).to_be_visible()
    booked = outbox.get_by_test_id("outbox-event").filter(has_text=new["summary"])
    expect(booked.first).to_contain_text(PRIYA)
    outbox.locator("#outbox-events").scroll_into_view_if_needed()  # its items are redrawn on refresh
    box = outbox.bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= width + 0.5, "the outbox fits the screen"
    page.screenshot(path=str(ARTIFACTS / f"google-{width}-outbox.png"))
