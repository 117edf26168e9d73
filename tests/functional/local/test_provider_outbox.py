"""The sandbox outbox of ``multitool serve --calendar``: the provider stand-in's own record of one
user's mail and meetings, over HTTP.

Given the Graph or Google stand-in seeded with the local seed's people and their week of meetings,
when Jordan's suite books a meeting with Priya and mails her through the provider's API, then
Jordan's outbox view lists that mail and that meeting (in UTC with its offset, the seeded week left
out) and Priya's lists neither: each user sees what their own confirms did.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from typing import Any

import pytest
import urllib3
from multitool.local.sandbox.embedded import load_seed
from multitool.local.sandbox.outbox import ProviderOutbox, provider_outbox
from multitool.local.standins.google_server import sandbox_token, start_fake_google
from multitool.local.standins.graph_server import LOCAL_TOKEN, start_graph_stand_in
from multitool.ports.calendar import Booking
from multitool.ports.google import tokens as google_tokens
from multitool.ports.google import workspace as google_workspace
from multitool.ports.mail import Mail
from multitool.ports.microsoft365 import graph as microsoft365
from multitool.ports.microsoft365 import tokens as token_sources
from multitool.ports.suites import Suite
from multitool.ports.tokens import Account

SEED = load_seed()
JORDAN = next(p for p in SEED.people if p.id == "jordan")
PRIYA = next(p for p in SEED.people if p.id == "priya")
START, END = datetime(2026, 12, 10, 15, 0, tzinfo=UTC), datetime(2026, 12, 10, 15, 30, tzinfo=UTC)


def jordans_suite_at_graph() -> Iterator[tuple[Suite, ProviderOutbox]]:
    graph = start_graph_stand_in(SEED.people)
    try:
        suite = microsoft365.build_suite(
            Account(user_id="jordan", email=JORDAN.email),
            token_sources.FixedTokenSource(LOCAL_TOKEN),
            http=urllib3.PoolManager(),
            base_url=graph.env["PROVIDER_BASE_URL"],
        )
        yield suite, provider_outbox(graph)
    finally:
        graph.stop()


def jordans_suite_at_google() -> Iterator[tuple[Suite, ProviderOutbox]]:
    with start_fake_google(people=SEED.people, week_of=date(2026, 12, 7)) as google:
        suite = google_workspace.build_suite(
            Account(user_id="jordan", email=JORDAN.email),
            google_tokens.FixedTokenSource({p.email: sandbox_token(p.email) for p in SEED.people}),
            http=urllib3.PoolManager(),
            base_url=google.url,
        )
        yield suite, provider_outbox(google)


@pytest.fixture(params=[jordans_suite_at_graph, jordans_suite_at_google], ids=["microsoft365", "google"])
def provider(request: pytest.FixtureRequest) -> Iterator[tuple[Suite, ProviderOutbox]]:
    make: Callable[[], Iterator[tuple[Suite, ProviderOutbox]]] = request.param
    yield from make()


def test_each_user_sees_the_mail_and_meetings_their_confirms_made_at_the_provider(
    provider: tuple[Suite, ProviderOutbox],
) -> None:
    suite, outbox = provider
    # Given nothing confirmed yet: the seeded week is the provider's, not anyone's outbox
    assert outbox.of(JORDAN.email) == {"name": outbox.name, "mail": [], "events": []}

    # When Jordan books a meeting with Priya and mails her
    suite.calendar.book(
        Booking(
            id="outbox-sync",
            title="Sync about the doc",
            organizer=JORDAN.email,
            attendees=(JORDAN.email, PRIYA.email),
            start=START,
            end=END,
            timezone="America/New_York",
        )
    )
    suite.mailer.send(Mail(to=(PRIYA.email,), subject="The doc", text="Here it is."))

    # Then Jordan's outbox lists both, and Priya's neither
    mine: dict[str, Any] = outbox.of(JORDAN.email)
    assert mine["name"] in ("Microsoft 365", "Google Workspace")
    assert [(m["subject"], m["to"]) for m in mine["mail"]] == [("The doc", [PRIYA.email])]
    assert mine["mail"][0]["body"].strip() == "Here it is."
    [event] = mine["events"]
    assert event == {
        "title": "Sync about the doc",
        "start": "2026-12-10T15:00:00+00:00",
        "end": "2026-12-10T15:30:00+00:00",
        "attendees": [PRIYA.email],
    }
    assert outbox.of(PRIYA.email) == {"name": outbox.name, "mail": [], "events": []}


def test_only_a_graph_or_google_stand_in_has_an_outbox_view() -> None:
    with pytest.raises(TypeError, match="No outbox view of object"):
        provider_outbox(object())
