"""What a phrase says beyond one option: days ruled out ("not Thursday"), alternatives ("Tuesday or
Wednesday", "3 or 4pm"), hours said before the days they hold for, and a meeting that repeats
("every Tuesday": its first is proposed)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from msgspec.structs import replace

from multitool.toolkit.context import ToolContext
from multitool.tools.meeting.when.patterns import _MONTH_WORD, _WEEKDAY_WORD, _lazy
from multitool.tools.meeting.when.request import RequestedTime, _label

# What is left of "any time except Thursday" once the day ruled out is taken away.
_ANY_DAY = _lazy(
    r"^(?:(?:at|on|for|the)\s+)*(?:any\s*(?:time|day|week\s*day)|whenever)(?:\s+works)?$",
    re.I,
    needles=("any", "whenever"),
)


# Hours said before the day they are for: "between 2 and 4 on Thursday", "afternoon on Friday".
_LEADING_HOURS = _lazy(
    r"^\s*(?:(?:in|at|on|from|between|during|any\s*time|over)\s+)?(?:the\s+)?"
    r"(?:\d|noon|midday|(?:(?:early|mid|late)[\s-]*)?(?:morning|afternoon|evening|arvo)|lunch|first\s+thing"
    r"|before\s+lunch|after\s+lunch|after\s+\d|after\s+work|breakfast|dinner|"
    r"end\s+of\s+(?:the\s+)?(?:day|business)|eod|cob)",
    re.I,
)


_NEGATED = _lazy(
    # ("Tuesday, if not Wednesday" is a fallback, not a day ruled out)
    r"(?:,\s*)?\b(?:(?:but\s+)?(?<!\bif\s)not|no|never|avoid(?:ing)?|except|excluding|other\s+than|apart\s+from"
    r"|any\s*(?:day|time)\s+but)"
    r"\s+(?:on\s+)?"
    r"(?P<day>today|tomorrow|(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?)\b",
    re.I,
    needles=("not", "no", "never", "avoid", "except", "excluding", "other than", "apart from", "but"),
)
_ALTERNATIVE = _lazy(
    # "or", and a fallback: "Tuesday, or else Wednesday", "Tuesday, failing that Wednesday"
    r"\s*,?\s+\b(?:or(?:\s+(?:else|otherwise))?|else|otherwise|failing\s+that|if\s+not)\b(?:\s*,?\s*then\b)?\s*,?\s+"
    r"|\s*/\s*(?=[A-Za-z])"
    # a list of days: "Monday, Tuesday or Wednesday", "Thursday 10am and Friday 2pm"
    r"|(?:\s*,|\s*,?\s+and\b)\s*(?=(?:on\s+)?(?:(?:next|this)\s+)?(?:mon|tue|wed|thu|fri|sat|sun|today|tomorrow)[a-z]*\b)"
    # ... and of days of the month: "the 9th, 10th or 11th"
    r"|\s*,\s*(?=(?:on\s+)?(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b)",
    re.I,
    needles=("or", "/", ",", "and", "else", "otherwise", "failing", "if not"),
)
# What two alternatives share, said once: "3 or 4pm" (the half of the day), "at 10 or 11" (an hour),
# "December 9 or 10" / "9 or 10 December" (the month).
_OR_HALF = _lazy(
    r"\b(?P<first>\d{1,2}(?:[:.]\d{2})?)\s+or\s+(?P<second>\d{1,2}(?:[:.]\d{2})?)\s*(?P<half>[ap]\.?\s?m\b\.?)",
    re.I,
    needles=(" or ",),
)
_OR_HOUR = _lazy(
    r"\b(?P<lead>at|around|from)\s+(?P<first>\d{1,2}(?:[:.]\d{2})?|noon|midday)\s+or\s+(?P<second>\d{1,2})\b"
    r"(?!\s*(?:[:./]\d|[ap]\.?\s?m\b|st\b|nd\b|rd\b|th\b|days?\b|weeks?\b|months?\b|hours?\b|mins?\b|minutes?\b))",
    re.I,
    needles=(" or ",),
)
_OR_MONTH = _lazy(
    rf"\b(?P<month>{_MONTH_WORD}[a-z]*\.?)\s+(?P<first>\d{{1,2}}(?:st|nd|rd|th)?)\s+or\s+(?P<second>\d{{1,2}}(?:st|nd|rd|th)?)\b"
    rf"|\b(?P<first2>\d{{1,2}}(?:st|nd|rd|th)?)\s+or\s+(?P<second2>\d{{1,2}}(?:st|nd|rd|th)?)\s+(?P<of>of\s+)?"
    rf"(?P<month2>{_MONTH_WORD}[a-z]*\.?)(?=\W|$)",
    re.I,
    needles=(" or ",),
)


# "Tuesday or Wednesday next week": the week said once, for each day.
_DAYS_OF_A_WEEK = _lazy(
    rf"\b(?P<days>{_WEEKDAY_WORD}(?:\s*(?:,|\bor\b|\band\b|/)\s*{_WEEKDAY_WORD})+)\s+"
    r"(?P<week>(?:of\s+)?(?:next|this)\s+week)\b",
    re.I,
    needles=("week",),
)
_A_WEEKDAY = _lazy(_WEEKDAY_WORD, re.I)


def _shared_by_alternatives(text: str) -> str:
    """Each alternative with what the two share written out: "3 or 4pm" -> "3pm or 4pm"."""
    text = _DAYS_OF_A_WEEK.sub(lambda m: _A_WEEKDAY.sub(lambda day: f"{day[0]} {m['week']}", m["days"]), text)
    text = _OR_HALF.sub(lambda m: f"{m['first']}{m['half']} or {m['second']}{m['half']}", text)
    text = _OR_HOUR.sub(lambda m: f"{m['lead']} {m['first']} or {m['lead']} {m['second']}", text)

    def month(match: re.Match[str]) -> str:
        if match["month"]:
            return f"{match['month']} {match['first']} or {match['month']} {match['second']}"
        of = match["of"] or ""
        return f"{match['first2']} {of}{match['month2']} or {match['second2']} {of}{match['month2']}"

    return _OR_MONTH.sub(month, text)


# "between Monday and Wednesday": a span of days, not two alternatives.
_BETWEEN_DAYS = _lazy(
    rf"\bbetween\s+(?P<first>{_WEEKDAY_WORD})\s+and\s+(?=(?:{_WEEKDAY_WORD})\b)", re.I, needles=("between",)
)
# A meeting that repeats ("every Tuesday at 10", "weekly on Mondays", "daily at 9:30"): the reading is
# its first occurrence, and the note says that only that one is proposed.
_REPEATING = _lazy(
    r"\b(?:(?<=\bof\s)every\s+(?P<month>month)\b"
    r"|(?:every|each)\s+(?:(?:other|second|\d{1,2}|two|three|four|six)\s+)?"
    r"(?:(?P<each>(?:working\s+|week)?day|morning|afternoon|evening)\b|(?:weeks?|months?|fortnight)\b(?:\s+on\b)?"
    r"|(?=(?P<what>\w+)))"
    r"|(?:(?:bi-?)?weekly|fortnightly|daily|monthly|weekdays)\b(?:\s+on\b)?"
    r"|(?P<plural>mon|tues|wednes|thurs|fri|satur|sun)days\b)",
    re.I,
    needles=("every", "each", "weekly", "fortnightly", "daily", "monthly", "days"),
)
_PART_WORDS = frozenset({"morning", "afternoon", "evening"})
_NEXT_WORD = re.compile(r"\s*(?:the\s+)?\w+")


def _repeat_said(text: str) -> tuple[str, str | None, bool]:
    """(the text with the words that make a meeting repeat out, those words as said, whether it repeats
    every working day): "every Tuesday at 10" -> ("Tuesday at 10", "every Tuesday", False)."""
    said: list[tuple[int, int]] = []
    daily = False

    def drop(match: re.Match[str]) -> str:
        nonlocal daily
        # the day it repeats on is quoted with it: "every Tuesday", "weekly on Mondays"
        follows = _NEXT_WORD.match(text, match.end()) if match["what"] or match[0].endswith("on") else None
        said.append((match.start(), follows.end() if follows else match.end()))
        if match["month"]:
            return "the month"  # "the first Monday of every month": the first one
        if match["plural"]:
            return f"{match['plural']}day"
        each = " ".join((match["each"] or "").casefold().split())
        word = match[0].split()[0].casefold()
        daily = daily or bool(each) or word in ("daily", "weekdays")
        return f" {each} " if each in _PART_WORDS else " "

    rest = _REPEATING.sub(drop, text)
    if not said:
        return text, None, False
    return rest, " ".join(text[said[0][0] : said[-1][1]].split()), daily


def _first_occurrence(
    option: RequestedTime | None, repeat: str, daily: bool, ctx: ToolContext, zone: ZoneInfo | None
) -> RequestedTime:
    """The first meeting of a repeating one, with a note saying only it is proposed: a daily one
    ("daily at 9:30", "every morning") is on the first working day whose hours have not passed."""
    today = ctx.local_now.date()
    first = option or RequestedTime(today, zone=zone)
    if daily and first.last_day is None and first.day == today:
        ends = first.time or (first.window[1] if first.window is not None else None)
        passed = ends is not None and datetime.combine(today, ends, tzinfo=ctx.zone) <= ctx.local_now
        day = today + timedelta(days=1) if passed else today
        while day.weekday() >= 5:
            day += timedelta(days=1)
        first = replace(first, day=day)
    note = (
        f"'{repeat}' asks for a repeating meeting: this proposes the first, {_label(first.day)}; "
        "make it repeat in the calendar once it is booked."
    )
    return replace(first, notes=(*first.notes, note))
