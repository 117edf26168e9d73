"""A reload keeps the conversation: the page reads the session back from the API and draws every card
again in its current state (``GET /sessions/{id}``, then ``GET /actions/{id}`` per card).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.test_chat_page import (
    ARTIFACTS,
    COMBINED,
    EMAIL_CARD,
    JIRA_AND_EMAIL,
    JIRA_CARD,
    MEETING_CARD,
    send,
    settle_names,
)
from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e


PRINTED: list[str] = []


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with local_server(output=PRINTED) as url:
        yield url


def forget_draft(draft_id: str) -> None:
    """Delete a draft behind the page's back, as its expiry (TTL) would."""
    import re

    import boto3

    (endpoint,) = {m.group(1) for line in PRINTED if (m := re.search(r"moto at (http://[^)\s]+)", line))}
    dynamodb = boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
        aws_session_token="local",
    )
    dynamodb.delete_item(TableName="multitool-drafts", Key={"id": {"S": draft_id}})


@pytest.fixture
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    with ready_page(browser, server_url, height=1400) as opened:
        yield opened


def test_a_reload_shows_the_conversation_and_its_cards_in_their_state(page: Page) -> None:
    # Given two turns: two cards, one of them confirmed, then a ticket and an email left open
    first = send(page, COMBINED)
    email = first.locator(EMAIL_CARD)
    settle_names(email)
    email.get_by_role("button", name="Confirm and send").click()
    expect(email.locator(".card-status")).to_have_text("Sent", timeout=20_000)
    second = send(page, JIRA_AND_EMAIL)
    expect(second.locator(".card")).to_have_count(2)
    ids = page.locator("article.card").evaluate_all("cards => cards.map(c => c.dataset.cardId)")

    # When the page is reloaded, with no turn running
    with page.expect_response(lambda r: "/sessions/" in r.url) as read_back:
        page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")

    # Then it read the session back, and shows both messages and both turns again
    assert read_back.value.status == 200
    expect(page.locator(".msg-user")).to_have_text([COMBINED, JIRA_AND_EMAIL])
    turns = page.get_by_test_id("assistant-turn")
    expect(turns).to_have_count(2)
    expect(page.locator("article.card")).to_have_count(4)
    assert page.locator("article.card").evaluate_all("cards => cards.map(c => c.dataset.cardId)") == ids
    # and each card in its state: the sent email is done, the others can still be confirmed
    email, meeting = turns.nth(0).locator(EMAIL_CARD), turns.nth(0).locator(MEETING_CARD)
    expect(email.locator(".card-status")).to_have_text("Sent")
    expect(email.get_by_role("button", name="Confirm and send")).to_be_hidden()
    expect(meeting.get_by_role("button", name="Confirm")).to_be_enabled()
    ticket = turns.nth(1).locator(JIRA_CARD)
    expect(ticket.get_by_role("button", name="Confirm")).to_be_enabled()
    expect(turns.nth(1).locator(".caption").first).to_have_text("Jira Bug in WEB: Login crash")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "reloaded.png"), full_page=True)

    # When they confirm a card drawn again, Then it is done as any other
    ticket.get_by_role("button", name="Confirm").click()
    expect(ticket.locator(".card-status")).to_contain_text("Created", timeout=20_000)
    # and the conversation goes on in the same session
    with page.expect_request(lambda r: r.url.endswith("/chat") and r.method == "POST") as chat:
        send(page, "What can you do?")
    assert chat.value.post_data_json["sessionId"] == read_back.value.json()["sessionId"]


def test_a_new_chat_or_another_user_is_not_shown_the_earlier_conversation(page: Page) -> None:
    # Given a conversation of the default user
    send(page, COMBINED)
    expect(page.locator("article.card")).to_have_count(2)

    # When another user is picked and the page reloaded, Then nothing of it is shown
    page.get_by_label("Signed in as").select_option("priya")
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator(".msg")).to_have_count(0)

    # When that user chats, starts a new chat and reloads, Then the new chat stays empty
    send(page, COMBINED)
    page.get_by_role("button", name="New chat").click()
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator(".msg")).to_have_count(0)


def test_a_card_whose_draft_is_gone_says_so_and_offers_no_confirm(page: Page) -> None:
    # Given a ticket card on the page, whose draft then goes away (expired, or a server without its data)
    turn = send(page, "File a Jira bug in WEB for the login crash")
    ticket = turn.locator(JIRA_CARD)
    expect(ticket.get_by_role("button", name="Confirm")).to_be_enabled()
    forget_draft(str(ticket.get_attribute("data-card-id")))

    # When the person confirms it
    ticket.get_by_role("button", name="Confirm").click()

    # Then the card says the draft is no longer available, and offers nothing to confirm
    expect(ticket.locator(".card-status")).to_have_text("No longer available")
    expect(ticket.locator(".card-error")).to_contain_text("no longer available")
    expect(ticket.get_by_role("button", name="Confirm")).to_be_hidden()
    expect(ticket.get_by_role("button", name="Discard")).to_be_hidden()

    # and after a reload it is drawn the same way, in its place in the conversation
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    gone = page.get_by_test_id("assistant-turn").last.locator("article.card")
    expect(gone.locator(".card-status")).to_have_text("No longer available")
    expect(gone.locator(".caption")).to_have_text("Jira Bug in WEB: Login crash")
    expect(gone.get_by_role("button", name="Confirm")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "gone-draft.png"))
