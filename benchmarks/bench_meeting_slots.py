"""Slot search cost: proposals within every attendee's working hours, or the compromise.

Times :func:`multitool.tools.meeting.scheduling.slot_proposal` alone (no ports):
a New York user with 1, 5 and 20 attendees spread over time zones, with and
without busy times, in the three shapes the search takes: everyone's hours
overlap on the first day, the overlap is only found days later (the first days
are booked), and no overlap at all (the compromise scores every candidate of
the five working days). The baseline is the same search with no attendee
hours (the user's zone only, as before). Median CPU time of several rounds.
Target: under 2 ms per proposal for 20 attendees.

Run with ``python -m benchmarks meeting_slots`` or through ``make bench``.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from multitool.ports.calendar import Interval
from multitool.toolkit.context import ToolConfig, ToolContext
from multitool.tools.meeting.scheduling import Attendee, SlotProposal, slot_proposal
from multitool.tools.meeting.when import RequestedTime

TARGET_MS = 2.0
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
THURSDAY = RequestedTime(date(2026, 12, 3))
DURATION = timedelta(minutes=30)
USER = ToolContext(owner="bench", session_id="bench", now=NOW, timezone="America/New_York")
LONG_DAYS = ToolConfig(working_hours_start=8, working_hours_end=20)
OVERLAPPING = ("America/Chicago", "Europe/London", "Europe/Berlin", "America/Sao_Paulo", "America/Toronto")
APART = ("Asia/Tokyo", "Australia/Sydney", "Asia/Singapore", "Asia/Seoul", "Pacific/Auckland")


def _attendees(zones: Sequence[str], count: int) -> list[Attendee]:
    return [Attendee(f"Person {i}", ZoneInfo(zones[i % len(zones)])) for i in range(count)]


def _busy(count: int, days: int) -> list[Interval]:
    """Every attendee booked through the first ``days`` days of the search, plus an hour a day."""
    start = datetime(2026, 12, 3, tzinfo=UTC)
    intervals = [Interval(start=start, end=start + timedelta(days=days))] if days else []
    for person in range(count):
        for day in range(7):
            at = start + timedelta(days=day, hours=13 + person % 5)
            intervals.append(Interval(start=at, end=at + timedelta(hours=1)))
    return intervals


def _median_ms(run_once: Callable[[], object], rounds: int = 15, repeat: int = 20) -> float:
    samples: list[float] = []
    gc.disable()
    try:
        for _ in range(rounds):
            started = time.process_time()
            for _ in range(repeat):
                run_once()
            samples.append((time.process_time() - started) / repeat * 1000)
    finally:
        gc.enable()
    return statistics.median(samples)


def _case(config: ToolConfig, attendees: list[Attendee], busy: list[Interval]) -> tuple[float, SlotProposal]:
    result = slot_proposal(THURSDAY, DURATION, busy, USER, config, attendees)
    return _median_ms(lambda: slot_proposal(THURSDAY, DURATION, busy, USER, config, attendees)), result


def run() -> None:
    header = f"{'case':<34} {'people':>6} {'busy':>5} {'baseline':>9} {'proposal':>9} {'shape':<11}"
    print(f"{header} first slot (New York)")
    shapes = (
        ("overlap on the first day", LONG_DAYS, OVERLAPPING, 0),
        ("overlap after 3 booked days", LONG_DAYS, OVERLAPPING, 3),
        ("no overlap: compromise", ToolConfig(), APART, 0),
    )
    worst = 0.0
    for label, config, zones, booked_days in shapes:
        for count in (1, 5, 20):
            attendees = _attendees(zones, count)
            busy = _busy(count, booked_days)
            baseline, _ = _case(config, [], busy)
            elapsed, proposal = _case(config, attendees, busy)
            worst = max(worst, elapsed)
            first = proposal.slots[0].start.astimezone(ZoneInfo(USER.timezone)) if proposal.slots else None
            shape = "compromise" if proposal.compromise else "everyone"
            when = f"{first:%a %d %H:%M}" if first else "-"
            print(
                f"{label:<34} {count:>6} {len(busy):>5} {baseline:>7.2f}ms {elapsed:>7.2f}ms",
                f"{shape:<11} {when}",
            )
    verdict = "within" if worst <= TARGET_MS else "OVER"
    print(f"slowest proposal {worst:.2f} ms: {verdict} the {TARGET_MS:.0f} ms target")


if __name__ == "__main__":
    run()
