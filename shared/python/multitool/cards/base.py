"""What a card is: the base model every tool's card extends, and the words cards share.

A tool module defines its card (a :class:`Card` subclass with a ``Literal`` ``type``), how
two of its cards are recognised as the same action (the fingerprint, for trace dedupe) and
its caption (the one-line ``clientActionMessages`` text), and puts them in its
:class:`CardSpec`. :mod:`multitool.cards.client_actions` maps payloads to cards from the
registry; this module knows no tool.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Generic, TypeVar

from multitool.people import NameResolution, Resolution
from multitool.wire import WireModel
from pydantic import AliasChoices, ConfigDict, Field

# A card validates from its wire form ({"type", "id"}) and straight from a payload ({"action", "draftId"}).
TYPE_ALIAS = AliasChoices("action", "type")
ID_ALIAS = AliasChoices("draftId", "id")


class Card(WireModel):
    """One card (a client action on the wire): what the page renders for the user to review.

    Fields a payload carries beyond the card model are ignored, so a tool that
    adds a field never makes its card disappear (a test keeps both in step).
    """

    model_config = ConfigDict(extra="ignore", json_schema_serialization_defaults_required=True)

    type: str = Field(validation_alias=TYPE_ALIAS)
    id: str = Field(
        min_length=1,
        validation_alias=ID_ALIAS,
        description="The draft id: confirm or discard through /actions/{id}",
    )
    notes: tuple[str, ...] = Field(default=(), description="What the user has to settle on the card")
    revises: str | None = Field(
        default=None, description="The id of the card this one replaced (a revision asked for in chat)"
    )


C = TypeVar("C", bound=Card)
# What makes two cards of one type the same action: hashable, compared with ==.
Fingerprint = tuple[Hashable, ...]


@dataclass(frozen=True, slots=True)
class CardSpec(Generic[C]):
    """A tool's card: its model, and how to recognise, caption and speak of one.

    ``said``: what the assistant did, as a clause after "I" ("drafted an email to
    Kinshuok Sharma about the doc"), for the turn's answer when the cards say it all
    (:mod:`multitool.runtimes.summary`); None when this card needs the model's own words.
    ``held``: what a confirm does, as the answer's last sentence says it ("Nothing is
    sent until you confirm.").
    """

    model: type[C]
    fingerprint: Callable[[C], Fingerprint]
    caption: Callable[[C], str]
    said: Callable[[C], str | None] | None = None
    held: str = "sent"


# --------------------------------------------------------------------------- fingerprint parts


def norm(text: str | None) -> str:
    """Case- and whitespace-insensitive form of a text, for fingerprints."""
    return " ".join(text.casefold().split()) if text else ""


def _who(resolution: NameResolution) -> str:
    person = resolution.person
    return person.email.casefold() if person is not None else norm(resolution.query)


def people_key(people: Sequence[NameResolution]) -> Hashable:
    """The people of a card whatever their order: one address, or the sorted addresses of several."""
    if len(people) == 1:  # the common case: nothing to sort
        return _who(people[0])
    return tuple(sorted([_who(p) for p in people]))


# --------------------------------------------------------------------------- caption parts


def names_of(people: Sequence[NameResolution]) -> str:
    """'Kinshuok', 'Kinshuok and Priya', 'nobody yet'."""
    if len(people) == 1:  # the common case
        only = people[0]
        return (only.person.display_name if only.person is not None else only.query) or "nobody yet"
    if not people:
        return "nobody yet"
    names = [p.person.display_name if p.person is not None else p.query for p in people]
    return ", ".join(names[:-1]) + " and " + names[-1]


def unresolved_notes(people: Iterable[NameResolution | None]) -> str:
    """' (Kinshuok matches 2 people: pick one)' for every name the user must settle."""
    notes: list[str] = []
    for person in people:
        if person is None or person.status is Resolution.RESOLVED:
            continue
        if person.status is Resolution.AMBIGUOUS:
            notes.append(f"{person.query} matches {len(person.candidates)} people: pick one")
        elif person.status is Resolution.UNKNOWN:
            notes.append(f"no one named {person.query} found: check the name")
    return f" ({'; '.join(notes)})" if notes else ""


# English names, as strftime's %a and %b give them in the C locale, without their per-call cost.
_WEEKDAYS: Final = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS: Final = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def day_words(moment: datetime) -> str:
    """'Thu 3 Dec'."""
    return f"{_WEEKDAYS[moment.weekday()]} {moment.day} {_MONTHS[moment.month - 1]}"


# --------------------------------------------------------------------------- what the assistant says

# A day or time the user gave that reads on its own after a noun ("a sync tomorrow at 3pm");
# anything else takes "on" ("a sync on Thursday").
_FREE_STANDING: Final = frozenset(
    {"today", "tomorrow", "tonight", "next", "this", "in", "at", "on", "by", "before", "after", "later"}
)


def when_words(requested: str) -> str:
    """'on Thursday', 'tomorrow at 3pm', 'next Tuesday': the user's words, as a phrase after a noun."""
    text = " ".join(requested.split())
    first = text.split(" ", 1)[0].casefold() if text else ""
    return text if first in _FREE_STANDING else f"on {text}"


def a_thing(title: str, fallback: str = "meeting") -> str:
    """'a sync' for "Sync", 'an onboarding' for "Onboarding", 'a Q3 review' for "Q3 review"."""
    text = " ".join(title.split()) or fallback
    first = text.split(" ", 1)[0]
    if first[:1].isupper() and first[1:].islower():  # a capitalised common word, not "Q3" or "API"
        text = text[:1].lower() + text[1:]
    article = "an" if text[:1].casefold() in "aeiou" else "a"
    return f"{article} {text}"


def quoted(text: str) -> str:
    """The text in double quotes, on one line."""
    return f'"{" ".join(text.split())}"'
