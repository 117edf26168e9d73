"""calendar_agenda: "what do I have tomorrow?": the caller's own meetings in a day or a window.

A read-only card (``CardSpec(read_only=True)``): each meeting's title, its time in the caller's
zone, with whom, and the caller's own answer. The meetings come from the caller's calendar through
the reference contract's one read per turn (a :data:`~multitool.toolkit.references.Finder` over
:meth:`multitool.ports.calendar.Calendar.events`, the read the meeting finder makes): organizer or
attendee, never anyone else's. A series shows each of its meetings in the window.
"""

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator

from multitool.text import SingleLine
from multitool.toolkit.cards import TYPE_ALIAS, Card, CardSpec, counted, days_words, found_said
from multitool.toolkit.common import (
    DraftRef,
    Prepared,
    days_in_order,
    days_within,
    replaced_field,
    revises_field,
)
from multitool.toolkit.context import MAX_WHEN_CHARS, ToolConfig, ToolContext
from multitool.toolkit.errors import UnparseableDate
from multitool.toolkit.references import FindContext, Item, ItemRef, ItemResolution, Lookup, resolution
from multitool.toolkit.spec import ToolSpec
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.toolkit.common import BusyTimes, People
    from multitool.toolkit.references import Found

MAX_DAYS = 14
"""The widest agenda a card shows (two weeks)."""
MAX_MEETINGS = 60
KIND = "agenda"


class AgendaArgs(WireModel):
    """The day or days as the user said them, and as you read them."""

    when: SingleLine = Field(
        min_length=1,
        max_length=MAX_WHEN_CHARS,
        description="The day or days as the user said them ('tomorrow', 'this week', 'on Thursday')",
    )
    from_day: date = Field(
        description=(
            "The first day, in the user's time zone (YYYY-MM-DD), resolved by you from the current time"
        ),
    )
    to_day: date | None = Field(
        default=None, description="The last day (YYYY-MM-DD); leave it out for one day. At most 14 days"
    )
    revises: DraftRef | None = revises_field()

    @model_validator(mode="after")
    def _days_in_order(self) -> "AgendaArgs":
        days_in_order(self.from_day, self.to_day)
        return self


class AgendaMeeting(WireModel):
    """One meeting as the agenda shows it."""

    title: str
    start: datetime
    """In the caller's zone."""
    end: datetime
    with_people: tuple[str, ...] = ()
    """Everyone else on it, by name where known (the organizer first when it is not the caller)."""
    role: str = "attendee"
    """'organizer' or 'attendee'."""
    response: str = "none"
    """The caller's own answer: organizer, accepted, tentative, declined or none."""
    recurring: bool = False


def days_asked(args: AgendaArgs, ctx: ToolContext) -> tuple[date, date, list[str]]:
    """The first and last day as passed (the prompt contract: days are structured, read by the model
    from the current time in the user's zone); notes on what was cut."""
    today = ctx.local_now.date()
    first, last, notes = days_within(args.from_day, args.to_day, MAX_DAYS, "shown")
    if last < today - timedelta(days=366) or first > today + timedelta(days=366):
        raise UnparseableDate(
            f"'{args.when}' is more than a year away; ask for a day within a year.", field="fromDay"
        )
    return first, last, notes


def find_agenda(refs: Sequence[ItemRef], reads: FindContext) -> list[ItemResolution]:
    """Every meeting of the caller's in each reference's days, from one calendar read."""
    if not refs:
        return []
    ctx = reads.ctx
    email = ctx.requester_email
    if email is None:  # no verified address: no calendar of theirs to read
        return [resolution(r.said, []) for r in refs]
    windows = [_window(r.days or (ctx.local_now.date(),) * 2, ctx) for r in refs]
    events = reads.ports.calendar.events(email, min(w[0] for w in windows), max(w[1] for w in windows))
    answers = []
    for ref, (lo, hi) in zip(refs, windows, strict=True):
        items = [
            Item(kind=KIND, id=e.id, label=e.title, version=e.version, fields=e.to_wire())
            for e in events
            if e.start < hi and lo < e.end
        ]
        answers.append(resolution(ref.said, items, limit=MAX_MEETINGS))
    return answers


def _window(days: tuple[date, date], ctx: ToolContext) -> tuple[datetime, datetime]:
    first, last = days
    return (
        datetime.combine(first, datetime.min.time(), tzinfo=ctx.zone),
        datetime.combine(last + timedelta(days=1), datetime.min.time(), tzinfo=ctx.zone),
    )


def agenda_meeting(fields: dict[str, Any], ctx: ToolContext) -> AgendaMeeting:
    role = str(fields.get("role", "attendee"))
    others = [str(a.get("name") or a.get("email")) for a in fields.get("attendees", ())]
    own = (ctx.requester_email or "").casefold()
    others = [
        name
        for name, a in zip(others, fields.get("attendees", ()), strict=True)
        if str(a.get("email", "")).casefold() != own
    ]
    if role == "attendee":
        others.insert(0, str(fields.get("organizerName") or fields.get("organizer") or ""))
    return AgendaMeeting(
        title=str(fields.get("title") or "(no title)"),
        start=datetime.fromisoformat(str(fields["start"])).astimezone(ctx.zone),
        end=datetime.fromisoformat(str(fields["end"])).astimezone(ctx.zone),
        with_people=tuple(n for n in others if n),
        role=role,
        response=str(fields.get("response", "none")),
        recurring=bool(fields.get("recurring")),
    )


def prepare(args: AgendaArgs, ctx: ToolContext, _config: ToolConfig) -> Prepared:
    first, last, notes = days_asked(args, ctx)
    ref = ItemRef(said=args.when, from_day=first, to_day=last)

    def finish(_people: "People", _busy: "BusyTimes", found: "Found") -> dict[str, Any]:
        [answer] = found
        items = [answer.item] if answer.item is not None else list(answer.candidates)
        meetings = sorted((agenda_meeting(dict(i.fields), ctx) for i in items), key=lambda m: m.start)
        shown = list(notes)
        if ctx.requester_email is None:
            shown.append("Your calendar could not be read: your account has no verified email address.")
        if len(items) >= MAX_MEETINGS:
            shown.append(f"Only the first {MAX_MEETINGS} meetings are shown.")
        return {
            "requested": args.when,
            "timezone": ctx.timezone,
            "fromDay": first.isoformat(),
            "toDay": last.isoformat(),
            "meetings": [m.to_wire() for m in meetings],
            "notes": shown,
        }

    return Prepared(names=[], finish=finish, lookups=[Lookup(ref, find_agenda)])


class AgendaPayload(WireModel):
    action: Literal["show_agenda"] = "show_agenda"
    draft_id: str
    requested: str = Field(description="The day or days as asked")
    timezone: str = Field(description="The caller's zone: the times are in it")
    from_day: date
    to_day: date
    meetings: tuple[AgendaMeeting, ...] = ()
    notes: tuple[str, ...] = ()
    revises: str | None = replaced_field()


class AgendaCard(Card):
    """The caller's own meetings in a day or window: read only."""

    type: Literal["show_agenda"] = Field(validation_alias=TYPE_ALIAS)
    requested: str = ""
    timezone: str = "UTC"
    from_day: date | None = None
    to_day: date | None = None
    meetings: tuple[AgendaMeeting, ...] = ()


def _days_words(card: AgendaCard) -> str:
    return days_words(card.from_day, card.to_day, card.requested)


def agenda_caption(card: AgendaCard) -> str:
    count = len(card.meetings)
    return f"Your calendar {_days_words(card)}: {counted(count, 'meeting') if count else 'nothing'}"


def agenda_said(card: AgendaCard) -> str:
    return found_said(len(card.meetings), "meeting", f"on your calendar {_days_words(card)}", none="nothing")


SPEC = ToolSpec(
    name="show_calendar",
    action_group="calendar_agenda",
    api_path="/calendar-agenda",
    args_model=AgendaArgs,
    payload_model=AgendaPayload,
    prepare=prepare,
    card=CardSpec(
        AgendaCard,
        lambda card: (card.from_day, card.to_day),
        agenda_caption,
        said=agenda_said,
        held="changed",
        read_only=True,
    ),
    review="multitool.tools.calendar.read_only:REVIEW",
    group_description="Shows the user's own meetings in a day or window; read only, nothing to confirm.",
    nouns=("your calendar", "calendar views"),
    description=(
        "Show the user's own meetings (as organizer or attendee) on a day or over some days: 'what do I "
        "have tomorrow?', 'what's on my calendar this week?'. Pass the day as the user said it and the "
        "days you read. Read only: the card has nothing to confirm."
    ),
)
