"""Undo on the page, in a real browser at laptop and phone width, against ``multitool serve`` with an undo
window: a confirmed mail counts down beside Undo; Undo makes the card an editable draft again and nothing
is sent; left alone, the card says it was sent once the window has passed. Screenshots go to
``artifacts/``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.test_chat_page import ARTIFACTS, EMAIL_CARD, api_get, send
from tests.e2e.test_page_layout import fits_the_screen
from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

WINDOW = 4
SCREENS = [
    pytest.param((1360, 900, False), id="laptop-1360x900"),
    pytest.param((390, 844, True), id="phone-390x844"),
]


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with local_server(env={"UNDO_SECONDS": str(WINDOW)}) as url:
        yield url


@pytest.fixture
def screen_page(browser: Browser, server_url: str, request: pytest.FixtureRequest) -> Iterator[Page]:
    width, height, mobile = request.param
    with ready_page(browser, server_url, width=width, height=height, mobile=mobile) as opened:
        yield opened


def sent_subjects(server_url: str) -> list[str]:
    return [m["subject"] for m in api_get(server_url, "/sandbox/outbox")["emails"]]


def confirm_with_subject(page: Page, subject: str) -> Locator:
    card = send(page, "Email Priya about the launch").locator(EMAIL_CARD)
    expect(card).to_have_attribute("data-state", "is-proposed")
    card.get_by_label("Subject").fill(subject)
    card.get_by_role("button", name="Confirm and send").click()
    return card


@pytest.mark.parametrize("screen_page", SCREENS, indirect=True)
def test_undo_within_the_window_makes_the_card_a_draft_again_and_sends_nothing(
    screen_page: Page, server_url: str
) -> None:
    page = screen_page
    width = page.viewport_size["width"] if page.viewport_size else 0
    subject = f"Launch notes, undone at {width}"
    card = confirm_with_subject(page, subject)

    # Then the card counts down with Undo, its fields locked
    expect(card).to_have_attribute("data-state", "is-scheduled")
    countdown = card.get_by_test_id("undo-countdown")
    expect(countdown).to_contain_text("Sending in")
    undo = card.get_by_role("button", name="Undo")
    expect(undo).to_be_in_viewport(ratio=1)
    expect(card.get_by_label("Subject")).to_be_disabled()
    fits_the_screen(page)
    card.screenshot(path=str(ARTIFACTS / f"undo-{width}-scheduled.png"))

    # When the user presses Undo
    undo.click()

    # Then the card is an editable draft with the text as typed, and after the window nothing was sent
    expect(card).to_have_attribute("data-state", "is-proposed")
    expect(card.locator(".card-status")).to_have_text("Undone")
    expect(card.locator(".card-undone")).to_have_text("Nothing was sent. Edit and confirm again, or discard.")
    expect(card.get_by_label("Subject")).to_be_enabled()
    expect(card.get_by_label("Subject")).to_have_value(subject)
    expect(card.get_by_role("button", name="Undo")).to_have_count(0)
    card.screenshot(path=str(ARTIFACTS / f"undo-{width}-undone.png"))
    page.wait_for_timeout((WINDOW + 2) * 1000)
    assert subject not in sent_subjects(server_url)


@pytest.mark.parametrize("screen_page", SCREENS, indirect=True)
def test_left_alone_the_card_says_sent_once_the_window_has_passed(screen_page: Page, server_url: str) -> None:
    page = screen_page
    width = page.viewport_size["width"] if page.viewport_size else 0
    subject = f"Launch notes, sent at {width}"
    card = confirm_with_subject(page, subject)
    expect(card).to_have_attribute("data-state", "is-scheduled")

    # When the window passes, Then the card is done (the page asked the action's state), sent once
    expect(card).to_have_attribute("data-state", "is-done", timeout=(WINDOW + 15) * 1000)
    expect(card.get_by_role("button", name="Undo")).to_have_count(0)
    assert sent_subjects(server_url).count(subject) == 1
    fits_the_screen(page)
    card.screenshot(path=str(ARTIFACTS / f"undo-{width}-sent.png"))


def test_a_reload_within_the_window_still_offers_undo_and_then_shows_it_sent(
    browser: Browser, server_url: str
) -> None:
    with ready_page(browser, server_url, width=1360, height=900) as page:
        subject = "Launch notes, across a reload"
        card_id = confirm_with_subject(page, subject).get_attribute("data-card-id")

        # When the page is reloaded within the window
        page.reload()
        expect(page.locator("body")).to_have_attribute("data-ready", "true")

        # Then the card read back (GET /actions/{id}) counts down with Undo, and ends sent
        card = page.locator(f'article.card[data-card-id="{card_id}"]')
        expect(card).to_have_attribute("data-state", "is-scheduled")
        expect(card.get_by_role("button", name="Undo")).to_be_enabled()
        expect(card.get_by_label("Subject")).to_have_value(subject)  # what will be sent, not the draft
        expect(card.locator(".card-sent-as")).to_contain_text("what will be sent")
        expect(card).to_have_attribute("data-state", "is-done", timeout=(WINDOW + 15) * 1000)
        assert sent_subjects(server_url).count(subject) == 1
