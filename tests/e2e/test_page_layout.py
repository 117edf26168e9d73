"""The page on a phone and a tablet: nothing wider than the screen, the message box on it, cards usable.

Chromium with mobile emulation at 390x844 (a phone, the meta viewport honoured, touch) and at
768x1024 (a tablet). Screenshots go to ``artifacts/``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.test_chat_page import ARTIFACTS, COMBINED, EMAIL_CARD, MEETING_CARD, send, settle_names
from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

SCREENS = [
    pytest.param((390, 844, True), id="phone-390x844"),
    pytest.param((768, 1024, True), id="tablet-768x1024"),
]

# Every laid-out element whose box reaches past the right edge of the screen (or starts left of it).
OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  // The skip link waits off-screen until focused, and visually hidden labels are 1 px: both on purpose.
  for (const node of document.body.querySelectorAll("*:not(.skip-link):not(.visually-hidden)")) {
    const box = node.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(node).visibility === "hidden") continue;
    if (box.right > width + 0.5 || box.left < -0.5) {
      const name = `${node.tagName.toLowerCase()}#${node.id}.${node.className}`;
      out.push(`${name} ${Math.round(box.left)}..${Math.round(box.right)}`);
    }
  }
  return { width, scrollWidth: document.documentElement.scrollWidth, out: out.slice(0, 10) };
}"""

# Whether the element itself (or something inside it) is what a tap at its centre reaches.
TAPPED = """(node) => {
  const box = node.getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return hit === node || node.contains(hit);
}"""


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with local_server() as url:
        yield url


def fits_the_screen(page: Page) -> None:
    layout = page.evaluate(OVERFLOWING)
    assert layout["scrollWidth"] <= layout["width"], layout
    assert layout["out"] == [], layout


@pytest.fixture
def screen_page(browser: Browser, server_url: str, request: pytest.FixtureRequest) -> Iterator[Page]:
    width, height, mobile = request.param
    with ready_page(browser, server_url, width=width, height=height, mobile=mobile) as opened:
        yield opened


@pytest.mark.parametrize("screen_page", SCREENS, indirect=True)
def test_the_page_fits_the_screen_with_the_message_box_and_the_sign_in_on_it(screen_page: Page) -> None:
    page = screen_page
    width = page.viewport_size["width"] if page.viewport_size else 0
    # Given the page as it opens: nothing is wider than the screen
    fits_the_screen(page)
    # and the message box is on screen, where a tap reaches it
    box = page.get_by_role("textbox", name="Your message")
    expect(box).to_be_in_viewport(ratio=1)
    assert box.evaluate(TAPPED)
    # and the "Signed in as" picker is not covered by anything
    picker = page.get_by_label("Signed in as")
    expect(picker).to_be_in_viewport(ratio=1)
    assert picker.evaluate(TAPPED)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"page-{width}-open.png"))

    # When the person asks for two things
    turn = send(page, COMBINED)

    # Then both cards fit the screen too, each as wide as the conversation
    expect(turn.locator(".card")).to_have_count(2)
    fits_the_screen(page)
    email, meeting = turn.locator(EMAIL_CARD), turn.locator(MEETING_CARD)
    messages = page.locator("#messages").bounding_box()
    assert messages is not None
    for card in (email, meeting):
        bounds = card.bounding_box()
        assert bounds is not None
        assert bounds["width"] >= messages["width"] - 2 * 20, (bounds, messages)
    meeting.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"page-{width}-cards.png"))

    # and a card's Confirm is what a tap reaches, and confirms
    settle_names(email)
    confirm = email.get_by_role("button", name="Confirm and send")
    confirm.scroll_into_view_if_needed()
    assert confirm.evaluate(TAPPED)
    confirm.tap()
    expect(email.locator(".card-status")).to_have_text("Sent", timeout=20_000)
    # and the message box can still be reached to say more
    box.scroll_into_view_if_needed()
    expect(box).to_be_in_viewport(ratio=1)
    assert box.evaluate(TAPPED)
    fits_the_screen(page)
    page.screenshot(path=str(ARTIFACTS / f"page-{width}-confirmed.png"))
