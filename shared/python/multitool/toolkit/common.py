"""Helpers the tool modules share: name fields, external addresses, readable validation errors."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
from pydantic import Field, StringConstraints, ValidationError

from multitool.drafts import MAX_DRAFT_ID_CHARS
from multitool.people import NameResolution, Person, Resolution
from multitool.ports.calendar import Interval
from multitool.text import CLEAN_SINGLE_LINE
from multitool.toolkit.context import RawName as RawName  # where the tools read it
from multitool.toolkit.context import is_address
from multitool.toolkit.errors import InvalidInput
from multitool.validation import first_field, problems

if TYPE_CHECKING:
    from multitool.toolkit.references import Found, Lookup


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

    ``finish`` builds the payload (without ``draftId``) from what those reads found: the
    people, the busy times, and the items its ``lookups`` named (one resolution each, in
    order: :mod:`multitool.toolkit.references`). Busy times are read over ``busy_window`` for
    the people ``busy_names`` resolve to and for the addresses in ``busy_emails``; items are
    found after the directory read and before the busy-time read.
    """

    names: Sequence[str]
    finish: Callable[[People, BusyTimes, Found], dict[str, Any]]
    busy_window: tuple[datetime, datetime] | None = None
    busy_names: Sequence[str] = ()
    busy_emails: Sequence[str] = ()
    lookups: Sequence[Lookup] = ()
    busy_found: Callable[[Found], Sequence[str]] | None = None
    """The addresses whose busy times the items found add (a meeting being moved: its attendees),
    read in the same one busy read: items are found before it."""


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


def days_in_order(first: date, last: date | None) -> None:
    """Refuse a last day before the first (the validator of the arguments of a card over some days)."""
    if last is not None and last < first:
        raise ValueError("toDay is before fromDay")


def days_within(first: date, last: date | None, most: int, verb: str) -> tuple[date, date, list[str]]:
    """The first and last day as passed (one day when no last), the last cut so the span is at most
    ``most`` days, and a note on the cut ("Only the first 14 days are shown.", ``verb`` saying what
    the card does with them)."""
    last = last or first
    if (last - first).days >= most:
        return first, first + timedelta(days=most - 1), [f"Only the first {most} days are {verb}."]
    return first, last, []


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


# Letters of other scripts drawn like Latin ones (a subset of Unicode's confusables.txt, UTS #39
# section 4, https://www.unicode.org/reports/tr39/#Confusable_Detection): a label made of them alone
# ("paypal" spelled in Cyrillic letters) reads as a Latin word without mixing scripts.
_CYRILLIC = (
    "SMALL LETTER A",
    "SMALL LETTER IE",
    "SMALL LETTER SHHA",
    "SMALL LETTER BYELORUSSIAN-UKRAINIAN I",
    "SMALL LETTER JE",
    "SMALL LETTER PALOCHKA",
    "SMALL LETTER O",
    "SMALL LETTER ER",
    "SMALL LETTER QA",
    "SMALL LETTER DZE",
    "SMALL LETTER WE",
    "SMALL LETTER HA",
    "SMALL LETTER U",
    "SMALL LETTER KOMI DE",
    "SMALL LETTER ES",
    "CAPITAL LETTER A",
    "CAPITAL LETTER VE",
    "CAPITAL LETTER IE",
    "CAPITAL LETTER EN",
    "CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I",
    "CAPITAL LETTER JE",
    "CAPITAL LETTER KA",
    "CAPITAL LETTER EM",
    "CAPITAL LETTER O",
    "CAPITAL LETTER ER",
    "CAPITAL LETTER DZE",
    "CAPITAL LETTER TE",
    "CAPITAL LETTER HA",
    "CAPITAL LETTER ES",
    "CAPITAL LETTER QA",
    "CAPITAL LETTER WE",
)
_GREEK = (
    "SMALL LETTER ALPHA",
    "SMALL LETTER IOTA",
    "SMALL LETTER KAPPA",
    "SMALL LETTER NU",
    "SMALL LETTER OMICRON",
    "SMALL LETTER RHO",
    "SMALL LETTER TAU",
    "SMALL LETTER UPSILON",
    "SMALL LETTER CHI",
    "CAPITAL LETTER ALPHA",
    "CAPITAL LETTER BETA",
    "CAPITAL LETTER EPSILON",
    "CAPITAL LETTER ZETA",
    "CAPITAL LETTER ETA",
    "CAPITAL LETTER IOTA",
    "CAPITAL LETTER KAPPA",
    "CAPITAL LETTER MU",
    "CAPITAL LETTER NU",
    "CAPITAL LETTER OMICRON",
    "CAPITAL LETTER RHO",
    "CAPITAL LETTER TAU",
    "CAPITAL LETTER UPSILON",
    "CAPITAL LETTER CHI",
)
LATIN_LOOKALIKES = frozenset(
    [unicodedata.lookup(f"CYRILLIC {name}") for name in _CYRILLIC]
    + [unicodedata.lookup(f"GREEK {name}") for name in _GREEK]
)


# East Asian writing mixes scripts as a rule: UTS #39 counts Han with Bopomofo, with Hiragana and
# Katakana, and with Hangul as one "augmented script set" each, and its Highly Restrictive level allows
# them with Latin (https://www.unicode.org/reports/tr39/#Mixed_Script_Detection): one script here.
_EAST_ASIAN = frozenset({"CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HANGUL", "BOPOMOFO"})


def _script(char: str) -> str | None:
    """A letter's script as the first word of its Unicode name (LATIN, CYRILLIC, GREEK, ...)."""
    if not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    first = name.split(" ", 1)[0] if name else None
    return "CJK" if first in _EAST_ASIAN else first


def _unicode_label(label: str) -> str:
    """A domain label as its letters: ``xn--exmple-4nf`` is ``ex\u0430mple`` (RFC 3492's Punycode)."""
    if label[:4].lower() != "xn--":
        return label
    try:
        return label[4:].encode("ascii").decode("punycode")
    except (UnicodeError, ValueError):
        return label


def lookalike_words(address: str) -> str | None:
    """Why an address may imitate another, in words, or None.

    A part of it (the local part, or one label of the domain) that mixes letters of several
    scripts (``ex\u0430mple`` with a Cyrillic a), or is written wholly in letters drawn like Latin
    ones, shows like an address it is not: the mixed-script check of UTS #39 section 5.1,
    applied per label. A label written as Punycode (``xn--...``) is read as its letters.
    """
    local, at, domain = address.rpartition("@")
    labels = [_unicode_label(label) for label in domain.split(".")]
    shown = f"{local}{at}{'.'.join(labels)}"
    named = address if shown == address else f"{address} ({shown})"
    for part, where in ((local, "before the @"), *((label, "in its domain") for label in labels)):
        scripts = sorted({s for s in map(_script, part) if s is not None})
        if len(scripts) > 1 and set(scripts) != {"CJK", "LATIN"}:
            mixed = " and ".join(s.title() for s in scripts)
            return f"{named} mixes {mixed} letters {where}: it may imitate another address."
        if scripts and scripts != ["LATIN"] and all(c in LATIN_LOOKALIKES for c in part if c.isalpha()):
            return (
                f"{named} is written in {scripts[0].title()} letters that look Latin {where}: "
                "it may imitate another address."
            )
    return None


def lookalike_notes(resolutions: Sequence[NameResolution]) -> list[str]:
    """A note for each address on the card that may imitate another (:func:`lookalike_words`)."""
    notes: list[str] = []
    for resolution in resolutions:
        if resolution.person is not None:
            words = lookalike_words(resolution.person.email)
            if words is not None and words not in notes:
                notes.append(words)
    return notes


def invalid_input(error: ValidationError) -> InvalidInput:
    """One readable message per problem, naming the camelCase field; never echoes the input."""
    return InvalidInput(problems(error) or "The arguments are invalid.", field=first_field(error))
