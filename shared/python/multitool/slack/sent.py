"""The card as it was confirmed: the drafted card with the draft's confirmed content put in.

After a confirm the message shows what was done, not what was first drafted: a draft's ``edits``
hold the content as last confirmed (the tool's content model, on the wire: the subject the mail
went out with, the slot that was booked), which the Edit modal, a choice on the message or another
client may have changed. The page does the same per card type (``sent(card, edits)`` in
``web/cards/*.js``); here it is done once for every card type, by the shape of the values, so a new
tool's card shows its confirmed content with no code here:

- a confirmed field the card also has replaces the card's (``subject``, ``title``, ``message``);
- people (addresses, ``{"email", "name"}``) become resolved people: the person the card offered
  with that address, else the address itself;
- a chosen item (``{"id"}``) of a reference the card offered settles it on that item;
- a confirmed ``start`` and ``end`` become the card's only slot, and the card's per-slot fields
  (``slot_*``, or described "Per slot") keep that slot's entry.

A confirmed value the card model does not take is left as drafted, never a failed update.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from multitool.toolkit.cards import Card

SLOTS = "slots"


def _is_address(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("email"), str) and "status" not in value


def _offered_people(drafted: Any) -> dict[str, Any]:
    rows = drafted if isinstance(drafted, list) else [drafted]
    known: dict[str, Any] = {}
    for row in rows:
        if not isinstance(row, Mapping):
            continue
        for person in (row.get("person"), *(row.get("candidates") or ())):
            if isinstance(person, Mapping) and isinstance(person.get("email"), str):
                known[person["email"].casefold()] = person
    return known


def _person(address: Mapping[str, Any], known: Mapping[str, Any]) -> dict[str, Any]:
    email = str(address["email"])
    person = known.get(email.casefold()) or {
        "id": email,
        "displayName": address.get("name") or email,
        "email": email,
        "timezone": "",
    }
    return {"query": email, "status": "resolved", "person": dict(person), "candidates": []}


def _settled_reference(drafted: Mapping[str, Any], chosen: Mapping[str, Any]) -> dict[str, Any] | None:
    offered = [drafted["item"]] if drafted.get("item") else list(drafted.get("candidates") or ())
    item = next((i for i in offered if isinstance(i, Mapping) and i.get("id") == chosen.get("id")), None)
    if item is None:
        return None
    return {**drafted, "status": "found", "item": item, "candidates": []}


def _value(drafted: Any, confirmed: Any) -> Any:
    """The card's field as confirmed, from its drafted wire value and the confirmed one."""
    if isinstance(confirmed, list) and confirmed and all(_is_address(a) for a in confirmed):
        known = _offered_people(drafted)
        return [_person(a, known) for a in confirmed]
    if _is_address(confirmed):
        return _person(confirmed, _offered_people(drafted))
    if isinstance(drafted, Mapping) and "candidates" in drafted and isinstance(confirmed, Mapping):
        return _settled_reference(drafted, confirmed) if "id" in confirmed else None
    return confirmed


def _instant(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None


def _per_slot(model: type[Card]) -> list[str]:
    """The wire names of the card's fields that hold one entry per slot."""
    names: list[str] = []
    for name, field in model.model_fields.items():
        if name.startswith("slot_") or (field.description or "").startswith("Per slot"):
            names.append(field.serialization_alias or field.alias or name)
    return names


def _booked(model: type[Card], wire: Mapping[str, Any], edits: Mapping[str, Any]) -> dict[str, Any]:
    """The card's slot fields narrowed to the confirmed ``start``/``end`` (or ``slot``)."""
    slot = edits.get("slot")
    chosen: Mapping[str, Any] = slot if isinstance(slot, Mapping) else edits
    start, end = _instant(chosen.get("start")), _instant(chosen.get("end"))
    slots = wire.get(SLOTS)
    if start is None or end is None or not isinstance(slots, list):
        return {}
    index = next(
        (
            i
            for i, slot in enumerate(slots)
            if isinstance(slot, Mapping)
            and _instant(slot.get("start")) == start
            and _instant(slot.get("end")) == end
        ),
        None,
    )
    narrowed: dict[str, Any] = {SLOTS: [{"start": chosen["start"], "end": chosen["end"]}]}
    for name in _per_slot(model):
        entries = wire.get(name)
        if isinstance(entries, list):
            fits = index is not None and index < len(entries) and len(entries) == len(slots)
            narrowed[name] = [entries[index]] if fits and index is not None else []
    return narrowed


def sent_card(card: Card, edits: Mapping[str, Any] | None) -> Card:
    """The card with the confirmed content (a draft's ``edits``) in place of the drafted one."""
    if not edits:
        return card
    model = type(card)
    wire = card.to_wire()
    changes: list[dict[str, Any]] = []
    for key, confirmed in edits.items():
        if key in wire and key != SLOTS:
            value = _value(wire[key], confirmed)
            if value is not None:
                changes.append({key: value})
    booked = _booked(model, wire, edits)
    if booked:
        changes.append(booked)
    for change in changes:
        tried = {**wire, **change}
        try:
            model.model_validate(tried)
        except ValidationError:
            continue  # a value this card does not take: shown as drafted
        wire = tried
    return model.model_validate(wire)
