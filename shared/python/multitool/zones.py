"""IANA time zones by name: one lookup that answers None for anything that is not a zone.

``ZoneInfo`` raises more than ``ZoneInfoNotFoundError`` for a bad name: a
``ValueError`` for a path-like key, an ``OSError`` for a key that names a
folder of the zone database ("Europe") or is too long for a file name. Every
caller that takes a zone from a user, a model or the directory goes through
:func:`iana_zone`, so none of those escapes as a crash.
"""

from __future__ import annotations

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
