"""Debian's Chromium driven by Playwright, and a local page that fails its test on a script error."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, Page, expect, sync_playwright

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@contextmanager
def chromium() -> Iterator[Browser]:
    """The system Chromium (``make test`` installs Debian's), headless."""
    executable = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else shutil.which("chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@contextmanager
def ready_page(
    browser: Browser,
    url: str,
    *,
    height: int = 1000,
    width: int = 1360,
    mobile: bool = False,
    init_script: str | None = None,
) -> Iterator[Page]:
    """A fresh context's page at ``url`` once the page says it is ready; any uncaught script error fails.

    ``mobile`` emulates a phone (meta viewport honoured, touch, a 3x screen), as Chromium's device mode does.
    """
    phone = {"is_mobile": True, "has_touch": True, "device_scale_factor": 3} if mobile else {}
    context = browser.new_context(viewport={"width": width, "height": height}, **phone)
    if init_script:
        context.add_init_script(init_script)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(url)
    expect(opened.locator("body")).to_have_attribute("data-ready", "true")
    yield opened
    context.close()
    assert errors == [], f"the page raised: {errors}"
