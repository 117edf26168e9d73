"""A case's score: the cards made against the cards expected, field by field, and what is silently wrong."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from itertools import permutations
from typing import Any
from zoneinfo import ZoneInfo

from multitool.local.evaluation.cases import (
    AMBIGUOUS,
    CARD_TYPES,
    ISSUE_FIELDS,
    LINKS_TO,
    PEOPLE_FIELDS,
    RELATIVE_DAY,
    WEEKDAYS,
    Expectation,
    ExpectedCard,
)


def expected_day(spec: str, today: date) -> date:
    """The date a ``day`` value means, seen from ``today`` (the user's date)."""
    text = spec.strip().casefold()
    if text == "today":
        return today
    relative = RELATIVE_DAY.match(text)
    if relative:
        return today + timedelta(days=int(relative.group(1)))
    if text in WEEKDAYS:
        ahead = (WEEKDAYS.index(text) - today.weekday()) % 7
        return today + timedelta(days=ahead or 7)  # the next one after today
    return date.fromisoformat(text)


def _person_matches(expected: str, resolution: Mapping[str, Any]) -> bool:
    want = expected.strip().casefold()
    status = resolution.get("status")
    if want == AMBIGUOUS:
        return status == "ambiguous"
    person = resolution.get("person") if status == "resolved" else None
    if isinstance(person, Mapping):
        return want in (str(person.get("id", "")).casefold(), str(person.get("email", "")).casefold())
    return status != "ambiguous" and want == str(resolution.get("query", "")).strip().casefold()


def _people_match(expected: Sequence[str], actual: Any) -> bool:
    resolutions = [actual] if isinstance(actual, Mapping) else list(actual or [])
    if len(expected) != len(resolutions):
        return False
    return any(
        all(_person_matches(e, r) for e, r in zip(expected, order, strict=True))
        for order in permutations(resolutions)
    )


def _card_day(card: Mapping[str, Any], zone: str) -> date | None:
    slots = card.get("slots") or []
    if not slots:
        return None
    start = datetime.fromisoformat(str(slots[0]["start"]))
    return start.astimezone(ZoneInfo(zone)).date()


def _person_seen(resolution: Mapping[str, Any]) -> str:
    """A resolution as the dataset would write it: the person's id, '?' (ambiguous), or the raw query."""
    person = resolution.get("person")
    if resolution.get("status") == "resolved" and isinstance(person, Mapping):
        return str(person.get("id"))
    return AMBIGUOUS if resolution.get("status") == "ambiguous" else str(resolution.get("query"))


def _meeting_found(card: Mapping[str, Any]) -> str | None:
    """The title of the meeting a card about an existing one found (None: a choice, or none)."""
    found = card.get("meeting")
    item = found.get("item") if isinstance(found, Mapping) else None
    fields = item.get("fields") if isinstance(item, Mapping) else None
    return str(fields.get("title")) if isinstance(fields, Mapping) else None


def _issue_key(card: Mapping[str, Any], reference: str) -> str | None:
    """The key of the issue a card found for a reference (None: a choice to make, or none found)."""
    found = card.get(reference)
    item = found.get("item") if isinstance(found, Mapping) else None
    return str(item["id"]) if isinstance(item, Mapping) and item.get("id") else None


def _message_seen(card: Mapping[str, Any]) -> str | None:
    """The subject of the message a reply or forward answers, or its status when none was found."""
    found = card.get("message")
    if not isinstance(found, Mapping):
        return None
    item = found.get("item")
    if found.get("status") == "found" and isinstance(item, Mapping):
        return str((item.get("fields") or {}).get("subject", ""))
    return AMBIGUOUS if found.get("status") == "ambiguous" else None


def field_seen(name: str, card: Mapping[str, Any], *, zone: str) -> Any:
    """What the card holds for a listed field, in the dataset's terms (for the report)."""
    if name == "meeting":
        return _meeting_found(card)
    if name in ISSUE_FIELDS:
        return _issue_key(card, ISSUE_FIELDS[name])
    if name == "message" and isinstance(card.get("message"), Mapping):  # a reply's or forward's reference
        return _message_seen(card)
    if name in PEOPLE_FIELDS:
        value = card.get(name)
        resolutions = [value] if isinstance(value, Mapping) else list(value or [])
        return [_person_seen(r) for r in resolutions if isinstance(r, Mapping)]
    if name == "day":
        day = _card_day(card, zone)
        return day.isoformat() if day else None
    return card.get(name)


def field_matches(name: str, expected: Any, card: Mapping[str, Any], *, zone: str, today: date) -> bool:
    """Whether one listed field of an expected card holds on the card the turn made."""
    if name in PEOPLE_FIELDS:
        people = [expected] if isinstance(expected, str) else list(expected)
        return _people_match(people, card.get(name))
    if name == "day":
        return _card_day(card, zone) == expected_day(str(expected), today)
    if name == "message" and isinstance(card.get("message"), Mapping):  # the message found, "?" a choice
        seen = _message_seen(card)
        return seen is not None and seen.strip().casefold() == str(expected).strip().casefold()
    if name == "meeting":  # the title of the meeting the card found
        return str(expected).casefold() == (_meeting_found(card) or "").casefold()
    actual = _issue_key(card, ISSUE_FIELDS[name]) if name in ISSUE_FIELDS else card.get(name)
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.strip().casefold() == actual.strip().casefold()
    return bool(expected == actual)


def wrong_fields(expected: ExpectedCard, card: Mapping[str, Any], *, zone: str, today: date) -> list[str]:
    return [
        name
        for name, value in expected.fields.items()
        if not field_matches(name, value, card, zone=zone, today=today)
    ]


@dataclass(frozen=True, slots=True)
class CardCheck:
    """One expected card and the card paired with it (None: not made)."""

    type: str
    card_id: str | None
    wrong: tuple[str, ...]
    seen: Mapping[str, Any] = field(default_factory=dict)
    """What the card holds in each wrong field."""
    flagged: tuple[str, ...] = ()
    """The wrong fields the card itself flags: people it leaves unsettled for the user."""

    @property
    def silent(self) -> tuple[str, ...]:
        """The wrong fields the card does not flag: a user could confirm them unaware."""
        return tuple(name for name in self.wrong if name not in self.flagged)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "cardId": self.card_id,
            "found": self.card_id is not None,
            "wrong": list(self.wrong),
            "flagged": list(self.flagged),
            "got": dict(self.seen),
        }


@dataclass(frozen=True, slots=True)
class Score:
    exact: bool
    expected: int
    found: int
    silently_wrong: bool
    asked: bool
    checks: tuple[CardCheck, ...]
    unexpected: tuple[str, ...]
    """The types of cards made that no expected card accounts for."""


def unsettled(name: str, card: Mapping[str, Any]) -> bool:
    """Whether a people field of a card holds someone it has not settled (ambiguous or not found):
    the card shows it as a question, and cannot be confirmed until the user answers it."""
    if name not in PEOPLE_FIELDS:
        return False
    value = card.get(name)
    resolutions = [value] if isinstance(value, Mapping) else list(value or [])
    return any(isinstance(r, Mapping) and r.get("status") != "resolved" for r in resolutions)


def _check(expected: ExpectedCard, card: Mapping[str, Any] | None, *, zone: str, today: date) -> CardCheck:
    if card is None:
        return CardCheck(expected.type, None, ())
    wrong = wrong_fields(expected, card, zone=zone, today=today)
    seen = {name: field_seen(name, card, zone=zone) for name in wrong}
    flagged = tuple(name for name in wrong if unsettled(name, card))
    return CardCheck(expected.type, str(card.get("id")), tuple(wrong), seen, flagged)


def with_links(cards: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Each card with ``linksTo``: the types of the cards of the same turn its links wait for, sorted
    (a link to a card the turn did not make counts for nothing)."""
    types = {str(c.get("id")): str(c.get("type")) for c in cards}
    return [
        {
            **card,
            LINKS_TO: sorted(
                {
                    types[str(link.get("waitsFor"))]
                    for link in card.get("links") or ()
                    if isinstance(link, Mapping) and str(link.get("waitsFor")) in types
                }
            ),
        }
        for card in cards
    ]


def score_cards(expect: Expectation, cards: Sequence[Mapping[str, Any]], *, zone: str, today: date) -> Score:
    """Pair the expected cards with the cards made (per type, the pairing with fewest wrong fields)."""
    cards = with_links(cards)
    checks: list[CardCheck] = []
    unexpected: list[str] = []
    for kind in CARD_TYPES:
        wanted = [e for e in expect.cards if e.type == kind]
        made = [c for c in cards if c.get("type") == kind]
        slots: list[Mapping[str, Any] | None] = [*made, *([None] * max(0, len(wanted) - len(made)))]
        best: list[CardCheck] | None = None
        best_cost = math.inf
        for order in permutations(slots, len(wanted)):
            trial = [_check(e, card, zone=zone, today=today) for e, card in zip(wanted, order, strict=True)]
            cost = sum(len(c.wrong) + (100 if c.card_id is None else 0) for c in trial)
            if cost < best_cost:
                best, best_cost = trial, cost
            if cost == 0:
                break
        checks.extend(best or [])
        unexpected.extend([kind] * max(0, len(made) - len(wanted)))
    found = sum(1 for c in checks if c.card_id is not None)
    any_wrong = any(c.wrong for c in checks)
    return Score(
        exact=found == len(expect.cards) and not any_wrong and not unexpected,
        expected=len(expect.cards),
        found=found,
        silently_wrong=any(c.silent for c in checks) or bool(unexpected),
        asked=not cards,
        checks=tuple(checks),
        unexpected=tuple(unexpected),
    )
