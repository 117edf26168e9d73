"""The caller's meetings on a provider, for the functional suites of meetings that already exist
(tests/functional/flows/test_meeting_changes_providers.py, test_meeting_occurrences.py): the people, a
world that makes a card and confirms it in each caller's own suite, the in-memory Graph (every
request checked against the committed description) and the Google stand-in over HTTP (every
request and answer checked against the discovery documents), each caller's suite on either.

``google`` is a fixture: a module that uses it imports it (``from ... import google as google``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from typing import Any

import pytest
import urllib3
from multitool.local.sandbox.memory import MemoryDirectory
from multitool.local.standins.google_server import FakeGoogle, sandbox_token, start_fake_google
from multitool.local.standins.graph_state import GraphPool, GraphState, WorkingHours
from multitool.people import Person
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.google import workspace as google_workspace
from multitool.ports.google.tokens import FixedTokenSource as GoogleTokens
from multitool.ports.microsoft365 import graph as microsoft365
from multitool.ports.microsoft365.tokens import FixedTokenSource
from multitool.ports.suites import Suite
from multitool.ports.tokens import Account
from multitool.review import Caller, ReviewConfig
from multitool.review.reviewer import Reviewer
from multitool.tools import ToolContext, ToolPorts, run_calls

from tests.support.provider_review import NoBuiltinCalendar
from tests.support.review_support import SENDER, RecordingMailer

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)  # Monday
ALEX = Person(
    id="p-alex", display_name="Alex Müller", email="alex.mueller@example.com", timezone="Europe/Berlin"
)
PRIYA = Person(id="p-priya", display_name="Priya Raman", email="priya@example.com", timezone="Europe/London")
MEI = Person(id="p-mei", display_name="Mei Tanaka", email="mei@example.com", timezone="Asia/Tokyo")
PEOPLE = (ALEX, PRIYA, MEI)
ALWAYS = WorkingHours(
    days=("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    start="00:00:00.0000000",
    end="00:00:00.0000000",
)
"""Working hours around the clock: the Graph's busy times are the meetings alone."""

Suites = Callable[[str], Suite]
"""Each caller's own suite, by address."""


class World:
    def __init__(self, drafts: DynamoDraftStore, suites: Suites) -> None:
        self.drafts = drafts
        self.suites = suites
        self.reviewer = Reviewer(
            drafts,
            mailer=RecordingMailer(),
            calendar=NoBuiltinCalendar(),  # type: ignore[arg-type]
            jira=None,
            config=ReviewConfig(sender_email=SENDER),
            clock=lambda: NOW,
            suites=lambda caller: suites(caller.email),
        )

    def card(self, name: str, args: dict[str, Any], email: str = ALEX.email) -> dict[str, Any]:
        suite: Suite = self.suites(email)
        ports = ToolPorts(MemoryDirectory(PEOPLE), suite.calendar, self.drafts)
        ctx = ToolContext(
            owner=email, session_id="s-1", now=NOW, timezone="Europe/London", requester_email=email
        )
        (outcome,) = run_calls([(name, args)], ctx, ports)
        assert outcome.status == 200, outcome.body
        return outcome.body

    def confirm(self, draft_id: str, edits: dict[str, Any] | None = None, email: str = ALEX.email) -> Any:
        return self.reviewer.confirm(
            Caller(user_id=email, email=email, name="Alex Müller"), draft_id, edits or {}
        )


# -- Microsoft 365 ---------------------------------------------------------------------------------


def graph_of_people() -> GraphState:
    """The in-memory Graph with :data:`PEOPLE`, working around the clock."""
    state = GraphState()
    for person in PEOPLE:
        state.add_user(person.display_name, person.email, working=ALWAYS)
    return state


def graph_suites(graph: GraphState) -> Suites:
    def suites(email: str) -> Suite:
        return microsoft365.build_suite(
            Account(user_id=email, email=email),
            FixedTokenSource("local-token"),
            http=GraphPool(graph),  # type: ignore[arg-type]
            base_url="http://graph.local/v1.0",
        )

    return suites


def writes(graph: GraphState) -> list[tuple[str, str, Any]]:
    """The Graph requests that change something (a busy read's POST aside)."""
    return [
        r for r in graph.requests if r[0] in ("PATCH", "POST", "DELETE") and not r[1].endswith("getSchedule")
    ]


# -- Google Workspace ---------------------------------------------------------------------------------


@pytest.fixture
def google() -> Iterator[FakeGoogle]:
    with start_fake_google(people=PEOPLE, week_of=date(2026, 11, 16)) as server:
        assert server.discovery is not None
        yield server


def google_suites(google: FakeGoogle) -> Suites:
    tokens = GoogleTokens({p.email: sandbox_token(p.email) for p in PEOPLE})
    http = urllib3.PoolManager()

    def suites(email: str) -> Suite:
        return google_workspace.build_suite(
            Account(user_id=email, email=email), tokens, http=http, base_url=google.url, deadline=lambda: 20.0
        )

    return suites
