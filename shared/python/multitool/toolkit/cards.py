"""What a card is: the base model every tool's card extends, and the words cards share.

A tool module defines its card (a :class:`Card` subclass with a ``Literal`` ``type``), how
two of its cards are recognised as the same action (the fingerprint, for trace dedupe) and
its caption (the one-line ``clientActionMessages`` text), and puts them in its
:class:`CardSpec`; a card that shows its payload's fields as they are is derived from the
payload model instead (:meth:`CardSpec.of_payload`), with a fingerprint of those fields.
:mod:`multitool.cards.client_actions` maps payloads to cards from the registry; this module
knows no tool.
"""

import json
from collections.abc import Callable, Hashable, Iterable, Sequence
from datetime import date
from typing import Any, Final, Generic, Literal, TypeVar, get_args, get_origin

import msgspec
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, create_model

from multitool.people import NameResolution, Resolution
from multitool.toolkit.links import Link
from multitool.wire import WireModel

# A card validates from its wire form ({"type", "id"}) and straight from a payload ({"action", "draftId"}).
TYPE_ALIAS = AliasChoices("action", "type")
ID_ALIAS = AliasChoices("draftId", "id")


class Card(WireModel):
    """One card (a client action on the wire): what the page renders for the user to review.

    Fields a payload carries beyond the card model are ignored, so a tool that
    adds a field never makes its card disappear (a test keeps both in step).
    """

    # A field typed Card holds a tool's card (a subclass): it dumps as that card, with its own fields
    # (pydantic's polymorphic_serialization: what SerializeAsAny[Card] said at each field, said once).
    model_config = ConfigDict(
        extra="ignore", json_schema_serialization_defaults_required=True, polymorphic_serialization=True
    )

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
    links: tuple[Link, ...] = Field(
        default=(),
        description="Placeholders of this card's text that wait for another card of its turn "
        "(multitool.toolkit.links)",
    )


C = TypeVar("C", bound=Card)
# What makes two cards of one type the same action: hashable, compared with ==.
Fingerprint = tuple[Hashable, ...]


class CardSpec(msgspec.Struct, Generic[C], frozen=True):
    """A tool's card: its model, and how to recognise, caption and speak of one.

    ``said``: what the assistant did, as a clause after "I" ("drafted an email to
    Kinshuok Sharma about the doc"), for the turn's answer when the cards say it all
    (:mod:`multitool.runtimes.summary`); None when this card needs the model's own words.
    ``held``: what a confirm does, as the answer's last sentence says it ("Nothing is
    sent until you confirm.").
    ``read_only``: the card only shows something (the user's agenda, free times): it has no
    confirm (the page draws it without Confirm or Discard, the review refuses a confirm with
    ``409 read_only``) and the answer says nothing of confirming it.
    """

    model: type[C]
    fingerprint: Callable[[C], Fingerprint]
    caption: Callable[[C], str]
    said: Callable[[C], str | None] | None = None
    held: str = "sent"
    read_only: bool = False

    @staticmethod
    def of_payload(
        payload_model: type[BaseModel],
        caption: Callable[[Any], str],
        *,
        fingerprint: Callable[[Any], Fingerprint] | None = None,
        said: Callable[[Any], str | None] | None = None,
        held: str = "sent",
        read_only: bool = False,
    ) -> "CardSpec[Card]":
        """The card of a tool whose card shows its payload's fields: :func:`payload_card`, told
        apart by all of those fields (:func:`fields_fingerprint`) unless ``fingerprint`` says otherwise."""
        return CardSpec(
            payload_card(payload_model), fingerprint or fields_fingerprint, caption, said, held, read_only
        )


# A payload's own fields that every card carries under another name, or as a Card field already.
_NOT_CARD_FIELDS: Final = frozenset({"action", "draft_id", *Card.model_fields})


def literal_action(model: type[BaseModel], name: str) -> str:
    """The one string of ``model``'s ``Literal`` field ``name``: a payload's ``action``, a card's ``type``."""
    field = model.model_fields.get(name)
    values = get_args(field.annotation) if field is not None else ()
    if field is None or get_origin(field.annotation) is not Literal or len(values) != 1:
        raise TypeError(f"{model.__name__}.{name} must be a Literal of one string: the tool's action.")
    value = values[0]
    if not isinstance(value, str):
        raise TypeError(f"{model.__name__}.{name} must be a Literal of one string: the tool's action.")
    return value


def payload_card(payload_model: type[BaseModel]) -> type[Card]:
    """A :class:`Card` whose own fields are the payload's (as declared there), typed by its action:
    ``ReminderPayload`` gives ``ReminderCard``."""
    action = literal_action(payload_model, "action")
    fields: dict[str, Any] = {
        name: (info.annotation, info)
        for name, info in payload_model.model_fields.items()
        if name not in _NOT_CARD_FIELDS
    }
    of_action: Any = Literal[action]  # a Literal of a value known only at run time
    card: type[Card] = create_model(
        payload_model.__name__.removesuffix("Payload") + "Card",
        __base__=Card,
        __module__=payload_model.__module__,
        __doc__=f"The card of a {action} payload: its fields as the payload carries them.",
        type=(of_action, Field(validation_alias=TYPE_ALIAS)),
        **fields,
    )
    return card


def fields_fingerprint(card: Card) -> Fingerprint:
    """Every field the card adds to :class:`Card`: texts case- and whitespace-insensitive
    (:func:`norm`), anything else as its JSON."""
    own = card.model_dump(mode="json", exclude=set(Card.model_fields))
    return tuple(
        norm(value) if isinstance(value, str) else json.dumps(value, sort_keys=True) for value in own.values()
    )


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


def day_words(moment: date) -> str:
    """'Thu 3 Dec'."""
    return f"{_WEEKDAYS[moment.weekday()]} {moment.day} {_MONTHS[moment.month - 1]}"


def days_words(first: date | None, last: date | None, requested: str) -> str:
    """'on Thu 10 Dec', 'from Thu 10 Dec to Fri 11 Dec': the days a card reads over (the agenda's,
    the free times'); the days as asked when none were read."""
    if first is None:
        return requested
    if last is None or last == first:
        return f"on {day_words(first)}"
    return f"from {day_words(first)} to {day_words(last)}"


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


def counted(count: int, noun: str) -> str:
    """'1 meeting', '3 meetings'."""
    return f"{count} {noun}{'s' if count != 1 else ''}"


def found_said(count: int, noun: str, where: str, none: str) -> str:
    """A read-only card's sentence in the turn's reply: 'found 3 meetings on your calendar on Thu
    10 Dec', or ``none`` in place of the count ('found nothing on your calendar ...')."""
    return f"found {counted(count, noun) if count else none} {where}"


def quoted(text: str) -> str:
    """The text in double quotes, on one line."""
    return f'"{" ".join(text.split())}"'
