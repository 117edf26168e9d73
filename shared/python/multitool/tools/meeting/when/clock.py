"""Clock times and parts of the day: the hours a phrase says ("3pm", "half past two", "2-3pm", "after
3", "late afternoon") taken out of it and written as HH:MM for parsedatetime, each checked (a time
that cannot exist is refused, never dropped)."""

from __future__ import annotations

import re
from datetime import time

import msgspec

from multitool.toolkit.errors import UnparseableDate
from multitool.tools.meeting.when.patterns import _DIGITS, _MONTH_STEMS, _MONTH_WORD, _lazy
from multitool.tools.meeting.when.request import FIELD, _hhmm

PARTS_OF_DAY: dict[str, tuple[time, time]] = {
    "first thing": (time(9), time(10)),
    "morning": (time(9), time(12)),
    "before lunch": (time(9), time(12)),
    "lunchtime": (time(12), time(14)),
    "after lunch": (time(13), time(17)),
    "afternoon": (time(13), time(17)),
    "end of day": (time(16), time(18)),
    "evening": (time(17), time(19)),
    "tonight": (time(17), time(19)),
    "am": (time(9), time(12)),
    "pm": (time(13), time(17)),
    "early morning": (time(9), time(10, 30)),
    "mid morning": (time(10), time(11, 30)),
    "late morning": (time(10, 30), time(12)),
    "early afternoon": (time(13), time(15)),
    "mid afternoon": (time(14), time(16)),
    "late afternoon": (time(15), time(17)),
    "early evening": (time(17), time(18)),
    "mid evening": (time(17, 30), time(18, 30)),
    "late evening": (time(18), time(19)),
    "breakfast": (time(8), time(10)),
    "after work": (time(17), time(19)),
    "dinner": (time(18), time(20)),
}
"""Part of the day -> local [start, end) hours the slots must lie in."""


_LEAD = r"(?:\b(?:in|at|by|around|during|before|on|for|this|over)\s+)?(?:\bthe\s+)?"
_PARTS = [
    (
        "end of day",
        _lazy(
            _LEAD + r"\b(?:end\s+of\s+(?:the\s+)?(?:day|business)|eod|cob|close\s+of\s+business)\b",
            re.I,
            ("end", "eod", "cob", "close"),
        ),
    ),
    ("first thing", _lazy(r"\bfirst\s+thing(?:\s+in\s+the\s+morning)?\b", re.I, ("first",))),
    ("after work", _lazy(r"\bafter\s+work\b", re.I, ("work",))),
    ("breakfast", _lazy(_LEAD + r"\bbreakfast(?:\s*time)?\b", re.I, ("breakfast",))),
    ("dinner", _lazy(_LEAD + r"\bdinner(?:\s*time)?\b", re.I, ("dinner",))),
    ("before lunch", _lazy(r"\bbefore\s+lunch(?:\s*time)?\b", re.I, ("lunch",))),
    ("after lunch", _lazy(r"\bafter\s+lunch(?:\s*time)?\b", re.I, ("lunch",))),
    ("lunchtime", _lazy(_LEAD + r"\blunch(?:\s*time)?\b", re.I, ("lunch",))),
    ("morning", _lazy(_LEAD + r"\bmornings?\b", re.I, ("morning",))),
    ("afternoon", _lazy(_LEAD + r"\b(?:afternoons?|aft|arvo)\b", re.I, ("afternoon", "aft", "arvo"))),
    ("evening", _lazy(_LEAD + r"\bevenings?\b", re.I, ("evening",))),
    ("tonight", _lazy(_LEAD + r"\btonight\b", re.I, ("tonight",))),
    # "tmrw am", "fri pm": am or pm with no hour before it
    ("am", _lazy(r"(?<![\d:.])(?<![\d:.]\s)\b(?:a\.m\.|am)(?![\w.])", re.I, ("am", "a.m."))),
    ("pm", _lazy(r"(?<![\d:.])(?<![\d:.]\s)\b(?:p\.m\.|pm)(?![\w.])", re.I, ("pm", "p.m."))),
]
# "late afternoon", "mid-morning", "early evening": the part's first, middle or last hours.
_SHADED_PART = _lazy(
    _LEAD + r"\b(?P<shade>early|mid|late)[\s-]*(?P<part>morning|afternoon|evening)s?\b",
    re.I,
    needles=("early", "mid", "late"),
)
_NOON = _lazy(r"\b(?:noon|midday)(?:\s*-?\s*ish)?\b", re.I, needles=("noon", "midday"))
# "4pm", "4:30 p.m.", "9.30am" and "930am"; "14:30" and "9.30" (not "30.11.2026" nor "2026.12.10").
_MERIDIEM = _lazy(r"\b(\d{1,2})(?:[:.](\d{1,2})|(\d{2}))?\s*([ap])\.?\s?m\b\.?", re.I, needles=_DIGITS)
_CLOCK = _lazy(
    r"(?<![\d.:/])\b(\d{1,2})[:.](\d{2})\b(?!\s*[ap]\.?\s?m\b)(?![.:/]\d)", re.I, needles=(":", ".")
)
_HOUR_WORDS = {
    word: number
    for number, word in enumerate(
        ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"), 1
    )
}
_SPELLED = "|".join(_HOUR_WORDS)
"""The hours spelled out, as one alternation."""
_CLOCK_WORDS = _lazy(
    r"\b(?P<how>half(?:\s+past)?|(?:a\s+)?quarter\s+past|(?:a\s+)?quarter\s+to"
    # "ten past nine", "twenty to 4", "5 past 3", "20 after 2" ("10 to 11" in digits is a span of hours)
    r"|(?P<minutes>five|ten|twenty(?:[\s-]five)?|\d{1,2}(?=\s+(?:minutes?\s+(?:past|to|after)|past|after)\b))"
    r"\s+(?:minutes?\s+)?(?P<way>past|to|after))\s+"
    rf"(?P<hour>\d{{1,2}}|{_SPELLED})\b",
    re.I,
    needles=("half", "quarter", "past", " to ", "after"),
)
_MINUTE_WORDS = {"five": 5, "ten": 10, "twenty": 20, "twenty five": 25}
# A span of hours: "2-3pm", "from 2 to 4", "between 14:00 and 15:30", "11am-1pm".
_ENDPOINT = (
    r"(?:(?P<{0}_noon>noon|midday)|(?P<{0}_hour>\d{{1,2}})(?:[:.](?P<{0}_minute>\d{{2}}))?"
    r"\s*(?P<{0}_half>[ap]\.?\s?m\b\.?)?)"
)
_RANGE = _lazy(
    r"(?<![\d/.:-])\b(?P<lead>from\s+|between\s+)?"
    + _ENDPOINT.format("first")
    + r"\s*(?P<sep>-|\u2013|\u2014|\bto\b|\buntil\b|\btill\b|\band\b)\s*"
    + _ENDPOINT.format("second")
    + r"(?![\d/.:-])(?!\s*(?:days?|weeks?|months?|hours?|hrs?|h\b|mins?|minutes?|people|of\b))",
    re.I,
    needles=("-", "\u2013", "\u2014", "to", "until", "till", "and"),
)
# What may follow a number that makes it no hour: "after 2 weeks", "around 3 days", "by the 15th".
_NOT_AN_HOUR = (
    r"(?!\s*(?:days?|weeks?|months?|years?|hours?|hrs?|h\b|mins?|minutes?|people|st\b|nd\b|rd\b|th\b))"
)
# A latest end: "before 11", "by 3pm", "until 5", "no later than noon", "by midnight" (the day's first
# hours up to it).
_BEFORE = _lazy(
    r"\b(?:before|by|until|till|up\s+to|no\s+later\s+than)\s+(?:(?P<midnight>midnight)|"
    + _ENDPOINT.format("by")
    + r")(?![\d:./-])"
    + _NOT_AN_HOUR,
    re.I,
    needles=("before", "by", "until", "till", "up", "later"),
)
# An earliest start: "after 3pm", "any time after 2", "no earlier than 10", "4pm onwards", "from 3 on".
_AFTER = _lazy(
    r"\b(?:(?:(?:any\s*time|anytime|some\s*time|sometime)\s+)?(?:after|no\s+earlier\s+than|not\s+before)\s+"
    + _ENDPOINT.format("after")
    + r"(?:\s+onwards?\b)?|(?:from\s+)?"
    + _ENDPOINT.format("from")
    + r"\s*(?:onwards?|on(?=\s*$)|or\s+later|and\s+later)\b)(?![\d:./-])"
    + _NOT_AN_HOUR,
    re.I,
    needles=("after", "earlier", "before", "on", "later"),
)
_DAY_STARTS = time(9)
_DAY_ENDS = time(18)
"""Where an earliest start's hours end ("after 3pm": 15:00-18:00), as the end of day does."""
_LAST_MINUTE = time(23, 59)
# "from 3pm" with no end or "onwards", once written 15:00: the time it starts (parsedatetime reads
# "tomorrow from 15:00" as 09:00).
_FROM_CLOCK = _lazy(r"\bfrom\s+(?=\d{2}:\d{2}\b)", re.I, needles=("from",))
# "17h", "9h30": the 24-hour clock as much of Europe writes it ("2h" alone is a length, not a time).
_H_CLOCK = _lazy(
    r"\b(?:(?P<lead>at|from|by|before|after|until|till|around)\s+)?(?P<hour>\d{1,2})h(?P<minute>\d{2})?\b",
    re.I,
    needles=tuple(f"{digit}h" for digit in _DIGITS),
)
# "1500hrs", "15:00h", "0930 hrs": the 24-hour clock with its suffix ("2 hours" is a length, not this).
_HRS_CLOCK = _lazy(
    r"\b(?P<hour>\d{1,2}):?(?P<minute>\d{2})\s*(?:hrs?|h)\b",
    re.I,
    needles=tuple(f"{digit}h" for digit in _DIGITS) + tuple(f"{digit} h" for digit in _DIGITS),
)
# "5 o'clock", "four o'clock": that hour, read as "at" reads it.
_OCLOCK = _lazy(r"(?:\bat\s+)?\b(?P<hour>\d{1,2}|[a-z]+)\s*o['\u2019]?\s*clock\b", re.I, needles=("clock",))
# An hour spelled out after a word that makes it one: "at four", "between two and four".
_SPELLED_HOUR = _lazy(
    r"(?P<lead>\b(?:at|from|around|about|by|before|after|until|till|between)\s+"
    r"|(?:(?<=\d)|(?<=[ap]m))\s*(?:to|and|until|till|-)\s*)"
    rf"(?P<hour>{_SPELLED})\b"
    r"(?!\s*(?:days?|weeks?|months?|hours?|hrs?|mins?|minutes?|people|of|others|more|times)\b)",
    re.I,
    needles=tuple(_HOUR_WORDS),
)
# How long, not when ("for 2 hours", "30 min", "an hour"): the meeting's length is a field of its own,
# and parsedatetime reads a length as that long from now ("Thursday for an hour": Thursday 17:00 at 16:00).
# "in 3 hours" is a time.
_LENGTH = _lazy(
    r"(?<!\bin\s)(?<!\bwithin\s)\b(?:for\s+)?(?:(?:about|around|roughly)\s+)?"
    r"(?:\d{1,3}(?:\.\d+)?\s*(?:minutes?|mins?|hours?|hrs?|h)\b|(?:an?|one)\s+hour(?:\s+and\s+a\s+half)?\b"
    r"|half\s+an?\s+hour\b|an?\s+half[\s-]hour\b|(?:a|one|three)\s+quarters?\s+of\s+an\s+hour\b)(?:\s+long\b)?",
    re.I,
    needles=("hour", "min", "hr", *(f"{digit}{gap}h" for digit in _DIGITS for gap in ("", " "))),
)
# "around 3", "about 10", "3ish", "2:30-ish": the hour said, read as "at" reads it.
_ISH = _lazy(r"\b(\d{1,2}(?:[:.]\d{2})?(?:\s*[ap]\.?\s?m\b\.?)?)\s*-?\s*ish\b", re.I, needles=("ish",))
_BARE_HOUR = _lazy(
    r"\b(?:at|from|around|about|roughly|approximately|approx\.?)\s+(\d{1,3})\b"
    r"(?!\s*(?::|[ap]\.?\s?m\b|h\b|st\b|nd\b|rd\b|th\b))" + _NOT_AN_HOUR,
    re.I,
    needles=("at", "from", "around", "about", "roughly", "approx"),
)


_AFTERNOON_HOURS = range(1, 8)  # "at 3" at work means 15:00, not 03:00
_EVENING_HOURS = range(1, 12)  # "tonight at 8" means 20:00, not 08:00
_EVENING_PARTS = frozenset(
    {"tonight", "evening", "early evening", "mid evening", "late evening", "dinner", "after work"}
)
"""Parts of the day in which an hour without am/pm from 1 to 11 is in the evening."""


_MONTH_BEFORE = _lazy(rf"\b{_MONTH_WORD}[a-z]*\.?\s+(?:the\s+)?$", re.I, needles=_MONTH_STEMS)
_MONTH_AFTER = _lazy(rf"(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_WORD}", re.I, needles=_MONTH_STEMS)


def _impossible(cleaned: str, said: str) -> UnparseableDate:
    """A time that cannot exist, named, with why (the user reads it: the scheduler shows it as said)."""
    return UnparseableDate(
        f"'{said}' in '{cleaned}' is not a time of day: hours run from 00:00 to 23:59, or 1 to 12 "
        "with am or pm. Say e.g. '3pm', '15:00' or 'morning'.",
        field=FIELD,
    )


class _Reading(msgspec.Struct):
    """What the pre-reading found: the text left for parsedatetime, a part of the day, notes."""

    text: str
    part: str | None = None
    notes: list[str] | None = None
    window: tuple[time, time] | None = None
    """A span of hours said as one ("2-3pm", "between 2 and 4")."""


def _span(match: re.Match[str], cleaned: str, pm_hours: range = _AFTERNOON_HOURS) -> tuple[time, time] | None:
    """The hours a span names, its halves of the day shared ("2-3pm": both pm; "11-1pm": 11am to 1pm);
    without am or pm, 1 to 7 is the afternoon (1 to 11 in the evening: "tonight 8-9"), as for one hour.
    None when "and" is not a span."""
    if match["sep"].casefold() == "and" and (match["lead"] or "").strip().casefold() != "between":
        return None  # "at 2 and 4" is two times, not a span
    ends: list[list[int]] = []
    for side in ("first", "second"):
        if match[f"{side}_noon"]:
            ends.append([12, 0])
            continue
        hour, minute = int(match[f"{side}_hour"]), int(match[f"{side}_minute"] or 0)
        if hour > 23 or minute > 59:
            raise _impossible(cleaned, match[0].strip())
        ends.append([hour, minute])
    halves = [
        "p" if match[f"{side}_noon"] else (match[f"{side}_half"] or "")[:1].casefold()
        for side in ("first", "second")
    ]
    for (hour, _), half in zip(ends, halves, strict=True):
        if half and not 1 <= hour <= 12:
            raise _impossible(cleaned, match[0].strip())
    second_half = halves[1] or halves[0]
    first_half = halves[0] or second_half
    if second_half:
        ends[1][0] = ends[1][0] % 12 + (12 if second_half == "p" else 0)
    if first_half:
        ends[0][0] = ends[0][0] % 12 + (12 if first_half == "p" else 0)
        if (
            not halves[0]
            and ends[0] >= ends[1]
            and first_half == "p"
            and ends[0][0] - 12 not in _AFTERNOON_HOURS
        ):
            ends[0][0] -= 12  # "11-1pm": 11 in the morning
    else:  # no am/pm: the working day's reading of 1 to 7 (of 1 to 11 in the evening)
        for clock in ends:
            if clock[0] in pm_hours:
                clock[0] += 12
    opens, closes = (time(hour, minute) for hour, minute in ends)
    if closes <= opens:
        raise UnparseableDate(
            f"'{match[0].strip()}' in '{cleaned}' ends before it starts. Say e.g. '2-3pm' or '14:00-15:30'.",
            field=FIELD,
        )
    return opens, closes


def _one_clock(match: re.Match[str], side: str, cleaned: str, pm_hours: range = _AFTERNOON_HOURS) -> time:
    """The time one end of a match names (groups ``{side}_noon``, ``_hour``, ``_minute``, ``_half``);
    without am or pm, 1 to 7 is the afternoon (1 to 11 in the evening)."""
    if match[f"{side}_noon"]:
        return time(12)
    hour, minute, half = int(match[f"{side}_hour"]), int(match[f"{side}_minute"] or 0), match[f"{side}_half"]
    if hour > 23 or minute > 59 or (half and not 1 <= hour <= 12):
        raise _impossible(cleaned, match[0].strip())
    if half:
        hour = hour % 12 + (12 if half[:1].casefold() == "p" else 0)
    elif hour in pm_hours:
        hour += 12
    return time(hour, minute)


def _hours_in_digits(text: str) -> str:
    """Hours written other ways, in digits: "17h30" -> "17:30", "5 o'clock" -> "at 5", "at four" -> "at 4"."""

    def h_clock(match: re.Match[str]) -> str:
        hour, minute = int(match["hour"]), int(match["minute"] or 0)
        if match["lead"] is None and match["minute"] is None and hour < 10:
            return match[0]  # "2h": a length
        if hour > 23 or minute > 59:
            raise _impossible(text, match[0])
        return f" {match['lead'] or ''} {hour:02d}:{minute:02d} "

    def hrs_clock(match: re.Match[str]) -> str:
        hour, minute = int(match["hour"]), int(match["minute"])
        if hour > 23 or minute > 59:
            raise _impossible(text, match[0])
        return f"{hour:02d}:{minute:02d}"  # the match lies between word boundaries

    def oclock(match: re.Match[str]) -> str:
        said = match["hour"].casefold()
        hour = _HOUR_WORDS.get(said) or (int(said) if said.isdigit() else 0)
        return f" at {hour} " if 1 <= hour <= 12 else match[0]

    text = _OCLOCK.sub(oclock, _H_CLOCK.sub(h_clock, _HRS_CLOCK.sub(hrs_clock, text)))
    for _ in range(2):  # again for the end of a span: "between two and four" -> "between 2 and 4"
        text = _SPELLED_HOUR.sub(lambda m: f"{m['lead']}{_HOUR_WORDS[m['hour'].casefold()]}", text)
    return text


def _hour_after(moment: time) -> time:
    return _LAST_MINUTE if moment.hour == 23 else time(moment.hour + 1, moment.minute)


def _read_times(cleaned: str) -> _Reading:
    """Parts of the day out, clock times checked and written as HH:MM for parsedatetime."""
    notes: list[str] = []
    text = cleaned
    part: str | None = None
    window: tuple[time, time] | None = None
    opened = False  # the window is an earliest start's ("after 3pm"): a latest end said too closes it
    shaded = _SHADED_PART.search(text)
    if shaded is not None:
        part = f"{shaded['shade']} {shaded['part']}".casefold()
        text = f"{text[: shaded.start()]} {text[shaded.end() :]}"
    for name, pattern in _PARTS:
        if pattern.search(text):
            part = part or name
            text = pattern.sub(" today " if name == "tonight" else " ", text)
    # "tonight at 8", "this evening at 9:30": an hour of the evening, not of the morning
    pm_hours = _EVENING_HOURS if part in _EVENING_PARTS else _AFTERNOON_HOURS

    def span(match: re.Match[str]) -> str:
        nonlocal window
        if _MONTH_BEFORE.search(match.string, 0, match.start()) or _MONTH_AFTER.match(
            match.string, match.end()
        ):
            return match[0]  # "Jan 5-7", "14-16 Dec": days of a month, not hours
        hours = _span(match, cleaned, pm_hours)
        if hours is None or window is not None:
            return match[0]
        window = hours
        notes.append(f"'{match[0].strip()}' read as {_hhmm(hours[0])}-{_hhmm(hours[1])}.")
        return " "

    def spoken(match: re.Match[str]) -> str:
        said = match["hour"].casefold()
        hour = _HOUR_WORDS.get(said) or int(said)
        if not 1 <= hour <= 12:
            raise _impossible(cleaned, match[0])
        how = match["how"].casefold()
        if match["minutes"]:
            said_minutes = " ".join(match["minutes"].casefold().replace("-", " ").split())
            minutes = _MINUTE_WORDS.get(said_minutes) or int(said_minutes)
            if not 1 <= minutes <= 59:
                raise _impossible(cleaned, match[0])
            before = match["way"].casefold() == "to"
            minute = 60 - minutes if before else minutes
        else:
            minute = 30 if how.startswith("half") else 15 if how.endswith("past") else 45
            before = how.endswith(" to")
        if before:
            hour = hour - 1 or 12
        if hour in pm_hours:
            morning = f"{hour}:{minute:02d}am"
            notes.append(
                f"'{match[0]}' read as {hour + 12:02d}:{minute:02d} (say '{morning}' for the morning)."
            )
            hour += 12
        return f" {hour:02d}:{minute:02d} "

    def meridiem(match: re.Match[str]) -> str:
        hour, minute = int(match[1]), int(match[2] or match[3] or 0)
        if not 1 <= hour <= 12 or minute > 59:
            raise _impossible(cleaned, match[0].strip())
        hour = hour % 12 + (12 if match[4].lower() == "p" else 0)
        return f" {hour:02d}:{minute:02d} "

    def clock(match: re.Match[str]) -> str:
        hour, minute = int(match[1]), int(match[2])
        if hour > 23 or minute > 59:
            raise _impossible(cleaned, match[0])
        if hour in pm_hours and not match[1].startswith("0"):
            notes.append(
                f"'{match[0]}' read as {hour + 12:02d}:{minute:02d} (say '{match[0]}am' for the morning)."
            )
            hour += 12
        return f" {hour:02d}:{minute:02d} "

    def bare(match: re.Match[str]) -> str:
        hour = int(match[1])
        if hour > 23:
            raise _impossible(cleaned, match[0])
        if hour in pm_hours:
            notes.append(f"'{match[0]}' read as {hour + 12:02d}:00 (say '{match[1]}am' for the morning).")
            hour += 12
        return f" at {hour:02d}:00 "

    def after(match: re.Match[str]) -> str:
        nonlocal window, opened
        if window is not None:
            return match[0]
        side = "after" if match["after_hour"] or match["after_noon"] else "from"
        starts = _one_clock(match, side, cleaned, pm_hours)
        # In the evening, past the end of day: the hour after it (a note says so).
        window, opened = (starts, _DAY_ENDS if starts < _DAY_ENDS else _hour_after(starts)), True
        notes.append(f"'{match[0].strip()}' read as {_hhmm(window[0])}-{_hhmm(window[1])}.")
        return " "

    def before(match: re.Match[str]) -> str:
        nonlocal window
        if window is not None and not opened:
            return match[0]
        ends = _LAST_MINUTE if match["midnight"] else _one_clock(match, "by", cleaned, pm_hours)
        if ends == time(0):
            raise _impossible(cleaned, match[0].strip())
        if window is not None:  # "after 2 but before 4": from the one to the other
            if ends <= window[0]:
                raise UnparseableDate(
                    f"'{match[0].strip()}' in '{cleaned}' ends before {_hhmm(window[0])}, the start said. "
                    "Say e.g. 'after 2pm and before 4pm'.",
                    field=FIELD,
                )
            window = (window[0], ends)
            notes.append(f"'{match[0].strip()}' read as ending the hours at {_hhmm(ends)}.")
            return " "
        # "before 9am", before the working day: the hour before it, outside working hours (a note says so)
        starts = (
            _DAY_STARTS
            if ends > _DAY_STARTS
            else time(max(ends.hour - 1, 0), ends.minute if ends.hour else 0)
        )
        window = (starts, ends)
        notes.append(f"'{match[0].strip()}' read as {_hhmm(window[0])}-{_hhmm(window[1])}.")
        return " "

    # A time in words first: "20 after 3" is 15:20, not an earliest start; "between half past two and
    # four" leaves "14:30 and four", whose hour is then in digits.
    text = _CLOCK_WORDS.sub(spoken, text)
    text = _hours_in_digits(text)
    text = _LENGTH.sub(" ", text)
    text = _ISH.sub(lambda m: f" around {m[1]} ", text)
    text = _RANGE.sub(span, text)
    text = _AFTER.sub(after, text)
    text = _BEFORE.sub(before, text)
    text = _NOON.sub(" 12:00 ", text)
    text = _MERIDIEM.sub(meridiem, text)
    text = _CLOCK.sub(clock, text)
    text = _BARE_HOUR.sub(bare, text)
    text = _FROM_CLOCK.sub(" ", text)
    return _Reading(" ".join(text.split()), part, notes, window)
