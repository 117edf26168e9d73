"""People in the directory, and what a raw name resolves to.

Names reach the backend raw ("Kinshuok"); the directory port turns each into a
:class:`NameResolution`. An ambiguous or unknown name is carried on the card for
the user to settle: the system never guesses silently.
"""

from enum import StrEnum
from typing import Annotated

from pydantic import Field
from pydantic.dataclasses import dataclass

from multitool.wire import VALUE_CONFIG, WireValue


@dataclass(frozen=True, slots=True, config=VALUE_CONFIG)
class Person(WireValue):
    """One directory entry."""

    id: Annotated[str, Field(min_length=1, max_length=128)]
    display_name: Annotated[str, Field(min_length=1, max_length=200)]
    email: Annotated[str, Field(min_length=3, max_length=320)]
    timezone: Annotated[str, Field(max_length=64, description="IANA time zone name")] = "UTC"
    aliases: tuple[str, ...] = ()
    locale: Annotated[
        str | None,
        Field(
            max_length=35,
            description="BCP 47 language tag (en-GB): how the person writes dates; "
            "none: from the country of their time zone",
        ),
    ] = None


class Resolution(StrEnum):
    RESOLVED = "resolved"
    AMBIGUOUS = "ambiguous"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True, config=VALUE_CONFIG)
class NameResolution(WireValue):
    """A raw name and what the directory made of it."""

    query: Annotated[str, Field(description="The name exactly as the user or model wrote it")]
    status: Resolution
    person: Annotated[Person | None, Field(description="Set when status is resolved")] = None
    candidates: Annotated[
        tuple[Person, ...], Field(description="Set when status is ambiguous: the people the name could mean")
    ] = ()

    @property
    def settled(self) -> bool:
        return self.status is Resolution.RESOLVED and self.person is not None
