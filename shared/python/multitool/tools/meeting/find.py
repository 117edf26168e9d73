"""The meeting finder: a meeting the user named ("my sync with Priya tomorrow"), among their own.

A :data:`~multitool.toolkit.references.Finder` for the reference contract
(:mod:`multitool.toolkit.references`): the batch calls :func:`find_meetings` once per turn with
every meeting reference of the turn, and it makes ONE read of the caller's calendar
(:meth:`multitool.ports.calendar.Calendar.events`: their own events, organizer or attendee) over
the days of all of them together, then narrows each reference to its own days, its people and
its words (:func:`~multitool.toolkit.references.rank`). A reference that names no day is looked
for from :data:`DEFAULT_PAST` ago to :data:`DEFAULT_AHEAD` ahead; among the meetings that fit, the
next upcoming ranks first, then the most recent past one. A repeating meeting is one candidate,
its best-ranked meeting (the one on the named day, else the next): "the 1:1" is not a choice
between the weeks of one series.

Only the caller's calendar is read (their verified address; none, nothing is found): another
user's meeting is never a candidate and never named in a note.
"""

from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import Any

from multitool.ports.calendar import CalendarEvent
from multitool.toolkit.references import FindContext, Item, ItemRef, ItemResolution, rank, resolution

DEFAULT_AHEAD = timedelta(days=14)
DEFAULT_PAST = timedelta(days=1)
MAX_DAYS = 62
"""The widest window one turn reads (the days of every reference together)."""
KIND = "meeting"


def meeting_item(event: CalendarEvent, zone: Any, own: str | None = None) -> Item:
    """A calendar event as a reference's item: its label says what, when and with whom (not the caller)."""
    start, end = event.start.astimezone(zone), event.end.astimezone(zone)
    mine = (own or "").casefold()
    others = [a.name or a.email for a in event.attendees if a.email.casefold() != mine]
    if event.role == "attendee":
        others = [event.organizer_name or event.organizer, *others]
    people = ", ".join(others[:3]) + (f" +{len(others) - 3}" if len(others) > 3 else "")
    label = f"{event.title or '(no title)'} · {start:%a %d %b %H:%M}-{end:%H:%M}"
    if people:
        label += f" · with {people}"
    return Item(kind=KIND, id=event.id, label=label, version=event.version, fields=event.to_wire())


def _day_window(days: tuple[date, date], zone: Any) -> tuple[datetime, datetime]:
    first, last = days
    return (
        datetime.combine(first, time(0), tzinfo=zone),
        datetime.combine(last + timedelta(days=1), time(0), tzinfo=zone),
    )


def reference_window(ref: ItemRef, now: datetime, zone: Any) -> tuple[datetime, datetime]:
    """The instants a reference's meeting may overlap: its days (in the user's zone), or the default."""
    if ref.days is not None:
        return _day_window(ref.days, zone)
    return now - DEFAULT_PAST, now + DEFAULT_AHEAD


def read_window(refs: Sequence[ItemRef], now: datetime, zone: Any) -> tuple[datetime, datetime]:
    """One window covering every reference's, at most :data:`MAX_DAYS` long (from the earliest)."""
    windows = [reference_window(r, now, zone) for r in refs]
    start = min(w[0] for w in windows)
    end = max(w[1] for w in windows)
    return start, min(end, start + timedelta(days=MAX_DAYS))


def _upcoming_first(now: datetime) -> Any:
    """``rank``'s ``newest`` key (descending): upcoming before past, the soonest upcoming first,
    then the latest past."""

    def key(item: Item) -> tuple[bool, float]:
        start = datetime.fromisoformat(str(item.fields["start"])).timestamp()
        upcoming = datetime.fromisoformat(str(item.fields["end"])).timestamp() > now.timestamp()
        return (upcoming, -start if upcoming else start)

    return key


def _people(item: Item) -> list[str]:
    return [
        str(item.fields.get("organizer", "")),
        *(str(a["email"]) for a in item.fields.get("attendees", ())),
    ]


def find_meetings(refs: Sequence[ItemRef], reads: FindContext) -> list[ItemResolution]:
    """Each reference's meetings among the caller's own, from one calendar read."""
    if not refs:
        return []
    ctx = reads.ctx
    email = ctx.requester_email
    if email is None:  # no verified address: no calendar of theirs to search
        return [resolution(r.said, []) for r in refs]
    zone = ctx.zone
    start, end = read_window(refs, ctx.now, zone)
    events = reads.ports.calendar.events(email, start, end)
    items = [meeting_item(e, zone, email) for e in events]
    answers: list[ItemResolution] = []
    for ref in refs:
        lo, hi = reference_window(ref, ctx.now, zone)
        within = [
            item for item, event in zip(items, events, strict=True) if event.start < hi and lo < event.end
        ]
        emails = [
            found.person.email
            for name in ref.people
            if (found := reads.people.get(name)) is not None and found.person is not None
        ]
        if len(emails) < len(ref.people):  # a name nobody answers to matches no meeting of theirs
            answers.append(resolution(ref.said, []))
            continue
        ranked = rank(
            within,
            ref,
            lambda item: str(item.fields.get("title", "")),
            people=_people,
            emails=emails,
            newest=_upcoming_first(ctx.now),
        )
        answers.append(resolution(ref.said, _one_per_series(ranked)))
    return answers


def _one_per_series(ranked: list[Item]) -> list[Item]:
    """The ranked meetings with each series' best-ranked meeting only."""
    seen: set[str] = set()
    kept: list[Item] = []
    for item in ranked:
        series = item.fields.get("series_id") or item.fields.get("seriesId")
        if item.fields.get("recurring") and series:
            if series in seen:
                continue
            seen.add(str(series))
        kept.append(item)
    return kept


__all__ = ["DEFAULT_AHEAD", "DEFAULT_PAST", "find_meetings", "meeting_item", "read_window"]
