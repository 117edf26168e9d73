"""Public holidays: whose day off a slot falls on.

The directory holds no country: a person's country is derived from their IANA time zone by the
zone database's own ``zone.tab`` (``Europe/London`` -> GB, ``America/New_York`` -> US, from the
``tzdata`` package the layer already ships). A zone the table does not list (``UTC``,
``Etc/GMT+5``) has no country and so no holidays. The holidays of a country are the ``holidays``
package's public holidays for it (national ones only: a region is not known from a zone).

``holidays`` is imported on the first lookup only, never when a handler loads: it costs a few
hundred milliseconds and the tools that never propose a meeting never pay it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from datetime import date
from importlib import resources


@functools.cache
def _zone_countries() -> Mapping[str, str]:
    """IANA zone -> ISO 3166 country code, from tzdata's ``zone.tab``."""
    text = resources.files("tzdata").joinpath("zoneinfo", "zone.tab").read_text(encoding="utf-8")
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
    return _zone_countries().get(zone)


@functools.cache
def _holidays(country: str, year: int) -> Mapping[date, str]:
    import holidays  # first lookup only (see the module docstring)

    try:
        return dict(holidays.country_holidays(country, years=year).items())
    except NotImplementedError:  # a country the package does not cover: no holidays known
        return {}


def holiday(day: date, zone: str) -> tuple[str, str] | None:
    """(country, holiday name) when ``day`` is a public holiday where ``zone`` is, else None."""
    country = country_of(zone)
    if country is None:
        return None
    name = _holidays(country, day.year).get(day)
    return (country, name) if name else None
