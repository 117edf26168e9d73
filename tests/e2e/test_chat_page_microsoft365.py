"""The page against ``multitool serve --calendar microsoft365``: proposals from the local Graph
stand-in's people and meetings, a confirmed meeting an event there (Microsoft sends its
invitations), a confirmed email a sendMail from the user's own mailbox."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.test_chat_page import EMAIL_CARD, MEETING_CARD, api_get, send, settle_names
from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, str]]:
    """The page's URL and the Graph stand-in's, read from what ``multitool serve`` prints."""
    output: list[str] = []
    with local_server(args=("--calendar", "microsoft365"), output=output) as url:
        [line] = [line for line in output if "Graph stand-in at " in line]
        yield url, line.split("Graph stand-in at ", 1)[1].split()[0]


@pytest.fixture
def page(browser: Browser, servers: tuple[str, str]) -> Iterator[Page]:
    with ready_page(browser, servers[0], height=1400) as opened:
        yield opened


def graph_view(graph_url: str, what: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{graph_url}/_local/{what}", timeout=10) as response:
        value: list[dict[str, Any]] = json.load(response)["value"]
        return value


def test_propose_confirm_the_event_and_the_mail_are_in_microsoft_365(
    page: Page, servers: tuple[str, str]
) -> None:
    server_url, graph_url = servers
    events_before = len(graph_view(graph_url, "events"))
    outbox_before = len(api_get(server_url, "/sandbox/outbox")["emails"])

    # When the user asks for a mail and a meeting (Priya in London and Jordan in New York share
    # their afternoon), and confirms both cards
    turn = send(page, "Email Priya about the doc and schedule a sync for Thursday")
    email, meeting = turn.locator(EMAIL_CARD), turn.locator(MEETING_CARD)
    settle_names(email)
    settle_names(meeting)
    meeting.get_by_role("button", name="Confirm").click()
    expect(meeting.locator(".card-status")).to_have_text("Invitation sent", timeout=30_000)
    email.get_by_role("button", name="Confirm and send").click()
    expect(email.locator(".card-status")).to_have_text("Sent", timeout=30_000)

    # Then the meeting is one new event on the organizer's calendar, with Priya invited by Microsoft,
    events = graph_view(graph_url, "events")
    assert len(events) == events_before + 1
    new = events[-1]
    assert new["organizer"]["emailAddress"]["address"] == "jordan.lee@example.com"
    assert "priya.patel@example.com" in [a["emailAddress"]["address"] for a in new["attendees"]]
    assert new["transactionId"]
    # the mail left from Jordan's own mailbox and was kept in Sent Items,
    [mail] = graph_view(graph_url, "sent")
    assert mail["from"] == "jordan.lee@example.com"
    assert mail["SaveToSentItems"] is True
    assert mail["Message"]["toRecipients"] == [{"emailAddress": {"address": "priya.patel@example.com"}}]
    # and nothing went out through the sandbox's own SES
    assert len(api_get(server_url, "/sandbox/outbox")["emails"]) == outbox_before
