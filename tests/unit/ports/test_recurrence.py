"""A repeating meeting's rule: expanded on the meeting's wall clock, written as an RRULE and as
Graph's patternedRecurrence, said in words, refused when the series cannot hold it; and read from
what people say ("every other Friday until March")."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from multitool.ports.recurrence import (
    Recurrence,
    RecurrenceProblem,
    between,
    check,
    first_occurrences,
    graph_recurrence,
    rrule_line,
    rule_words,
)
from multitool.toolkit.context import ToolContext
from multitool.tools.meeting.when import read_phrase
from pydantic import ValidationError

NEW_YORK = ZoneInfo("America/New_York")
FRIDAY_10 = datetime(2026, 12, 11, 10, 0, tzinfo=NEW_YORK)
HALF_HOUR = timedelta(minutes=30)
EVERY_OTHER_FRIDAY = Recurrence(frequency="weekly", interval=2, weekdays=("FR",), until=date(2027, 3, 5))


def test_an_every_other_friday_series_keeps_its_wall_clock_across_daylight_saving() -> None:
    meetings = list(
        between(
            EVERY_OTHER_FRIDAY,
            FRIDAY_10,
            FRIDAY_10 + HALF_HOUR,
            NEW_YORK,
            (FRIDAY_10, FRIDAY_10 + timedelta(days=365)),
        )
    )

    assert [m[0].date() for m in meetings] == [date(2026, 12, 11) + timedelta(weeks=2 * n) for n in range(7)]
    assert {m[0].strftime("%H:%M") for m in meetings} == {"10:00"}
    assert meetings[-1][0] == datetime(2027, 3, 5, 10, 0, tzinfo=NEW_YORK)  # the until day is included


def test_the_rule_as_an_rrule_graph_pattern_and_words() -> None:
    assert (
        rrule_line(EVERY_OTHER_FRIDAY, FRIDAY_10, NEW_YORK)
        == "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;UNTIL=20270306T045959Z"
    )
    assert graph_recurrence(EVERY_OTHER_FRIDAY, FRIDAY_10, NEW_YORK) == {
        "pattern": {"type": "weekly", "interval": 2, "daysOfWeek": ["friday"], "firstDayOfWeek": "monday"},
        "range": {"type": "endDate", "startDate": "2026-12-11", "endDate": "2027-03-05"},
    }
    assert rule_words(EVERY_OTHER_FRIDAY, FRIDAY_10, FRIDAY_10 + HALF_HOUR, NEW_YORK) == (
        "Every other Friday, 10:00-10:30, until 5 Mar 2027"
    )
    monthly = Recurrence(frequency="monthly", count=6)
    assert graph_recurrence(monthly, FRIDAY_10, NEW_YORK) == {
        "pattern": {"interval": 1, "type": "absoluteMonthly", "dayOfMonth": 11},
        "range": {"startDate": "2026-12-11", "type": "numbered", "numberOfOccurrences": 6},
    }
    assert rrule_line(monthly, FRIDAY_10, NEW_YORK) == "FREQ=MONTHLY;COUNT=6"
    weekdays = Recurrence(frequency="weekly", weekdays=("MO", "TU", "WE", "TH", "FR"))
    assert rule_words(weekdays, FRIDAY_10, FRIDAY_10 + HALF_HOUR, NEW_YORK) == "Every weekday, 10:00-10:30"
    assert len(first_occurrences(weekdays, FRIDAY_10, FRIDAY_10 + HALF_HOUR, NEW_YORK)) == 6


@pytest.mark.parametrize(
    ("rule", "why"),
    [
        (Recurrence(frequency="weekly", weekdays=("MO",)), r"is not on a day the series meets \(Monday\)"),
        (Recurrence(frequency="weekly", until=date(2026, 12, 1)), "before its first meeting"),
        (Recurrence(frequency="weekly", until=date(2029, 12, 1)), "more than two years"),
    ],
)
def test_a_rule_the_series_cannot_hold_is_refused_in_words(rule: Recurrence, why: str) -> None:
    with pytest.raises(RecurrenceProblem, match=why):
        check(rule, FRIDAY_10, NEW_YORK)


@pytest.mark.parametrize(
    "wire",
    [
        {"frequency": "weekly", "until": "2027-01-01", "count": 3},
        {"frequency": "monthly", "weekdays": ["MO"]},
        {"frequency": "weekly", "weekdays": ["MO", "MO"]},
        {"frequency": "weekly", "interval": 0},
        {"frequency": "yearly"},
    ],
)
def test_a_rule_no_calendar_takes_is_refused_by_its_model(wire: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Recurrence.model_validate(wire)


CTX = ToolContext(
    owner="u", session_id="s", now=datetime(2026, 12, 7, 14, tzinfo=UTC), timezone="America/New_York"
)


@pytest.mark.parametrize(
    ("said", "first", "rule"),
    [
        (
            "every monday at 11am",
            date(2026, 12, 14),
            {"frequency": "weekly", "interval": 1, "weekdays": ["MO"]},
        ),
        (
            "weekly on Thursdays",
            date(2026, 12, 10),
            {"frequency": "weekly", "interval": 1, "weekdays": ["TH"]},
        ),
        (
            "every other Friday until March",
            date(2026, 12, 11),
            {"frequency": "weekly", "interval": 2, "weekdays": ["FR"], "until": "2027-02-28"},
        ),
        (
            "every Tuesday at 10 for 6 weeks",
            date(2026, 12, 8),
            {"frequency": "weekly", "weekdays": ["TU"], "count": 6},
        ),
        ("monthly on the 15th", date(2026, 12, 15), {"frequency": "monthly", "interval": 1, "weekdays": []}),
    ],
)
def test_a_repeating_phrase_reads_as_its_first_meeting_and_its_rule(
    said: str, first: date, rule: dict
) -> None:
    reading = read_phrase(said, CTX)

    assert reading.request is not None
    assert reading.request.first.day == first
    assert reading.recurrence is not None
    wire = reading.recurrence.to_wire()
    assert {k: wire[k] for k in rule} == rule
