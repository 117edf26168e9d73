"""People in the directory, and what a raw name resolves to.

Names reach the backend raw ("Kinshuok"); the directory port turns each into a
:class:`NameResolution`. An ambiguous or unknown name is carried on the card for
the user to settle: the system never guesses silently.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from multitool.wire import WireModel


class Person(WireModel):
    """One directory entry."""

    id: str = Field(min_length=1, max_length=128)
    display_name: str = Field(min_length=1, max_length=200)
    email: str = Field(min_length=3, max_length=320)
    timezone: str = Field(default="UTC", max_length=64, description="IANA time zone name")
    aliases: tuple[str, ...] = ()


class Resolution(StrEnum):
    RESOLVED = "resolved"
    AMBIGUOUS = "ambiguous"
    UNKNOWN = "unknown"


class NameResolution(WireModel):
    """A raw name and what the directory made of it."""

    query: str = Field(description="The name exactly as the user or model wrote it")
    status: Resolution
    person: Person | None = Field(default=None, description="Set when status is resolved")
    candidates: tuple[Person, ...] = Field(
        default=(), description="Set when status is ambiguous: the people the name could mean"
    )

    @property
    def settled(self) -> bool:
        return self.status is Resolution.RESOLVED and self.person is not None
