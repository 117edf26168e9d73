"""The mapper registry: a tool payload's action string -> a typed client action (a card).

A payload ``{"action": "show_new_email_draft", "draftId": "d_…", …}`` becomes
the card ``{"type": "show_new_email_draft", "id": "d_…", …}``: the payload's
fields in camelCase, discriminated by ``type``. Each action string has ONE
registry entry (:class:`CardSpec`) holding its card model, its fingerprint
(how two payloads are recognised as the same action, for trace dedupe) and its
caption (the one-line ``clientActionMessages`` text).

Adding a card for a new tool is one :class:`Card` subclass and one
:class:`CardSpec` in :data:`CARD_SPECS`; the union, its JSON Schema
(``web/client-actions.schema.json``, written by ``python -m multitool.client_actions``)
and the trace extractor follow from the registry.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Final, Generic, Literal, TypeVar, Union

from pydantic import AliasChoices, ConfigDict, Discriminator, Field, Tag, TypeAdapter, ValidationError

from multitool.people import NameResolution, Resolution
from multitool.slots import Slot
from multitool.wire import WireModel

SCHEMA_PATH = Path("web/client-actions.schema.json")

EMAIL_DRAFT: Final = "show_new_email_draft"
MEETING_SCHEDULER: Final = "show_meeting_scheduler"
JIRA_TICKET_DRAFT: Final = "show_jira_ticket_draft"


class ClientActionError(ValueError):
    """A payload that cannot become a card; the message names what is wrong."""


class UnknownActionError(ClientActionError):
    """The payload's action string has no registry entry."""


class InvalidPayloadError(ClientActionError):
    """The payload does not fit its card model."""


# A card validates from its wire form ({"type", "id"}) and straight from a payload ({"action", "draftId"}).
TYPE_ALIAS = AliasChoices("action", "type")
ID_ALIAS = AliasChoices("draftId", "id")


class Card(WireModel):
    """One client action: what the page renders for the user to review.

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


class EmailDraftCard(Card):
    """Compose card: resolved recipients, subject and body."""

    type: Literal["show_new_email_draft"] = Field(validation_alias=TYPE_ALIAS)
    to: tuple[NameResolution, ...] = ()
    cc: tuple[NameResolution, ...] = ()
    subject: str = ""
    body: str = ""


class MeetingSchedulerCard(Card):
    """Scheduler card: attendees, title and up to three proposed slots."""

    type: Literal["show_meeting_scheduler"] = Field(validation_alias=TYPE_ALIAS)
    title: str = ""
    attendees: tuple[NameResolution, ...] = ()
    requested: str | None = Field(default=None, description="The day or time as the user said it")
    duration_minutes: int = 30
    timezone: str = "UTC"
    slots: tuple[Slot, ...] = ()


class JiraTicketDraftCard(Card):
    """Ticket card: project, issue type, summary, description, priority, assignee."""

    type: Literal["show_jira_ticket_draft"] = Field(validation_alias=TYPE_ALIAS)
    project: str
    issue_type: str = "Task"
    summary: str
    description: str = ""
    priority: str = "Medium"
    assignee: NameResolution | None = None


C = TypeVar("C", bound=Card)
# What makes two cards of one type the same action: hashable, compared with ==.
Fingerprint = tuple[Hashable, ...]


@dataclass(frozen=True, slots=True)
class CardSpec(Generic[C]):
    """One registry entry: the card model of an action string and how to recognise and caption it."""

    action: str
    model: type[C]
    fingerprint: Callable[[C], Fingerprint]
    caption: Callable[[C], str]


# --------------------------------------------------------------------------- fingerprints


def _norm(text: str | None) -> str:
    """Case- and whitespace-insensitive form of a text, for fingerprints."""
    return " ".join(text.casefold().split()) if text else ""


def _who(resolution: NameResolution) -> str:
    person = resolution.person
    return person.email.casefold() if person is not None else _norm(resolution.query)


def _people_key(people: Sequence[NameResolution]) -> Hashable:
    """The people of a card whatever their order: one address, or the sorted addresses of several."""
    if len(people) == 1:  # the common case: nothing to sort
        return _who(people[0])
    return tuple(sorted([_who(p) for p in people]))


# A fingerprint is a tuple of the values that make the action, compared as they are (no string is
# built from them). The str fields spell _norm out (" ".join of nothing is ""): one call less each.


def email_fingerprint(card: EmailDraftCard) -> Fingerprint:
    return (
        _people_key(card.to),
        " ".join(card.subject.casefold().split()),
        " ".join(card.body[:64].casefold().split()),
    )


def meeting_fingerprint(card: MeetingSchedulerCard) -> Fingerprint:
    # The first slot's start as a datetime: the same instant is the same start, whatever its offset.
    start = card.slots[0].start if card.slots else _norm(card.requested)
    return (_people_key(card.attendees), start, " ".join(card.title.casefold().split()))


def jira_fingerprint(card: JiraTicketDraftCard) -> Fingerprint:
    return (" ".join(card.project.casefold().split()), " ".join(card.summary.casefold().split()))


# --------------------------------------------------------------------------- captions


def _names(people: Sequence[NameResolution]) -> str:
    if len(people) == 1:  # the common case
        only = people[0]
        return (only.person.display_name if only.person is not None else only.query) or "nobody yet"
    if not people:
        return "nobody yet"
    names = [p.person.display_name if p.person is not None else p.query for p in people]
    return ", ".join(names[:-1]) + " and " + names[-1]


def _unresolved_notes(people: Iterable[NameResolution | None]) -> str:
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


def _day(moment: datetime) -> str:
    return f"{_WEEKDAYS[moment.weekday()]} {moment.day} {_MONTHS[moment.month - 1]}"


def email_caption(card: EmailDraftCard) -> str:
    subject = card.subject or "(no subject)"
    notes = _unresolved_notes((*card.to, *card.cc)) if card.cc else _unresolved_notes(card.to)
    return f"Draft email to {_names(card.to)}: {subject}{notes}"


def meeting_caption(card: MeetingSchedulerCard) -> str:
    title = card.title or "Meeting"
    slots = card.slots
    if not slots:
        when = f"no free slot found for {card.requested}" if card.requested else "no free slot found"
    else:
        first = slots[0].start
        day = first.date()
        count = len(slots)
        noun = "slot" if count == 1 else "slots"
        joiner = "on"
        for slot in slots:
            if slot.start.date() != day:
                joiner = "from"
                break
        when = f"{count} proposed {noun} {joiner} {_day(first)}"
    return f"Meeting '{title}' with {_names(card.attendees)}: {when}{_unresolved_notes(card.attendees)}"


def jira_caption(card: JiraTicketDraftCard) -> str:
    return f"Jira {card.issue_type} in {card.project}: {card.summary}{_unresolved_notes((card.assignee,))}"


# --------------------------------------------------------------------------- the registry

CARD_SPECS: Mapping[str, CardSpec[Any]] = {
    spec.action: spec
    for spec in (
        CardSpec(EMAIL_DRAFT, EmailDraftCard, email_fingerprint, email_caption),
        CardSpec(MEETING_SCHEDULER, MeetingSchedulerCard, meeting_fingerprint, meeting_caption),
        CardSpec(JIRA_TICKET_DRAFT, JiraTicketDraftCard, jira_fingerprint, jira_caption),
    )
}


def card_from_payload(payload: Mapping[str, Any]) -> Card:
    """The card for a tool payload (``{"action", "draftId", …}``).

    Raises :class:`UnknownActionError` for an action string without an entry and
    :class:`InvalidPayloadError` for a payload its card model rejects.
    """
    action = payload.get("action")
    spec = CARD_SPECS.get(action) if isinstance(action, str) else None
    if spec is None:
        raise UnknownActionError(f"No client action is registered for action {action!r}.")
    try:
        card: Card = spec.model.model_validate(payload)
    except ValidationError as error:
        raise InvalidPayloadError(f"Payload for {action} does not fit its card: {_problems(error)}") from None
    return card


# Each card model's own pydantic-core validator: JSON text is parsed and validated in one Rust pass,
# without the Python-level wrapper of ``model_validate_json`` (same schema, same result).
JSON_VALIDATORS: Mapping[str, Callable[[str], Any]] = {
    action: spec.model.__pydantic_validator__.validate_json for action, spec in CARD_SPECS.items()
}


def card_from_json(text: str, action: str) -> Card:
    """The card for a payload's JSON text whose action is known: parsed and validated in one pass.

    Raises like :func:`card_from_payload`.
    """
    validate = JSON_VALIDATORS.get(action)
    if validate is None:
        raise UnknownActionError(f"No client action is registered for action {action!r}.")
    try:
        card: Card = validate(text)
    except ValidationError as error:
        raise InvalidPayloadError(f"Payload for {action} does not fit its card: {_problems(error)}") from None
    return card


def _problems(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'payload'}: {e['msg']}"
        for e in error.errors(include_url=False, include_input=False)
    )


def spec_for(card: Card) -> CardSpec[Any]:
    return CARD_SPECS[card.type]


FINGERPRINTS: Mapping[str, Callable[[Any], Fingerprint]] = {
    action: spec.fingerprint for action, spec in CARD_SPECS.items()
}
CAPTIONS: Mapping[str, Callable[[Any], str]] = {action: spec.caption for action, spec in CARD_SPECS.items()}


def fingerprint(card: Card) -> tuple[str, Fingerprint]:
    """What makes two cards the same action: the card type and its fingerprint (:data:`CARD_SPECS`)."""
    action = card.type
    return (action, FINGERPRINTS[action](card))


def caption(card: Card) -> str:
    """One human line for the card (``clientActionMessages``)."""
    return CAPTIONS[card.type](card)


def _card_type(value: Any) -> str | None:
    if isinstance(value, Mapping):
        found = value.get("type", value.get("action"))
        return found if isinstance(found, str) else None
    found = getattr(value, "type", None)
    return found if isinstance(found, str) else None


@cache
def client_action_adapter() -> TypeAdapter[Any]:
    """Validates and dumps any registered card, discriminated by ``type`` (or a payload's ``action``)."""
    choices = tuple(Annotated[spec.model, Tag(action)] for action, spec in CARD_SPECS.items())
    union = Annotated[Union[choices], Discriminator(_card_type)]  # type: ignore[valid-type]  # noqa: UP007
    return TypeAdapter(union)


def client_action_schema() -> dict[str, Any]:
    """JSON Schema of the client action union, as the page receives cards (camelCase)."""
    schema = client_action_adapter().json_schema(by_alias=True, mode="serialization")
    names = {action: spec.model.__name__ for action, spec in CARD_SPECS.items()}
    schema["discriminator"] = {
        "propertyName": "type",
        "mapping": {action: f"#/$defs/{name}" for action, name in names.items()},
    }
    schema["title"] = "ClientAction"
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def schema_text() -> str:
    return json.dumps(client_action_schema(), indent=2, sort_keys=True) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write (or ``--check``) the client action JSON Schema for the web page."""
    parser = argparse.ArgumentParser(prog="python -m multitool.client_actions", description=main.__doc__)
    parser.add_argument("path", nargs="?", type=Path, default=SCHEMA_PATH)
    parser.add_argument("--check", action="store_true", help="fail if the file differs from the code")
    args = parser.parse_args(argv)
    expected = schema_text()
    if args.check:
        current = args.path.read_text(encoding="utf-8") if args.path.exists() else ""
        if current != expected:
            print(f"{args.path} is out of date: run python -m multitool.client_actions", file=sys.stderr)
            return 1
        return 0
    args.path.parent.mkdir(parents=True, exist_ok=True)
    args.path.write_text(expected, encoding="utf-8")
    print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
