"""A repeating meeting's proposal: the slots a rule can start on, and each slot's first meetings
checked against everyone's calendar (:data:`multitool.ports.recurrence.CHECKED_OCCURRENCES` of
them, within :data:`CHECK_SPAN` of the first), with a note for each one someone is booked at.

The busy read the proposal already makes is widened to cover them (:func:`busy_horizon`): one
read per turn still, on every calendar (the built-in one expands its own series in that read;
Microsoft 365 and Google expand theirs in getSchedule and freebusy).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from multitool.ports.calendar import Interval, overlaps
from multitool.ports.recurrence import (
    CHECKED_OCCURRENCES,
    WEEKDAYS,
    Recurrence,
    first_occurrences,
    rrule_line,
    rule_words,
)
from multitool.tools.meeting.slots import Occurrence, SeriesCheck, Slot

CHECK_SPAN = timedelta(days=84)
"""How far past the first meeting a proposal checks (twelve weeks: a monthly series' first three)."""


def busy_horizon(window: tuple[datetime, datetime], rule: Recurrence | None) -> tuple[datetime, datetime]:
    """The proposal's busy window, widened to every meeting it checks of a series from any slot."""
    if rule is None:
        return window
    return window[0], window[1] + CHECK_SPAN + timedelta(days=1)


def on_rule_days(rule: Recurrence | None, slots: Sequence[Slot], zone: ZoneInfo) -> list[Slot]:
    """The slots a series can start on: for a weekly rule with days, those on one of them."""
    if rule is None or rule.frequency != "weekly" or not rule.weekdays:
        return list(slots)
    return [s for s in slots if WEEKDAYS[s.start.astimezone(zone).weekday()] in rule.weekdays]


def series_checks(
    rule: Recurrence,
    slots: Sequence[Slot],
    zone: ZoneInfo,
    people: Sequence[tuple[str, str]],
    busy: Mapping[str, Sequence[Interval]],
) -> list[SeriesCheck]:
    """Per slot: the series from it, its first meetings and who is booked at each.

    ``people``: (name, address) of everyone whose time counts, the organizer as ("you", address).
    """
    checks = []
    for slot in slots:
        meetings = [
            (start, end)
            for start, end in first_occurrences(rule, slot.start, slot.end, zone, CHECKED_OCCURRENCES)
            if start - slot.start <= CHECK_SPAN
        ]
        occurrences = tuple(
            Occurrence(
                start=start,
                end=end,
                busy=tuple(
                    name
                    for name, email in people
                    if any(overlaps(i, start, end) for i in busy.get(email, ()))
                ),
            )
            for start, end in meetings
        )
        checks.append(
            SeriesCheck(
                words=rule_words(rule, slot.start, slot.end, zone),
                rule=rrule_line(rule, slot.start, zone),
                occurrences=occurrences,
            )
        )
    return checks


def series_notes(check: SeriesCheck, zone: ZoneInfo) -> list[str]:
    """What the card says of a series: the rule, how many meetings were checked, and each one
    someone is booked at ('Mon 28 Dec 11:00: Priya Patel is booked then')."""
    count = len(check.occurrences)
    notes = [f"Repeats: {check.words}. Its first {count} meetings were checked against everyone's calendar."]
    for meeting in check.occurrences[1:]:
        if meeting.busy:
            who = " and ".join(meeting.busy)
            verb = "are" if len(meeting.busy) > 1 or meeting.busy == ("you",) else "is"
            notes.append(f"{meeting.start.astimezone(zone):%a %d %b %H:%M}: {who} {verb} booked then.")
    return notes
