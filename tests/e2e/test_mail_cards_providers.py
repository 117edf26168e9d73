"""Replies and forwards on the page against ``multitool serve --calendar microsoft365`` and
``--calendar google``: the message found in the user's own mailbox at the stand-in (seeded with the
demo's mail), confirmed, and the answer sent from that mailbox (the sandbox outbox lists it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.test_card_truths import SIZES, open_drawer, opened, shot
from tests.e2e.test_chat_page import api_get, send
from tests.e2e.test_mail_cards import FORWARD_CARD, REPLY_CARD
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module", params=["microsoft365", "google"])
def provider(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    with local_server(args=("--calendar", str(request.param))) as url:
        yield str(request.param), url


def test_a_reply_and_a_forward_go_from_the_users_own_mailbox(
    browser: Browser, provider: tuple[str, str]
) -> None:
    name, url = provider
    with opened(browser, url, "laptop", "jordan") as page:
        open_drawer(page)
        before = len(api_get(url, "/sandbox/outbox")["provider"]["mail"])
        reply = send(page, "reply to Priya's email about the budget: Thursday it is").locator(REPLY_CARD)
        expect(reply.locator(".message-quoted")).to_contain_text("Could we meet Wednesday or Thursday")
        reply.get_by_role("button", name="Confirm and send").click()
        expect(reply.locator(".card-status")).to_have_text("Sent")

        forward = send(page, "forward the invoice from Mei to Kinshuok").locator(FORWARD_CARD)
        expect(forward.locator(".attachment")).to_contain_text(["INV-2291.pdf"])
        forward.scroll_into_view_if_needed()
        shot(page, f"mail-forward-{name}", "laptop")
        forward.get_by_role("button", name="Confirm and send").click()
        expect(forward.locator(".card-status")).to_have_text("Sent")

        mail = api_get(url, "/sandbox/outbox")["provider"]["mail"]  # newest first
        subjects = [m["subject"] for m in mail[: len(mail) - before]]
        assert len(subjects) == 2, (before, mail)
        assert any("Q1 budget" in s for s in subjects)
        assert any("INV-2291" in s for s in subjects)


assert SIZES  # the same widths as the builtin cards' tests
