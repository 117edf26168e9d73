"""Slots within every attendee's working hours, each in their own zone; the compromise when none overlap."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.people import Person
from multitool.ports.calendar import Booking, Interval
from multitool.toolkit.context import ToolConfig, ToolContext
from multitool.tools import CallOutcome, ToolPorts, run_calls
from multitool.tools.meeting.scheduling import (
    Attendee,
    WorkingHours,
    day_label,
    slot_proposal,
)
from multitool.tools.meeting.slots import Slot
from multitool.tools.meeting.when import RequestedTime

from tests.support.bedrock_events import sample_people


def propose_slots(
    requested: RequestedTime,
    duration: timedelta,
    busy: Sequence[Interval],
    ctx: ToolContext,
    config: ToolConfig,
    attendees: Sequence[Attendee] = (),
) -> list[Slot]:
    """The slots of :func:`slot_proposal` alone."""
    return list(slot_proposal(requested, duration, busy, ctx, config, attendees).slots)


NEW_YORK = ZoneInfo("America/New_York")
BERLIN = ZoneInfo("Europe/Berlin")
TOKYO = ZoneInfo("Asia/Tokyo")
KOLKATA = ZoneInfo("Asia/Kolkata")
LONDON = ZoneInfo("Europe/London")
LOS_ANGELES = ZoneInfo("America/Los_Angeles")
# Tuesday 1 December 2026, 09:00 UTC (04:00 in New York, 10:00 in Berlin).
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
THURSDAY = RequestedTime(date(2026, 12, 3))
HALF_HOUR = timedelta(minutes=30)
CONFIG = ToolConfig()
# Long days: 08:00-20:00 in New York and in Kolkata overlap from 08:00 to 09:30 New York time.
LONG_DAYS = ToolConfig(working_hours_start=8, working_hours_end=20)

KENJI = Person(id="p-ken", display_name="Kenji Sato", email="kenji@example.com", timezone="Asia/Tokyo")
ANNA = Person(id="p-ann", display_name="Anna Berg", email="anna@example.com", timezone="Europe/Berlin")
MARS = Person(id="p-mars", display_name="Mark Ares", email="mark@example.com", timezone="Mars/Olympus")
COMPROMISE_NOTE = (
    "No free time between Thu 3 Dec and Wed 9 Dec is within everyone's working hours: "
    "each slot says whose hours it is outside."
)
KOLKATA_NOTE = COMPROMISE_NOTE


def ctx(zone: ZoneInfo = NEW_YORK, now: datetime = NOW) -> ToolContext:
    return ToolContext(owner="user-1", session_id="s-1", now=now, timezone=zone.key)


def at(zone: ZoneInfo, day: date, hour: int, minute: int = 0) -> datetime:
    return datetime.combine(day, time(hour, minute), tzinfo=zone)


def local_starts(slots: Any, zone: ZoneInfo) -> list[str]:
    """'2026-12-03 08:00' per slot, in ``zone``."""
    return [s.start.astimezone(zone).strftime("%Y-%m-%d %H:%M") for s in slots]


READING = re.compile(
    r"^'[^']*' read as |^No time was asked for|^No length was asked for|^The [a-z ]+ reaches outside"
)


def hours_notes(payload: dict[str, Any]) -> list[str]:
    """The notes about names and working hours; how 'when' was read is tested in test_when_*.py."""
    return [note for note in payload["notes"] if not READING.match(note)]


def ports(people: list[Person], bookings: Sequence[Booking] = ()) -> ToolPorts:
    return ToolPorts(MemoryDirectory(people), MemoryCalendar(bookings), MemoryDraftStore())


def propose(
    tool_ports: ToolPorts, attendees: list[str], when: str = "Thursday", **kwargs: Any
) -> CallOutcome:
    config = kwargs.pop("config", CONFIG)
    user = kwargs.pop("ctx", ctx())
    arguments = {"attendees": attendees, "title": "Sync", "when": when, **kwargs}
    (outcome,) = run_calls([("propose_meeting", arguments)], user, tool_ports, config)
    assert outcome.ok, outcome.body
    return outcome


def test_new_york_and_kolkata_meet_early_in_the_new_york_morning() -> None:
    # Given a New York user, Kinshuok in Kolkata, and 08:00-20:00 working days
    tool_ports = ports(sample_people())
    # When they ask for Thursday
    payload = propose(tool_ports, ["Kinshuok"], ctx=ctx(NEW_YORK), config=LONG_DAYS).body
    # Then the slots are early in New York, late in Kolkata, within both working days
    starts = [s["start"] for s in payload["slots"]]
    assert starts == ["2026-12-03T08:00:00-05:00", "2026-12-03T08:30:00-05:00", "2026-12-03T09:00:00-05:00"]
    in_kolkata = [datetime.fromisoformat(s).astimezone(KOLKATA).strftime("%H:%M") for s in starts]
    assert in_kolkata == ["18:30", "19:00", "19:30"]
    assert hours_notes(payload) == []
    # and the zones came from the one directory read, with one busy read
    assert tool_ports.directory.reads == 1  # type: ignore[attr-defined]
    assert tool_ports.calendar.reads == 1  # type: ignore[attr-defined]


def test_new_york_and_tokyo_never_overlap_so_the_least_bad_times_come_with_a_note() -> None:
    # Given New York 09:00-17:00 (14:00-22:00 UTC) and Tokyo 09:00-17:00 (00:00-08:00 UTC)
    payload = propose(ports([KENJI]), ["Kenji"], ctx=ctx(NEW_YORK)).body
    # Then the slots are the end of the New York day, nearest to Kenji's Friday morning, best first
    assert local_starts_of(payload, NEW_YORK) == ["2026-12-03 16:30", "2026-12-03 16:00", "2026-12-03 15:30"]
    assert local_starts_of(payload, TOKYO) == ["2026-12-04 06:30", "2026-12-04 06:00", "2026-12-04 05:30"]
    assert hours_notes(payload) == [COMPROMISE_NOTE]
    # and each slot says it, with Kenji's own day (Friday in Tokyo)
    assert payload["slotNotes"] == [
        [f"Kenji Sato: Fri {hour} (Asia/Tokyo), outside their working hours."]
        for hour in ("06:30", "06:00", "05:30")
    ]


def local_starts_of(payload: dict[str, Any], zone: ZoneInfo) -> list[str]:
    return [
        datetime.fromisoformat(s["start"]).astimezone(zone).strftime("%Y-%m-%d %H:%M")
        for s in payload["slots"]
    ]


def test_a_compromise_keeps_as_many_attendees_as_possible_within_their_hours() -> None:
    # Given a Berlin user with Priya in London and Kenji in Tokyo: no time suits all three,
    # and 09:00 Berlin is only 30 minutes past Kenji's day but an hour before Priya's
    payload = propose(ports([*sample_people(), KENJI]), ["Priya", "Kenji"], ctx=ctx(BERLIN)).body
    # Then the slots keep Priya within her hours (one person outside beats two), earliest first
    assert local_starts_of(payload, BERLIN) == ["2026-12-03 10:00", "2026-12-03 10:30", "2026-12-03 11:00"]
    assert hours_notes(payload) == [COMPROMISE_NOTE]


def test_new_york_and_kolkata_in_standard_hours_get_the_new_york_morning_and_a_note() -> None:
    payload = propose(ports(sample_people()), ["Kinshuok"], ctx=ctx(NEW_YORK)).body
    # 09:00 New York is 19:30 in Kolkata: the nearest to Kinshuok's working day
    assert local_starts_of(payload, NEW_YORK) == ["2026-12-03 09:00", "2026-12-03 09:30", "2026-12-03 10:00"]
    assert hours_notes(payload) == [KOLKATA_NOTE]


def test_an_overlap_on_a_later_day_beats_a_compromise_on_the_requested_day() -> None:
    # Given a Los Angeles user and Kenji in Tokyo: 16:00-17:00 in Los Angeles is 09:00-10:00
    # next morning in Tokyo, so on a Friday it is Kenji's Saturday
    payload = propose(ports([KENJI]), ["Kenji"], when="Friday", ctx=ctx(LOS_ANGELES)).body
    # Then Friday is skipped for Monday and Tuesday afternoons, within both working days
    assert local_starts_of(payload, LOS_ANGELES) == [
        "2026-12-07 16:00",
        "2026-12-07 16:30",
        "2026-12-08 16:00",
    ]
    assert local_starts_of(payload, TOKYO) == ["2026-12-08 09:00", "2026-12-08 09:30", "2026-12-09 09:00"]
    # And the card says why the day asked for is not offered
    assert hours_notes(payload) == [
        "Nothing on Fri 4 Dec is free within everyone's working hours; these are the next free times."
    ]


def test_attendees_in_the_users_zone_change_nothing() -> None:
    alone = propose_slots(THURSDAY, HALF_HOUR, [], ctx(BERLIN), CONFIG)
    together = propose_slots(
        THURSDAY, HALF_HOUR, [], ctx(BERLIN), CONFIG, [Attendee("Anna Berg", BERLIN), Attendee("Zoë", BERLIN)]
    )
    assert together == alone
    assert local_starts(together, BERLIN) == ["2026-12-03 09:00", "2026-12-03 09:30", "2026-12-03 10:00"]
    payload = propose(ports([ANNA, *sample_people()]), ["Anna", "Zoë Müller"], ctx=ctx(BERLIN)).body
    assert local_starts_of(payload, BERLIN) == ["2026-12-03 09:00", "2026-12-03 09:30", "2026-12-03 10:00"]
    assert hours_notes(payload) == []


def test_busy_times_are_still_avoided_within_everyones_hours() -> None:
    # Given Kinshuok busy 08:00-08:30 New York time on Thursday and the user busy 09:00-09:30 on Friday
    thursday_8 = at(NEW_YORK, date(2026, 12, 3), 8)
    bookings = [
        Booking(
            id="b-1",
            title="Busy",
            organizer="x",
            attendees=("kinshuok@example.com",),
            start=thursday_8,
            end=thursday_8 + HALF_HOUR,
        ),
    ]
    payload = propose(
        ports(sample_people(), bookings), ["Kinshuok"], ctx=ctx(NEW_YORK), config=LONG_DAYS
    ).body
    # Then the free times within both working days come next, Friday's early morning included
    assert local_starts_of(payload, NEW_YORK) == ["2026-12-03 08:30", "2026-12-03 09:00", "2026-12-04 08:00"]
    assert hours_notes(payload) == []


def test_busy_times_are_avoided_in_a_compromise_too() -> None:
    busy = [Interval(start=at(NEW_YORK, date(2026, 12, 3), 16), end=at(NEW_YORK, date(2026, 12, 3), 17))]
    proposal = slot_proposal(
        THURSDAY, HALF_HOUR, busy, ctx(NEW_YORK), CONFIG, [Attendee("Kenji Sato", TOKYO)]
    )
    assert proposal.compromise
    assert local_starts(proposal.slots, NEW_YORK) == [
        "2026-12-03 15:30",
        "2026-12-03 15:00",
        "2026-12-03 14:30",
    ]
    assert proposal.outside_hours == ((Attendee("Kenji Sato", TOKYO),),) * 3


def test_working_hours_follow_each_zone_across_daylight_saving_changes() -> None:
    # New York moves to summer time on Sunday 8 March 2026, Berlin on Sunday 29 March:
    # for three weeks New York is 5 hours behind Berlin instead of 6.
    now = datetime(2026, 3, 5, 8, 0, tzinfo=UTC)
    user, guest = ctx(BERLIN, now), [Attendee("Zoe Park", NEW_YORK)]

    def first_start(day: date) -> str:
        slots = propose_slots(RequestedTime(day), HALF_HOUR, [], user, CONFIG, guest)
        return local_starts(slots, BERLIN)[0]

    assert first_start(date(2026, 3, 6)) == "2026-03-06 15:00"  # 09:00 EST is 15:00 CET
    assert first_start(date(2026, 3, 9)) == "2026-03-09 14:00"  # 09:00 EDT is 14:00 CET
    assert first_start(date(2026, 3, 27)) == "2026-03-27 14:00"
    assert first_start(date(2026, 3, 30)) == "2026-03-30 15:00"  # 09:00 EDT is 15:00 CEST
    # One search across the change: Friday fully booked, so Monday, an hour earlier in Berlin
    friday = date(2026, 3, 6)
    full_friday = [Interval(start=at(BERLIN, friday, 0), end=at(BERLIN, friday, 23))]
    slots = propose_slots(RequestedTime(friday), HALF_HOUR, full_friday, user, CONFIG, guest)
    assert local_starts(slots, BERLIN) == ["2026-03-09 14:00", "2026-03-09 14:30", "2026-03-09 15:00"]
    assert local_starts(slots, NEW_YORK) == ["2026-03-09 09:00", "2026-03-09 09:30", "2026-03-09 10:00"]


def test_a_named_time_stays_first_even_outside_an_attendees_hours() -> None:
    # Given a New York user asking for 15:00 on Thursday with Kinshuok (01:30 in Kolkata)
    payload = propose(ports(sample_people()), ["Kinshuok"], when="2026-12-03T15:00", ctx=ctx(NEW_YORK)).body
    # Then 15:00 is the first slot, as before, and a note says whose hours it is outside
    assert payload["slots"][0] == {"start": "2026-12-03T15:00:00-05:00", "end": "2026-12-03T15:30:00-05:00"}
    assert payload["slotNotes"][0] == [
        "Kinshuok Dutta: Fri 01:30 (Asia/Kolkata), outside their working hours."
    ]
    assert len(payload["slots"]) == 3


def test_a_named_time_within_everyones_hours_is_unchanged_and_has_no_note() -> None:
    asked = RequestedTime(date(2026, 12, 2), time(15, 0))
    alone = propose_slots(asked, HALF_HOUR, [], ctx(BERLIN), CONFIG)
    with_priya = slot_proposal(asked, HALF_HOUR, [], ctx(BERLIN), CONFIG, [Attendee("Priya Raman", LONDON)])
    assert list(with_priya.slots) == alone
    assert local_starts(alone, BERLIN) == ["2026-12-02 15:00", "2026-12-02 15:30", "2026-12-02 16:00"]
    assert with_priya.asked_first
    assert not with_priya.compromise
    assert with_priya.outside_hours == ((), (), ())


def test_unresolved_names_and_bare_addresses_do_not_constrain_hours() -> None:
    # "Zoe" is two people, "Nobody" is unknown, the address is outside the directory
    payload = propose(ports(sample_people()), ["Zoe", "Nobody", "guest@elsewhere.org"], ctx=ctx(BERLIN)).body
    assert local_starts_of(payload, BERLIN) == ["2026-12-03 09:00", "2026-12-03 09:30", "2026-12-03 10:00"]
    assert not any("working hours" in note for note in hours_notes(payload))


def test_the_same_person_named_twice_counts_once() -> None:
    payload = propose(ports(sample_people()), ["Kinshuok", "kinshuok@example.com"], ctx=ctx(NEW_YORK)).body
    assert hours_notes(payload) == [KOLKATA_NOTE]


def test_a_zone_the_directory_got_wrong_is_noted_and_does_not_constrain_hours() -> None:
    payload = propose(ports([MARS]), ["Mark"], ctx=ctx(BERLIN)).body
    assert local_starts_of(payload, BERLIN) == ["2026-12-03 09:00", "2026-12-03 09:30", "2026-12-03 10:00"]
    assert hours_notes(payload) == [
        "Mark Ares's time zone in the directory is not an IANA time zone, "
        "so their working hours were not considered."
    ]


def test_working_hours_measure_how_far_a_slot_reaches_outside_them() -> None:
    thursday = date(2026, 12, 3)
    hours = WorkingHours(TOKYO, at(TOKYO, thursday, 0), at(TOKYO, thursday, 23), CONFIG)
    assert hours.time_outside(at(TOKYO, thursday, 9), at(TOKYO, thursday, 17)) == timedelta(0)
    assert hours.time_outside(at(TOKYO, thursday, 16, 30), at(TOKYO, thursday, 17, 30)) == HALF_HOUR
    assert hours.time_outside(at(TOKYO, thursday, 7), at(TOKYO, thursday, 7, 30)) == timedelta(hours=2)
    # Saturday morning is nearest to Friday's close, 14 hours back
    saturday = date(2026, 12, 5)
    assert hours.time_outside(at(TOKYO, saturday, 6, 30), at(TOKYO, saturday, 7)) == timedelta(hours=14)


def test_day_labels_are_short_and_locale_free() -> None:
    assert day_label(date(2026, 12, 3)) == "Thu 3 Dec"
    assert day_label(date(2026, 3, 30)) == "Mon 30 Mar"


ZONES = st.sampled_from([NEW_YORK, BERLIN, TOKYO, KOLKATA, LONDON, LOS_ANGELES, ZoneInfo("Australia/Sydney")])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    user_zone=ZONES,
    guest_zones=st.lists(ZONES, max_size=4),
    busy_hours=st.lists(st.tuples(st.integers(0, 7 * 24), st.integers(1, 6)), max_size=6),
    minutes=st.sampled_from([15, 30, 45, 60, 90]),
)
def test_every_proposal_is_free_distinct_within_the_users_hours_and_honest_about_others(
    user_zone: ZoneInfo, guest_zones: list[ZoneInfo], busy_hours: list[tuple[int, int]], minutes: int
) -> None:

    user = ctx(user_zone)
    guests = [Attendee(f"Guest {i}", zone) for i, zone in enumerate(guest_zones)]
    origin = datetime(2026, 12, 3, tzinfo=UTC)
    busy = [
        Interval(start=origin + timedelta(hours=h), end=origin + timedelta(hours=h + length))
        for h, length in busy_hours
    ]
    duration = timedelta(minutes=minutes)
    proposal = slot_proposal(THURSDAY, duration, busy, user, CONFIG, guests)

    assert 1 <= len(proposal.slots) <= CONFIG.max_slots
    for slot, outside in zip(proposal.slots, proposal.outside_hours, strict=True):
        day = slot.start.astimezone(user_zone).date()
        assert day.weekday() < 5
        assert at(user_zone, day, CONFIG.working_hours_start) <= slot.start
        assert slot.end <= at(user_zone, day, CONFIG.working_hours_end)
        assert not any(b.start < slot.end and slot.start < b.end for b in busy)
        for guest in guests:
            guest_start, guest_end = slot.start.astimezone(guest.zone), slot.end.astimezone(guest.zone)
            within = (
                guest_start.weekday() < 5
                and guest_start.date() == guest_end.date()
                and time(CONFIG.working_hours_start) <= guest_start.time()
                and guest_end.time() <= time(CONFIG.working_hours_end)
            )
            assert within == (guest not in outside)
        if not proposal.compromise:
            assert outside == ()
    ordered = sorted(proposal.slots, key=lambda s: s.start)
    assert all(a.end <= b.start for a, b in pairwise(ordered))
