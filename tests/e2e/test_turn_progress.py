"""A turn past its request, in a real browser: signed in through the local OIDC stand-in, each card shows
while the turn still runs, a reload mid-turn follows the same turn to its end, then a confirm and sign-out.

The offline harness takes ``DELAY`` seconds per model answer, as a real model does, so the turn is still
running when the page reloads. The page's own DOM tells the order: a recorder (an init script, so it
survives the reload) notes each card as it is added, with the turn's status at that moment, and the
moment the turn ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Request, expect

from tests.e2e.test_chat_page import EMAIL_CARD, MEETING_CARD, settle_names
from tests.e2e.test_sign_in import sign_in
from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

DELAY = 2.5
# "Alex" names two people, so the cards alone cannot answer: the model is asked again (after DELAY),
# and the cards are on the page while it writes the reply.
COMBINED = "Email Alex about the doc and schedule a sync with Kinshuok on Thursday"
RECORDER = """
(() => {
  window.__turnLog = [];
  const note = (entry) => window.__turnLog.push({ ...entry, at: performance.now() });
  new MutationObserver((changes) => {
    for (const change of changes) {
      if (change.type === "attributes" && change.target.matches("[data-status]")) {
        note({ kind: "status", status: change.target.dataset.status });
      }
      for (const node of change.addedNodes) {
        if (!(node instanceof Element)) continue;
        for (const card of node.matches(".card") ? [node] : node.querySelectorAll(".card")) {
          const turn = card.closest("[data-status]");
          note({ kind: "card", type: card.dataset.cardType, status: turn ? turn.dataset.status : null });
        }
      }
    }
  }).observe(document, { subtree: true, childList: true, attributeFilter: ["data-status"] });
})();
"""


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with local_server(args=("--sign-in", "oidc"), env={"OFFLINE_DELAY_SECONDS": str(DELAY)}) as url:
        yield url


@pytest.fixture
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    with ready_page(browser, server_url, height=1000, init_script=RECORDER) as opened:
        yield opened


def test_cards_show_before_the_reply_and_a_reload_mid_turn_follows_it_to_its_end(
    page: Page, server_url: str
) -> None:
    # Given a person signed in through the code flow
    sign_in(page, "priya")
    expect(page.locator("#signed-in-name")).to_have_text("Priya Patel")
    polls: list[Request] = []
    views: list[dict[str, Any]] = []
    page.on("request", lambda r: polls.append(r) if "/turns/" in r.url else None)
    page.on("response", lambda r: views.append(r.json()) if "/turns/" in r.url and r.ok else None)

    # When they send a combined request
    box = page.get_by_role("textbox", name="Your message")
    box.fill(COMBINED)
    with page.expect_response(lambda r: r.url.endswith("/chat") and r.request.method == "POST") as started:
        box.press("Enter")
    # Then the API starts the turn and answers at once, with its id
    assert started.value.status == 202
    assert started.value.request.headers["prefer"] == "respond-async"
    turn_id = started.value.json()["turnId"]
    running = page.get_by_test_id("assistant-progress")
    expect(running).to_have_attribute("data-status", "running")
    expect(running.get_by_role("status")).to_contain_text("Working on it")

    # When the page reloads while the turn runs (the model has not answered yet)
    assert page.locator(".card").count() == 0
    page.reload()
    expect(page.locator("#signed-in-name")).to_have_text("Priya Patel", timeout=20_000)

    # Then it follows the same turn: the message again, the cards while it still runs, then the reply
    expect(page.locator(".msg-user").last).to_have_text(COMBINED)
    turn = page.get_by_test_id("assistant-turn")
    expect(turn).to_have_count(1, timeout=30_000)
    expect(turn).to_have_attribute("data-status", "done")
    expect(turn.locator(EMAIL_CARD)).to_have_count(1)
    expect(turn.locator(MEETING_CARD)).to_have_count(1)
    expect(turn.locator(".bubble").first).to_contain_text("review")
    assert all(r.url.split("/turns/", 1)[1].startswith(turn_id) for r in polls)
    assert all(r.headers["authorization"].startswith("Bearer eyJ") for r in polls)

    log: list[dict[str, Any]] = page.evaluate("() => window.__turnLog")
    cards = [entry for entry in log if entry["kind"] == "card"]
    ended = [entry for entry in log if entry["kind"] == "status" and entry["status"] == "done"]
    assert sorted(c["type"] for c in cards) == ["show_meeting_scheduler", "show_new_email_draft"]
    assert len(ended) == 1
    for card in cards:  # each card was on the page, in a turn still running, before the reply
        assert card["status"] == "running", card
        assert card["at"] <= ended[0]["at"]
    assert page.evaluate("() => sessionStorage.getItem('multitool.turn')") is None
    # and on the wire, each card came in an answer of a turn still running, before the one that ended it
    early = {
        event["card"]["type"]
        for view in views
        if view["status"] == "running"
        for event in view["events"]
        if event["type"] == "card"
    }
    assert early == {"show_new_email_draft", "show_meeting_scheduler"}
    assert [view["status"] for view in views][-1] == "done"

    # When they confirm the email card, Then it is sent as them
    email = turn.locator(EMAIL_CARD)
    settle_names(email)
    email.get_by_role("button", name="Confirm and send").click()
    expect(email.locator(".card-status")).to_have_text("Sent", timeout=20_000)

    # When they sign out, Then the page is signed out
    with page.expect_request(lambda r: r.url.endswith("/oauth2/revoke")):
        page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible(timeout=20_000)
