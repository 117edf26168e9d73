"""Proposals read the caller's own Microsoft 365 when the deployment chose it: names from /users,
free/busy from getSchedule (checked against Graph's description), the provider's errors in its words."""

from __future__ import annotations

from datetime import UTC, datetime

from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.local.standins.graph_state import GraphPool, GraphState, WorkingHours
from multitool.ports.microsoft365.graph import build_suite
from multitool.ports.microsoft365.tokens import FixedTokenSource
from multitool.ports.provider_suites import NoTokenSource
from multitool.ports.suites import Suite
from multitool.ports.tokens import Account, TokenSource
from multitool.toolkit.context import ToolContext
from multitool.tools import ToolPorts, run_calls

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
ME = "jordan.lee@example.com"
PROPOSE = ("propose_meeting", {"attendees": ["Priya Patel"], "title": "Sync", "when": "Thursday"})


def graph() -> GraphState:
    state = GraphState()
    state.add_user("Jordan Lee", ME, working=WorkingHours(zone="W. Europe Standard Time"))
    state.add_user(
        "Priya Patel", "priya.patel@example.com", working=WorkingHours(zone="W. Europe Standard Time")
    )
    return state


def ports(state: GraphState, tokens: TokenSource) -> ToolPorts:
    def suites(account: Account) -> Suite:
        assert account == Account(user_id="user-1", email=ME)
        return build_suite(account, tokens, http=GraphPool(state), base_url="http://graph.local/v1.0")  # type: ignore[arg-type]

    # The builtin directory and calendar are empty: every name and busy time must come from Graph.
    return ToolPorts(MemoryDirectory([]), MemoryCalendar([]), MemoryDraftStore(), suites=suites)


def ctx() -> ToolContext:
    return ToolContext(
        owner="user-1", session_id="s-1", now=NOW, timezone="Europe/Berlin", requester_email=ME
    )


def test_a_proposal_reads_names_and_free_busy_from_the_callers_microsoft_365() -> None:
    state = graph()
    thursday_nine = datetime(2026, 12, 3, 8, 0, tzinfo=UTC)  # 09:00 in Berlin
    state.add_event(ME, "Standup", thursday_nine, thursday_nine.replace(hour=9), ["priya.patel@example.com"])

    (outcome,) = run_calls([PROPOSE], ctx(), ports(state, FixedTokenSource("t")))

    assert outcome.ok, outcome.body
    assert outcome.body["attendees"][0]["person"]["email"] == "priya.patel@example.com"
    assert outcome.body["slots"][0]["start"] == "2026-12-03T10:00:00+01:00"
    assert [t for _, t, _ in state.requests] == ["/users", "/users/{user-id}/calendar/getSchedule"]
    assert state.violations == []


def test_without_a_connected_account_the_call_says_connect() -> None:
    (outcome,) = run_calls([PROPOSE], ctx(), ports(graph(), NoTokenSource()))

    assert outcome.status == 403
    assert outcome.body["error"]["code"] == "account_not_connected"
    assert "Connect your Microsoft 365 account" in outcome.body["error"]["message"]


def test_an_attendees_zone_is_not_guessed_as_utc_graphs_working_hours_in_their_own_zone_count() -> None:
    # Given Kinshuok in Kolkata: 09:00-17:00 there is 03:30-11:30 UTC, which getSchedule reports
    state = graph()
    state.add_user(
        "Kinshuok Sharma", "kinshuok@example.com", working=WorkingHours(zone="India Standard Time")
    )
    call = ("propose_meeting", {"attendees": ["Kinshuok Sharma"], "title": "Sync", "when": "Thursday"})

    (outcome,) = run_calls([call], ctx(), ports(state, FixedTokenSource("t")))

    # Then the first slot is 09:00 in Berlin (08:00 UTC, inside his hours): his zone is not a
    # made-up UTC, whose 09:00-17:00 would have pushed it to 10:00
    assert outcome.ok, outcome.body
    assert outcome.body["slots"][0]["start"] == "2026-12-03T09:00:00+01:00"
    [attendee] = outcome.body["attendees"]
    assert attendee["person"]["timezone"] == ""
    assert not any("time zone" in note for note in outcome.body.get("notes", []))
    assert state.violations == []


def test_a_time_in_an_attendees_zone_asks_for_the_zone_when_graph_gives_none() -> None:
    state = graph()
    call = (
        "propose_meeting",
        {
            "attendees": ["Priya Patel"],
            "title": "Sync",
            "when": "Thursday at 3pm",
            "timezoneOf": "Priya Patel",
        },
    )

    (outcome,) = run_calls([call], ctx(), ports(state, FixedTokenSource("t")))

    assert outcome.status == 422  # the tool's unknown_time_zone, as for any zone it cannot place
    assert outcome.body["error"]["field"] == "timezoneOf"
    assert "time zone of 'Priya Patel' is not known" in outcome.body["error"]["message"]
