"""The batch's side of links (:mod:`multitool.toolkit.links`): which calls of a turn wait for which.

:func:`plan` reads every placeholder of a turn's calls before any runs and refuses a bad one with
an error the model can act on, naming the argument (``body``): a label no call of this turn has,
a call naming itself, a value that kind of card does not produce, a placeholder in an argument
that takes none, two calls with one label, a cycle. What it accepts it rewrites to the canonical
``{{label.value}}`` and returns as the order to draft the calls in: a call after those it waits
for, so its payload can name their draft ids (:func:`attach`). A call whose prerequisite made no
draft (it failed, or it needs an account connected first) is drafted without the placeholder and
with a note saying so (:func:`detach_words`): never a card that waits for nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from zoneinfo import ZoneInfo

import msgspec

from multitool.toolkit.errors import InvalidInput, ToolError
from multitool.toolkit.links import DRAFT_ID, Link, canonical, placeholders, preview, remove
from multitool.toolkit.spec import ToolSpec


class Wanted(msgspec.Struct, frozen=True):
    """One placeholder of a call: the argument holding it, its canonical text, the call it names."""

    field: str
    placeholder: str
    label: str
    value: str
    prerequisite: int | str
    """The call's index in this turn, or the draftId of an earlier card."""


Existing = Callable[[str], "tuple[ToolSpec, Mapping[str, Any]] | None"]
"""An earlier card of the caller's by its draftId: its tool and its payload; None when there is none."""


class Plan(msgspec.Struct, frozen=True):
    """What :func:`plan` decided: the arguments rewritten, each call's placeholders, the order."""

    args: dict[int, Any]
    wanted: dict[int, list[Wanted]]
    errors: dict[int, ToolError]
    layers: list[list[int]]
    labels: dict[str, int]


class BadLink(InvalidInput):
    """A placeholder the batch cannot link: the message says what to change, ``field`` where."""

    code = "invalid_link"


def _label(args: Any) -> str | None:
    label = getattr(args, "label", None)
    return label.casefold() if isinstance(label, str) and label else None


def plan(
    calls: Mapping[int, tuple[ToolSpec, Any]],
    raw_labels: Mapping[int, str] | None = None,
    existing: Existing | None = None,
) -> Plan:
    """Check and order the links of one turn's valid calls (``index -> (spec, args)``).

    ``raw_labels``: labels of calls that failed validation, so a link to one is told apart from a
    typo (it is drafted without the placeholder, like any failed prerequisite). ``existing``: an
    earlier card of the caller's by its draftId, for a placeholder that names one.
    """
    errors: dict[int, ToolError] = {}
    labels: dict[str, int] = {}
    for index, (_, args) in sorted(calls.items()):
        label = _label(args)
        if label is None:
            continue
        if label in labels:
            errors[index] = BadLink(
                f"The label '{label}' is already the label of another call of this turn; "
                "give each call its own label.",
                field="label",
            )
            continue
        labels[label] = index
    for index, label in (raw_labels or {}).items():
        labels.setdefault(label.casefold(), index)
    rewritten: dict[int, Any] = {}
    wanted: dict[int, list[Wanted]] = {}
    for index, (spec, args) in sorted(calls.items()):
        if index in errors:
            continue
        try:
            found, changes = _read_call(index, spec, args, calls, labels, existing)
        except BadLink as bad:
            errors[index] = bad
            continue
        rewritten[index] = args.model_copy(update=changes) if changes else args
        if found:
            wanted[index] = found
    edges = {i: {w.prerequisite for w in ws if isinstance(w.prerequisite, int)} for i, ws in wanted.items()}
    for index in _in_cycles(edges):
        errors[index] = BadLink(
            "These calls wait for each other in a cycle ("
            + ", ".join(sorted({w.placeholder for w in wanted[index]}))
            + "): a value can only name a call that does not wait for this one.",
            field=wanted[index][0].field,
        )
    for index in errors:
        wanted.pop(index, None)
        rewritten.pop(index, None)
    return Plan(rewritten, wanted, errors, _layers(rewritten, wanted), labels)


def _read_call(
    index: int,
    spec: ToolSpec,
    args: Any,
    calls: Mapping[int, tuple[ToolSpec, Any]],
    labels: Mapping[str, int],
    existing: Existing | None = None,
) -> tuple[list[Wanted], dict[str, str]]:
    found: list[Wanted] = []
    changes: dict[str, str] = {}
    for name, value in args:
        if name == "label":
            continue
        if isinstance(value, list | tuple):  # names, slots: never a link
            text = " ".join(item for item in value if isinstance(item, str))
            seen = placeholders(text)
            if seen:
                raise _takes_none(spec, name, seen[0][0])
            continue
        if not isinstance(value, str):
            continue
        seen = placeholders(value)
        if not seen:
            continue
        wire = spec.args_model.model_fields[name].alias or name
        if name not in spec.takes_links:
            raise _takes_none(spec, name, seen[0][0])
        text = value
        for written, label, produced in seen:
            prerequisite: int | str | None = labels.get(label.casefold())
            other = calls.get(prerequisite) if isinstance(prerequisite, int) else None
            earlier = existing(label.casefold()) if prerequisite is None and existing is not None else None
            if earlier is not None:
                prerequisite, other = label.casefold(), (earlier[0], None)
            elif prerequisite is None and DRAFT_ID.match(label.casefold()):
                raise BadLink(f"{written} names no open card of yours: {label} is none.", field=wire)
            if prerequisite is None:
                known = (
                    ", ".join(sorted(labels))
                    or "none (give the other call a label, or name an earlier card by its draftId)"
                )
                raise BadLink(
                    f"{written} names '{label}', and no call of this turn has that label. "
                    f"Labels of this turn: {known}.",
                    field=wire,
                )
            if prerequisite == index:
                raise BadLink(f"{written} names this call itself; a call cannot wait for itself.", field=wire)
            if other is not None:
                key = next((k for k in other[0].produces if k.casefold() == produced.casefold()), None)
                if key is None:
                    offered = ", ".join(other[0].produces) or "nothing another call can name"
                    raise BadLink(
                        f"{written}: a {other[0].name} call produces {offered}, not '{produced}'.",
                        field=wire,
                    )
            else:
                key = produced
            placeholder = canonical(label.casefold(), key)
            text = text.replace(written, placeholder)
            if not any(w.placeholder == placeholder and w.field == name for w in found):
                found.append(Wanted(name, placeholder, label.casefold(), key, prerequisite))
        if text != value:
            changes[name] = text
    return found, changes


def _takes_none(spec: ToolSpec, name: str, written: str) -> BadLink:
    wire = spec.args_model.model_fields[name].alias or name
    takes = ", ".join(spec.takes_links) or "none of its arguments"
    return BadLink(
        f"'{wire}' cannot name a value of another call ({written}); for {spec.name} "
        f"only {takes} can. Write the value there, or leave it out.",
        field=wire,
    )


def _in_cycles(edges: Mapping[int, set[int]]) -> set[int]:
    """Every call on a cycle of ``edges`` (call -> the calls it waits for)."""
    looped: set[int] = set()
    for start in edges:
        stack, seen = list(edges.get(start, ())), set()
        while stack:
            node = stack.pop()
            if node == start:
                looped.add(start)
                break
            if node not in seen:
                seen.add(node)
                stack.extend(edges.get(node, ()))
    return looped


def _layers(calls: Mapping[int, Any], wanted: Mapping[int, list[Wanted]]) -> list[list[int]]:
    """The calls in the order to draft them: each layer after every call its calls wait for."""
    left = set(calls)
    done: set[int] = set()
    layers: list[list[int]] = []
    while left:
        ready = sorted(
            i
            for i in left
            if all(w.prerequisite in done or w.prerequisite not in calls for w in wanted.get(i, ()))
        )
        layers.append(ready)
        done.update(ready)
        left.difference_update(ready)
    return layers


def attach(
    payload: dict[str, Any],
    wanted: Sequence[Wanted],
    prerequisites: Mapping[int | str, tuple[ToolSpec, Mapping[str, Any]]],
    zone: str,
) -> dict[str, Any]:
    """The payload with its ``links`` (each prerequisite's draft id in its payload); a placeholder
    whose prerequisite made no draft is removed from the text, with a note."""
    links: list[dict[str, Any]] = []
    gone: dict[str, list[str]] = {}
    for want in wanted:
        made = prerequisites.get(want.prerequisite)
        if made is None or not made[1].get("draftId"):
            gone.setdefault(want.field, []).append(want.placeholder)
            continue
        spec, other = made
        produced = spec.produces[want.value]
        links.append(
            Link(
                field=_wire(payload, want.field),
                waits_for=str(other["draftId"]),
                label=want.label,
                value=want.value,
                placeholder=want.placeholder,
                kind=spec.action,
                preview=preview(produced.preview, other, ZoneInfo(zone)),
                pending=produced.pending,
                template=produced.preview,
                zone=zone,
            ).to_wire()
        )
    updated = dict(payload)
    notes = list(updated.get("notes") or ())
    for field, placeholders_gone in gone.items():
        key = _wire(payload, field)
        if isinstance(updated.get(key), str):
            updated[key] = remove(updated[key], placeholders_gone)
        notes.append(detach_words(placeholders_gone, "its call could not be made"))
    updated["notes"] = notes
    if links:
        updated["links"] = links
    return updated


def detach_words(placeholders_gone: Sequence[str], why: str) -> str:
    """The note of a card whose placeholders were removed: which, and why."""
    return (
        f"{', '.join(sorted(set(placeholders_gone)))} was removed from the text: {why}. "
        "Review the text before confirming."
    )


def _wire(payload: Mapping[str, Any], field: str) -> str:
    """The payload's key for an argument (``issue_type`` -> ``issueType``)."""
    if field in payload:
        return field
    head, *rest = field.split("_")
    return head + "".join(part.title() for part in rest)
