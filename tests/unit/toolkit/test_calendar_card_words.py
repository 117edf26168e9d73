"""The agenda's and the free times' cards say their days and what they found in one way
(multitool.toolkit.cards.days_words and found_said), and cut the days asked at a fortnight alike."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from multitool.people import NameResolution, Person, Resolution
from multitool.toolkit.common import days_within
from multitool.tools.calendar.calendar_agenda import AgendaCard, AgendaMeeting, agenda_caption, agenda_said
from multitool.tools.meeting.free_time import FreeTimesCard, FreeWindow, free_caption, free_said

THURSDAY = date(2026, 12, 10)
FRIDAY = date(2026, 12, 11)


TEN = datetime(2026, 12, 10, 10, tzinfo=timezone(timedelta(hours=-5)))


def meeting() -> AgendaMeeting:
    return AgendaMeeting(title="Sync", start=TEN, end=TEN + timedelta(minutes=30))


def window() -> FreeWindow:
    return FreeWindow(start=TEN, end=TEN + timedelta(hours=1))


def agenda_card(count: int, to_day: date | None) -> AgendaCard:
    return AgendaCard(
        type="show_agenda",
        id="d-1",
        requested="this week",
        from_day=THURSDAY,
        to_day=to_day,
        meetings=tuple(meeting() for _ in range(count)),
    )


def free_card(count: int, to_day: date | None, people: tuple[NameResolution, ...] = ()) -> FreeTimesCard:
    return FreeTimesCard(
        type="show_free_times",
        id="d-2",
        requested="this week",
        from_day=THURSDAY,
        to_day=to_day,
        people=people,
        windows=tuple(window() for _ in range(count)),
    )


@pytest.mark.parametrize(
    ("count", "to_day", "caption", "said"),
    [
        (0, None, "Your calendar on Thu 10 Dec: nothing", "found nothing on your calendar on Thu 10 Dec"),
        (
            1,
            THURSDAY,
            "Your calendar on Thu 10 Dec: 1 meeting",
            "found 1 meeting on your calendar on Thu 10 Dec",
        ),
        (
            2,
            FRIDAY,
            "Your calendar from Thu 10 Dec to Fri 11 Dec: 2 meetings",
            "found 2 meetings on your calendar from Thu 10 Dec to Fri 11 Dec",
        ),
    ],
)
def test_the_agenda_says_its_days_and_how_many_meetings(
    count: int, to_day: date | None, caption: str, said: str
) -> None:
    card = agenda_card(count, to_day)
    assert (agenda_caption(card), agenda_said(card)) == (caption, said)


def test_the_free_times_say_their_days_people_and_how_many_windows() -> None:
    priya = NameResolution(
        query="Priya",
        status=Resolution.RESOLVED,
        person=Person(id="u-2", display_name="Priya Patel", email="priya@example.com"),
    )
    assert free_caption(free_card(0, None)) == "Free on Thu 10 Dec: no windows"
    assert free_said(free_card(0, None)) == "found no time you are free on Thu 10 Dec"
    assert free_caption(free_card(1, FRIDAY)) == "Free from Thu 10 Dec to Fri 11 Dec: 1 window"
    card = free_card(3, FRIDAY, (priya,))
    assert free_said(card) == "found 3 windows you are free with Priya Patel from Thu 10 Dec to Fri 11 Dec"


def test_a_card_with_no_days_read_says_the_days_as_asked() -> None:
    card = AgendaCard(type="show_agenda", id="d-1", requested="this week")
    assert agenda_caption(card) == "Your calendar this week: nothing"


def test_days_past_a_fortnight_are_cut_with_a_note_saying_what_the_card_does_with_them() -> None:
    assert days_within(THURSDAY, None, 14, "shown") == (THURSDAY, THURSDAY, [])
    assert days_within(THURSDAY, date(2027, 1, 31), 14, "searched") == (
        THURSDAY,
        date(2026, 12, 23),
        ["Only the first 14 days are searched."],
    )
