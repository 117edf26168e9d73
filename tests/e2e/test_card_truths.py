"""Cards that say what they mean, in a real browser at a laptop's width and a phone's: which day "today"
is for the signed-in user, each attendee's local day, working hours per slot, the slots re-checked for
the person chosen for an ambiguous name, a sent card showing what was sent, a look-alike address marked.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.test_chat_page import ARTIFACTS, EMAIL_CARD, MEETING_CARD, send
from tests.e2e.test_page_layout import fits_the_screen
from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

SIZES = {"laptop": {"width": 1360, "height": 1100}, "phone": {"width": 390, "height": 844, "mobile": True}}


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with local_server() as url:
        yield url


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def opened(browser: Browser, url: str, size: str, user: str) -> Any:
    """The page signed in as ``user`` (the picker's remembered choice), at ``size``."""
    remember = f"localStorage.setItem('multitool.localUser', {json.dumps(user)});"
    return ready_page(browser, url, init_script=remember, **SIZES[size])  # type: ignore[arg-type]


def shot(page: Page, name: str, size: str) -> None:
    """A screenshot to look at, once nothing on the page is wider than the screen."""
    fits_the_screen(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"truths-{name}-{size}.png"), full_page=True)


def open_drawer(page: Page) -> None:
    toggle = page.locator("#drawer-toggle")
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()


def test_the_page_says_which_day_today_is_for_the_signed_in_user(
    browser: Browser, server_url: str, size: str
) -> None:
    with opened(browser, server_url, size, "mei") as page:
        open_drawer(page)
        today = page.locator("#today")
        expect(today).to_be_visible()
        expect(today).to_contain_text("(Asia/Tokyo)")
        day = page.locator("#today time")
        assert day.get_attribute("datetime") == datetime.now(ZoneInfo("Asia/Tokyo")).date().isoformat()
        shot(page, "today", size)
        # Another user, another zone: their day
        page.locator("#user-picker").select_option("jordan")
        expect(today).to_contain_text("(America/New_York)")
        assert day.get_attribute("datetime") == datetime.now(ZoneInfo("America/New_York")).date().isoformat()


def test_an_attendees_local_time_names_their_day_and_each_slot_its_hours(
    browser: Browser, server_url: str, size: str
) -> None:
    with opened(browser, server_url, size, "jordan") as page:
        open_drawer(page)
        # Jordan (New York) asks for Thursday 1pm with Mei: Friday 03:00 in Tokyo (1pm: an hour no
        # demo meeting holds, whichever weekday today is; they count their days from today)
        meeting = send(page, "Schedule a sync with Mei on Thursday at 1pm").locator(MEETING_CARD)
        first = meeting.locator(".slot").first
        expect(first.locator(".slot-time")).to_contain_text("01:00")
        expect(first.locator(".slot-local")).to_have_text("Mei Fri 03:00 AM")
        expect(first.locator(".slot-warning")).to_have_text("Outside Mei's working hours.")
        meeting.scroll_into_view_if_needed()
        shot(page, "local-day", size)

        # A slot inside everyone's hours says nothing of hours; one outside the organizer's says so
        inside = send(page, "Schedule a sync with Priya on Thursday").locator(MEETING_CARD)
        expect(inside.locator(".slot")).to_have_count(3)
        expect(inside.locator(".slot-warning:visible")).to_have_count(0)
        late = send(page, "Schedule a sync with Priya on Thursday at 1am").locator(MEETING_CARD)
        expect(late.locator(".slot").first.locator(".slot-warning")).to_contain_text(
            "Outside your working hours."
        )
        late.scroll_into_view_if_needed()
        shot(page, "own-hours", size)


def test_choosing_who_a_name_means_rechecks_the_slots_and_clears_the_question(
    browser: Browser, server_url: str, size: str
) -> None:
    with opened(browser, server_url, size, "jordan") as page:
        open_drawer(page)
        # Jordan asks for Thursday 1pm with "Alex": two people, 10:00 in Los Angeles, 19:00 in Berlin
        meeting = send(page, "Schedule a sync with Alex on Thursday at 1pm").locator(MEETING_CARD)
        question = meeting.locator(".person-ambiguous")
        expect(question.get_by_text("Which Alex?")).to_be_visible()
        meeting.get_by_role("button", name="Confirm").click()
        expect(meeting.locator(".card-error")).to_have_text("Choose which Alex you mean.")
        expect(question.locator(".field-error")).to_be_visible()

        # When Jordan picks Alex Müller
        question.locator("select").select_option(label="Alex Müller <alex.mueller@example.com>")

        # Then the question's errors go, and the slots say what 13:00 is for him
        expect(meeting.locator(".card-error")).to_be_hidden()
        expect(question.locator(".field-error")).to_be_hidden()
        first = meeting.locator(".slot").first
        expect(first.locator(".slot-local")).to_have_text("Alex 07:00 PM")
        expect(first.locator(".slot-warning")).to_have_text("Outside Alex's working hours.")
        meeting.scroll_into_view_if_needed()
        shot(page, "chosen-alex", size)
        # and picking Alex Chen instead (10:00 in Los Angeles) leaves nothing to warn of
        question.locator("select").select_option(label="Alex Chen <alex.chen@example.com>")
        expect(first.locator(".slot-warning")).to_be_hidden()


def confirm_elsewhere(server_url: str, draft_id: str, edits: dict[str, Any]) -> None:
    request = urllib.request.Request(
        f"{server_url.rstrip('/')}/actions/{draft_id}/confirm",
        data=json.dumps(edits).encode(),
        method="POST",
        headers={"content-type": "application/json", "X-Local-User": "jordan"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert json.load(answer)["status"] == "done"


def test_a_card_confirmed_elsewhere_with_edits_shows_what_was_sent(
    browser: Browser, server_url: str, size: str
) -> None:
    with opened(browser, server_url, size, "jordan") as page:
        open_drawer(page)
        email = send(page, "Email Priya about the launch").locator(EMAIL_CARD)
        draft_id = email.get_attribute("data-card-id")
        assert draft_id
        # Another client (the CLI, a second tab) confirms it to Mei, with its own subject
        confirm_elsewhere(
            server_url, draft_id, {"to": ["mei.tanaka@example.com"], "subject": f"Sent from the CLI {size}"}
        )

        page.reload()
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        open_drawer(page)
        email = page.locator(f"article.card[data-card-id='{draft_id}']")
        expect(email.locator(".card-status")).to_have_text("Sent")
        expect(email.locator(".card-sent-as")).to_have_text(
            "Confirmed with changes: this is what was done, not the draft above."
        )
        expect(email.locator("input[name=subject]")).to_have_value(f"Sent from the CLI {size}")
        expect(email.locator("[data-field=to] .chip-email")).to_have_text(["mei.tanaka@example.com"])
        email.scroll_into_view_if_needed()
        shot(page, "sent-elsewhere", size)


def test_a_lookalike_address_is_marked(browser: Browser, server_url: str, size: str) -> None:
    with opened(browser, server_url, size, "jordan") as page:
        open_drawer(page)
        email = send(page, "Email Priya about the trip").locator(EMAIL_CARD)
        to = email.locator("[data-field=to]")
        to.get_by_role("button", name="Add someone to To").click()
        to.get_by_label("Add to To").fill("priya.patel@ex\u0430mple.com")
        to.get_by_role("button", name="Add", exact=True).click()
        added = to.locator(".person").last
        expect(added).to_have_class("person person-resolved is-lookalike")
        # (the email input hands the page the domain as Punycode: the warning names both forms)
        expect(added.locator(".person-warning")).to_have_text(
            "priya.patel@xn--exmple-4nf.com (priya.patel@ex\u0430mple.com) mixes Cyrillic and Latin letters "
            "in its domain: it may imitate another address."
        )
        expect(to.locator(".person").first.locator(".person-warning")).to_have_count(0)
        email.scroll_into_view_if_needed()
        shot(page, "lookalike", size)
