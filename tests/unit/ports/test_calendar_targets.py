"""What a provider calendar's move and cancel write on, after re-reading the meeting the card showed
(multitool.ports.calendar.move_target and cancel_target, which the Microsoft 365 and the Google
adapters both call): the meeting or its series, and never a meeting changed since, gone, or not the
caller's to move."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from multitool.ports.calendar import (
    CalendarEvent,
    EventChanged,
    MoveTarget,
    NotOrganizer,
    cancel_target,
    checked_as,
    move_target,
)

TEN = datetime(2026, 12, 10, 10, tzinfo=UTC)
ME = "jordan@example.com"
SHOWN = CalendarEvent(
    id="occ-3",
    title="Standup",
    start=TEN,
    end=TEN + timedelta(minutes=15),
    organizer=ME,
    role="organizer",
    version="v1",
    recurring=True,
    series_id="series-1",
)
SERIES = SHOWN.model_copy(update={"id": "series-1", "start": TEN - timedelta(days=14), "version": "s7"})


def read(found: dict[str, CalendarEvent]) -> Callable[[str], CalendarEvent | None]:
    """The adapter's re-read of an event by id, over the events given."""
    return found.get


def test_one_meeting_moves_on_its_own_id_to_the_times_asked() -> None:
    eleven = TEN + timedelta(hours=1)
    target = move_target(SHOWN, SHOWN, eleven, eleven + timedelta(minutes=15), "occurrence", read({}))
    assert target == MoveTarget("occ-3", eleven, eleven + timedelta(minutes=15))


def test_the_series_moves_on_its_own_id_its_first_meeting_by_as_much() -> None:
    eleven = TEN + timedelta(hours=1)
    series = read({"series-1": SERIES})
    target = move_target(SHOWN, SHOWN, eleven, eleven + timedelta(minutes=30), "series", series)
    first = SERIES.start + timedelta(hours=1)
    assert target == MoveTarget("series-1", first, first + timedelta(minutes=30), SERIES)


def test_a_series_gone_since_is_changed_and_nothing_is_written() -> None:
    with pytest.raises(EventChanged) as raised:
        move_target(SHOWN, SHOWN, TEN, TEN + timedelta(minutes=15), "series", read({}))
    assert raised.value.gone


@pytest.mark.parametrize(
    ("current", "error", "gone"),
    [
        (None, EventChanged, True),
        (SHOWN.model_copy(update={"version": "v2"}), EventChanged, False),
        (SHOWN.model_copy(update={"role": "attendee"}), NotOrganizer, None),
    ],
)
def test_a_meeting_gone_changed_or_not_organized_by_the_caller_is_neither_moved_nor_cancelled(
    current: CalendarEvent | None, error: type[Exception], gone: bool | None
) -> None:
    with pytest.raises(error) as moved:
        move_target(current, SHOWN, TEN, TEN + timedelta(minutes=15), "occurrence", read({}))
    with pytest.raises(error) as cancelled:
        cancel_target(current, SHOWN, "series")
    if gone is not None:
        assert isinstance(moved.value, EventChanged)
        assert isinstance(cancelled.value, EventChanged)
        assert (moved.value.gone, cancelled.value.gone) == (gone, gone)


def test_a_cancel_targets_the_meeting_or_its_series() -> None:
    assert cancel_target(SHOWN, SHOWN, "occurrence") == "occ-3"
    assert cancel_target(SHOWN, SHOWN, "series") == "series-1"
    single = SHOWN.model_copy(update={"recurring": False, "series_id": None})
    assert cancel_target(single, single, "series") == "occ-3"


def test_only_an_attendee_answers() -> None:
    with pytest.raises(NotOrganizer):
        checked_as(SHOWN, SHOWN, "attendee")
    invited = SHOWN.model_copy(update={"role": "attendee"})
    assert checked_as(invited, invited, "attendee") is invited
