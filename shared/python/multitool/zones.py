"""IANA time zones by name: one lookup that answers None for anything that is not a zone; a
zone's country, and the order in which a user's numeric dates put day and month.

``ZoneInfo`` raises more than ``ZoneInfoNotFoundError`` for a bad name: a
``ValueError`` for a path-like key, an ``OSError`` for a key that names a
folder of the zone database ("Europe") or is too long for a file name. Every
caller that takes a zone from a user, a model or the directory goes through
:func:`iana_zone`, so none of those escapes as a crash.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_LOOKUP_ERRORS = (ZoneInfoNotFoundError, ValueError, TypeError, OSError)


def iana_zone(name: object) -> ZoneInfo | None:
    """The zone named ``name`` (e.g. ``Europe/Berlin``), or None when there is no such zone."""
    if not isinstance(name, str) or not name:
        return None
    try:
        return ZoneInfo(name)
    except _LOOKUP_ERRORS:
        return None


@functools.cache
def zone_countries() -> dict[str, str]:
    """IANA zone -> ISO 3166 country code, from the zone database's own ``zone.tab`` (the ``tzdata``
    package the layer already ships)."""
    from pathlib import Path

    import tzdata  # type: ignore[import-untyped]  # only its folder: no stubs needed

    text = (Path(tzdata.__file__).parent / "zoneinfo" / "zone.tab").read_text(encoding="utf-8")
    countries: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) >= 3:
            countries[fields[2]] = fields[0]
    return countries


def country_of(zone: str) -> str | None:
    """The country a time zone belongs to ('Europe/London' -> 'GB'); None for UTC and the like."""
    return zone_countries().get(zone)


# -- the order of day and month in a numeric date ("3/1") ------------------------------------------

MONTH_FIRST = frozenset(
    {
        # MDY: the United States and the places that write dates as it does. Source: Wikipedia, "List of
        # date formats by country" (MDY: American Samoa, the Federated States of Micronesia, Guam, the
        # Marshall Islands, the Northern Mariana Islands, the United States, the US Virgin Islands), and
        # the other US territories (Puerto Rico, the US Minor Outlying Islands).
        *("US", "AS", "FM", "GU", "MH", "MP", "VI", "PR", "UM"),
        # YMD: the year first, so without it the month comes before the day ("3/1" is March 1st): the
        # same list's YMD countries (China, the Koreas, Taiwan, Japan, Hungary, Lithuania, Mongolia).
        *("CN", "KR", "KP", "TW", "JP", "HU", "LT", "MN"),
    }
)
"""Countries whose numeric dates put the month before the day."""
EITHER_FIRST = frozenset({"CA", "PH"})
"""Countries that write both orders (the same list: Canada DMY, MDY and YMD; the Philippines DMY and
MDY): their numeric dates are read as if the locale were not known."""
_LOCALE = re.compile(
    r"^(?P<language>[A-Za-z]{2,3}|und)(?:[-_](?P<script>[A-Za-z]{4}))?(?:[-_](?P<region>[A-Za-z]{2}))?"
)
"""A BCP 47 language tag as OpenID Connect's ``locale`` claim and the directory carry it ("en-GB",
"en_US", "zh-Hant-TW"), its region (a country code) when it has one."""


def valid_locale(locale: object) -> str | None:
    """``locale`` when it is a BCP 47 language tag of at most 35 characters, else None."""
    if not isinstance(locale, str) or not 2 <= len(locale) <= 35:
        return None
    match = _LOCALE.match(locale)
    rest = locale[match.end() :] if match is not None else None
    return locale if rest is not None and re.fullmatch(r"(?:[-_][A-Za-z0-9]{1,8})*", rest) else None


class DateOrder(NamedTuple):
    """How a user's numeric dates are read: day first, month first, or not known (None), and why."""

    day_first: bool | None
    why: str
    """In words for a note: "en-GB", "GB, the country of your time zone Europe/London"."""


def date_order(locale: str | None, timezone: str) -> DateOrder:
    """The order of day and month in this user's numeric dates: from the country of their locale
    (the directory's or the sign-in's ``locale``, e.g. "en-GB"), else from the country of their time
    zone (``zone.tab``: Europe/London -> GB); not known for a zone with no country (UTC), a locale
    without a country ("en") and the countries that write both orders."""
    match = _LOCALE.match(locale) if valid_locale(locale) and locale is not None else None
    region = (match["region"] or "").upper() if match is not None else ""
    if region:
        why = locale or region
    else:
        region = country_of(timezone) or ""
        why = f"{region}, the country of your time zone {timezone}"
    if not region or region in EITHER_FIRST:
        return DateOrder(None, why if region else f"your time zone {timezone} names no country")
    return DateOrder(region not in MONTH_FIRST, why)
