"""The cards for meetings that already exist, in a real browser at a phone's width and a laptop's:
"cancel tomorrow's sync with Priya, say I'm sick", "push the 1:1 30 minutes later" and "decline the
Friday retro, I'm out" each show the meeting found among the user's own (the demo's meetings on the
built-in calendar), what will change, and the message; confirmed, each says what was done.

The phone's run looks at the cards; the laptop's, after it, confirms them (one server: a cancelled
meeting is gone for the next run).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.test_chat_page import ARTIFACTS, send
from tests.e2e.test_page_layout import fits_the_screen
from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

SIZES = {"phone": {"width": 390, "height": 844, "mobile": True}, "laptop": {"width": 1360, "height": 1100}}
MOVE_CARD = "[data-card-type=show_meeting_move]"
CANCEL_CARD = "[data-card-type=show_meeting_cancel]"
ANSWER_CARD = "[data-card-type=show_invitation_answer]"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with local_server() as url:
        yield url


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def opened(browser: Browser, url: str, size: str) -> Any:
    remember = f"localStorage.setItem('multitool.localUser', {json.dumps('jordan')});"
    return ready_page(browser, url, init_script=remember, **SIZES[size])  # type: ignore[arg-type]


def shot(page: Page, name: str, size: str) -> None:
    fits_the_screen(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"meetings-{name}-{size}.png"), full_page=True)


def test_cancel_move_and_answer_cards_show_the_meeting_found_and_confirm(
    browser: Browser, server_url: str, size: str
) -> None:
    with opened(browser, server_url, size) as page:
        cancel = send(page, "cancel tomorrow's sync with Priya, say I'm sick").locator(CANCEL_CARD)
        expect(cancel.locator(".reference-found")).to_contain_text("Weekly sync")
        expect(cancel.locator("textarea[name=message]")).to_have_value("I'm sick")
        expect(cancel.get_by_role("button", name="Cancel meeting")).to_be_visible()

        move = send(page, "push the 1:1 30 minutes later").locator(MOVE_CARD)
        expect(move.locator(".reference-found")).to_contain_text("1:1 Jordan / Alex")
        expect(move.locator(".reference-when")).to_contain_text("Now:")
        expect(move.locator(".slot")).to_have_count(1)
        expect(move.get_by_role("button", name="Move")).to_be_visible()

        answer = send(page, "decline the Friday retro, I'm out").locator(ANSWER_CARD)
        expect(answer.locator(".reference-found")).to_contain_text("Sprint retro")
        expect(answer.locator("select[name=response]")).to_have_value("declined")
        expect(answer.locator("textarea[name=message]")).to_have_value("I'm out")
        shot(page, "cards", size)
        if size != "laptop":
            return

        # Confirmed: each card says what was done, and nothing is offered again
        cancel.get_by_role("button", name="Cancel meeting").click()
        expect(cancel.locator(".card-status")).to_contain_text("Cancelled", timeout=15_000)
        move.get_by_role("button", name="Move").click()
        expect(move.locator(".card-status")).to_contain_text("Moved", timeout=15_000)
        answer.get_by_role("button", name="Send answer").click()
        expect(answer.locator(".card-status")).to_contain_text("Answered", timeout=15_000)
        shot(page, "confirmed", size)

        # The meeting cancelled is no longer there to find
        again = send(page, "cancel tomorrow's sync with Priya").locator(CANCEL_CARD)
        expect(again.locator(".reference-none")).to_contain_text("No meeting of yours matches")
        shot(page, "none", size)
