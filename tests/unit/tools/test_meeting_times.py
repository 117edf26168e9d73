"""The meeting tool's time contract: structured times beside the phrase, checked, and every
difference between the two, or between the day asked and the day offered, said on the card."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.ports.calendar import Booking
from multitool.toolkit.context import ToolConfig, ToolContext
from multitool.tools import CallOutcome, ToolPorts, run_calls

from tests.support.bedrock_events import sample_people

TOKYO = ZoneInfo("Asia/Tokyo")
LONDON = ZoneInfo("Europe/London")
NEW_YORK = ZoneInfo("America/New_York")
# Tuesday 1 December 2026, 09:00 UTC: 18:00 in Tokyo, 04:00 in New York.
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
CONFIG = ToolConfig()


def ctx(zone: ZoneInfo = TOKYO, now: datetime = NOW) -> ToolContext:
    return ToolContext(owner="user-1", session_id="s-1", now=now, timezone=zone.key)


def call(
    arguments: dict[str, Any], user: ToolContext | None = None, bookings: list[Booking] | None = None
) -> CallOutcome:
    tool_ports = ToolPorts(
        MemoryDirectory(sample_people()), MemoryCalendar(bookings or []), MemoryDraftStore()
    )
    (outcome,) = run_calls(
        [("propose_meeting", {"attendees": ["Priya"], "title": "Sync", **arguments})],
        user or ctx(),
        tool_ports,
        CONFIG,
    )
    return outcome


def first_start(outcome: CallOutcome, zone: ZoneInfo) -> str:
    assert outcome.ok, outcome.body
    return datetime.fromisoformat(outcome.body["slots"][0]["start"]).astimezone(zone).strftime("%a %H:%M")


def notes(outcome: CallOutcome) -> list[str]:
    return list(outcome.body["notes"])


# -- the structured values are what is searched; the phrase is checked against them ------------


def test_the_day_after_tomorrow_is_the_day_after_tomorrow_by_phrase_and_by_value() -> None:
    by_phrase = call({"when": "the day after tomorrow"})
    by_value = call({"when": "the day after tomorrow", "times": ["2026-12-03"]})
    for outcome in (by_phrase, by_value):
        assert first_start(outcome, TOKYO).startswith("Thu")
        assert outcome.body["times"] == ["2026-12-03"]
    assert not any("not read" in n or "reads as" in n for n in notes(by_value))


def test_day_after_tomorrow_at_2pm_keeps_the_day_and_the_time() -> None:
    outcome = call({"when": "day after tomorrow at 2pm"})
    assert first_start(outcome, TOKYO) == "Thu 14:00"
    assert not any("after" in n for n in notes(outcome))


@pytest.mark.parametrize(
    "arguments",
    [
        {"when": "Thursday at 4pm London time"},
        {"when": "Thursday at 4pm GMT"},
        {"when": "Thursday 16:00 Europe/London"},
        {"when": "Thursday 4pm London"},
        {"when": "Thursday at 16:00 in London"},
        {"when": "Thursday at 4pm in Priya's time zone"},
        {"when": "Thursday at 4pm (her time)"},
        {"when": "Thursday at 4pm London time", "times": ["2026-12-03T16:00"], "timezone": "Europe/London"},
        {
            "when": "Thursday at 4pm in Priya's time zone",
            "times": ["2026-12-03T16:00"],
            "timezoneOf": "Priya",
        },
    ],
)
def test_a_zone_the_user_names_is_the_zone_the_time_is_in(arguments: dict[str, Any]) -> None:
    # Given a Tokyo organizer asking for 16:00 London (or UTC) time
    outcome = call(arguments)
    # Then the slot is 16:00 in London (GMT is London's winter time), 01:00 Friday in Tokyo
    assert first_start(outcome, LONDON) == "Thu 16:00"
    assert first_start(outcome, TOKYO) == "Fri 01:00"
    # And the card names the zone the request was read in
    assert outcome.body["requestedTimezone"] in ("Europe/London", "UTC")
    assert any(n.startswith("Times read in") for n in notes(outcome)), notes(outcome)


@pytest.mark.parametrize(
    ("when", "zone"),
    [("Thursday 11am Pacific", "America/Los_Angeles"), ("thursday 11am pacific", "America/Los_Angeles")],
)
def test_a_region_after_the_time_is_its_zone_and_a_name_after_it_is_not(when: str, zone: str) -> None:
    outcome = call({"when": when})
    assert first_start(outcome, ZoneInfo(zone)) == "Thu 11:00"
    assert outcome.body["requestedTimezone"] == zone
    assert any(n.startswith(f"Times read in {zone}") for n in notes(outcome)), notes(outcome)
    # A person after the time is nobody's zone: the time is the organizer's own, the words unread
    plain = call({"when": "Thursday 11am with Priya"})
    assert first_start(plain, TOKYO) == "Thu 11:00"
    assert plain.body["requestedTimezone"] == TOKYO.key
    assert any("'with Priya'" in n and "not read" in n for n in notes(plain)), notes(plain)


@pytest.mark.parametrize(
    ("when", "zone", "start"),
    [
        ("Thursday at 11 Eastern", NEW_YORK, "Thu 11:00"),
        ("Thursday at 4 London", LONDON, "Thu 16:00"),
        ("Thursday at 4pm my time", TOKYO, "Thu 16:00"),
        ("Thursday 4pm in my time zone", TOKYO, "Thu 16:00"),
        ("Thursday 4pm (our local time)", TOKYO, "Thu 16:00"),
    ],
)
def test_a_zone_after_a_bare_hour_or_the_users_own_is_read(when: str, zone: ZoneInfo, start: str) -> None:
    """'at 11 Eastern' left 'Eastern' unread; 'my time' left 'my' unread (the zone was the user's anyway)."""
    outcome = call({"when": when})
    assert first_start(outcome, zone) == start
    assert outcome.body["requestedTimezone"] == zone.key
    assert not any("not read" in n for n in notes(outcome)), notes(outcome)
    # The card says the zone when it is not the organizer's own
    said = any(n.startswith("Times read in") for n in notes(outcome))
    assert said is (zone != TOKYO), notes(outcome)


def test_your_time_is_nobodys_zone_and_is_said_unread() -> None:
    # "your time" to the assistant names no one's zone: the time stays the organizer's, the word is said
    outcome = call({"when": "Thursday at 4pm your time"})
    assert first_start(outcome, TOKYO) == "Thu 16:00"
    assert any("'your'" in n and "not read" in n for n in notes(outcome)), notes(outcome)


def test_a_place_that_is_part_of_a_longer_name_is_no_zone() -> None:
    # "Central" names a zone, "Central Park" a park: the time stays the organizer's, the words are said
    outcome = call({"when": "Thursday 11am Central Park"})
    assert first_start(outcome, TOKYO) == "Thu 11:00"
    assert outcome.body["requestedTimezone"] == TOKYO.key
    assert any("Central Park" in n and "not read" in n for n in notes(outcome)), notes(outcome)


def test_alternatives_are_offered_in_the_order_said() -> None:
    for arguments in (
        {"when": "Thursday at 4pm or Friday at 10am"},
        {"when": "Thursday at 4pm or Friday at 10am", "times": ["2026-12-03T16:00", "2026-12-04T10:00"]},
    ):
        outcome = call(arguments, ctx(NEW_YORK))
        starts = [
            datetime.fromisoformat(s["start"]).astimezone(NEW_YORK).strftime("%a %H:%M")
            for s in outcome.body["slots"]
        ]
        assert starts[:2] == ["Thu 16:00", "Fri 10:00"]


def test_a_day_ruled_out_is_not_offered() -> None:
    for arguments in (
        {"when": "not on Thursday", "times": ["2026-12-03"], "notOn": ["2026-12-03"]},
        {"when": "Thursday or Friday but not on Thursday"},
    ):
        outcome = call(arguments, ctx(NEW_YORK))
        days = {datetime.fromisoformat(s["start"]).astimezone(NEW_YORK).date() for s in outcome.body["slots"]}
        assert date(2026, 12, 3) not in days, outcome.body


def test_values_that_disagree_with_the_phrase_are_searched_and_the_card_says_so() -> None:
    outcome = call({"when": "the day after tomorrow", "times": ["2026-12-02"]})
    assert first_start(outcome, TOKYO).startswith("Wed")
    assert (
        "'the day after tomorrow' reads as Thu 3 Dec, but the times passed are Wed 2 Dec: check them."
        in notes(outcome)
    )


@pytest.mark.parametrize(
    ("when", "times"),
    [
        ("Friday after 3pm", ["2026-12-04T15:00/17:00"]),
        ("Friday after 3pm", ["2026-12-04T16:30"]),
        ("Friday by midnight", ["2026-12-04T09:00/17:00"]),
        ("Friday at 3pm", ["2026-12-04T15:00"]),
        ("Thursday afternoon", ["2026-12-03T14:00"]),
        ("Thursday afternoon", ["2026-12-03T14:00/16:00"]),
        ("thurs 2-3pm", ["2026-12-03T14:00/15:00"]),
        ("Friday next week", ["2026-12-11"]),
        ("next week", ["2026-12-07/2026-12-11"]),
    ],
)
def test_times_passed_within_what_the_phrase_says_need_no_check(when: str, times: list[str]) -> None:
    outcome = call({"when": when, "times": times})
    assert outcome.ok, outcome.body
    assert not any("check them" in note for note in notes(outcome)), notes(outcome)


@pytest.mark.parametrize(
    ("when", "times"),
    [
        ("Thursday afternoon", ["2026-12-03T10:00"]),  # a morning time for an afternoon
        ("Thursday", ["2026-12-03T10:00"]),  # a time the user never said
        ("Friday at 3pm", ["2026-12-04T16:00"]),
        ("Friday after 3pm", ["2026-12-04T14:00"]),  # before the earliest start said
        ("thurs 2-3pm", ["2026-12-03T13:00/15:00"]),  # hours beyond those said
        ("Thursday or Friday", ["2026-12-03"]),  # an alternative dropped
    ],
)
def test_times_passed_beyond_what_the_phrase_says_are_checked_on_the_card(
    when: str, times: list[str]
) -> None:
    outcome = call({"when": when, "times": times})
    assert any(f"'{when}' reads as" in note and "check them" in note for note in notes(outcome)), notes(
        outcome
    )


def test_words_of_the_phrase_nothing_read_are_named_on_the_card() -> None:
    outcome = call({"when": "Thursday after the offsite", "times": ["2026-12-03"]})
    assert any("'offsite' in 'Thursday after the offsite' was not read" in n for n in notes(outcome)), notes(
        outcome
    )


@pytest.mark.parametrize(
    ("arguments", "code", "field"),
    [
        ({"when": "yesterday", "times": ["2026-11-30"]}, "date_in_past", "times[0]"),
        ({"when": "Thursday at 25:00", "times": ["2026-12-03T25:00"]}, "unparseable_date", "times[0]"),
        ({"when": "Feb 30", "times": ["2027-02-30"]}, "unparseable_date", "times[0]"),
        ({"when": "Thursday", "times": ["Thursday"]}, "unparseable_date", "times[0]"),
        ({"when": "Thursday", "times": ["2026-12-03T12:00/11:00"]}, "unparseable_date", "times[0]"),
        (
            {"when": "Thursday 4pm Mars time", "times": ["2026-12-03T16:00"], "timezone": "Mars/Olympus"},
            "unknown_time_zone",
            "timezone",
        ),
        (
            {"when": "today at 8am", "times": ["2026-12-01T08:00"], "timezone": "UTC"},
            "date_in_past",
            "times[0]",
        ),
    ],
)
def test_bad_values_are_a_422_the_model_can_read(arguments: dict[str, Any], code: str, field: str) -> None:
    outcome = call(arguments)
    assert not outcome.ok
    error = outcome.body["error"]
    assert (outcome.status, error["code"], error["field"]) == (422, code, field), error
    assert error["message"]


# -- the day offered differs from the day asked: the note says why -----------------------------


def test_today_with_no_time_left_says_so_and_the_reply_does_not_say_today() -> None:
    from multitool.cards.client_actions import card_from_payload
    from multitool.tools.meeting.meeting_scheduler import meeting_said

    late = datetime(2026, 12, 1, 18, 31, tzinfo=UTC)  # 13:31 in New York; Priya's day in London is over
    outcome = call({"when": "today", "times": ["2026-12-01"]}, ctx(NEW_YORK, late))
    assert outcome.ok, outcome.body
    offered = {datetime.fromisoformat(s["start"]).astimezone(NEW_YORK).date() for s in outcome.body["slots"]}
    # Priya's working day in London is over: the slots are tomorrow, within both working days
    assert offered == {date(2026, 12, 2)}
    assert (
        "Nothing on Tue 1 Dec is free within everyone's working hours; these are the next free times."
        in notes(outcome)
    )
    said = meeting_said(card_from_payload({**outcome.body, "draftId": "d-1"}))  # type: ignore[arg-type]
    assert said is not None
    assert said.endswith("on Wed 2 Dec (none today)")


def test_a_weekend_day_asked_for_says_it_is_a_weekend() -> None:
    outcome = call({"when": "on Saturday", "times": ["2026-12-05"]})
    assert first_start(outcome, TOKYO).startswith("Mon")
    assert "Sat 5 Dec is a weekend day; the slots are on the next working days." in notes(outcome)


def test_jan_2_on_a_saturday_moves_with_a_note() -> None:
    outcome = call({"when": "jan 2"})
    assert first_start(outcome, TOKYO).startswith("Mon")
    assert "Sat 2 Jan is a weekend day; the slots are on the next working days." in notes(outcome)


def test_this_afternoon_does_not_claim_no_time_in_everyones_hours_all_week() -> None:
    outcome = call({"when": "this afternoon"}, ctx(NEW_YORK, datetime(2026, 12, 1, 18, 31, tzinfo=UTC)))
    assert outcome.ok, outcome.body
    assert not any(n.startswith("No free time between") for n in notes(outcome)), notes(outcome)


# -- public holidays ------------------------------------------------------------------------


def test_a_slot_on_a_public_holiday_is_offered_only_with_a_note() -> None:
    # Given Priya in London, asked for Christmas Day and New Year's Day (both Fridays in 2026)
    for value, words in (
        ("2026-12-25", "Fri 25 Dec is a public holiday (Christmas Day, GB) for Priya Raman."),
        ("2027-01-01", "Fri 1 Jan is a public holiday (New Year's Day, GB) for Priya Raman."),
    ):
        outcome = call({"when": value, "times": [value]}, ctx(LONDON))
        assert outcome.ok, outcome.body
        # Then the note names the holiday and whose it is (the organizer's too: "you")
        assert any(n.startswith(words[: words.index(" for ")]) for n in notes(outcome)), notes(outcome)
        assert any("Priya Raman" in n and "public holiday" in n for n in notes(outcome))


def test_a_country_is_derived_from_the_time_zone() -> None:
    from multitool.ports.holidays import country_of, holiday

    assert country_of("Europe/London") == "GB"
    assert country_of("America/New_York") == "US"
    assert country_of("UTC") is None
    assert holiday(date(2026, 12, 25), "Asia/Tokyo") is None  # not a holiday in Japan
    assert holiday(date(2026, 7, 3), "America/New_York") == ("US", "Independence Day (observed)")


def test_a_repeating_meeting_proposes_its_first_and_the_card_says_so() -> None:
    # Given "every Thursday at 10am", said on Tuesday evening in Tokyo
    outcome = call({"when": "every Thursday at 10am", "times": ["2026-12-03T10:00"]})
    # Then the card proposes that Thursday, and says only the first meeting is proposed
    assert outcome.body["times"] == ["2026-12-03T10:00"]
    assert any(
        n.startswith("'every Thursday' asks for a repeating meeting: this proposes the first, Thu 3 Dec")
        for n in notes(outcome)
    ), notes(outcome)
    assert not any("not read" in n or "reads as" in n for n in notes(outcome)), notes(outcome)
