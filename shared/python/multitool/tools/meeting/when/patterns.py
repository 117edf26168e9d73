"""The reader's patterns, each compiled on its first use, and the words several stages share (a
weekday, a month) as alternations to build them with."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from collections.abc import Iterator


class _LazyPattern:
    """A regular expression compiled on its first use. Every function that serves the meeting tool
    imports this package, the review function too, which never reads a phrase: compiling its patterns
    at import cost it 5-12 ms of CPU (Python 3.13) on every cold start.

    ``needles``: text one of which every match holds (casefolded). A phrase without any cannot match,
    so the pattern is neither compiled nor run for it: the first phrase a container reads compiles only
    the patterns it could use ("Thursday at 3pm" compiles none of those for spans of days, lengths or
    earliest starts). ``tests/unit/tools/test_when_patterns.py`` reads a random corpus and phrases of
    every stage with and without the needles, and holds the readings equal."""

    def __init__(self, pattern: str, flags: int, needles: tuple[str, ...]) -> None:
        self.source = (pattern, flags)
        self.needles = needles

    @functools.cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(*self.source)

    def absent(self, text: str) -> bool:
        """Whether ``text`` holds none of the needles: the pattern cannot match it."""
        if not self.needles:
            return False
        folded = text.casefold()
        return not any(needle in folded for needle in self.needles)

    def sub(self, repl: Any, string: str, count: int = 0) -> str:
        return string if self.absent(string) else self.compiled.sub(repl, string, count)

    def search(self, string: str, *span: int) -> re.Match[str] | None:
        return None if self.absent(string) else self.compiled.search(string, *span)

    def match(self, string: str, *span: int) -> re.Match[str] | None:
        return None if self.absent(string) else self.compiled.match(string, *span)

    def finditer(self, string: str) -> Iterator[re.Match[str]]:
        return iter(()) if self.absent(string) else self.compiled.finditer(string)

    def split(self, string: str) -> list[str]:
        return [string] if self.absent(string) else self.compiled.split(string)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled, name)


LAZY_PATTERNS: list[_LazyPattern] = []
"""This module's patterns, each compiled when first used."""


def _lazy(pattern: str, flags: int = 0, needles: tuple[str, ...] = ()) -> re.Pattern[str]:
    lazy = _LazyPattern(pattern, flags, needles)
    LAZY_PATTERNS.append(lazy)
    return cast("re.Pattern[str]", lazy)


_DIGITS = tuple("0123456789")
_WEEKDAY_STEMS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_MONTH_STEMS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


# A weekday as written out or shortened to three letters ("Friday", "fri"; "thurs" is spelled out first).
_WEEKDAY_WORD = r"(?:mon|tue|wed|thu|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?"


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH_WORD = rf"(?:{'|'.join(_MONTHS)})"
