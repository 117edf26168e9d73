"""A zone a phrase names ("Europe/London", "London time", "PST", "in Priya's time zone", "11am
Pacific"): taken out of the phrase, which is then read in it."""

from __future__ import annotations

import functools
import re

from multitool.toolkit.context import ToolContext
from multitool.tools.meeting.when.patterns import _DIGITS, _lazy

# Abbreviations people write after a time, and the zone each is read as (said in a note):
# the region's zone, so "4pm PST" in July is still Pacific time, as its writer meant.
ZONE_ABBREVIATIONS: dict[str, str] = {
    "UTC": "UTC",
    "GMT": "UTC",
    "Z": "UTC",
    "BST": "Europe/London",
    "WET": "Europe/Lisbon",
    "CET": "Europe/Paris",
    "CEST": "Europe/Paris",
    "EET": "Europe/Athens",
    "IST": "Asia/Kolkata",
    "SGT": "Asia/Singapore",
    "JST": "Asia/Tokyo",
    "KST": "Asia/Seoul",
    "AEST": "Australia/Sydney",
    "AEDT": "Australia/Sydney",
    "NZST": "Pacific/Auckland",
    "NZDT": "Pacific/Auckland",
    "EST": "America/New_York",
    "EDT": "America/New_York",
    "ET": "America/New_York",
    "CST": "America/Chicago",
    "CDT": "America/Chicago",
    "CT": "America/Chicago",
    "MST": "America/Denver",
    "MDT": "America/Denver",
    "PST": "America/Los_Angeles",
    "PDT": "America/Los_Angeles",
    "PT": "America/Los_Angeles",
}
_ABBREVIATION = _lazy(
    r"(?:\s*\(\s*|\s+)(?:in\s+)?(?P<abbr>"
    + "|".join(sorted(ZONE_ABBREVIATIONS, key=len, reverse=True))
    + r")\b\)?",
    needles=tuple(abbreviation.casefold() for abbreviation in ZONE_ABBREVIATIONS),
)
_IANA_NAME = _lazy(
    r"\s*\(?\s*\b(?:in\s+)?(?P<zone>[A-Z][A-Za-z_]+(?:/[A-Za-z_+\-0-9]+){1,2})\b\)?", needles=("/",)
)
_CITY_TIME = _lazy(
    r"\s*\(?\b(?:in\s+)?(?P<city>[A-Za-z][A-Za-z .'-]{1,30}?)\s+(?:local\s+)?time\b(?:\s+zone)?\)?",
    re.I,
    needles=("time",),
)
_PERSON_TIME = _lazy(
    r"\s*\(?\b(?:in\s+|on\s+)?(?P<who>her|his|their|my|our|[^\W\d_][\w.'-]*(?:\s+[^\W\d_][\w.'-]*)?(?:'s|\u2019s))"
    r"\s+(?:local\s+)?time(?:\s*zone)?\b\)?",
    re.I,
    needles=("time",),
)
# A place or region right after a clock time, without "time": "11am Pacific", "16:00 London",
# "at 3 Eastern" (a bare hour after "at", as "at 3" alone is read).
_PLACE_AFTER_CLOCK = _lazy(
    r"\b(?:\d{1,2}(?::\d{2})?\s*[ap]\.?m\b\.?|\d{1,2}:\d{2}|(?<=\bat\s)\d{1,2}(?![\d:.]))\s+(?:in\s+)?"
    r"(?P<place>[A-Za-z][A-Za-z'-]*(?:\s+[A-Za-z][A-Za-z'-]*){0,2})",
    re.I,
    needles=_DIGITS,
)


_PRONOUNS = frozenset({"her", "his", "their"})
_OWN = frozenset({"my", "our"})
"""'my time', 'in our time zone': the user's own zone, said outright."""


@functools.cache
def _cities() -> dict[str, str]:
    """'london' -> 'Europe/London', 'new york' -> 'America/New_York': the zone database's cities."""
    from zoneinfo import available_timezones

    cities: dict[str, str] = {}
    for key in sorted(available_timezones()):
        if "/" in key and not key.startswith(("Etc/", "SystemV/", "US/", "posix/", "right/")):
            cities.setdefault(key.rsplit("/", 1)[1].replace("_", " ").casefold(), key)
    cities.update({"uk": "Europe/London", "pacific": "America/Los_Angeles", "eastern": "America/New_York"})
    cities.update({"central": "America/Chicago", "mountain": "America/Denver"})
    cities.update({"central european": "Europe/Paris", "india": "Asia/Kolkata", "japan": "Asia/Tokyo"})
    cities.update({"sf": "America/Los_Angeles", "san francisco": "America/Los_Angeles"})
    cities.update({"bangalore": "Asia/Kolkata", "mumbai": "Asia/Kolkata", "delhi": "Asia/Kolkata"})
    cities.update({"munich": "Europe/Berlin", "frankfurt": "Europe/Berlin", "boston": "America/New_York"})
    cities.update({"seattle": "America/Los_Angeles", "nyc": "America/New_York", "beijing": "Asia/Shanghai"})
    return cities


_REGIONS = frozenset({"pacific", "eastern", "central", "mountain", "uk"})
"""Region words read as a zone after a time in any case ("11am pacific"); a city must be capitalised."""


def place_zone(words: str) -> tuple[str, str] | None:
    """(IANA zone, the words that named it) for the place the first one to three ``words`` name
    ("Pacific", "New York", "London on Friday" -> London); None when they name none, or when a
    capitalised word follows, so that the place is part of a longer name ("Central Park")."""
    said = words.split()
    for end in range(min(len(said), 3), 0, -1):
        place = " ".join(said[:end])
        zone = _cities().get(place.casefold())
        longer = end < len(said) and said[end][:1].isupper()
        if zone is not None and not longer and (place[:1].isupper() or place.casefold() in _REGIONS):
            return zone, place
    return None


def _zone_named(text: str) -> tuple[str, str | None, str | None, str | None]:
    """(text without the zone, IANA zone, person, the words said)."""
    from multitool.zones import iana_zone

    for match in _IANA_NAME.finditer(text):
        if iana_zone(match["zone"]) is not None:
            return text[: match.start()] + text[match.end() :], match["zone"], None, match[0].strip(" ()")
    person = _PERSON_TIME.search(text)
    if person is not None:
        who = re.sub(r"['\u2019]s$", "", person["who"])
        who = who.casefold() if who.casefold() in _PRONOUNS | _OWN else who
        return text[: person.start()] + text[person.end() :], None, who, person[0].strip(" ()")
    for match in _CITY_TIME.finditer(text):
        words = match["city"].split()
        for first in range(len(words)):  # "at 4pm London time": the city is the last words
            city = " ".join(words[first:]).casefold()
            if city in _cities():
                head = match.start() + match[0].find(words[first]) if first else match.start()
                cut = text[:head] if first else text[: match.start()]
                return cut + text[match.end() :], _cities()[city], None, f"{' '.join(words[first:])} time"
    short = _ABBREVIATION.search(text)
    if short is not None:
        zone = ZONE_ABBREVIATIONS[short["abbr"]]
        return text[: short.start()] + text[short.end() :], zone, None, short["abbr"]
    for match in _PLACE_AFTER_CLOCK.finditer(text):
        found = place_zone(match["place"])
        if found is not None:
            head = match.start("place")
            tail = head + match["place"].find(found[1]) + len(found[1])
            return text[:head] + text[tail:], found[0], None, found[1]
    return text, None, None, None


def _in_zone(ctx: ToolContext, timezone: str) -> ToolContext:
    return ToolContext(
        owner=ctx.owner, session_id=ctx.session_id, now=ctx.now, timezone=timezone, locale=ctx.locale
    )
