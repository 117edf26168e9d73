"""Public holidays: whose day off a slot falls on.

The directory holds no country: a person's country is derived from their IANA time zone by the
zone database's own ``zone.tab`` (``Europe/London`` -> GB, ``America/New_York`` -> US, from the
``tzdata`` package the layer already ships). A zone the table does not list (``UTC``,
``Etc/GMT+5``) has no country and so no holidays. The holidays of a country are the ``holidays``
package's public holidays for it (national ones only: a region is not known from a zone).

The layer carries those holidays as a table (:data:`TABLE`, written when the layer is built, from
the layer's own ``holidays``: ``python -m multitool.ports.holidays OUT``), for the build's year
and the :data:`TABLE_YEARS` - 1 after it: one line per country, read and decoded for the countries
a lookup asks about. Importing ``holidays`` itself costs far more than a first request can afford
(its ``countries`` package imports every country it covers, about 250 modules: ~250 ms of CPU at a
cold start here), so the package is imported only for a year the table does not hold, or where
there is no table (the sources, as tests and ``make demo`` run them). The table is the package's
answer, so the two cannot disagree: ``tests/unit/ports/test_public_holidays.py`` checks it line for line.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Iterable, Mapping
from datetime import date
from pathlib import Path
from typing import NamedTuple

from multitool import FOLDER
from multitool.zones import country_of
from multitool.zones import zone_countries as _zone_countries

TABLE = "public_holidays.txt"
"""The table's file name, in the ``multitool`` package's folder in the layer."""
TABLE_YEARS = 4
"""How many years the table holds, from the year it is written."""


class HolidayTable(NamedTuple):
    """The public holidays of each country for the years ``first``..``last``, as the table file has them.

    A tuple, not a Struct (:mod:`multitool.records`): the layer build runs this module with the
    layer's own wheels, built for Lambda's platform, so it imports nothing compiled."""

    first: int
    last: int
    data: bytes
    """The file as it is (UTF-8): a lookup finds its country's line, ``\\nCC {json}``, and decodes that
    line alone (the file is about 470 KB; decoding and splitting all of it cost a first meeting
    proposal about 1.5 ms)."""

    def holidays(self, country: str, year: int) -> Mapping[date, str] | None:
        """The country's holidays in ``year``; None when the table does not hold that year."""
        if not self.first <= year <= self.last:
            return None
        marker = f"\n{country} ".encode()
        start = self.data.find(marker)
        if start < 0:  # a country the package does not cover: no holidays known
            return {}
        start += len(marker)
        end = self.data.find(b"\n", start)
        days: dict[str, str] = json.loads(self.data[start : end if end >= 0 else len(self.data)])
        prefix = f"{year:04d}-"
        return {date.fromisoformat(day): name for day, name in days.items() if day.startswith(prefix)}


def read_table(data: bytes) -> HolidayTable:
    """Read a table file's bytes: a ``years FIRST LAST`` line, then one ``CC {json}`` line per country."""
    end = data.find(b"\n")
    head = data[: end if end >= 0 else len(data)].decode("utf-8", errors="replace")
    fields = head.split()
    if len(fields) != 3 or fields[0] != "years":
        raise ValueError(f"not a public holiday table: {head[:40]!r}")
    return HolidayTable(int(fields[1]), int(fields[2]), data)


@functools.cache
def _installed_table() -> HolidayTable | None:
    """The layer's table; None where there is none (the sources)."""
    try:
        data = (FOLDER / TABLE).read_bytes()
    except FileNotFoundError:
        return None
    return read_table(data)


LANGUAGE = "en_US"
"""The language of the names: Lambda's locale (``LANG=en_US.UTF-8``,
https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime),
which is where the package would read it from; named here, so that no machine's locale changes them
(a name the package has no English for stays in the country's own language)."""


def _package_holidays(country: str, years: Iterable[int]) -> dict[date, str]:
    import holidays  # only past the table (see the module docstring)

    try:
        return dict(holidays.country_holidays(country, years=list(years), language=LANGUAGE).items())
    except NotImplementedError:  # a country the package does not cover: no holidays known
        return {}


@functools.cache
def _holidays(country: str, year: int) -> Mapping[date, str]:
    table = _installed_table()
    known = table.holidays(country, year) if table is not None else None
    return known if known is not None else _package_holidays(country, [year])


def table_text(first: int, years: int = TABLE_YEARS) -> str:
    """The table for ``years`` years from ``first``: every country a time zone names, as the
    installed ``holidays`` package answers for it."""
    last = first + years - 1
    lines = [f"years {first} {last}"]
    for country in sorted(set(_zone_countries().values())):
        days = _package_holidays(country, range(first, last + 1))
        if days:
            row = {day.isoformat(): name for day, name in sorted(days.items())}
            lines.append(f"{country} {json.dumps(row, ensure_ascii=False, separators=(',', ':'))}")
    return "\n".join(lines) + "\n"


def holiday(day: date, zone: str) -> tuple[str, str] | None:
    """(country, holiday name) when ``day`` is a public holiday where ``zone`` is, else None."""
    country = country_of(zone)
    if country is None:
        return None
    name = _holidays(country, day.year).get(day)
    return (country, name) if name else None


def main(argv: list[str]) -> int:
    """``python -m multitool.ports.holidays OUT [FIRST_YEAR]``: write the table (the layer build)."""
    if len(argv) not in (1, 2):
        print("usage: python -m multitool.ports.holidays OUT [FIRST_YEAR]", file=sys.stderr)
        return 2
    first = int(argv[1]) if len(argv) == 2 else date.today().year
    Path(argv[0]).write_text(table_text(first), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
