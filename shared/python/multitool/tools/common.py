"""Helpers the tool modules share: name fields, external addresses, readable validation errors."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Annotated, Any

import msgspec
from pydantic import Field, StringConstraints, ValidationError

from multitool.drafts import MAX_DRAFT_ID_CHARS
from multitool.people import NameResolution, Person, Resolution
from multitool.ports.calendar import Interval
from multitool.text import CLEAN_SINGLE_LINE
from multitool.tools.base import MAX_NAME_CHARS, InvalidInput, is_address
from multitool.validation import first_field, problems

# A name is one line of text (multitool.text): cleaned first, then trimmed and measured.
RawName = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME_CHARS), CLEAN_SINGLE_LINE
]

DraftRef = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_DRAFT_ID_CHARS),
    CLEAN_SINGLE_LINE,
]

REVISES = (
    "Only when the user asks to change a card already made: that card's draftId (the conversation "
    "lists cards as '[cards: <draftId> <tool>: <caption>]'). Pass every field of the revised card, "
    "not only the changed one; the earlier card is replaced and can no longer be confirmed."
)


def revises_field() -> Any:
    """The optional ``revises`` argument every tool takes: the draft a call revises."""
    return Field(default=None, description=REVISES)


def replaced_field() -> Any:
    """The payload's ``revises``: the draft this one replaced, when it is a revision."""
    return Field(default=None, description="The draftId of the card this one replaced")


People = Mapping[str, NameResolution]
BusyTimes = Mapping[str, Sequence[Interval]]


class Prepared(msgspec.Struct, frozen=True):
    """A validated call, ready for the batch's one directory read (and one busy read).

    ``finish`` builds the payload (without ``draftId``) from what those reads found. Busy
    times are read over ``busy_window`` for the people ``busy_names`` resolve to and for the
    addresses in ``busy_emails``.
    """

    names: Sequence[str]
    finish: Callable[[People, BusyTimes], dict[str, Any]]
    busy_window: tuple[datetime, datetime] | None = None
    busy_names: Sequence[str] = ()
    busy_emails: Sequence[str] = ()


EXTERNAL_ID_PREFIX = "external:"


def external_person(address: str) -> Person:
    """Someone outside the directory, known only by an address the user typed."""
    # No time zone: theirs is not known, and a made-up one would show them a wrong local time.
    return Person(
        id=f"{EXTERNAL_ID_PREFIX}{address.casefold()}", display_name=address, email=address, timezone=""
    )


def is_external(person: Person) -> bool:
    """True for a recipient known only by an address: their time zone is not known."""
    return person.id.startswith(EXTERNAL_ID_PREFIX)


def resolve_recipient(query: str, people: People) -> NameResolution:
    """A directory match, else (for a bare address) an external recipient, else unknown."""
    found = people.get(query) or NameResolution(query=query, status=Resolution.UNKNOWN)
    if found.status is Resolution.UNKNOWN and is_address(query):
        return NameResolution(query=query, status=Resolution.RESOLVED, person=external_person(query))
    return found


def unsettled_notes(resolutions: Sequence[NameResolution], role: str) -> list[str]:
    """Words for the model and the card about names the user has to settle."""
    notes: list[str] = []
    for r in resolutions:
        if r.status is Resolution.UNKNOWN:
            notes.append(
                f"No one named '{r.query}' is in the directory; the user picks the {role} on the card."
            )
        elif r.status is Resolution.AMBIGUOUS:
            options = ", ".join(p.display_name for p in r.candidates)
            notes.append(f"'{r.query}' matches several people ({options}); the user picks one on the card.")
    return notes


def invalid_input(error: ValidationError) -> InvalidInput:
    """One readable message per problem, naming the camelCase field; never echoes the input."""
    return InvalidInput(problems(error) or "The arguments are invalid.", field=first_field(error))
