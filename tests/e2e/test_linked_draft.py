"""A draft an MCP client made for a user is in that user's page by its link, to confirm there.

``multitool mcp`` (the official SDK's client over stdio, on the page's own sandbox) makes an email
draft for Priya; the page opened at ``?draft=<id>`` signed in as Priya shows its card, and confirming
it sends the mail. Signed in as someone else, the same link shows nothing to confirm.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from playwright.sync_api import Browser, Page, expect

from tests.support.browser import ready_page
from tests.support.local_server import REPO, local_server

pytestmark = pytest.mark.e2e

PRINTED: list[str] = []
EMAIL = {"to": ["Kinshuok"], "subject": "The doc from my editor", "body": "Have a look."}


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with local_server(output=PRINTED) as url:
        yield url


def _draft_from_an_mcp_client(user: str) -> str:
    (moto,) = {m.group(1) for line in PRINTED if (m := re.search(r"moto at (http://[^)\s]+)", line))}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "shared" / "python"), str(REPO)])}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "multitool.local.cli", "mcp", "--user", user, "--sandbox", moto],
        env=env,
        cwd=str(REPO),
    )

    async def run() -> Any:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await session.call_tool("email-draft___create_email_draft", EMAIL)

    # Playwright's sync API runs an event loop in this thread: the client gets a thread of its own.
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(anyio.run, run).result(timeout=120)
    assert not result.isError, result.content
    return str(result.structuredContent["draftId"])


@pytest.fixture
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    with ready_page(browser, server_url, height=1000) as opened:
        yield opened


def test_a_draft_made_from_an_mcp_client_opens_by_its_link_and_confirms_in_the_page(
    page: Page, server_url: str
) -> None:
    # Given an email draft an MCP client made for Priya
    draft_id = _draft_from_an_mcp_client("priya")

    # When Priya opens its link in the page
    page.get_by_label("Signed in as").select_option("priya")
    page.goto(f"{server_url}?draft={draft_id}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")

    # Then its card is there, as proposed, and confirming it sends it
    linked = page.get_by_test_id("linked-draft")
    card = linked.locator(f'article.card[data-card-id="{draft_id}"]')
    expect(card).to_be_visible()
    expect(card.get_by_label("Subject")).to_have_value(EMAIL["subject"])
    card.get_by_role("button", name="Confirm and send").click()
    expect(card.locator(".card-status")).to_have_text("Sent", timeout=20_000)


def test_another_persons_draft_link_shows_nothing_to_confirm(page: Page, server_url: str) -> None:
    draft_id = _draft_from_an_mcp_client("priya")
    page.get_by_label("Signed in as").select_option("kinshuok")
    page.goto(f"{server_url}?draft={draft_id}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    card = page.get_by_test_id("linked-draft").locator("article.card")
    expect(card.locator(".card-status")).to_have_text("No longer available")
    expect(card.get_by_role("button", name="Confirm and send")).to_be_hidden()
