"""References: things that already exist, named as the user said them.

The rule for things is the rule for people (design notes, *References*): to move a meeting,
reply to a message or comment on a ticket, the model passes what the user said about the item
(:class:`ItemRef`: "my sync with Priya tomorrow", "Priya's last email about the budget",
"WEB-12") and the hints it can read (who, which days, title words, a key), and the backend finds
the item among the caller's own. One match: the card shows it. Several: the card offers a
choice (:class:`ItemResolution`, like an ambiguous name). None: the card or the error says so.
The model never needs a second call to look something up.

A tool asks for the items it needs in its :class:`~multitool.toolkit.common.Prepared`
(``lookups``: one :class:`Lookup` per reference, each naming the :data:`Finder` that searches
that kind of item). The batch (:func:`multitool.tools.run_calls`) calls each finder ONCE with
every reference of the turn it serves, after the directory read (a finder may use the people the
names resolved to) and before the busy-time read, and hands each call its resolutions in the
order of its lookups (``finish(people, busy, found)``).

A finder searches only what the caller may see (their calendar, their mailbox, the Jira
projects they may browse): a reference never reveals anything of another user's, not even that
it exists. A confirm acts only on an item the card offered (:func:`chosen`), and re-reads it
before writing (its ``version``), so nothing is written over a change made since the card.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
from pydantic import Field, StringConstraints, model_validator

from multitool.text import CLEAN_SINGLE_LINE
from multitool.toolkit.context import RawName
from multitool.toolkit.errors import InvalidInput, ToolError
from multitool.wire import WireModel

if TYPE_CHECKING:
    from multitool.people import NameResolution
    from multitool.toolkit.context import ToolConfig, ToolContext, ToolPorts

MAX_SAID_CHARS = 200
MAX_REF_PEOPLE = 10
MAX_REF_WORDS = 8
MAX_CANDIDATES = 5
"""The most items a card offers for one reference; more matches ask the user to say more."""

Said = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_SAID_CHARS), CLEAN_SINGLE_LINE
]
Word = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40), CLEAN_SINGLE_LINE
]
Key = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64), CLEAN_SINGLE_LINE]


class ItemRef(WireModel):
    """What the model passes for a thing that already exists: the words, and the hints it can read."""

    said: Said = Field(
        description="What the user said about it, as said: 'my sync with Priya tomorrow', "
        "'Priya's last email about the budget', 'the login crash ticket', 'WEB-12'"
    )
    people: list[RawName] = Field(
        default_factory=list,
        max_length=MAX_REF_PEOPLE,
        description="Who is in it, raw names or addresses as the user said them (the backend resolves them)",
    )
    from_day: date | None = Field(
        default=None,
        description="The first day it may be on or from, in the user's time zone (YYYY-MM-DD), when said "
        "('tomorrow', 'Thursday', 'last week')",
    )
    to_day: date | None = Field(
        default=None,
        description="The last day it may be on or from (YYYY-MM-DD); the same as fromDay for one day",
    )
    words: list[Word] = Field(
        default_factory=list,
        max_length=MAX_REF_WORDS,
        description="Words of its title or subject the user used ('sync', 'budget', 'login crash')",
    )
    key: Key | None = Field(default=None, description="Its key or id when the user said one ('WEB-12')")

    @model_validator(mode="after")
    def _days_in_order(self) -> "ItemRef":
        if self.from_day and self.to_day and self.to_day < self.from_day:
            raise ValueError("toDay is before fromDay")
        return self

    @property
    def days(self) -> tuple[date, date] | None:
        """The days named, first and last inclusive, or None."""
        first = self.from_day or self.to_day
        if first is None:
            return None
        return first, self.to_day or first


class Match(StrEnum):
    FOUND = "found"
    AMBIGUOUS = "ambiguous"
    NONE = "none"


class Item(WireModel):
    """One existing thing of the caller's, as a card shows it."""

    kind: Annotated[str, Field(description="'meeting', 'message', 'issue', ...")]
    id: Annotated[str, Field(description="The provider's id of it: what the confirm acts on")]
    label: Annotated[str, Field(description="One line that tells it apart: title, when, with whom")]
    version: Annotated[
        str, Field(description="The provider's version of it when found (etag, change key, updated time)")
    ] = ""
    fields: Annotated[
        dict[str, Any], Field(description="What the card shows of it, by name (each kind says which)")
    ] = Field(default_factory=dict)


class ItemResolution(WireModel):
    """A reference and what the caller's own items made of it."""

    query: Annotated[str, Field(description="What the user said about it")]
    status: Match
    item: Annotated[Item | None, Field(description="Set when status is found")] = None
    candidates: Annotated[
        tuple[Item, ...],
        Field(description="Set when status is ambiguous: the items it could mean, best first"),
    ] = ()

    @property
    def settled(self) -> bool:
        return self.status is Match.FOUND and self.item is not None

    @property
    def offered(self) -> tuple[Item, ...]:
        """Every item the card offers: the one found, or the candidates."""
        return (self.item,) if self.item is not None else self.candidates


def resolution(query: str, ranked: Sequence[Item], *, limit: int = MAX_CANDIDATES) -> ItemResolution:
    """What a finder answers for one reference, from the caller's items that fit, best first."""
    if not ranked:
        return ItemResolution(query=query, status=Match.NONE)
    if len(ranked) == 1:
        return ItemResolution(query=query, status=Match.FOUND, item=ranked[0])
    return ItemResolution(query=query, status=Match.AMBIGUOUS, candidates=tuple(ranked[:limit]))


def words_of(text: str) -> set[str]:
    """The casefolded words of a title or subject, for matching what the user said."""
    return {w for w in "".join(c if c.isalnum() else " " for c in text.casefold()).split() if w}


def rank(
    items: Iterable[Item],
    ref: ItemRef,
    text: Callable[[Item], str],
    *,
    people: Callable[[Item], Iterable[str]] = lambda _item: (),
    emails: Iterable[str] = (),
    newest: Callable[[Item], Any] | None = None,
) -> list[Item]:
    """The items a reference fits, best first.

    An item fits when it carries the reference's key (when one was said), every person the
    reference names (``emails``: the addresses those names resolved to, checked against
    ``people(item)``) and at least one of its words; among those, more words matched ranks
    higher, then ``newest`` (descending). The finder has already narrowed by days.
    """
    wanted = {e.casefold() for e in emails}
    said = {w for word in ref.words for w in words_of(word)}
    scored: list[tuple[int, Item]] = []
    for item in items:
        if ref.key and ref.key.casefold() not in {
            item.id.casefold(),
            str(item.fields.get("key", "")).casefold(),
        }:
            continue
        if wanted and not wanted <= {p.casefold() for p in people(item)}:
            continue
        hits = len(said & words_of(text(item))) if said else 0
        if said and not hits:
            continue
        scored.append((hits, item))
    if newest is not None:
        scored.sort(key=lambda pair: newest(pair[1]), reverse=True)
    scored.sort(key=lambda pair: pair[0], reverse=True)  # stable: newest first within a score
    return [item for _, item in scored]


def reference_notes(found: Sequence[ItemResolution], noun: str) -> list[str]:
    """Words for the model and the card about references the user has to settle."""
    notes: list[str] = []
    for r in found:
        if r.status is Match.AMBIGUOUS:
            notes.append(f"'{r.query}' could be {len(r.candidates)} {noun}s: choose one on the card.")
        elif r.status is Match.NONE:
            notes.append(
                f"No {noun} of yours matches '{r.query}': say which one, or check the day and the names."
            )
    return notes


def chosen(found: ItemResolution, item_id: str | None, field: str) -> Item:
    """The item a confirm acts on: the one found, or the candidate the user chose on the card.

    Only an item the card offered can be chosen: an id from anywhere else (another user's
    item, one made up) is refused in the same words as one that does not exist.
    """
    offered = found.offered
    if item_id is None:
        if found.settled and found.item is not None:
            return found.item
        if not offered:
            raise NothingFound(f"Nothing of yours matches '{found.query}'.", field=field)
        raise InvalidInput(f"'{found.query}' could be {len(offered)} items: choose one.", field=field)
    for item in offered:
        if item.id == item_id:
            return item
    raise InvalidInput(f"Choose one of the items the card offers for '{found.query}'.", field=field)


class NothingFound(ToolError):
    """A reference that matches nothing of the caller's (their own items only were searched)."""

    code = "not_found"
    status = 404


class FindContext(msgspec.Struct, frozen=True):
    """What a finder reads with: the caller, their ports, the names the batch resolved, and the
    deployment's choices (``config``: e.g. the Jira projects an issue may be found in)."""

    ctx: "ToolContext"
    ports: "ToolPorts"
    people: "Mapping[str, NameResolution]"
    config: "ToolConfig | None" = None


Finder = Callable[[Sequence[ItemRef], FindContext], Sequence[ItemResolution]]
"""Searches one kind of item: one resolution per reference, in order, from ONE read where it can."""


class Lookup(msgspec.Struct, frozen=True):
    """One reference a call needs resolved, and the finder that searches its kind."""

    ref: ItemRef
    finder: Finder

    @property
    def names(self) -> list[str]:
        """The raw names the reference carries: read with the batch's one directory read."""
        return list(self.ref.people)


Found = Sequence[ItemResolution]
"""A call's resolutions, in the order of its lookups."""


def find_all(lookups: Mapping[int, Sequence[Lookup]], reads: FindContext) -> dict[int, list[ItemResolution]]:
    """Every call's references resolved, each finder called once with all the references it serves."""
    by_finder: dict[Finder, list[tuple[int, int, ItemRef]]] = {}
    for index, wanted in lookups.items():
        for position, lookup in enumerate(wanted):
            by_finder.setdefault(lookup.finder, []).append((index, position, lookup.ref))
    found: dict[int, list[ItemResolution]] = {index: [] for index in lookups}
    slots: dict[tuple[int, int], ItemResolution] = {}
    for finder, refs in by_finder.items():
        answers = finder([ref for _, _, ref in refs], reads)
        if len(answers) != len(refs):
            raise RuntimeError(f"A finder answered {len(answers)} references of {len(refs)}")
        for (index, position, _), answer in zip(refs, answers, strict=True):
            slots[(index, position)] = answer
    for index, wanted in lookups.items():
        found[index] = [slots[(index, position)] for position in range(len(wanted))]
    return found


__all__ = [
    "MAX_CANDIDATES",
    "FindContext",
    "Finder",
    "Found",
    "Item",
    "ItemRef",
    "ItemResolution",
    "Lookup",
    "Match",
    "NothingFound",
    "chosen",
    "find_all",
    "rank",
    "reference_notes",
    "resolution",
    "words_of",
]
