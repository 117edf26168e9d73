"""Slot finding: up to three free slots for a meeting, within everyone's working hours if it can.

Slots start on a 30-minute grid within the requesting user's working hours
(``ToolConfig.working_hours_start/end``, Monday to Friday, in the user's time
zone) and avoid every resolved attendee's busy intervals. Each attendee found
in the directory keeps the same working hours in their own zone
(``Person.timezone``, from the batch's one directory read):

- When some free time in the search lies within everyone's working hours,
  only such times are proposed, earliest first: from the requested day (from
  now, if that is today), then the following working days.
- When none does, the slots are the best compromise of each day, from the
  requested day on: fewest attendees outside their working hours, then the
  least time outside them (summed over those attendees), then the earliest.
  A note names who is outside their hours.

Ambiguous and unknown names, bare addresses and people whose directory knows
no zone (Microsoft 365's and Google's; their calendar's busy times still count,
and Microsoft 365's working hours in their own zone) do not constrain the
hours: their zone is not known. A time the user named ("tomorrow at 3pm") is the
first slot when it is free, even outside anyone's working hours, since the
user asked for it; a note names whose hours it falls outside. A part of the
day ("Friday morning") narrows every searched day to its hours
(:data:`multitool.tools.meeting.when.PARTS_OF_DAY`), and every guess (the day a weekday
means, an hour read as the afternoon, working hours or a 30-minute length
assumed) is said in ``notes``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from itertools import chain
from zoneinfo import ZoneInfo

import msgspec

from multitool.people import NameResolution, Person
from multitool.ports.calendar import Interval, overlaps
from multitool.toolkit.common import is_external
from multitool.toolkit.context import ToolConfig, ToolContext
from multitool.tools.meeting.slots import Slot, SlotCheck
from multitool.tools.meeting.when import RequestedTime, TimeRequest, as_request
from multitool.zones import iana_zone

WORKING_DAYS = frozenset(range(5))  # Monday..Friday


def search_days(first: date, config: ToolConfig) -> list[date]:
    """The requested day if it is a working day, then working days after it."""
    days: list[date] = []
    day = first
    while len(days) < config.search_working_days:
        if day.weekday() in WORKING_DAYS:
            days.append(day)
        day += timedelta(days=1)
    return days


class Frame(msgspec.Struct, frozen=True):
    """One searched day: its local hours (working hours, or the window asked for) in one zone."""

    day: date
    zone: ZoneInfo
    window: tuple[time, time] | None = None
    asked: bool = True
    """A day the request named (not one searched after it)."""


def search_frames(request: RequestedTime | TimeRequest, ctx: ToolContext, config: ToolConfig) -> list[Frame]:
    """The days searched: every working day the request names, then the working days after them.

    A request of exact times only searches from the first one's day on (the free times after it).
    Days in ``request.excluded`` are never searched.
    """
    request = as_request(request)
    frames: list[Frame] = []
    ranged = [o for o in request.options if o.time is None]
    for option in ranged:
        zone = option.zone_of(ctx)
        for day in option.days:
            if day.weekday() in WORKING_DAYS and day not in request.excluded:
                frames.append(Frame(day, zone, option.window))
    first = request.first
    zone = first.zone_of(ctx)
    after = max((o.last_day or o.day for o in ranged), default=first.day - timedelta(days=1))
    day = after + timedelta(days=1) if ranged else first.day
    window = first.window if len(request.options) == 1 else None
    while len(frames) < config.search_working_days:
        if day.weekday() in WORKING_DAYS and day not in request.excluded:
            frames.append(Frame(day, zone, window, asked=not ranged and day == first.day))
        day += timedelta(days=1)
    return frames


def search_window(
    requested: RequestedTime | TimeRequest, ctx: ToolContext, config: ToolConfig
) -> tuple[datetime, datetime]:
    """[start, end) covering every candidate slot: whole local days, UTC."""
    request = as_request(requested)
    frames = search_frames(request, ctx, config)
    starts = [datetime.combine(f.day, datetime.min.time(), tzinfo=f.zone) for f in frames]
    ends = [datetime.combine(f.day + timedelta(days=1), datetime.min.time(), tzinfo=f.zone) for f in frames]
    for option in request.options:
        zone = option.zone_of(ctx)
        starts.append(datetime.combine(option.day, datetime.min.time(), tzinfo=zone))
        ends.append(datetime.combine(option.day + timedelta(days=1), datetime.min.time(), tzinfo=zone))
    return min(starts).astimezone(UTC), max(ends).astimezone(UTC)


class _BusyTimes:
    """Busy intervals merged and sorted in UTC, so each free check is one bisect."""

    __slots__ = ("_ends", "_starts")

    def __init__(self, intervals: Iterable[Interval]) -> None:
        merged: list[list[datetime]] = []
        for start, end in sorted((i.start.astimezone(UTC), i.end.astimezone(UTC)) for i in intervals):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self._starts = [m[0] for m in merged]
        self._ends = [m[1] for m in merged]

    def free(self, start: datetime, end: datetime) -> bool:
        """True when no interval overlaps [start, end)."""
        before = bisect_left(self._starts, end)  # merged intervals starting before ``end``
        return before == 0 or self._ends[before - 1] <= start


def _free(start: datetime, end: datetime, busy: Sequence[Interval]) -> bool:
    return not any(overlaps(interval, start, end) for interval in busy)


def _round_up(moment: datetime, step: timedelta) -> datetime:
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    offset = (moment - epoch) % step
    return moment if not offset else moment + (step - offset)


class Attendee(msgspec.Struct, frozen=True):
    """A resolved attendee whose working hours count, in their own zone."""

    name: str
    zone: ZoneInfo


class SlotProposal(msgspec.Struct, frozen=True):
    """The proposed slots, best first, and whose working hours each one falls outside."""

    slots: tuple[Slot, ...]
    outside_hours: tuple[tuple[Attendee, ...], ...]
    """Per slot, in attendee order: the attendees for whom it is outside working hours."""
    compromise: bool
    """No free time in the search was within everyone's working hours."""
    asked_first: bool
    """The first slot is the time the user named."""
    asked: int = 0
    """How many of the first slots are times the user named, in the order named."""
    frames: tuple[Frame, ...] = ()
    """The days searched, in order."""
    taken: tuple[datetime, ...] = ()
    """Times the user named that were not free (or already past), as named."""


_ZERO = timedelta(0)


def local_hours(day: date, zone: ZoneInfo, config: ToolConfig) -> tuple[datetime, datetime]:
    """Working hours of ``day`` in ``zone`` (local wall clock), as UTC instants."""
    midnight = datetime.combine(day, datetime.min.time(), tzinfo=zone)
    # Aware + timedelta is wall-clock arithmetic: 9:00 stays 9:00 local on DST days.
    opens = midnight + timedelta(hours=config.working_hours_start)
    closes = midnight + timedelta(hours=config.working_hours_end)
    return opens.astimezone(UTC), closes.astimezone(UTC)


class WorkingHours:
    """One zone's working hours, Monday to Friday, as sorted UTC windows around a search."""

    __slots__ = ("_closes", "_opens")

    def __init__(self, zone: ZoneInfo, start: datetime, end: datetime, config: ToolConfig) -> None:
        # Two local days either side, so a weekend slot still finds its nearest working day.
        day = start.astimezone(zone).date() - timedelta(days=2)
        last = end.astimezone(zone).date() + timedelta(days=2)
        self._opens: list[datetime] = []
        self._closes: list[datetime] = []
        while day <= last:
            if day.weekday() in WORKING_DAYS:
                opens, closes = local_hours(day, zone, config)
                self._opens.append(opens)
                self._closes.append(closes)
            day += timedelta(days=1)

    def time_outside(self, start: datetime, end: datetime) -> timedelta:
        """How far [start, end) reaches beyond the nearest working window; zero when inside one."""
        after = bisect_right(self._opens, start)
        nearest = [
            max(self._opens[i] - start, _ZERO) + max(end - self._closes[i], _ZERO)
            for i in (after - 1, after)
            if 0 <= i < len(self._opens)
        ]
        return min(nearest, default=_ZERO)


class _Candidate(msgspec.Struct, frozen=True):
    """A start time under consideration, with what it costs the attendees (lower ranks first)."""

    start: datetime  # UTC
    people_outside: int
    time_outside: timedelta
    zones_outside: frozenset[int]

    @property
    def rank(self) -> tuple[int, timedelta, datetime]:
        return self.people_outside, self.time_outside, self.start


class _EveryonesHours:
    """The attendees' working hours over one search, computed once per distinct zone."""

    def __init__(
        self, attendees: Sequence[Attendee], window: tuple[datetime, datetime], config: ToolConfig
    ) -> None:
        self._attendees = tuple(attendees)
        zones: dict[str, ZoneInfo] = {}
        self._zone_index: list[int] = []
        for attendee in self._attendees:
            zones.setdefault(attendee.zone.key, attendee.zone)
            self._zone_index.append(list(zones).index(attendee.zone.key))
        self._hours = [WorkingHours(zone, *window, config) for zone in zones.values()]
        self._people = [self._zone_index.count(i) for i in range(len(zones))]

    def candidate(self, start: datetime, duration: timedelta) -> _Candidate:
        end = start + duration
        people = 0
        total = _ZERO
        outside: set[int] = set()
        for index, hours in enumerate(self._hours):
            beyond = hours.time_outside(start, end)
            if beyond:
                outside.add(index)
                people += self._people[index]
                total += beyond * self._people[index]
        return _Candidate(start, people, total, frozenset(outside))

    def outside(self, candidate: _Candidate) -> tuple[Attendee, ...]:
        return tuple(
            attendee
            for attendee, zone in zip(self._attendees, self._zone_index, strict=True)
            if zone in candidate.zones_outside
        )


def slot_proposal(
    requested: RequestedTime | TimeRequest,
    duration: timedelta,
    busy: Sequence[Interval],
    ctx: ToolContext,
    config: ToolConfig,
    attendees: Sequence[Attendee] = (),
) -> SlotProposal:
    """Up to ``config.max_slots`` free, distinct slots within the user's working hours, best first.

    The times the user named come first, in their order, when free. Then, within every
    attendee's working hours too (each in their own zone) when any free time of the search
    allows it, earliest first; otherwise each day's best compromise (fewest people outside
    their hours, then least time outside them, then earliest), from the requested day on.
    """
    request = as_request(requested)
    step = timedelta(minutes=config.slot_step_minutes)
    now = ctx.now.astimezone(UTC)
    frames = search_frames(request, ctx, config)
    hours = _EveryonesHours(attendees, search_window(request, ctx, config), config)
    blocked = _BusyTimes(busy)
    chosen: list[_Candidate] = []
    taken: list[Interval] = []
    refused: list[datetime] = []
    named: list[datetime] = []
    not_before = now
    for option in request.options:
        asked = option.start(ctx)
        if asked is None or len(chosen) >= config.max_slots:
            continue
        asked_utc = asked.astimezone(UTC)
        if (
            asked_utc >= now - timedelta(minutes=1)
            and blocked.free(asked_utc, asked_utc + duration)
            and _free(asked_utc, asked_utc + duration, taken)
        ):
            chosen.append(hours.candidate(asked_utc, duration))
            taken.append(Interval(start=asked_utc, end=asked_utc + duration))
            named.append(asked)
        else:
            refused.append(asked)
    first_asked = request.first.start(ctx)
    if first_asked is not None:
        first_utc = first_asked.astimezone(UTC)
        not_before = max(now, first_utc + duration) if named[:1] == [first_asked] else max(now, first_utc)

    def free_candidates(frame: Frame) -> list[_Candidate]:
        opens, closes = local_hours(frame.day, frame.zone, config)
        if frame.window is not None:  # a part of the day the user named: those hours, every day
            opens, closes = (
                datetime.combine(frame.day, moment, tzinfo=frame.zone).astimezone(UTC)
                for moment in frame.window
            )
        free: list[_Candidate] = []
        moment = _round_up(max(opens, not_before), step)
        while moment + duration <= closes:
            if blocked.free(moment, moment + duration):
                free.append(hours.candidate(moment, duration))
            moment += step
        return free

    # The first day with free time inside everyone's hours decides: from there on, only such
    # times; with no such day in the search, every day's candidates compete as compromises.
    seen: list[list[_Candidate]] = []
    for frame in frames:
        seen.append(free_candidates(frame))
        if any(c.people_outside == 0 for c in seen[-1]):
            break
    everyone = any(c.people_outside == 0 for c in seen[-1]) if seen else False
    pools: Iterator[list[_Candidate]] = (
        chain([seen[-1]], map(free_candidates, frames[len(seen) :])) if everyone else iter(seen)
    )

    for free in pools:
        pool = [c for c in free if c.people_outside == 0] if everyone else free
        for candidate in sorted(pool, key=lambda c: c.rank):
            if len(chosen) >= config.max_slots:
                break
            end = candidate.start + duration
            # Distinct choices: proposals never overlap each other.
            if _free(candidate.start, end, taken):
                chosen.append(candidate)
                taken.append(Interval(start=candidate.start, end=end))
        if len(chosen) >= config.max_slots:
            break

    zone = ctx.zone
    slots = [Slot(start=c.start.astimezone(zone), end=(c.start + duration).astimezone(zone)) for c in chosen]
    for index, asked in enumerate(named):
        slots[index] = Slot(start=asked, end=slots[index].end)  # the time exactly as the user named it
    return SlotProposal(
        slots=tuple(slots),
        outside_hours=tuple(hours.outside(c) for c in chosen),
        compromise=not everyone,
        asked_first=bool(named) and named[0] == first_asked,
        asked=len(named),
        frames=tuple(frames),
        taken=tuple(refused),
    )


def hours_attendees(resolutions: Sequence[NameResolution]) -> tuple[list[Attendee], list[str]]:
    """The attendees whose working hours count (each person once), and notes on unusable zones.

    Ambiguous and unknown names, bare addresses and people with no zone do not count: their zone
    is not known.
    """
    found: list[Attendee] = []
    notes: list[str] = []
    seen: set[str] = set()
    for resolution in resolutions:
        person = resolution.person
        if not resolution.settled or person is None or is_external(person) or person.id in seen:
            continue
        seen.add(person.id)
        if not person.timezone:
            continue  # a directory that knows no zone (Microsoft 365's, Google's): not a made-up one
        zone = iana_zone(person.timezone)
        if zone is None:
            notes.append(
                f"{person.display_name}'s time zone in the directory is not an IANA time zone, "
                "so their working hours were not considered."
            )
            continue
        found.append(Attendee(name=person.display_name, zone=zone))
    return found, notes


_DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def day_label(day: date) -> str:
    """'Thu 3 Dec', the same in every locale."""
    return f"{_DAY_NAMES[day.weekday()]} {day.day} {_MONTH_NAMES[day.month - 1]}"


def hours_notes(
    proposal: SlotProposal, requested: RequestedTime | TimeRequest, config: ToolConfig
) -> list[str]:
    """The card's word on a compromise: no free time suits everyone's hours.

    Whose hours each slot is outside is said per slot (:func:`slot_checks`): a note for the whole
    card named people for slots that suit them, and a time the user named inside everyone's hours
    was counted among "these slots".
    """
    rest = proposal.outside_hours[proposal.asked :]
    if not proposal.compromise or not rest:
        return []
    days = [f.day for f in proposal.frames] or search_days(as_request(requested).first.day, config)
    window = next((f.window for f in proposal.frames if f.window is not None), None)
    within = f" from {window[0]:%H:%M} to {window[1]:%H:%M}" if window is not None else ""
    span = (
        f"on {day_label(days[0])}"
        if len(days) == 1
        else f"between {day_label(days[0])} and {day_label(days[-1])}"
    )
    return [
        f"No free time{within} {span} is within everyone's working hours: "
        "each slot says whose hours it is outside."
    ]


def _checked_people(resolutions: Sequence[NameResolution]) -> list[Person]:
    """Everyone a slot is checked for: settled attendees and every candidate of an ambiguous name
    (the page shows the checks of the one chosen), each once, with a zone the directory knows."""
    found: dict[str, Person] = {}
    for resolution in resolutions:
        people = (resolution.person,) if resolution.settled else resolution.candidates
        for person in people:
            if person is None or is_external(person) or iana_zone(person.timezone or "") is None:
                continue
            found.setdefault(person.email.casefold(), person)
    return list(found.values())


def slot_checks(
    slots: Sequence[Slot],
    resolutions: Sequence[NameResolution],
    busy: Mapping[str, Sequence[Interval]],
    ctx: ToolContext,
    config: ToolConfig,
) -> list[list[SlotCheck]]:
    """Per slot, the organizer's side, then each checked person's (:func:`_checked_people`)."""
    if not slots:
        return []
    window = (min(s.start for s in slots), max(s.end for s in slots))
    people = _checked_people(resolutions)
    zones = {ctx.zone.key: ctx.zone, **{p.timezone: ZoneInfo(p.timezone) for p in people}}
    hours = {key: WorkingHours(zone, *window, config) for key, zone in zones.items()}
    held = {p.email.casefold(): _BusyTimes(busy.get(p.email, ())) for p in people}
    checks: list[list[SlotCheck]] = []
    for slot in slots:
        home = slot.start.astimezone(ctx.zone).date()

        def side(
            email: str | None, name: str, zone: ZoneInfo, slot: Slot = slot, home: date = home
        ) -> SlotCheck:
            local = slot.start.astimezone(zone)
            day = f"{_DAY_NAMES[local.weekday()]} " if local.date() != home else ""
            free = email is None or held[email.casefold()].free(slot.start, slot.end)
            outside = bool(hours[zone.key].time_outside(slot.start, slot.end))
            return SlotCheck(
                email=email,
                name=name,
                timezone=zone.key,
                local=f"{day}{local:%H:%M}",
                outside_hours=outside,
                busy=not free,
            )

        checks.append(
            [side(None, "you", ctx.zone), *(side(p.email, p.display_name, zones[p.timezone]) for p in people)]
        )
    return checks


def slot_words(checks: Sequence[SlotCheck], ctx: ToolContext, on_card: Sequence[NameResolution]) -> list[str]:
    """What one slot means for the organizer and the people settled on the card, in words:
    another zone's local time (with its day when it is another day), hours, bookings."""
    settled = {r.person.email.casefold() for r in on_card if r.settled and r.person is not None}
    words: list[str] = []
    for check in checks:
        if check.email is None:
            if check.outside_hours:
                words.append(f"Outside your working hours ({check.local}).")
            continue
        if check.email.casefold() not in settled:
            continue
        if check.timezone == ctx.timezone and not (check.outside_hours or check.busy):
            continue
        said = [f"{check.name}: {check.local} ({check.timezone})"]
        if check.outside_hours:
            said.append("outside their working hours")
        if check.busy:
            said.append("busy")
        words.append(", ".join(said) + ".")
    return words
