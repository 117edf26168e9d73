"""A repeating meeting as said, read as a rule: "every other Friday until March", "weekly on Mondays
and Thursdays", "daily at 9:30 for 2 weeks" -> a :class:`multitool.ports.recurrence.Recurrence`.

The reader (:mod:`.reader`) takes the words that make a meeting repeat out of the phrase first
(:func:`.alternatives._repeat_said`) and the end of the series ("until March", "for 6 weeks") here
(:func:`end_said`), reads the first meeting from what is left, then the rule from those words
(:func:`rule_of`). "daily" and "every morning" are working days, as the first meeting is read.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from multitool.ports.recurrence import WEEKDAYS, Recurrence
from multitool.toolkit.context import ToolContext
from multitool.tools.meeting.when.patterns import _MONTH_WORD, _lazy

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_NUMBERS = {"two": 2, "three": 3, "four": 4, "six": 6, "other": 2, "second": 2}
_END = _lazy(
    rf"\s*,?\s*\b(?:(?:until|till|through|thru)\s+(?P<until>(?:{_MONTH_WORD}[a-z]*\.?"
    rf"(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?)|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_WORD}[a-z]*|\d{{4}}-\d{{2}}-\d{{2}})"
    r"|for\s+(?P<count>\d{1,2}|two|three|four|six)\s+(?P<unit>weeks|months|sessions|meetings|times))\b",
    re.I,
    needles=("until", "till", "through", "thru", "for "),
)
_DAY = re.compile(r"\b(mon|tue|wed|thu|fri|sat|sun)[a-z]*", re.I)


def end_said(text: str) -> tuple[str, str | None, tuple[str, str] | None]:
    """(the text without the series' end, the end as said, ("until"|"count", the value))."""
    match = _END.search(text)
    if match is None:
        return text, None, None
    rest = f"{text[: match.start()]} {text[match.end() :]}"
    if match["until"]:
        return rest, match[0].strip(" ,"), ("until", match["until"])
    return rest, match[0].strip(" ,"), ("count", f"{match['count']} {match['unit']}")


def rule_of(
    repeat: str, daily: bool, first: date, end: tuple[str, str] | None, ctx: ToolContext
) -> tuple[Recurrence, list[str]]:
    """The rule ``repeat`` says, from the first meeting on ``first``; notes on how its end was read."""
    words = repeat.casefold()
    interval = 1
    found = re.search(r"\bevery\s+(other|second|two|three|four|six|\d{1,2})\b", words)
    if found:
        interval = _NUMBERS.get(found[1]) or int(found[1])
    elif re.search(r"\b(?:bi-?weekly|fortnightly|fortnight)\b", words):
        interval = 2
    days: tuple[str, ...] = ()
    if re.search(r"\b(?:monthly|months?)\b", words):
        frequency = "monthly"
    elif daily or re.search(r"\b(?:working\s+day|weekdays?)\b", words):
        frequency, days = "weekly", ("MO", "TU", "WE", "TH", "FR")
    elif re.search(r"\bevery\s+(?:\w+\s+)?days?\b", words):
        frequency = "daily"
    else:
        named = tuple(dict.fromkeys(WEEKDAYS[_DAY_INDEX[m[1].casefold()]] for m in _DAY.finditer(repeat)))
        frequency, days = "weekly", named or (WEEKDAYS[first.weekday()],)
    notes: list[str] = []
    until, count = None, None
    if end is not None and end[0] == "until":
        until = _until(end[1], first, ctx)
        if until is not None:
            notes.append(f"'until {end[1]}' read as the series' last day, {until:%a %d %b %Y}.")
    elif end is not None:
        amount, unit = end[1].split()
        count = _NUMBERS.get(amount) or int(amount)
        if unit in ("weeks", "months") and interval > 1:
            count = max(1, -(-count // interval))
    rule = Recurrence.model_validate(
        {"frequency": frequency, "interval": interval, "weekdays": days, "until": until, "count": count}
    )
    return rule, notes


_DAY_INDEX = {name: index for index, name in enumerate(("mon", "tue", "wed", "thu", "fri", "sat", "sun"))}


def _until(said: str, first: date, ctx: ToolContext) -> date | None:
    """'March': the day before March begins (the next March on or after the first meeting);
    'March 5' / '5 March': that day; an ISO date as it is."""
    text = said.casefold().rstrip(".")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return date.fromisoformat(text)
    month_word = re.search(r"[a-z]+", text)
    day_word = re.search(r"\d{1,2}", text)
    if month_word is None or month_word[0][:3] not in _MONTHS:
        return None
    month = _MONTHS.index(month_word[0][:3]) + 1
    year = first.year if month >= first.month else first.year + 1
    if day_word is None:
        if month == first.month:
            year += 1
        return date(year, month, 1) - timedelta(days=1)
    try:
        return date(year, month, int(day_word[0]))
    except ValueError:
        return None
