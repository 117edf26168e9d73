"""Directory port: raw names -> people."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from multitool.people import NameResolution


class Directory(Protocol):
    def resolve(self, names: Sequence[str]) -> Mapping[str, NameResolution]:
        """Resolve every name of a request in ONE backend read.

        Keys are the names exactly as given. Matching is case- and
        accent-insensitive; several matches are ``ambiguous``, none ``unknown``.
        """
        ...
