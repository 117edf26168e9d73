"""The tools layer: one bad call never loses the others."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from multitool.drafts import DraftStatus
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.people import Person
from multitool.toolkit.context import ToolContext
from multitool.toolkit.errors import InvalidInput, UnparseableDate
from multitool.tools import ToolPorts, run_calls
from multitool.tools.meeting.when import resolve_when

from tests.support.bedrock_events import sample_people

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
EMAIL = ("create_email_draft", {"to": ["Kinshuok"], "subject": "The doc", "body": "Here is the doc."})
JIRA = ("create_jira_ticket_draft", {"project": "WEB", "issueType": "Bug", "summary": "Login fails"})


def ports(people: list[Person] | None = None) -> ToolPorts:
    return ToolPorts(MemoryDirectory(people or sample_people()), MemoryCalendar(), MemoryDraftStore())


def ctx() -> ToolContext:
    return ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone="Europe/Berlin")


def meeting(when: str, attendees: list[str] | None = None) -> tuple[str, dict[str, Any]]:
    return ("propose_meeting", {"attendees": attendees or ["Zoe"], "title": "Sync", "when": when})


@pytest.mark.parametrize("when", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+14:00"])
def test_a_date_at_the_edge_of_the_calendar_is_an_unparseable_date(when: str) -> None:
    # Given a time whose conversion to the user's zone leaves Python's date range
    # When it is resolved
    # Then the model is told which day it cannot use (no OverflowError)
    with pytest.raises(UnparseableDate) as raised:
        resolve_when(when, ctx())
    assert raised.value.field == "when"


@pytest.mark.parametrize("when", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+14:00"])
def test_a_meeting_at_the_edge_of_the_calendar_loses_no_other_intent(when: str) -> None:
    outcomes = run_calls([EMAIL, meeting(when), JIRA], ctx(), ports())
    assert [o.status for o in outcomes] == [200, 422, 200]
    assert outcomes[1].body["error"]["field"] == "when"


def test_an_unexpected_failure_in_one_call_is_that_calls_error_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a tool whose domain code fails in a way nobody foresaw
    from multitool.tools.jira import jira_draft

    def explode(*_args: Any) -> Any:
        raise KeyError("not a ToolError")

    monkeypatch.setattr(jira_draft, "validate_project", explode)
    # When it runs in one batch with an email and a meeting
    outcomes = run_calls([EMAIL, meeting("Thursday"), JIRA], ctx(), ports())
    # Then the email and meeting drafts are made, and only the Jira call reports a failure
    assert [o.status for o in outcomes] == [200, 200, 500]
    assert outcomes[2].body == {
        "error": {"code": "internal_error", "message": "The tool failed unexpectedly; try again once."}
    }


def test_an_unexpected_failure_while_finishing_one_call_is_that_calls_error_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from multitool.tools.meeting import meeting_scheduler

    def explode(*_args: Any, **_kwargs: Any) -> Any:
        raise ArithmeticError("slot search broke")

    monkeypatch.setattr(meeting_scheduler, "slot_proposal", explode)
    outcomes = run_calls([EMAIL, meeting("Thursday"), JIRA], ctx(), ports())
    assert [o.status for o in outcomes] == [200, 500, 200]
    assert outcomes[1].body["error"]["code"] == "internal_error"


@pytest.mark.parametrize("zone", ["Europe", "A" * 300])
def test_a_time_zone_that_names_a_folder_or_is_too_long_is_invalid_input(zone: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        ToolContext(owner="user-1", session_id="s-1", now=NOW, timezone=zone)
    assert raised.value.field == "sessionAttributes.timezone"
    with pytest.raises(InvalidInput):
        ToolContext.from_session("s-1", {"userId": "user-1", "timezone": zone})


def test_a_directory_person_with_a_folder_as_time_zone_gets_a_note_not_a_crash() -> None:
    people = [
        *sample_people(),
        Person(id="p-odd", display_name="Odd Zone", email="odd@example.com", timezone="Europe"),
    ]
    outcomes = run_calls([EMAIL, meeting("Thursday", ["Odd Zone"])], ctx(), ports(people))
    assert [o.status for o in outcomes] == [200, 200]
    assert any("not an IANA time zone" in note for note in outcomes[1].body["notes"])


# -- asked again after a discard ----------------------------------------------------------------


def _discard(store: MemoryDraftStore, draft_id: str) -> None:
    current = store.drafts[draft_id]
    store.replace(current, current.model_copy(update={"status": DraftStatus.DISCARDED}))


def test_asking_again_for_a_discarded_draft_proposes_a_fresh_one() -> None:
    # Given an email draft the user discarded
    backends = ports()
    store = backends.drafts
    assert isinstance(store, MemoryDraftStore)
    (first,) = run_calls([EMAIL], ctx(), backends)
    _discard(store, first.body["draftId"])
    # When the same email is asked for again in the same session (with a meeting)
    again = run_calls([EMAIL, meeting("Thursday")], ctx(), backends)
    # Then it is a new, confirmable draft, not the discarded one (whose confirm is a 409)
    renewed = again[0].body["draftId"]
    assert [o.status for o in again] == [200, 200]
    assert renewed != first.body["draftId"]
    assert store.drafts[renewed].status is DraftStatus.PROPOSED
    assert store.drafts[renewed].payload["draftId"] == renewed
    assert store.drafts[first.body["draftId"]].status is DraftStatus.DISCARDED
    # And a retry of that request lands on the same fresh draft; discarding it too gives a third
    assert run_calls([EMAIL], ctx(), backends)[0].body["draftId"] == renewed
    _discard(store, renewed)
    third = run_calls([EMAIL], ctx(), backends)[0].body["draftId"]
    assert third not in (renewed, first.body["draftId"])
    assert store.drafts[third].status is DraftStatus.PROPOSED


def test_asking_again_for_a_done_draft_proposes_a_new_one_and_leaves_the_done_one_as_it_was() -> None:
    backends = ports()
    store = backends.drafts
    assert isinstance(store, MemoryDraftStore)
    (first,) = run_calls([EMAIL], ctx(), backends)
    current = store.drafts[first.body["draftId"]]
    done = store.replace(current, current.model_copy(update={"status": DraftStatus.DONE}))
    renewed = run_calls([EMAIL], ctx(), backends)[0].body["draftId"]
    # A new action the user confirms on its own; the sent one is untouched, so it is never sent twice
    assert renewed != first.body["draftId"]
    assert store.drafts[renewed].status is DraftStatus.PROPOSED
    assert store.drafts[first.body["draftId"]] == done
