"""A repeating meeting and the agenda in the browser, at laptop and phone width: the meeting card
says the rule and checks its first meetings; confirmed, the series is on the agenda, a read-only
card without Confirm or Discard. Screenshots go to ``artifacts/``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.test_chat_page import ARTIFACTS, MEETING_CARD, send
from tests.e2e.test_page_layout import fits_the_screen
from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

AGENDA_CARD = "[data-card-type=show_agenda]"
SCREENS = [
    pytest.param((1280, 800, False), id="laptop-1280x800"),
    pytest.param((390, 844, True), id="phone-390x844"),
]


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with local_server() as url:
        yield url


@pytest.fixture
def screen_page(browser: Browser, server_url: str, request: pytest.FixtureRequest) -> Iterator[Page]:
    width, height, mobile = request.param
    with ready_page(browser, server_url, width=width, height=height, mobile=mobile) as opened:
        yield opened


@pytest.mark.parametrize("screen_page", SCREENS, indirect=True)
def test_a_weekly_series_is_booked_and_then_on_the_agenda_without_a_confirm(
    screen_page: Page, request: pytest.FixtureRequest
) -> None:
    page = screen_page
    name = request.node.callspec.id
    ARTIFACTS.mkdir(exist_ok=True)
    # Given a weekly 1:1 asked for in chat
    turn = send(page, "Set up a weekly 1:1 with Priya every Wednesday at 11am")
    card = turn.locator(MEETING_CARD)
    expect(card).to_have_count(1)
    # Then each slot says the rule, and its first meetings were checked
    # (11:00 on the first screen; the second finds that series booked, and offers the next free time)
    expect(card.locator(".slot-series").first).to_contain_text("Repeats: Every Wednesday, 11:")
    card.screenshot(path=str(ARTIFACTS / f"series-card-{name}.png"))
    # When it is confirmed
    card.get_by_role("button", name="Confirm").click()
    expect(card).to_have_attribute("data-state", "is-done", timeout=30_000)

    # Then next week's agenda shows its Wednesday meeting, read only
    agenda = send(page, "what's on my calendar next week?").locator(AGENDA_CARD)
    expect(agenda).to_have_count(1)
    booked = agenda.locator(".agenda-item").filter(has_text="1:1").first
    expect(booked).to_contain_text("11:")
    expect(booked).to_contain_text("repeats")
    expect(agenda.get_by_role("button")).to_have_count(0)  # no Confirm, no Discard
    agenda.screenshot(path=str(ARTIFACTS / f"agenda-card-{name}.png"))
    fits_the_screen(page)  # nothing of the new cards is wider than the screen


@pytest.mark.parametrize("screen_page", SCREENS, indirect=True)
def test_free_times_with_priya_are_a_read_only_card(
    screen_page: Page, request: pytest.FixtureRequest
) -> None:
    page = screen_page
    name = request.node.callspec.id
    ARTIFACTS.mkdir(exist_ok=True)

    card = send(page, "when am I free with Priya next week?").locator("[data-card-type=show_free_times]")

    expect(card).to_have_count(1)
    expect(card.locator(".agenda-item").first).to_contain_text("Free")
    expect(card).to_contain_text("You and Priya Patel")
    expect(card.get_by_role("button")).to_have_count(0)
    card.screenshot(path=str(ARTIFACTS / f"free-times-card-{name}.png"))
    fits_the_screen(page)
