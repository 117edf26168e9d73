"""The DynamoDB adapters against moto: one read per batch, conditional writes, stored shapes."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import boto3
import pytest
from botocore.exceptions import ClientError
from multitool.drafts import DraftStatus, new_draft
from multitool.people import Resolution
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.ports.calendar import Booking, Interval, SlotTaken
from multitool.ports.directory import DynamoDirectory, name_index, seed_people
from multitool.ports.drafts import DynamoDraftStore, _from_item, _to_item

from tests.support.bedrock_events import sample_people
from tests.support.moto_tables import Counted
from tests.support.moto_tables import dynamo as dynamo

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def draft(n: int, session: str = "s-1") -> Any:
    return new_draft(
        owner="user-1",
        session_id=session,
        action="show_new_email_draft",
        arguments=[n],
        payload={"n": n},
        now=NOW,
    )


def test_directory_resolves_every_name_in_one_batch_get(dynamo: Counted) -> None:
    table = dynamo.names["DIRECTORY_TABLE_NAME"]
    seed_people(dynamo.client, table, sample_people())
    dynamo.calls.clear()
    found = DynamoDirectory(table, dynamo.client).resolve(
        ["Kinshuok", "zoe", "ZOË MÜLLER", "pri", "Nobody", "pri"]
    )
    assert dynamo.calls == Counter({"BatchGetItem": 1})
    assert found["Kinshuok"].status is Resolution.RESOLVED
    assert found["zoe"].status is Resolution.AMBIGUOUS
    assert {p.id for p in found["zoe"].candidates} == {"p-zoe-m", "p-zoe-p"}
    assert found["ZOË MÜLLER"].person is not None
    assert found["ZOË MÜLLER"].person.timezone == "Europe/Berlin"
    assert found["pri"].person is not None
    assert found["pri"].person.aliases == ("PR", "Pri")
    assert found["Nobody"].status is Resolution.UNKNOWN


def test_directory_names_are_every_name_people_answer_to_and_no_profile(dynamo: Counted) -> None:
    table = dynamo.names["DIRECTORY_TABLE_NAME"]
    people = sample_people()
    seed_people(dynamo.client, table, people)
    directory = DynamoDirectory(table, dynamo.client)

    names = directory.names()

    assert set(names) == set(name_index(people))
    assert "kinshuok" in names
    assert not any(n.startswith(("NAME#", "PERSON#")) for n in names)
    assert directory.names(limit=2) == tuple(sorted(names)[:2])


def test_directory_names_are_none_where_the_role_may_not_scan(dynamo: Counted) -> None:
    table = dynamo.names["DIRECTORY_TABLE_NAME"]
    seed_people(dynamo.client, table, sample_people())

    def refuse(**_: Any) -> None:
        raise ClientError({"Error": {"Code": "AccessDeniedException", "Message": "no"}}, "Scan")

    dynamo.client.meta.events.register("before-call.dynamodb.Scan", refuse)

    assert DynamoDirectory(table, dynamo.client).names() == ()


def test_directory_with_no_names_reads_nothing(dynamo: Counted) -> None:
    assert DynamoDirectory(dynamo.names["DIRECTORY_TABLE_NAME"], dynamo.client).resolve([]) == {}
    assert dynamo.calls["BatchGetItem"] == 0


def test_drafts_round_trip_through_the_item_layout() -> None:
    original = draft(1)
    item = _to_item(original)
    assert item["status"] == {"S": "proposed"}
    assert item["expiresAt"] == {"N": str(original.expires_at)}
    assert "edits" not in item
    assert _from_item(item) == original


def test_create_many_writes_all_new_drafts_in_one_transaction(dynamo: Counted) -> None:
    store = DynamoDraftStore(dynamo.names["DRAFTS_TABLE_NAME"], dynamo.client)
    written = store.create_many([draft(1), draft(2), draft(3)])
    assert dynamo.calls["TransactWriteItems"] == 1
    assert [d.payload["n"] for d in written] == [1, 2, 3]
    stored = store.get(written[1].id)
    assert stored is not None
    assert stored.status is DraftStatus.PROPOSED


def test_create_many_returns_stored_drafts_for_existing_ids(dynamo: Counted) -> None:
    store = DynamoDraftStore(dynamo.names["DRAFTS_TABLE_NAME"], dynamo.client)
    (first,) = store.create_many([draft(1)])
    later = draft(1).model_copy(update={"created_at": NOW + timedelta(minutes=5)})
    result = store.create_many([later, draft(2)])
    assert result[0] == first  # the stored one, not the retry
    assert store.get(result[1].id) is not None
    assert dynamo.client.scan(TableName=dynamo.names["DRAFTS_TABLE_NAME"], Select="COUNT")["Count"] == 2


def test_create_many_writes_a_repeated_draft_once(dynamo: Counted) -> None:
    store = DynamoDraftStore(dynamo.names["DRAFTS_TABLE_NAME"], dynamo.client)
    result = store.create_many([draft(1), draft(1)])
    assert result[0] == result[1]
    assert dynamo.calls["PutItem"] == 1


def test_calendar_busy_reads_every_attendee_and_day_at_once(dynamo: Counted) -> None:
    calendar = DynamoCalendar(dynamo.names["BOOKINGS_TABLE_NAME"], dynamo.client)
    start = datetime(2026, 12, 3, 23, 30, tzinfo=UTC)  # crosses midnight UTC
    booking = Booking(
        id="b-1",
        title="Late call",
        organizer="user-1",
        attendees=("Priya@Example.com", "kinshuok@example.com"),
        start=start,
        end=start + timedelta(hours=1),
    )
    calendar.book(booking)
    calendar.book(booking)  # a retried confirmation adds nothing
    dynamo.calls.clear()
    busy = calendar.busy(
        ["priya@example.com", "kinshuok@example.com", "zoe.park@example.com"],
        datetime(2026, 12, 4, tzinfo=UTC),
        datetime(2026, 12, 6, tzinfo=UTC),
    )
    assert dynamo.calls == Counter({"BatchGetItem": 1})
    assert [(i.start, i.end) for i in busy["priya@example.com"]] == [(start, start + timedelta(hours=1))]
    assert len(busy["kinshuok@example.com"]) == 1
    assert busy["zoe.park@example.com"] == []


def test_calendar_busy_ignores_bookings_outside_the_window(dynamo: Counted) -> None:
    calendar = DynamoCalendar(dynamo.names["BOOKINGS_TABLE_NAME"], dynamo.client)
    start = datetime(2026, 12, 3, 8, tzinfo=UTC)
    calendar.book(
        Booking(
            id="b-2",
            title="x",
            organizer="u",
            attendees=("a@example.com",),
            start=start,
            end=start + timedelta(hours=1),
        )
    )
    busy = calendar.busy(["a@example.com"], start + timedelta(hours=1), start + timedelta(hours=3))
    assert busy["a@example.com"] == []


# -- bookings: no double booking -------------------------------------------------------------

THURSDAY_9 = datetime(2026, 12, 3, 8, 0, tzinfo=UTC)


def meeting(booking_id: str, *attendees: str, start: datetime = THURSDAY_9, minutes: int = 30) -> Booking:
    return Booking(
        id=booking_id,
        title=f"Meeting {booking_id}",
        organizer="alex.mueller@example.com",
        attendees=attendees,
        start=start,
        end=start + timedelta(minutes=minutes),
    )


def held(calendar: DynamoCalendar, email: str) -> list[tuple[datetime, datetime]]:
    day = THURSDAY_9.replace(hour=0)
    return [(i.start, i.end) for i in calendar.busy([email], day, day + timedelta(days=2))[email]]


def test_calendar_refuses_a_booking_overlapping_another_for_a_shared_attendee(dynamo: Counted) -> None:
    calendar = DynamoCalendar(dynamo.names["BOOKINGS_TABLE_NAME"], dynamo.client)
    calendar.book(meeting("a", "priya@example.com", "alex.mueller@example.com"))

    with pytest.raises(SlotTaken) as taken:
        calendar.book(
            meeting(
                "b", "Priya@Example.com", "kinshuok@example.com", start=THURSDAY_9 + timedelta(minutes=15)
            )
        )

    assert taken.value.busy == {
        "Priya@Example.com": [Interval(start=THURSDAY_9, end=THURSDAY_9 + timedelta(minutes=30))]
    }
    assert held(calendar, "kinshuok@example.com") == []  # nothing of the refused booking was written
    assert "Item" not in dynamo.client.get_item(
        TableName=dynamo.names["BOOKINGS_TABLE_NAME"], Key={"pk": {"S": "BOOKING#b"}, "sk": {"S": "BOOKING"}}
    )


def test_calendar_books_back_to_back_times_and_other_peoples_times(dynamo: Counted) -> None:
    calendar = DynamoCalendar(dynamo.names["BOOKINGS_TABLE_NAME"], dynamo.client)
    calendar.book(meeting("a", "priya@example.com"))

    calendar.book(meeting("b", "priya@example.com", start=THURSDAY_9 + timedelta(minutes=30)))
    calendar.book(meeting("c", "kinshuok@example.com"))

    assert held(calendar, "priya@example.com") == [
        (THURSDAY_9, THURSDAY_9 + timedelta(minutes=30)),
        (THURSDAY_9 + timedelta(minutes=30), THURSDAY_9 + timedelta(minutes=60)),
    ]
    assert held(calendar, "kinshuok@example.com") == [(THURSDAY_9, THURSDAY_9 + timedelta(minutes=30))]


def test_calendar_books_an_id_once_and_moves_it_when_booked_again_elsewhere(dynamo: Counted) -> None:
    calendar = DynamoCalendar(dynamo.names["BOOKINGS_TABLE_NAME"], dynamo.client)
    calendar.book(meeting("a", "priya@example.com", "kinshuok@example.com"))
    calendar.book(meeting("a", "priya@example.com", "kinshuok@example.com"))  # a retried confirm: no-op

    later = THURSDAY_9 + timedelta(days=1)  # the next UTC day: other attendee-day items
    calendar.book(meeting("a", "priya@example.com", start=later))

    assert held(calendar, "priya@example.com") == [(later, later + timedelta(minutes=30))]
    assert held(calendar, "kinshuok@example.com") == []


def test_calendar_release_gives_the_time_back(dynamo: Counted) -> None:
    calendar = DynamoCalendar(dynamo.names["BOOKINGS_TABLE_NAME"], dynamo.client)
    calendar.book(meeting("a", "priya@example.com"))
    calendar.book(meeting("b", "priya@example.com", start=THURSDAY_9 + timedelta(hours=2)))

    calendar.release("a")
    calendar.release("a")  # nothing left to release: a no-op
    calendar.book(meeting("c", "priya@example.com"))

    assert held(calendar, "priya@example.com") == [
        (THURSDAY_9, THURSDAY_9 + timedelta(minutes=30)),
        (THURSDAY_9 + timedelta(hours=2), THURSDAY_9 + timedelta(hours=2, minutes=30)),
    ]


def test_of_two_interleaved_bookings_of_one_persons_time_exactly_one_holds_it(dynamo: Counted) -> None:
    # Given two confirms that both read Priya's Thursday as free before either writes
    table = dynamo.names["BOOKINGS_TABLE_NAME"]
    first = DynamoCalendar(table, dynamo.client)
    second_client = boto3.client("dynamodb", region_name="us-east-1")
    second = DynamoCalendar(table, second_client)
    interleaved: list[str] = []

    def book_second_first(**_: Any) -> None:
        if not interleaved:
            interleaved.append("b")
            second.book(meeting("b", "priya@example.com", "zoe.park@example.com"))

    dynamo.client.meta.events.register("before-call.dynamodb.TransactWriteItems", book_second_first)
    # When the first writes after the second committed
    with pytest.raises(SlotTaken) as taken:
        first.book(meeting("a", "priya@example.com", "kinshuok@example.com"))

    # Then its conditional write failed, it read again and was refused: one booking holds the time
    assert interleaved == ["b"]
    assert list(taken.value.busy) == ["priya@example.com"]
    assert held(first, "priya@example.com") == [(THURSDAY_9, THURSDAY_9 + timedelta(minutes=30))]
    assert held(first, "kinshuok@example.com") == []
    assert held(first, "zoe.park@example.com") == [(THURSDAY_9, THURSDAY_9 + timedelta(minutes=30))]


def test_a_busy_item_written_before_versions_still_counts(dynamo: Counted) -> None:
    table = dynamo.names["BOOKINGS_TABLE_NAME"]
    interval = {
        "bookingId": {"S": "old"},
        "start": {"S": THURSDAY_9.isoformat()},
        "end": {"S": (THURSDAY_9 + timedelta(minutes=30)).isoformat()},
    }
    dynamo.client.put_item(
        TableName=table,
        Item={
            "pk": {"S": "BUSY#priya@example.com"},
            "sk": {"S": "2026-12-03"},
            "intervals": {"L": [{"M": interval}]},
        },
    )
    calendar = DynamoCalendar(table, dynamo.client)

    with pytest.raises(SlotTaken):
        calendar.book(meeting("a", "priya@example.com"))
    calendar.book(meeting("b", "priya@example.com", start=THURSDAY_9 + timedelta(hours=1)))

    assert len(held(calendar, "priya@example.com")) == 2


def test_a_retried_booking_in_the_repeated_hour_is_still_a_no_op(dynamo: Counted) -> None:
    # 01:30 on 25 Oct 2026 happens twice in London; fold=1 is the second (01:30 UTC). Python never
    # finds such a time equal to one in another zone (PEP 495), so instants are compared in UTC.
    repeated = datetime(2026, 10, 25, 1, 30, fold=1, tzinfo=ZoneInfo("Europe/London"))
    calendar = DynamoCalendar(dynamo.names["BOOKINGS_TABLE_NAME"], dynamo.client)
    calendar.book(meeting("a", "priya@example.com", start=repeated))
    dynamo.calls.clear()

    calendar.book(meeting("a", "priya@example.com", start=repeated))  # the retried confirm

    assert "TransactWriteItems" not in dynamo.calls
    day = datetime(2026, 10, 25, tzinfo=UTC)
    assert [
        (i.start, i.end)
        for i in calendar.busy(["priya@example.com"], day, day + timedelta(days=1))["priya@example.com"]
    ] == [(datetime(2026, 10, 25, 1, 30, tzinfo=UTC), datetime(2026, 10, 25, 2, 0, tzinfo=UTC))]
