"""Linked cards in a real browser, at a laptop's width and a phone's, against ``multitool serve``
(offline model, sandboxes): the mail that names the ticket or the meeting of its turn.

The screenshots go to ``artifacts/linked-*.png``.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.test_chat_page import ARTIFACTS, EMAIL_CARD, JIRA_CARD, MEETING_CARD, send
from tests.e2e.test_page_layout import fits_the_screen
from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

SIZES = {"laptop": {"width": 1360, "height": 1400}, "phone": {"width": 390, "height": 844, "mobile": True}}
TICKET_AND_MAIL = "File a WEB bug for the login crash and email Priya about it"
MEETING_AND_MAIL = "set up a sync with Priya on Thursday and email her the details"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with local_server() as url:
        yield url


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def page(browser: Browser, server_url: str, size: str) -> Iterator[Page]:
    with ready_page(browser, server_url, **SIZES[size]) as opened:  # type: ignore[arg-type]
        toggle = opened.locator("#drawer-toggle")
        if toggle.count() and toggle.get_attribute("aria-expanded") != "true":
            toggle.click()
        yield opened


def outbox(server_url: str) -> dict[str, Any]:
    request = urllib.request.Request(
        server_url.rstrip("/") + "/sandbox/outbox", headers={"X-Local-User": "jordan"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        answer: dict[str, Any] = json.load(response)
    return answer


def shot(page: Page, name: str, size: str, card: Locator) -> None:
    """The page, and the linked card alone (a phone's whole page is too long to read), to look at."""
    fits_the_screen(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"linked-{name}-{size}.png"), full_page=True)
    card.screenshot(path=str(ARTIFACTS / f"linked-{name}-{size}-card.png"))


def test_the_mail_names_the_ticket_and_is_sent_with_its_real_key_after_confirming_it_first(
    page: Page, server_url: str, size: str
) -> None:
    turn = send(page, TICKET_AND_MAIL)
    mail, ticket = turn.locator(EMAIL_CARD), turn.locator(JIRA_CARD)

    # The mail's text shows the ticket's key as a marked chip, and says which card it waits for
    chips = mail.locator(".link-chip")
    expect(chips.first).to_contain_text("WEB-?")
    expect(chips.first).to_contain_text("once the ticket is created")
    expect(mail.locator(".card-links")).to_contain_text("Waits for")
    expect(turn.get_by_test_id("confirm-all")).to_have_text("Confirm all 2")
    # Another project on the ticket card: the mail says so before anything is created
    ticket.get_by_label("Project").select_option("OPS")
    expect(chips.first).to_contain_text("OPS-?")
    ticket.get_by_label("Project").select_option("WEB")
    expect(chips.first).to_contain_text("WEB-?")
    shot(page, "ticket", size, mail)

    # Confirming the mail first: it waits for the ticket, and offers the one click that does both
    mail.get_by_role("button", name="Confirm and send").click()
    first = mail.get_by_role("button", name="Confirm the ticket first, then send")
    expect(first).to_be_visible(timeout=20_000)
    first.click()
    expect(ticket.locator(".card-status a")).to_have_text(re.compile(r"^WEB-\d+$"), timeout=20_000)
    expect(mail).to_have_attribute("data-state", "is-done", timeout=20_000)
    key = ticket.locator(".card-status a").inner_text()
    sent = [m for m in outbox(server_url)["emails"] if key in m["body"]]
    assert len(sent) == 1, outbox(server_url)["emails"]
    assert "{{" not in sent[0]["body"]
    assert "WEB-?" not in sent[0]["body"]
    issue = next(i for i in outbox(server_url)["issues"] if i["key"] == key)
    assert issue["url"] in sent[0]["body"]
    expect(turn.get_by_test_id("confirm-all")).to_have_count(0)
    shot(page, "ticket-sent", size, mail)


def test_confirm_all_books_the_chosen_slot_and_sends_the_mail_with_that_time(
    page: Page, server_url: str, size: str
) -> None:
    turn = send(page, MEETING_AND_MAIL)
    mail, meeting = turn.locator(EMAIL_CARD), turn.locator(MEETING_CARD)
    chip = mail.locator(".link-chip").first
    expect(chip).to_contain_text("once the meeting is booked")
    first_time = chip.locator(".link-chip-value").inner_text()

    # Another slot: the mail's time follows it
    meeting.locator(".slot input[type=radio]").nth(1).check()
    expect(chip.locator(".link-chip-value")).not_to_have_text(first_time)
    chosen = chip.locator(".link-chip-value").inner_text()
    shot(page, "meeting", size, mail)

    turn.get_by_test_id("confirm-all").click()

    expect(meeting).to_have_attribute("data-state", "is-done", timeout=20_000)
    expect(mail).to_have_attribute("data-state", "is-done", timeout=20_000)
    # The booked slot in words, as the chip said (the zone's name in brackets)
    words = chosen.rsplit(" (", 1)[0]
    sent = [m for m in outbox(server_url)["emails"] if words in m["body"] and not m["invitation"]]
    assert len(sent) == 1
    assert "{{" not in sent[0]["body"]
    shot(page, "meeting-sent", size, mail)


def test_a_discarded_ticket_leaves_an_ordinary_mail_without_the_placeholder(page: Page, size: str) -> None:
    turn = send(page, TICKET_AND_MAIL)
    mail, ticket = turn.locator(EMAIL_CARD), turn.locator(JIRA_CARD)
    ticket.get_by_role("button", name="Discard").click()
    expect(mail.locator(".link-chip.is-dropped").first).to_be_visible()

    mail.get_by_role("button", name="Confirm and send").click()

    redrawn = turn.locator(EMAIL_CARD)
    expect(redrawn.locator(".card-error")).to_contain_text("placeholder was removed", timeout=20_000)
    expect(redrawn.locator(".link-chip")).to_have_count(0)
    expect(redrawn.get_by_label("Message")).not_to_have_value(re.compile(r"\{\{"))
    expect(redrawn.locator(".notes")).to_contain_text("was removed from the text")
    shot(page, "dropped", size, redrawn)
