"""The chat drawer in a real browser against ``multitool serve`` on loopback (offline model, sandboxes).

One server for the module (its sandbox outbox accumulates, so mail is counted
by delta and by subject); a fresh browser context per test.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.support.browser import ready_page
from tests.support.local_server import local_server

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts"
COMBINED = "Email Kinshuok about the doc and schedule a sync for Thursday"
JIRA_AND_EMAIL = "File a Jira bug in WEB for the login crash and email Priya about it"
EMAIL_CARD = "[data-card-type=show_new_email_draft]"
MEETING_CARD = "[data-card-type=show_meeting_scheduler]"
JIRA_CARD = "[data-card-type=show_jira_ticket_draft]"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """``multitool serve --port 0`` as a subprocess; its URL read from what it prints."""
    with local_server() as url:
        yield url


@pytest.fixture
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    with ready_page(browser, server_url, height=1400) as opened:
        yield opened


def api_get(server_url: str, path: str, user: str = "jordan") -> Any:
    request = urllib.request.Request(server_url.rstrip("/") + path, headers={"X-Local-User": user})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def sent_invitations(server_url: str) -> list[dict[str, Any]]:
    return [m for m in api_get(server_url, "/sandbox/outbox")["emails"] if m["invitation"]]


def send(page: Page, text: str) -> Locator:
    """Type a message, press Enter, and return the assistant turn that answers it."""
    turns = page.get_by_test_id("assistant-turn")
    before = turns.count()
    box = page.get_by_role("textbox", name="Your message")
    box.fill(text)
    box.press("Enter")
    expect(turns).to_have_count(before + 1, timeout=30_000)
    return turns.nth(before)


def settle_names(card: Locator) -> None:
    """Pick the first candidate for any ambiguous name, so the card can be confirmed."""
    for select in card.locator(".person-ambiguous select").all():
        select.select_option(index=1)


def test_combined_message_renders_two_cards_in_one_assistant_turn(page: Page) -> None:
    # When the user asks for two things in one message
    turn = send(page, COMBINED)

    # Then one assistant turn holds an email card and a meeting card, each with its caption
    cards = turn.locator(".card")
    expect(cards).to_have_count(2)
    expect(turn.locator(EMAIL_CARD)).to_have_count(1)
    expect(turn.locator(MEETING_CARD)).to_have_count(1)
    expect(turn.locator(EMAIL_CARD)).to_contain_text("Kinshuok Sharma")
    expect(turn.locator(MEETING_CARD).locator("input[type=radio]").first).to_be_checked()
    for card in cards.all():
        expect(card.locator(".caption")).not_to_be_empty()
        expect(card.get_by_role("button", name="Discard")).to_be_enabled()
    expect(page.get_by_test_id("assistant-turn")).to_have_count(1)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "two-card-turn.png"))


def test_each_message_carries_its_own_idempotency_key(page: Page) -> None:
    # When the user sends two messages
    keys = []
    for text in ("File a Jira bug in WEB for the login crash", "Email Priya about it"):
        with page.expect_request(lambda r: r.url.endswith("/chat") and r.method == "POST") as request:
            send(page, text)
        keys.append(request.value.headers.get("idempotency-key"))

    # Then each /chat request carried a key of its own, so a retry can be replayed, not re-run
    assert all(keys), keys
    assert keys[0] != keys[1]


def test_editing_and_confirming_the_email_sends_exactly_one_message(page: Page, server_url: str) -> None:
    # Given the two cards and the outbox as it is now
    sent_before = len(api_get(server_url, "/sandbox/outbox")["emails"])
    turn = send(page, COMBINED)
    email = turn.locator(EMAIL_CARD)
    settle_names(email)

    # When the user edits the subject and body, then confirms
    email.get_by_label("Subject").fill("Doc review notes (edited)")
    email.get_by_label("Message").fill("Hi Kinshuok,\n\nEdited in the card before sending.\n")
    email.get_by_role("button", name="Confirm and send").click()

    # Then the card says Sent, and exactly one message with the edits is in the sandbox outbox
    expect(email.locator(".card-status")).to_have_text("Sent", timeout=20_000)
    expect(email.get_by_label("Subject")).to_be_disabled()
    outbox = api_get(server_url, "/sandbox/outbox")
    assert outbox["sandbox"] is True
    assert len(outbox["emails"]) == sent_before + 1
    mine = [m for m in outbox["emails"] if m["subject"] == "Doc review notes (edited)"]
    assert len(mine) == 1
    assert "Edited in the card before sending." in mine[0]["body"]
    assert "kinshuok.sharma@example.com" in mine[0]["to"]
    # and the page's outbox panel lists it
    expect(page.get_by_test_id("outbox-mail").filter(has_text="Doc review notes (edited)")).to_have_count(1)
    # and the meeting card is untouched
    expect(turn.locator(MEETING_CARD).get_by_role("button", name="Confirm")).to_be_enabled()


def test_discarding_the_meeting_card_marks_it_discarded(page: Page, server_url: str) -> None:
    turn = send(page, COMBINED)
    meeting = turn.locator(MEETING_CARD)
    draft_id = meeting.get_attribute("data-card-id")

    meeting.get_by_role("button", name="Discard").click()

    expect(meeting.locator(".card-status")).to_have_text("Discarded")
    expect(meeting).to_have_attribute("data-state", "is-discarded")
    assert api_get(server_url, f"/actions/{draft_id}")["status"] == "discarded"
    expect(turn.locator(EMAIL_CARD).get_by_role("button", name="Confirm and send")).to_be_enabled()


def test_jira_and_email_message_renders_both_cards(page: Page) -> None:
    turn = send(page, JIRA_AND_EMAIL)

    expect(turn.locator(".card")).to_have_count(2)
    jira = turn.locator(JIRA_CARD)
    expect(jira).to_have_count(1)
    expect(jira.get_by_label("Project")).to_have_value("WEB")
    expect(jira.get_by_label("Issue type")).to_have_value("Bug")
    expect(jira.get_by_label("Summary")).not_to_have_value("")
    expect(turn.locator(EMAIL_CARD)).to_contain_text("Priya Patel")


def test_api_errors_are_shown_not_swallowed(page: Page) -> None:
    # Given a message longer than the API accepts
    too_long = "x" * 5000
    box = page.get_by_role("textbox", name="Your message")
    box.fill(too_long)

    box.press("Enter")

    # Then the API's error is in the alert region, and the text is kept for the user to fix
    alert = page.locator("#alert")
    expect(alert).to_be_visible(timeout=20_000)
    expect(alert).to_have_attribute("role", "alert")
    expect(alert).not_to_be_empty()
    expect(page.locator(".msg-error")).to_have_count(1)
    expect(page.locator(".card")).to_have_count(0)
    expect(box).to_have_value(too_long)


def test_an_ambiguous_name_is_settled_on_the_card_before_sending(page: Page, server_url: str) -> None:
    # Given a meeting with "Alex", who is two people
    turn = send(page, "Set up a planning meeting with Alex tomorrow")
    meeting = turn.locator(MEETING_CARD)
    which = meeting.get_by_label("Which Alex?")
    expect(which).to_be_visible()
    invitations_before = sent_invitations(server_url)

    # When the user confirms without choosing, the card asks, and nothing is sent
    meeting.get_by_role("button", name="Confirm").click()
    expect(meeting.locator(".card-error")).to_contain_text("Choose which Alex")
    assert sent_invitations(server_url) == invitations_before

    # When they pick Alex Müller and confirm
    which.select_option(label="Alex Müller <alex.mueller@example.com>")
    meeting.get_by_role("button", name="Confirm").click()

    # Then the invitation goes to that Alex only (and to the signed-in organizer, for their calendar)
    expect(meeting.locator(".card-status")).to_have_text("Invitation sent", timeout=20_000)
    invitations = sent_invitations(server_url)
    assert len(invitations) == len(invitations_before) + 1
    newest = invitations[0]
    assert newest["to"] == ["alex.mueller@example.com", "jordan.lee@example.com"]


def test_the_drawer_is_usable_from_the_keyboard(page: Page, server_url: str) -> None:
    # Given a two-card turn reached by typing and Enter only
    turn = send(page, COMBINED)
    meeting = turn.locator(MEETING_CARD)
    # (a card's buttons come on once it has read its action's state)
    expect(meeting.get_by_role("button", name="Discard")).to_be_enabled()

    # When the user tabs back from the message box to the last card's Discard and presses Enter
    page.get_by_role("textbox", name="Your message").focus()
    page.keyboard.press("Shift+Tab")
    expect(meeting.get_by_role("button", name="Discard")).to_be_focused()
    page.keyboard.press("Enter")

    # Then that card is discarded
    expect(meeting.locator(".card-status")).to_have_text("Discarded")


def test_every_control_has_a_label(page: Page) -> None:
    send(page, COMBINED)
    send(page, JIRA_AND_EMAIL)

    unlabelled = page.evaluate(
        """() => [...document.querySelectorAll('input, select, textarea, button')]
            .filter((el) => !el.closest('[hidden]'))
            .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                && !(el.tagName === 'BUTTON' && el.textContent.trim()))
            .map((el) => el.outerHTML)"""
    )
    assert unlabelled == []


def options_of(select: Locator) -> list[str]:
    return select.locator("option").all_inner_texts()


def test_a_projects_issue_types_are_the_ones_the_backend_serves(page: Page, server_url: str) -> None:
    projects = api_get(server_url, "/config.json")["jiraProjects"]
    # Given a Jira card for project WEB
    jira = send(page, JIRA_AND_EMAIL).locator(JIRA_CARD)

    # Then it offers WEB's issue types as config.json has them (no "Incident": WEB has none)
    issue_type = jira.get_by_label("Issue type")
    assert options_of(issue_type) == projects["WEB"]["issueTypes"]
    assert "Incident" not in options_of(issue_type)
    assert options_of(jira.get_by_label("Project")) == sorted(projects)
    schema = json.loads((REPO / "web" / "client-actions.schema.json").read_text())
    assert options_of(jira.get_by_label("Priority")) == schema["$defs"]["Priority"]["enum"]

    # When the user moves the ticket to OPS, the choices are OPS's, the chosen type kept where OPS has it
    jira.get_by_label("Project").select_option("OPS")
    assert options_of(issue_type) == projects["OPS"]["issueTypes"]
    expect(issue_type).to_have_value("Bug")


def test_the_page_takes_lists_and_limits_from_what_it_is_served(browser: Browser, server_url: str) -> None:
    # Given a backend whose config.json and card schema say other things than today's
    config = api_get(server_url, "/config.json")
    config["jiraProjects"]["WEB"]["issueTypes"] = ["Bug", "Spike"]
    schema = api_get(server_url, "/client-actions.schema.json")
    schema["$defs"]["JiraTicketDraftCard"]["properties"]["summary"]["maxLength"] = 42
    schema["$defs"]["Priority"]["enum"] = ["Bug-level", "Medium"]
    context = browser.new_context(viewport={"width": 1360, "height": 1400})
    context.route("**/config.json", lambda route: route.fulfill(json=config))
    context.route("**/client-actions.schema.json", lambda route: route.fulfill(json=schema))
    page = context.new_page()
    page.goto(server_url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")

    # When a Jira card is drawn
    jira = send(page, JIRA_AND_EMAIL).locator(JIRA_CARD)

    # Then its choices and limits are the served ones, not constants of the page
    assert options_of(jira.get_by_label("Issue type")) == ["Bug", "Spike"]
    assert options_of(jira.get_by_label("Priority")) == ["Bug-level", "Medium"]
    expect(jira.get_by_label("Summary")).to_have_attribute("maxlength", "42")
    context.close()


def test_a_fields_max_length_is_the_card_schemas(page: Page, server_url: str) -> None:
    schema = json.loads((REPO / "web" / "client-actions.schema.json").read_text())
    limit = schema["$defs"]["EmailDraftCard"]["properties"]["subject"]["maxLength"]
    # Given an email card and a meeting card
    turn = send(page, COMBINED)

    # Then the subject and the title allow what the schema allows, no more
    email = turn.locator(EMAIL_CARD)
    expect(email.get_by_label("Subject")).to_have_attribute("maxlength", str(limit))
    body_limit = schema["$defs"]["EmailDraftCard"]["properties"]["body"]["maxLength"]
    expect(email.get_by_label("Message")).to_have_attribute("maxlength", str(body_limit))
    title_limit = schema["$defs"]["MeetingSchedulerCard"]["properties"]["title"]["maxLength"]
    expect(turn.locator(MEETING_CARD).get_by_label("Title")).to_have_attribute("maxlength", str(title_limit))


def test_a_field_the_api_refuses_is_flagged_beside_it(page: Page, server_url: str) -> None:
    # Given a Jira card for project WEB, and an issue type WEB does not have (a page that read its
    # choices before the project changed: the confirm, not the page, is what refuses it)
    turn = send(page, JIRA_AND_EMAIL)
    jira = turn.locator(JIRA_CARD)
    jira.get_by_label("Issue type").evaluate("select => select.add(new Option('Incident', 'Incident'))")
    jira.get_by_label("Issue type").select_option("Incident")

    # When the user confirms, the 422 names the field and the card says so beside it
    jira.get_by_role("button", name="Confirm").click()
    expect(jira.locator("[data-field=issueType] .field-error")).to_contain_text("no issue type 'Incident'")
    expect(jira.locator(".card-error")).to_be_visible()
    expect(jira.get_by_label("Summary")).to_be_enabled()

    # When they pick a valid type and confirm again, the issue is created and linked
    jira.get_by_label("Issue type").select_option("Task")
    jira.get_by_role("button", name="Confirm").click()
    link = jira.locator(".card-status a")
    expect(link).to_have_text(re.compile(r"^WEB-\d+$"), timeout=20_000)
    key = link.inner_text()
    issues = api_get(server_url, "/sandbox/outbox")["issues"]
    created = next(issue for issue in issues if issue["key"] == key)
    assert created["issueType"] == "Task"
    assert link.get_attribute("href") == created["url"]


def test_an_older_response_with_only_client_action_renders_its_card(page: Page, server_url: str) -> None:
    # Given what an older API answers: the last action alone, no clientActions
    request = urllib.request.Request(
        server_url.rstrip("/") + "/chat",
        data=json.dumps({"message": COMBINED}).encode(),
        method="POST",
        headers={"content-type": "application/json", "x-local-user": "jordan"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        current = json.load(response)
    older = {"message": current["message"], "clientAction": current["clientAction"]}
    page.route(
        "**/chat",
        lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(older)),
    )

    turn = send(page, COMBINED)

    expect(turn.locator(".card")).to_have_count(1)
    expect(turn.locator(f"[data-card-type={current['clientAction']['type']}]")).to_have_count(1)


def chat_response(server_url: str, message: str) -> dict[str, Any]:
    """What POST /chat answers now, for a page.route to serve altered."""
    request = urllib.request.Request(
        server_url.rstrip("/") + "/chat",
        data=json.dumps({"message": message}).encode(),
        method="POST",
        headers={"content-type": "application/json", "x-local-user": "jordan"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, Any] = json.load(response)
    return answer


def test_links_from_api_data_are_only_http_links(page: Page) -> None:
    # Given a Jira card, and a confirm answer whose issue link is a javascript: URL
    turn = send(page, JIRA_AND_EMAIL)
    jira = turn.locator(JIRA_CARD)
    hostile = "javascript:document.body.dataset.pwned='1'"
    page.route(
        "**/actions/*/confirm",
        lambda route: route.fulfill(
            status=200,
            content_type="application/json",
            body=json.dumps({"status": "done", "result": {"issueKey": "WEB-99", "issueUrl": hostile}}),
        ),
    )
    page.route(
        "**/sandbox/outbox",
        lambda route: route.fulfill(
            status=200,
            content_type="application/json",
            body=json.dumps(
                {"sandbox": True, "emails": [], "issues": [{"key": "WEB-99", "summary": "x", "url": hostile}]}
            ),
        ),
    )

    # When the user confirms, and the outbox lists the issue
    jira.get_by_role("button", name="Confirm").click()

    # Then the key is shown as text, never as a link that runs script
    expect(jira.locator(".card-status")).to_have_text("Created WEB-99")
    expect(jira.locator(".card-status a")).to_have_count(0)
    expect(page.get_by_test_id("outbox-issue")).to_have_text("WEB-99 x")
    assert page.locator("a[href^='javascript:' i]").count() == 0


def test_a_card_that_cannot_be_drawn_does_not_hide_the_others_or_stop_the_chat(
    page: Page, server_url: str
) -> None:
    # Given an answer whose meeting card names a time zone the browser does not know
    answer = chat_response(server_url, COMBINED)
    for action in answer["clientActions"]:
        if action["type"] == "show_meeting_scheduler":
            action["timezone"] = "Mars/Olympus_Mons"
    page.route(
        "**/chat",
        lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(answer)),
    )

    # When it arrives
    turn = send(page, COMBINED)

    # Then the email card is there to confirm, and the meeting card says it cannot be shown
    expect(turn.locator(EMAIL_CARD).get_by_role("button", name="Confirm and send")).to_be_enabled()
    expect(turn.locator(MEETING_CARD)).to_contain_text("could not be shown")
    # and the chat goes on
    page.unroute("**/chat")
    expect(send(page, "File a Jira bug in WEB for the login crash").locator(JIRA_CARD)).to_have_count(1)


def api_post(server_url: str, path: str, body: Any, user: str = "jordan") -> Any:
    request = urllib.request.Request(
        server_url.rstrip("/") + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"content-type": "application/json", "x-local-user": user},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def test_a_card_whose_action_is_done_shows_as_sent_not_as_a_form(page: Page, server_url: str) -> None:
    # Given an answer (e.g. replayed) whose email card was confirmed and sent since
    answer = chat_response(server_url, "Email Kinshuok about the quarterly numbers")
    (card,) = answer["clientActions"]
    assert api_post(server_url, f"/actions/{card['id']}/confirm", {})["status"] == "done"
    sent = len(api_get(server_url, "/sandbox/outbox")["emails"])
    page.route(
        "**/chat",
        lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(answer)),
    )

    # When the page draws it
    email = send(page, "Email Kinshuok about the quarterly numbers").locator(EMAIL_CARD)

    # Then it says Sent and offers nothing to confirm; nothing more is sent
    expect(email).to_have_attribute("data-state", "is-done")
    expect(email.locator(".card-status")).to_have_text("Sent")
    expect(email.get_by_label("Subject")).to_be_disabled()
    expect(email.get_by_role("button", name="Confirm and send")).to_be_hidden()
    assert len(api_get(server_url, "/sandbox/outbox")["emails"]) == sent


def test_a_discarded_card_shows_as_discarded(page: Page, server_url: str) -> None:
    answer = chat_response(server_url, "File a Jira bug in WEB for the printer jam")
    (card,) = answer["clientActions"]
    api_post(server_url, f"/actions/{card['id']}/discard", {})
    page.route(
        "**/chat",
        lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(answer)),
    )

    jira = send(page, "File a Jira bug in WEB for the printer jam").locator(JIRA_CARD)

    expect(jira).to_have_attribute("data-state", "is-discarded")
    expect(jira.locator(".card-status")).to_have_text("Discarded")


def test_asking_again_after_sending_gives_a_fresh_card_to_confirm(page: Page, server_url: str) -> None:
    # Given an email the user confirmed in this chat
    message = "Email Kinshuok about the offsite agenda"
    first = send(page, message).locator(EMAIL_CARD)
    first.get_by_role("button", name="Confirm and send").click()
    expect(first.locator(".card-status")).to_have_text("Sent", timeout=20_000)

    # When they ask for the same again
    again = send(page, message).locator(EMAIL_CARD)

    # Then it is a new card, open for review, and the first still says Sent
    expect(again).to_have_attribute("data-state", "is-proposed")
    expect(again.get_by_role("button", name="Confirm and send")).to_be_enabled()
    assert again.get_attribute("data-card-id") != first.get_attribute("data-card-id")
    expect(first.locator(".card-status")).to_have_text("Sent")


def test_the_outbox_panel_lists_only_the_signed_in_users_mail(page: Page, server_url: str) -> None:
    # Given Mei signed in, who confirms an email with a subject of her own
    page.get_by_label("Signed in as").select_option("mei")
    email = send(page, "Email Kinshuok about the panel check").locator(EMAIL_CARD)
    email.get_by_label("Subject").fill("Only Mei sent this")
    email.get_by_role("button", name="Confirm and send").click()
    expect(email.locator(".card-status")).to_have_text("Sent", timeout=20_000)
    mine = page.get_by_test_id("outbox-mail").filter(has_text="Only Mei sent this")
    expect(mine).to_have_count(1)

    # When another user signs in, the panel shows their outbox, without Mei's mail
    page.get_by_label("Signed in as").select_option("priya")
    expect(mine).to_have_count(0)
    assert all(
        m["subject"] != "Only Mei sent this"
        for m in api_get(server_url, "/sandbox/outbox", "priya")["emails"]
    )

    # and back as Mei, it is there again
    page.get_by_label("Signed in as").select_option("mei")
    expect(mine).to_have_count(1)


def test_a_card_type_without_a_renderer_is_a_readable_card_not_a_blank(page: Page, server_url: str) -> None:
    # Given an answer with a card of a type the page has no renderer for (a newly added tool)
    answer = chat_response(server_url, "Email Kinshuok about the doc")
    answer["clientActions"].append(
        {"type": "show_reminder_draft", "id": "d_rem1", "dueDate": "2026-12-03", "text": "Water the plants"}
    )
    answer["clientActionMessages"].append("Reminder: Water the plants")
    view = {"id": "d_rem1", "action": "show_reminder_draft", "status": "proposed", "retryable": True}
    page.route(
        "**/chat",
        lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(answer)),
    )
    page.route(
        "**/actions/d_rem1",
        lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(view)),
    )

    # When it arrives
    turn = send(page, "Email Kinshuok about the doc")

    # Then it is a titled card listing every field, with its caption, to confirm or discard
    card = turn.locator("[data-card-type=show_reminder_draft]")
    expect(card.locator(".card-title")).to_have_text("Reminder draft")
    expect(card.locator(".caption")).to_have_text("Reminder: Water the plants")
    expect(card.locator("[data-field=dueDate]")).to_contain_text("Due date")
    expect(card.locator("[data-field=dueDate]")).to_contain_text("2026-12-03")
    expect(card.locator("[data-field=text]")).to_contain_text("Water the plants")
    expect(card.get_by_role("button", name="Confirm")).to_be_enabled()
    expect(card.get_by_role("button", name="Discard")).to_be_enabled()


def test_a_card_edited_by_chat_is_replaced_by_the_revised_one(page: Page, server_url: str) -> None:
    # Given a meeting card
    first = send(page, "Schedule a sync with Priya on Thursday").locator(MEETING_CARD)
    expect(first.get_by_role("button", name="Confirm")).to_be_enabled()
    earlier_id = first.get_attribute("data-card-id")

    # When the user asks for a change in the chat, then another
    longer = send(page, "make it 45 minutes").locator(MEETING_CARD)
    expect(longer).to_contain_text("Duration: 45 minutes")
    turn = send(page, "add Kinshuok")
    revised = turn.locator(MEETING_CARD)

    # Then each earlier card shows as replaced and can no longer be confirmed or discarded
    expect(first).to_have_attribute("data-state", "is-superseded")
    expect(first.locator(".card-status")).to_have_text("Replaced")
    expect(first.get_by_role("button", name="Confirm")).to_be_hidden()
    expect(longer).to_have_attribute("data-state", "is-superseded")
    expect(turn.locator(".bubble")).to_contain_text("replaces the earlier card")
    # and the revised card holds both people and the new length, ready to confirm
    expect(revised.locator(".card-revision")).to_contain_text("replaces the card above")
    expect(revised).to_contain_text("Kinshuok Sharma")
    expect(revised).to_contain_text("Priya Patel")
    expect(revised).to_contain_text("Duration: 45 minutes")
    revised_id = revised.get_attribute("data-card-id")
    assert revised_id not in (None, earlier_id)
    assert api_get(server_url, f"/actions/{earlier_id}")["status"] == "superseded"

    # When the user follows the replaced card's link and confirms the revision
    first.get_by_role("link", name="Replaced by the revised card below.").click()
    settle_names(revised)
    revised.get_by_role("button", name="Confirm").click()

    # Then the revision is booked and the replaced card stays replaced
    expect(revised).to_have_attribute("data-state", "is-done", timeout=20_000)
    expect(first).to_have_attribute("data-state", "is-superseded")
    assert api_get(server_url, f"/actions/{revised_id}")["status"] == "done"


def test_a_replaced_card_drawn_again_reads_its_state_and_shows_as_replaced(
    page: Page, server_url: str
) -> None:
    # Given an answer (e.g. replayed) whose email card was revised by chat since
    answer = chat_response(server_url, "Email Priya about the launch")
    (card,) = answer["clientActions"]
    edit = {"message": "change the subject to Launch", "sessionId": answer["sessionId"]}
    (revision,) = api_post(server_url, "/chat", edit)["clientActions"]
    assert (revision["revises"], revision["subject"]) == (card["id"], "Launch")
    page.route(
        "**/chat",
        lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(answer)),
    )

    # When the page draws it
    email = send(page, "Email Priya about the launch").locator(EMAIL_CARD)

    # Then it shows as replaced, with nothing to confirm
    expect(email).to_have_attribute("data-state", "is-superseded")
    expect(email.locator(".card-status")).to_have_text("Replaced")
    expect(email.get_by_role("button", name="Confirm and send")).to_be_hidden()
    expect(email.get_by_role("link", name="Replaced by the revised card below.")).to_be_visible()


def test_the_local_times_beside_a_slot_follow_the_attendees_on_the_card(page: Page) -> None:
    # Given a meeting with two attendees in other zones than the organizer's (Jordan, New York)
    meeting = send(page, "Schedule a sync with Priya and Kinshuok on Thursday").locator(MEETING_CARD)
    first = meeting.locator(".slot-local").first
    expect(first).to_contain_text("Priya")
    expect(first).to_contain_text("Kinshuok")

    # When Priya is removed from the card
    meeting.get_by_role("button", name="Remove Priya from attendees").click()

    # Then no slot shows a local time for her any more, and Kinshuok's stays
    expect(first).not_to_contain_text("Priya")
    expect(first).to_contain_text("Kinshuok")

    # And with nobody in another zone left, no local times are shown at all
    meeting.get_by_role("button", name="Remove Kinshuok from attendees").click()
    expect(first).to_be_hidden()
