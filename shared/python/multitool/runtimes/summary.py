"""The answer a turn gives when its cards say it all: composed from the cards, no model call.

When every call of a model response made a draft, a second model call would only write a
sentence the cards already hold. :func:`composed_message` writes it instead, one clause per
card from the tool's own words (its :class:`multitool.toolkit.cards.CardSpec` ``said`` hook) and one
closing sentence from what a confirm does (a revision also says it replaces the earlier card)::

    I drafted an email to Kinshuok Sharma about the doc and found 3 times for a sync with
    Kinshuok Sharma on Thursday. Nothing is sent or booked until you confirm.

    I drafted a WEB bug "Login crash" and an email to Priya Patel with the subject
    "Login crash". Nothing is created or sent until you confirm.

It answers None, and the model writes the answer, when a card needs the user's
clarification (a name that matches several people or none), when a tool has no words of
its own, or when a card's words come out empty.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from multitool.cards.client_actions import fingerprint
from multitool.people import NameResolution
from multitool.toolkit.cards import Card
from multitool.tools import REGISTRY


def _people(value: Any) -> Iterable[NameResolution]:
    if isinstance(value, NameResolution):
        yield value
    elif isinstance(value, tuple | list):
        for item in value:
            if isinstance(item, NameResolution):
                yield item


def needs_clarification(card: Card) -> bool:
    """Whether a person on the card is not settled yet (ambiguous or unknown): the user must pick."""
    for name in type(card).model_fields:
        if any(not person.settled for person in _people(getattr(card, name))):
            return True
    return False


def listed(parts: Sequence[str], last: str = "and") -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + f" {last} " + parts[-1]


def composed_message(cards: Sequence[Card]) -> str | None:
    """The turn's answer from its cards (duplicates said once), or None when the model must write it."""
    clauses: list[str] = []
    held: list[str] = []
    seen: set[Any] = set()
    for card in cards:
        key = fingerprint(card)
        if key in seen:
            continue
        seen.add(key)
        spec = REGISTRY.by_action(card.type)
        said = spec.card.said if spec is not None else None
        if spec is None or said is None or needs_clarification(card):
            return None
        clause = said(card)
        if not clause or not clause.strip():
            return None
        clauses.append(" ".join(clause.split()))
        if not spec.card.read_only and spec.card.held not in held:
            held.append(spec.card.held)
    if not clauses:
        return None
    answer = f"I {listed(_folded(clauses))}."
    revised = sum(1 for card in cards if getattr(card, "revises", None))
    if revised:
        answer += (
            " The new card replaces the earlier card."
            if revised == 1
            else " Each revised card replaces the earlier card it revises."
        )
    return f"{answer} Nothing is {listed(held, 'or')} until you confirm." if held else answer


def _folded(clauses: Sequence[str]) -> list[str]:
    """A verb said once for the clauses that follow it: 'drafted a WEB bug … and an email …'."""
    folded: list[str] = []
    verb = ""
    for clause in clauses:
        first, _, rest = clause.partition(" ")
        folded.append(rest if first == verb and rest else clause)
        verb = first
    return folded


def with_words_beside(answer: str, beside: str) -> str:
    """The composed answer, then what the model wrote beside its calls (a question, what it cannot do).

    The prompt contract asks the model to write beside tool calls only what the user must read, so
    a direct answer keeps it rather than dropping a question the cards cannot ask.
    """
    words = beside.strip()
    return f"{answer}\n\n{words}" if words else answer
