"""The cards on existing Jira issues in a real browser, at a laptop's width and a phone's: the issue
found (key, summary, status, assignee) with the comment, the transitions the issue offers, a choice
when several issues fit, and a confirm that names what it did.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.test_card_truths import SIZES, open_drawer, opened
from tests.e2e.test_chat_page import ARTIFACTS, send
from tests.e2e.test_page_layout import fits_the_screen
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

COMMENT_CARD = "[data-card-type=show_jira_comment]"
TRANSITION_CARD = "[data-card-type=show_jira_transition]"
LINK_CARD = "[data-card-type=show_jira_link]"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with local_server() as url:
        yield url


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def shot(page: Page, name: str, size: str) -> None:
    fits_the_screen(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"issues-{name}-{size}.png"), full_page=True)


def test_a_comment_shows_the_issue_and_posts_on_confirm(browser: Browser, server_url: str, size: str) -> None:
    with opened(browser, server_url, size, "jordan") as page:
        open_drawer(page)
        card = send(page, f"add a comment to WEB-12: fixed in build 42 ({size})").locator(COMMENT_CARD)
        expect(card.locator(".reference-found")).to_have_text("WEB-12: Login crash on Safari (In Progress)")
        expect(card.locator(".issue-facts")).to_contain_text("assigned to Priya Patel")
        expect(card.locator("textarea[name=comment]")).to_have_value(f"Fixed in build 42 ({size})")
        shot(page, "comment", size)
        card.get_by_role("button", name="Post comment").click()
        expect(card.locator(".card-status")).to_have_text("Commented on WEB-12", timeout=15_000)
        shot(page, "comment-posted", size)


def test_a_transition_offers_the_issues_own_transitions(browser: Browser, server_url: str, size: str) -> None:
    with opened(browser, server_url, size, "jordan") as page:
        open_drawer(page)
        card = send(page, "move WEB-9 to In Review").locator(TRANSITION_CARD)
        # To Do does not go to In Review: the card says so and offers what the workflow allows
        expect(card.locator(".notes")).to_contain_text("cannot go to 'In Review' from To Do")
        select = card.locator("select[name=transition]")
        expect(select.locator("option")).to_have_text(
            ["Choose a transition", "Start progress → In Progress", "Close issue → Done"]
        )
        shot(page, "transition-choice", size)
        card.get_by_role("button", name="Confirm").click()
        expect(card.locator(".card-error")).to_contain_text("Choose the transition")
        select.select_option("21")
        card.get_by_role("button", name="Confirm").click()
        expect(card).to_contain_text("WEB-9 is now In Progress", timeout=15_000)
        # and back, so the other size starts where this one did
        back = send(page, "move WEB-9 to To Do").locator(TRANSITION_CARD)
        back.get_by_role("button", name="Confirm").click()
        expect(back).to_contain_text("WEB-9 is now To Do", timeout=15_000)


def test_words_that_fit_several_issues_offer_a_choice(browser: Browser, server_url: str, size: str) -> None:
    with opened(browser, server_url, size, "jordan") as page:
        open_drawer(page)
        card = send(page, "link the login ticket to OPS-3 as relates to").locator(LINK_CARD)
        choice = card.locator("select[name=item]").first
        expect(choice.locator("option")).to_have_count(3)  # "Which issue?" and the two login issues
        choice.select_option("OPS-5")
        expect(card.locator(".issue-facts").first).to_contain_text("In Review")
        expect(card.locator("select[name=linkType]")).to_have_value("Relates|out")
        shot(page, "link-choice", size)
