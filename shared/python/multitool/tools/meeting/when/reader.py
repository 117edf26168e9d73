"""The top-level reader: a phrase as the meeting tool reads it (:func:`read_phrase`: its alternatives,
the zone it names, days ruled out, a repeat, misspellings), and one day or time (:func:`resolve_when`)."""

from __future__ import annotations

import re
from datetime import date, timedelta
from zoneinfo import ZoneInfo

import msgspec
from msgspec.structs import replace

from multitool.ports.recurrence import Recurrence
from multitool.toolkit.context import ToolContext
from multitool.toolkit.errors import UnparseableDate
from multitool.tools.meeting.when.alternatives import (
    _ALTERNATIVE,
    _ANY_DAY,
    _BETWEEN_DAYS,
    _LEADING_HOURS,
    _NEGATED,
    _first_occurrence,
    _repeat_said,
    _shared_by_alternatives,
)
from multitool.tools.meeting.when.clock import _read_times
from multitool.tools.meeting.when.days import _DATE_NOTES, _DATE_ORDER, _relative_days, _spelled_weekdays
from multitool.tools.meeting.when.natural import _DAY_NAMES, _PLAIN_DAYS, _WORD, _iso, _natural
from multitool.tools.meeting.when.option import _FILLER, _natural_reading
from multitool.tools.meeting.when.repeats import end_said, rule_of
from multitool.tools.meeting.when.request import (
    FIELD,
    RequestedTime,
    TimeRequest,
    _hhmm,
    check_option,
    example_time,
)
from multitool.tools.meeting.when.spans import _days_of
from multitool.tools.meeting.when.zone_words import _OWN, _in_zone, _zone_named
from multitool.zones import date_order


def resolve_when(text: str, ctx: ToolContext) -> RequestedTime:
    """The day (and time, if one was said) ``text`` means for this user, now; guesses in ``notes``."""
    cleaned = _spelled_weekdays(" ".join(text.split()))
    requested = _iso(cleaned, ctx)
    if requested is None:
        order = _DATE_ORDER.set(_DATE_ORDER.get() or date_order(ctx.locale, ctx.timezone))
        try:
            requested, _ = _natural_reading(cleaned, ctx)
        finally:
            _DATE_ORDER.reset(order)
    if requested is None:
        raise UnparseableDate(
            f"Could not tell which day '{cleaned}' means. Say e.g. 'Thursday', 'tomorrow at 3pm', "
            f"'Friday morning', 'next Tuesday' or an ISO 8601 date like {example_time(ctx)}.",
            field=FIELD,
        )
    return check_option(requested, ctx, cleaned)


class PhraseReading(msgspec.Struct, frozen=True):
    """What a phrase says: its alternatives, the zone it names, days it rules out, what went unread."""

    request: TimeRequest | None
    """None when no day could be read at all."""
    zone: str | None = None
    """An IANA zone the phrase names ('London time', 'PST', 'Europe/London')."""
    zone_of: str | None = None
    """Someone whose zone the phrase names ('in Priya's time zone'); 'her'/'his'/'their' as said."""
    zone_words: str | None = None
    unread: tuple[str, ...] = ()
    repeats: str | None = None
    """For a meeting that repeats ("every Tuesday"): the note that only the first is proposed (it is also
    the first option's)."""
    recurrence: Recurrence | None = None
    """The rule a repeating meeting's words say ("every other Friday until March")."""
    date_notes: tuple[str, ...] = ()
    """How each numeric date whose day and month could be swapped was read ("3/1"): the card says it
    even when a model passed the times (they are also the options' notes)."""


# Words a misspelling of which is read as the word ("Wednsday", "tommorow", "Firday"), with a note.
_SPELLED_RIGHT = (
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "tomorrow",
    "january",
    "february",
    "march",
    "april",
    "august",
    "september",
    "october",
    "november",
    "december",
    "morning",
    "afternoon",
    "evening",
)


def read_phrase(text: str, ctx: ToolContext, zone: ZoneInfo | None = None) -> PhraseReading:
    """Everything ``text`` says about when, read in ``zone`` (else the zone it names, else the user's).

    A word left unread that is a misspelling of a day, a month or a part of the day ("Wednsday at 3"
    read today at 15:00) is read as that word, and the first option's notes say so.

    Raises :class:`UnparseableDate` for a time that cannot exist ("25:00"), as :func:`resolve_when`.
    """
    order = _DATE_ORDER.set(_DATE_ORDER.get() or date_order(ctx.locale, ctx.timezone))
    said = _DATE_NOTES.set([])
    try:
        reading = _read_phrase_fixed(text, ctx, zone)
        date_notes = tuple(dict.fromkeys(_DATE_NOTES.get() or ()))
        return replace(reading, date_notes=date_notes) if date_notes else reading
    finally:
        _DATE_NOTES.reset(said)
        _DATE_ORDER.reset(order)


def _read_phrase_fixed(text: str, ctx: ToolContext, zone: ZoneInfo | None) -> PhraseReading:
    """The phrase as read, read again with its misspellings fixed when that reads more of it."""
    reading = _read_phrase(text, ctx, zone)
    if not reading.unread:
        return reading
    fixed, fixes = _misspellings_fixed(text, reading.unread)
    if not fixes:
        return reading
    again = _read_phrase(fixed, ctx, zone)
    if again.request is None or len(again.unread) >= len(reading.unread):
        return reading
    first, *others = again.request.options
    first = replace(first, notes=(*fixes, *first.notes))
    return replace(again, request=replace(again.request, options=(first, *others)))


def _misspellings_fixed(text: str, unread: tuple[str, ...]) -> tuple[str, list[str]]:
    """``text`` with each unread word that is a misspelling of one of ``_SPELLED_RIGHT`` (difflib's
    closeness of 0.8 or more, the same first letter) written right, and a note for each."""
    import difflib  # only for a phrase with words left unread: most phrases never load it

    fixes: dict[str, str] = {}
    for word in unread:
        folded = word.casefold()
        if len(folded) < 5 or not folded.isalpha():
            continue
        close = difflib.get_close_matches(folded, _SPELLED_RIGHT, n=1, cutoff=0.8)
        if close and close[0][0] == folded[0] and folded.rstrip("s") != close[0]:
            fixes[word] = close[0].capitalize() if word[:1].isupper() else close[0]
    if not fixes:
        return text, []
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(word) for word in fixes) + r")\b")
    fixed = pattern.sub(lambda match: fixes[match[0]], text)
    return fixed, [f"'{word}' read as '{right}'." for word, right in fixes.items()]


def _read_phrase(text: str, ctx: ToolContext, zone: ZoneInfo | None) -> PhraseReading:
    import unicodedata

    cleaned = _spelled_weekdays(" ".join(unicodedata.normalize("NFC", text).split()))
    # One word that names a day ("Thursday", "tomorrow", most requests) names no zone, rules out no
    # day and offers no alternative: its reading skips the patterns that look for those.
    plain = cleaned.casefold() in _PLAIN_DAYS
    rest, named, zone_of, zone_words = (cleaned, None, None, None) if plain else _zone_named(cleaned)
    rest = rest.replace("(", " ").replace(")", " ")  # "Thursday (or Friday)": the zone's own are read
    if zone_of in _OWN:
        named, zone_of = ctx.timezone, None
    read_in = zone
    if read_in is None and named is not None:
        read_in = ZoneInfo(named)
    local = ctx if read_in is None else _in_zone(ctx, read_in.key)
    excluded: set[date] = set()
    ruled_out: dict[
        date, int
    ] = {}  # a weekday said -> its weekday: "next week except Wednesday" is that week's
    unread: list[str] = []
    if not plain:
        for match in _NEGATED.finditer(rest):
            said = match["day"]
            day, _ = _natural(said.rstrip("s") if said.casefold().endswith("days") else said, local)
            if day is not None:
                excluded.add(day.day)
                if said[:3].casefold() in _DAY_NAMES:
                    ruled_out[day.day] = day.day.weekday()
        rest = _NEGATED.sub(" ", rest)
    repeat, daily, end = None, False, None
    if not plain:
        rest, repeat, daily = _repeat_said(rest)
    if repeat is not None:
        rest, _end_words, end = end_said(rest)
    options: list[RequestedTime] = []
    undated: list[int] = []  # the first options, times said before any day
    leading: RequestedTime | None = None
    if not plain:
        rest = _BETWEEN_DAYS.sub(lambda m: f"{m['first']} to ", rest)
    if not plain:
        rest = _shared_by_alternatives(rest)  # each of its patterns skips a phrase without its words
    parts = [rest] if plain else ([p for p in _ALTERNATIVE.split(rest) if p.strip()] or [""])
    for part in parts:
        iso = _iso(part.strip(), local)
        option: RequestedTime | None
        left: list[str]
        if iso is not None:
            option, left = iso, []
        elif (_FILLER.match(part.strip()) or _ANY_DAY.match(part.strip())) and excluded:
            option, left = RequestedTime(local.local_now.date()), []  # "not on Thursday": from today on
        else:
            option, left = _natural_reading(" ".join(part.split()), local)
        unread += left
        if option is None:
            continue
        dated = option.time is None or option.last_day is not None or _names_a_day(part, option, local)
        if options and not dated:
            # "Thursday at 4pm or 5pm": a time alone keeps the day before it.
            option = RequestedTime(options[-1].day, option.time, notes=option.notes)
            if len(undated) == len(options):
                undated.append(len(options))
        elif not options and not dated:
            undated.append(0)  # "3pm or 4pm on Thursday": the day said after them holds for them
        elif not options and option.window is not None and _LEADING_HOURS.match(part):
            leading = option  # "between 2 and 4 on Thursday or Friday": the hours come first
        elif (
            leading is not None
            and leading.window is not None
            and option.time is None
            and option.window is None
            and option.last_day is None
        ):  # ... and hold for each day after them
            hours = f"{_hhmm(leading.window[0])}-{_hhmm(leading.window[1])}"
            notes = (*option.notes, f"'{part.strip()}' read with the hours said first, {hours}.")
            option = RequestedTime(option.day, None, leading.window, leading.part, notes)
        if read_in is not None:
            option = RequestedTime(
                option.day, option.time, option.window, option.part, option.notes, option.last_day, read_in
            )
        if (option.window is not None or option.time is not None) and option.last_day is not None:
            # Hours or a time on a span of days, as the contract writes them: one option a day, in order.
            notes = option.notes
            for each_day in _days_of(option):
                options.append(
                    RequestedTime(each_day, option.time, option.window, option.part, notes, zone=option.zone)
                )
                notes = ()
            continue
        if dated and undated:
            for index in undated:
                earlier = options[index]
                options[index] = RequestedTime(
                    option.day, earlier.time, notes=earlier.notes, zone=option.zone
                )
            undated.clear()
        options.append(option)
    asked = {day for option in options for day in option.days}
    for coming, weekday in ruled_out.items():
        within = {day for day in asked if day.weekday() == weekday}
        if within and coming not in asked:
            excluded.discard(coming)
        excluded |= within
    while options and options[0].day in excluded and options[0].last_day is None and options[0].time is None:
        options[0] = RequestedTime(options[0].day + timedelta(days=1), zone=options[0].zone)
    repeats, recurrence = None, None
    if repeat is not None:
        options[:1] = [_first_occurrence(options[0] if options else None, repeat, daily, local, read_in)]
        repeats = options[0].notes[-1]
        recurrence, end_notes = rule_of(repeat, daily, options[0].day, end, local)
        options[0] = replace(options[0], notes=(*options[0].notes, *end_notes))
    request = TimeRequest(tuple(options), frozenset(excluded)) if options else None
    return PhraseReading(
        request, named, zone_of, zone_words, tuple(dict.fromkeys(unread)), repeats, recurrence=recurrence
    )


def _names_a_day(part: str, option: RequestedTime, ctx: ToolContext) -> bool:
    """Whether the alternative says a day of its own, not only a time."""
    reading = _read_times(" ".join(part.split()))
    rest = re.sub(r"\b\d{2}:\d{2}\b", " ", reading.text)
    if not _WORD.findall(rest.replace("at", " ")):
        return False
    days, _ = _relative_days(rest, ctx)  # "11th at 2": the 11th, which parsedatetime alone does not read
    return _natural(days, ctx)[0] is not None
