"""The reply and forward cards in a real browser, at a laptop's width and a phone's, against the local
demo's builtin mailbox: the message answered shown (sender, subject, first lines), its recipients, the
reply sent in the thread; a forward listing the invoice's PDF with its size, one attachment left out,
and the sandbox outbox showing what went."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.test_card_truths import SIZES, open_drawer, opened, shot
from tests.e2e.test_chat_page import send
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

REPLY_CARD = "article.card[data-card-type='show_email_reply']"
FORWARD_CARD = "article.card[data-card-type='show_email_forward']"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with local_server() as url:
        yield url


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_a_reply_shows_the_message_answered_and_is_sent_in_the_thread(
    browser: Browser, server_url: str, size: str
) -> None:
    with opened(browser, server_url, size, "jordan") as page:
        open_drawer(page)
        card = send(page, f"reply to Priya's email about the budget: sounds good, let's do Thursday ({size})")
        reply = card.locator(REPLY_CARD)
        expect(reply.locator(".reference-found")).to_contain_text("Priya Patel: Re: Q1 budget")
        expect(reply.locator(".message-quoted")).to_contain_text("Could we meet Wednesday or Thursday")
        expect(reply.locator("[data-field=to] .chip-email")).to_have_text(["priya.patel@example.com"])
        expect(reply.locator("textarea[name=body]")).to_have_value(f"Sounds good, let's do Thursday ({size})")
        reply.scroll_into_view_if_needed()
        shot(page, "mail-reply", size)

        reply.get_by_role("button", name="Confirm and send").click()

        expect(reply.locator(".card-status")).to_have_text("Sent")
        reply.scroll_into_view_if_needed()
        shot(page, "mail-reply-sent", size)


def test_reply_all_copies_everyone_on_the_thread(browser: Browser, server_url: str, size: str) -> None:
    with opened(browser, server_url, size, "jordan") as page:
        open_drawer(page)
        reply = send(page, "reply all to Priya's email about the budget and say I'm in").locator(REPLY_CARD)
        expect(reply.locator("[data-field=cc] .chip-email")).to_have_text(
            ["kinshuok.sharma@example.com", "mei.tanaka@example.com"]
        )
        reply.scroll_into_view_if_needed()
        shot(page, "mail-reply-all", size)


def test_a_forward_lists_the_attachment_and_one_can_be_left_out(
    browser: Browser, server_url: str, size: str
) -> None:
    with opened(browser, server_url, size, "jordan") as page:
        open_drawer(page)
        card = send(
            page, f"forward the invoice from Mei to accounting@acme.com with a note: for payment ({size})"
        )
        forward = card.locator(FORWARD_CARD)
        expect(forward.locator(".reference-found")).to_contain_text("Invoice INV-2291")
        files = forward.locator(".attachment")
        expect(files).to_have_count(1)
        expect(files.first).to_contain_text("INV-2291.pdf (")
        expect(forward.locator("textarea[name=note]")).to_have_value(f"For payment ({size})")
        forward.scroll_into_view_if_needed()
        shot(page, "mail-forward", size)

        forward.get_by_role("button", name="Confirm and send").click()

        expect(forward.locator(".card-status")).to_have_text("Sent")
        shot(page, "mail-forward-sent", size)
