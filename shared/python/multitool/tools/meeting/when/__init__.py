"""A day or time as people say it -> a concrete day (and maybe a time) in the user's zone.

ISO 8601 goes through :func:`datetime.fromisoformat` (then ``dateutil``'s
``isoparse`` for the basic format); everything else through ``parsedatetime``,
relative to ``ctx.now`` in the user's time zone. Conventions (parsedatetime's):

- a weekday name is its next occurrence after today ("Thursday" said on a
  Thursday is next week's); "today" is today;
- "next Tuesday" is the coming Tuesday; "tomorrow at 3pm" carries a time;
- a day before today, or a time already past, is rejected, as is anything
  more than a year ahead or text that names no date;
- a time that cannot exist ("25:00", "13pm", "9:75") is rejected, never dropped;
- a part of the day narrows the search to hours (:data:`PARTS_OF_DAY`): first
  thing 09:00-10:00, morning and before lunch 09:00-12:00, lunchtime 12:00-14:00,
  afternoon and after lunch 13:00-17:00, end of day 16:00-18:00, evening and
  tonight 17:00-19:00, each early, mid or late in it its first, middle or last
  hours ("late afternoon" 15:00-17:00); noon and midday are 12:00; a span of hours
  ("2-3pm", "between 2 and 4"), a latest end ("by 3pm", "before noon", "by
  midnight": from 09:00) and an earliest start ("after 3pm", "4pm onwards": to
  18:00, or the hour after it in the evening) narrow it the same way;
- an hour without am/pm from 1 to 7 ("at 3", "2:30", "around 3", "3ish") is read
  as the afternoon;
- what parsedatetime misreads is rewritten first: shortened weekdays ("thurs"),
  dotted times ("9.30"), a weekday of a week ("Friday next week", "Monday week":
  a week after the coming Monday), a day of the month ("the 15th"), a numeric
  date that can only be day/month ("15/12"), the day after tomorrow; a weekday
  said that is not the weekday of the day read is noted, never trusted.

Every such reading is said in :attr:`RequestedTime.notes`, so the card shows it.

The reader goes by stage, each module with the patterns it uses (lowest first):
:mod:`.patterns` (compiled on first use), :mod:`.request` (the request types and the checks every
reading shares), :mod:`.clock` (clock times, parts of the day), :mod:`.natural` (ISO 8601 and the
parsedatetime bridge), :mod:`.days` (days parsedatetime misreads), :mod:`.spans` (spans of days),
:mod:`.option` (one alternative), :mod:`.zone_words` (a zone named), :mod:`.alternatives`
(alternatives, days ruled out, repeats), :mod:`.reader` (the phrase as a whole) and :mod:`.values`
(the structured values a model passes).
"""

from multitool.tools.meeting.when.clock import PARTS_OF_DAY
from multitool.tools.meeting.when.patterns import LAZY_PATTERNS
from multitool.tools.meeting.when.reader import PhraseReading, read_phrase, resolve_when
from multitool.tools.meeting.when.request import (
    FIELD,
    MAX_DAYS_AHEAD,
    RequestedTime,
    TimeRequest,
    as_request,
    check_option,
    describe,
    example_time,
)
from multitool.tools.meeting.when.values import MAX_SPAN_DAYS, TIMES_FORMAT, structured_request, time_option
from multitool.tools.meeting.when.zone_words import ZONE_ABBREVIATIONS, place_zone

__all__ = [
    "FIELD",
    "LAZY_PATTERNS",
    "MAX_DAYS_AHEAD",
    "MAX_SPAN_DAYS",
    "PARTS_OF_DAY",
    "TIMES_FORMAT",
    "ZONE_ABBREVIATIONS",
    "PhraseReading",
    "RequestedTime",
    "TimeRequest",
    "as_request",
    "check_option",
    "describe",
    "example_time",
    "place_zone",
    "read_phrase",
    "resolve_when",
    "structured_request",
    "time_option",
]
