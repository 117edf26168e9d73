"""free_time: "when am I free with Priya this week?": the windows the caller and the people named
are all free, within everyone's working hours, in the days asked.

A read-only card (``CardSpec(read_only=True)``). The same reading as a proposal's: one busy read
per turn over the days (the batch's, :class:`~multitool.toolkit.common.Prepared`'s ``busy_window``;
the built-in calendar expands its series there, Microsoft 365 and Google theirs), the same working
hours (the tool config's, in each person's own zone, :func:`.scheduling.local_hours`), and the
same people: the caller, and each name resolved by the batch's one directory read.
"""

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal
from zoneinfo import ZoneInfo

from pydantic import Field, model_validator

from multitool.people import NameResolution
from multitool.text import SingleLine
from multitool.toolkit.cards import (
    TYPE_ALIAS,
    Card,
    CardSpec,
    counted,
    days_words,
    found_said,
    names_of,
    people_key,
)
from multitool.toolkit.common import (
    DraftRef,
    People,
    Prepared,
    RawName,
    days_in_order,
    days_within,
    lookalike_notes,
    replaced_field,
    resolve_recipient,
    revises_field,
)
from multitool.toolkit.common import unsettled_notes as unsettled_names
from multitool.toolkit.context import MAX_ATTENDEES, MAX_WHEN_CHARS, ToolConfig, ToolContext
from multitool.toolkit.errors import UnparseableDate
from multitool.toolkit.spec import ToolSpec
from multitool.tools.meeting.scheduling import WORKING_DAYS, hours_attendees, local_hours
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.toolkit.common import BusyTimes
    from multitool.toolkit.references import Found

MAX_DAYS = 14
MAX_WINDOWS = 30
Window = tuple[datetime, datetime]


class FreeTimeArgs(WireModel):
    """Who (besides the user), the days as said and as read, and the shortest window worth showing."""

    people: list[RawName] = Field(
        default_factory=list,
        max_length=MAX_ATTENDEES,
        description="The people to be free with, as the user named them (none: the user alone)",
    )
    when: SingleLine = Field(
        min_length=1,
        max_length=MAX_WHEN_CHARS,
        description="The days as the user said them ('this week', 'tomorrow')",
    )
    from_day: date = Field(description="The first day, in the user's time zone (YYYY-MM-DD), read by you")
    to_day: date | None = Field(default=None, description="The last day (YYYY-MM-DD); none for one day")
    duration_minutes: int = Field(default=30, ge=15, le=480, description="The shortest window to show")
    revises: DraftRef | None = revises_field()

    @model_validator(mode="after")
    def _days_in_order(self) -> "FreeTimeArgs":
        days_in_order(self.from_day, self.to_day)
        return self


class FreeWindow(WireModel):
    """A time everyone is free, in the caller's zone."""

    start: datetime
    end: datetime


def _intersect(first: Sequence[Window], second: Sequence[Window]) -> list[Window]:
    out = []
    for a_start, a_end in first:
        for b_start, b_end in second:
            start, end = max(a_start, b_start), min(a_end, b_end)
            if start < end:
                out.append((start, end))
    return sorted(out)


def _without(windows: Sequence[Window], busy: Sequence[Window]) -> list[Window]:
    out = []
    for start, end in windows:
        at = start
        for b_start, b_end in sorted(busy):
            if b_end <= at or b_start >= end:
                continue
            if b_start > at:
                out.append((at, b_start))
            at = max(at, b_end)
        if at < end:
            out.append((at, end))
    return out


def _hours(zone: ZoneInfo, first: date, last: date, config: ToolConfig) -> list[Window]:
    """Working hours in ``zone`` on its working days around [first, last] (a day either side: zones)."""
    out = []
    day = first - timedelta(days=1)
    while day <= last + timedelta(days=1):
        if day.weekday() in WORKING_DAYS:
            out.append(local_hours(day, zone, config))
        day += timedelta(days=1)
    return out


def free_windows(
    first: date,
    last: date,
    zones: Sequence[ZoneInfo],
    busy: Sequence[Window],
    ctx: ToolContext,
    config: ToolConfig,
    minimum: timedelta,
) -> list[Window]:
    """Every window in the caller's working days [first, last] within everyone's working hours,
    nobody busy, from now on, at least ``minimum`` long."""
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    windows = [local_hours(d, ctx.zone, config) for d in days if d.weekday() in WORKING_DAYS]
    for zone in zones:
        windows = _intersect(windows, _hours(zone, first, last, config))
    now = ctx.now.astimezone(UTC)
    windows = [(max(s, now), e) for s, e in windows if e > now]
    return [(s, e) for s, e in _without(windows, busy) if e - s >= minimum]


def prepare(args: FreeTimeArgs, ctx: ToolContext, config: ToolConfig) -> Prepared:
    first, last, notes = days_within(args.from_day, args.to_day, MAX_DAYS, "searched")
    today = ctx.local_now.date()
    if last < today:
        raise UnparseableDate(
            f"'{args.when}' is in the past (today is {today.isoformat()}); ask for days from today on.",
            field="fromDay",
        )
    window = (
        datetime.combine(first, datetime.min.time(), tzinfo=ctx.zone).astimezone(UTC) - timedelta(days=1),
        datetime.combine(last + timedelta(days=2), datetime.min.time(), tzinfo=ctx.zone).astimezone(UTC),
    )

    def finish(people: People, busy: "BusyTimes", _found: "Found") -> dict[str, Any]:
        resolved: list[NameResolution] = [resolve_recipient(name, people) for name in args.people]
        constraining, zone_notes = hours_attendees(resolved)
        emails = [r.person.email for r in resolved if r.person is not None]
        if ctx.requester_email is not None:
            emails.append(ctx.requester_email)
        held = [
            (i.start.astimezone(UTC), i.end.astimezone(UTC))
            for e in dict.fromkeys(emails)
            for i in busy.get(e, ())
        ]
        found = free_windows(
            max(first, today),
            last,
            [a.zone for a in constraining],
            held,
            ctx,
            config,
            timedelta(minutes=args.duration_minutes),
        )
        shown = notes + unsettled_names(resolved, "person") + lookalike_notes(resolved) + zone_notes
        hours = f"{config.working_hours_start:02d}:00-{config.working_hours_end:02d}:00"
        shown.append(f"Within everyone's working hours ({hours}, each in their own zone), Monday to Friday.")
        if len(found) > MAX_WINDOWS:
            shown.append(f"Only the first {MAX_WINDOWS} windows are shown.")
        return {
            "people": [r.to_wire() for r in resolved],
            "requested": args.when,
            "timezone": ctx.timezone,
            "fromDay": first.isoformat(),
            "toDay": last.isoformat(),
            "durationMinutes": args.duration_minutes,
            "windows": [
                FreeWindow(start=s.astimezone(ctx.zone), end=e.astimezone(ctx.zone)).to_wire()
                for s, e in found[:MAX_WINDOWS]
            ],
            "notes": list(dict.fromkeys(shown)),
        }

    return Prepared(
        names=list(args.people),
        finish=finish,
        busy_window=window,
        busy_names=list(args.people),
        busy_emails=[ctx.requester_email] if ctx.requester_email is not None else [],
    )


class FreeTimesPayload(WireModel):
    action: Literal["show_free_times"] = "show_free_times"
    draft_id: str
    people: tuple[NameResolution, ...] = ()
    requested: str = ""
    timezone: str = "UTC"
    from_day: date
    to_day: date
    duration_minutes: int = 30
    windows: tuple[FreeWindow, ...] = ()
    notes: tuple[str, ...] = ()
    revises: str | None = replaced_field()


class FreeTimesCard(Card):
    """The windows the caller and the people named are all free: read only."""

    type: Literal["show_free_times"] = Field(validation_alias=TYPE_ALIAS)
    people: tuple[NameResolution, ...] = ()
    requested: str = ""
    timezone: str = "UTC"
    from_day: date | None = None
    to_day: date | None = None
    duration_minutes: int = 30
    windows: tuple[FreeWindow, ...] = ()


def _with(card: FreeTimesCard) -> str:
    return f" with {names_of(card.people)}" if card.people else ""


def _days(card: FreeTimesCard) -> str:
    return days_words(card.from_day, card.to_day, card.requested)


def free_caption(card: FreeTimesCard) -> str:
    count = len(card.windows)
    return f"Free{_with(card)} {_days(card)}: {counted(count, 'window') if count else 'no windows'}"


def free_said(card: FreeTimesCard) -> str:
    where = f"you are free{_with(card)} {_days(card)}"
    return found_said(len(card.windows), "window", where, none="no time")


SPEC = ToolSpec(
    name="find_free_time",
    action_group="free_time",
    api_path="/free-times",
    args_model=FreeTimeArgs,
    payload_model=FreeTimesPayload,
    prepare=prepare,
    card=CardSpec(
        FreeTimesCard,
        lambda card: (card.from_day, card.to_day, people_key(card.people)),
        free_caption,
        said=free_said,
        held="changed",
        read_only=True,
    ),
    review="multitool.tools.meeting.free_time_review:REVIEW",
    group_description="Shows when the user and the people named are all free; read only.",
    nouns=("free times", "free times"),
    description=(
        "Show when the user is free, alone or with the people named, over a day or some days, within "
        "everyone's working hours and calendars: 'when am I free with Priya this week?'. Pass the people "
        "as named, the days as said and as you read them. Read only; to book, use propose_meeting."
    ),
)
