"""A repeating meeting in the built-in calendar (DynamoDB, against moto): held once per attendee,
every meeting of it busy wherever a person's time is checked, and never double booked."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import boto3
import pytest
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.ports.calendar import Booking, Interval, SlotTaken
from multitool.ports.recurrence import Recurrence

from tests.support.moto_tables import Counted
from tests.support.moto_tables import dynamo as dynamo

NEW_YORK = ZoneInfo("America/New_York")
# Monday 14 Dec 2026, 11:00 in New York: the first of "every Monday at 11".
MONDAY_11 = datetime(2026, 12, 14, 11, 0, tzinfo=NEW_YORK)
WEEKLY = Recurrence(frequency="weekly", weekdays=("MO",))


def booking(
    booking_id: str,
    *attendees: str,
    start: datetime = MONDAY_11,
    minutes: int = 30,
    recurrence: Recurrence | None = None,
) -> Booking:
    return Booking(
        id=booking_id,
        title=f"Meeting {booking_id}",
        organizer="jordan@example.com",
        attendees=attendees,
        start=start,
        end=start + timedelta(minutes=minutes),
        timezone="America/New_York",
        recurrence=recurrence,
    )


def busy(calendar: DynamoCalendar, email: str, start: datetime, days: int) -> list[tuple[datetime, datetime]]:
    found = calendar.busy([email], start, start + timedelta(days=days))[email]
    return [(i.start.astimezone(NEW_YORK), i.end.astimezone(NEW_YORK)) for i in found]


def test_every_meeting_of_a_series_is_busy_in_one_read_at_its_wall_clock_time(dynamo: Counted) -> None:
    calendar = dynamo.calendar()
    calendar.book(booking("s", "priya@example.com", "jordan@example.com", recurrence=WEEKLY))
    dynamo.calls.clear()

    # Three months on, past the change to daylight saving time (14 Mar 2027 in New York)
    march = datetime(2027, 3, 8, tzinfo=NEW_YORK)
    found = busy(calendar, "priya@example.com", march, 14)

    assert dynamo.calls == Counter({"BatchGetItem": 1})
    assert found == [
        (datetime(2027, 3, 8, 11, 0, tzinfo=NEW_YORK), datetime(2027, 3, 8, 11, 30, tzinfo=NEW_YORK)),
        (datetime(2027, 3, 15, 11, 0, tzinfo=NEW_YORK), datetime(2027, 3, 15, 11, 30, tzinfo=NEW_YORK)),
    ]
    assert found[1][0].utcoffset() == timedelta(hours=-4)  # 11:00 EDT, not 10:00
    assert busy(calendar, "kinshuok@example.com", march, 14) == []


def test_a_series_ends_on_its_until_day_and_skips_its_other_weeks(dynamo: Counted) -> None:
    calendar = dynamo.calendar()
    every_other = Recurrence(frequency="weekly", interval=2, weekdays=("MO",), until=date(2027, 1, 11))
    calendar.book(booking("s", "priya@example.com", recurrence=every_other))

    found = busy(calendar, "priya@example.com", MONDAY_11 - timedelta(hours=11), 60)

    assert [start.date() for start, _ in found] == [date(2026, 12, 14), date(2026, 12, 28), date(2027, 1, 11)]


def test_a_later_meeting_on_an_occurrence_is_refused_and_one_between_them_is_booked(dynamo: Counted) -> None:
    calendar = dynamo.calendar()
    calendar.book(booking("s", "priya@example.com", recurrence=WEEKLY))
    fourth = MONDAY_11 + timedelta(weeks=3)

    with pytest.raises(SlotTaken) as taken:
        calendar.book(
            booking("b", "Priya@Example.com", "kinshuok@example.com", start=fourth + timedelta(minutes=15))
        )
    calendar.book(booking("c", "priya@example.com", start=fourth + timedelta(days=1)))

    assert taken.value.busy == {
        "Priya@Example.com": [
            Interval(start=fourth.astimezone(UTC), end=(fourth + timedelta(minutes=30)).astimezone(UTC))
        ]
    }
    assert busy(calendar, "kinshuok@example.com", fourth - timedelta(hours=11), 1) == []


def test_a_series_whose_first_meeting_is_taken_is_refused_and_writes_nothing(dynamo: Counted) -> None:
    calendar = dynamo.calendar()
    calendar.book(booking("a", "priya@example.com", start=MONDAY_11 + timedelta(minutes=15)))

    with pytest.raises(SlotTaken):
        calendar.book(booking("s", "priya@example.com", "kinshuok@example.com", recurrence=WEEKLY))

    assert busy(calendar, "kinshuok@example.com", MONDAY_11 + timedelta(weeks=1), 1) == []


def test_two_series_on_the_same_hour_cannot_both_be_booked(dynamo: Counted) -> None:
    calendar = dynamo.calendar()
    calendar.book(booking("s1", "priya@example.com", recurrence=WEEKLY))

    with pytest.raises(SlotTaken):  # its first meeting is the first series' second
        calendar.book(
            booking("s2", "priya@example.com", start=MONDAY_11 + timedelta(weeks=1), recurrence=WEEKLY)
        )


def test_a_retried_series_is_a_no_op_and_a_new_rule_replaces_the_old(dynamo: Counted) -> None:
    calendar = dynamo.calendar()
    calendar.book(booking("s", "priya@example.com", recurrence=WEEKLY))
    dynamo.calls.clear()
    calendar.book(booking("s", "priya@example.com", recurrence=WEEKLY))
    assert "TransactWriteItems" not in dynamo.calls

    calendar.book(booking("s", "priya@example.com", recurrence=WEEKLY.model_copy(update={"interval": 2})))

    found = busy(calendar, "priya@example.com", MONDAY_11 - timedelta(hours=11), 28)
    assert [start.date() for start, _ in found] == [date(2026, 12, 14), date(2026, 12, 28)]


def test_a_single_meeting_booked_again_as_a_series_moves_into_the_series_item(dynamo: Counted) -> None:
    calendar = dynamo.calendar()
    calendar.book(booking("s", "priya@example.com"))
    calendar.book(booking("s", "priya@example.com", recurrence=WEEKLY))

    found = busy(calendar, "priya@example.com", MONDAY_11 - timedelta(hours=11), 14)
    assert [start.date() for start, _ in found] == [date(2026, 12, 14), date(2026, 12, 21)]  # held once


def test_releasing_a_series_frees_every_meeting(dynamo: Counted) -> None:
    calendar = dynamo.calendar()
    calendar.book(booking("s", "priya@example.com", recurrence=WEEKLY))
    calendar.release("s")
    calendar.release("s")

    assert busy(calendar, "priya@example.com", MONDAY_11, 60) == []
    calendar.book(booking("b", "priya@example.com", start=MONDAY_11 + timedelta(weeks=2)))


def test_of_a_meeting_and_a_series_racing_for_one_hour_exactly_one_holds_it(dynamo: Counted) -> None:
    # Given a single meeting and a series that both read Priya's second Monday as free before either writes
    first = dynamo.calendar()
    second = dynamo.calendar(boto3.client("dynamodb", region_name="us-east-1"))
    second_monday = MONDAY_11 + timedelta(weeks=1)
    interleaved: list[str] = []

    def book_the_series_first(**_: Any) -> None:
        if not interleaved:
            interleaved.append("series")
            second.book(booking("s", "priya@example.com", start=second_monday, recurrence=WEEKLY))

    dynamo.client.meta.events.register("before-call.dynamodb.TransactWriteItems", book_the_series_first)
    # When the single meeting writes after the series committed
    with pytest.raises(SlotTaken):
        first.book(booking("a", "priya@example.com", "kinshuok@example.com", start=second_monday))

    # Then its condition on Priya's series item failed, it read again and was refused
    assert interleaved == ["series"]
    assert busy(first, "kinshuok@example.com", second_monday - timedelta(hours=11), 1) == []
    assert len(busy(first, "priya@example.com", second_monday - timedelta(hours=11), 1)) == 1


def test_of_a_series_racing_a_meeting_on_its_first_hour_exactly_one_holds_it(dynamo: Counted) -> None:
    first = dynamo.calendar()
    second = dynamo.calendar(boto3.client("dynamodb", region_name="us-east-1"))
    interleaved: list[str] = []

    def book_the_meeting_first(**_: Any) -> None:
        if not interleaved:
            interleaved.append("meeting")
            second.book(booking("a", "priya@example.com"))

    dynamo.client.meta.events.register("before-call.dynamodb.TransactWriteItems", book_the_meeting_first)
    with pytest.raises(SlotTaken):
        first.book(booking("s", "priya@example.com", "kinshuok@example.com", recurrence=WEEKLY))

    assert interleaved == ["meeting"]
    assert busy(first, "kinshuok@example.com", MONDAY_11 + timedelta(weeks=1), 1) == []
