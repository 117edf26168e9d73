"""Confirm in order: a card whose text names what another card of its turn produces (its ``links``,
:mod:`multitool.toolkit.links`) is confirmed after that card, with the real values filled in.

At a confirm, the content is made as always (the edits over the draft), then every placeholder of
the draft's links still in it is settled by the card it waits for:

- **done**: the value from its result (the ticket's key, the booked time in words in the turn's
  zone) replaces the placeholder; the filled content is what is confirmed, so a retry of the same
  confirm compares equal and nothing is sent twice;
- **proposed or executing**: ``409 waits_for`` naming that card (``waitsFor``), nothing done,
  unless the confirm asked for its prerequisites first (:func:`confirm_in_order`);
- **discarded, failed, expired or gone**: the dependent card turns back into an ordinary draft,
  the placeholder removed from its text and a note saying why (``409 link_dropped``, the draft as
  it is now), never a mail with ``WEB-?`` in it.

A placeholder the user deleted from the text waits for nothing. A card revised by chat is followed
to its revision. :func:`confirm_all` confirms several cards (a turn's) in dependency order and says
what happened to each.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from pydantic import Field

from multitool.drafts import Draft, DraftStatus, is_expired
from multitool.errors import ServiceError
from multitool.ports.drafts import DraftStore, DraftWriteConflict
from multitool.review.errors import ReviewConflict
from multitool.review.views import DraftView
from multitool.toolkit.confirm import Caller
from multitool.toolkit.links import Link, fill, remove
from multitool.tools import REGISTRY
from multitool.wire import WireModel

_MAX_CHAIN = 10
"""How many revisions a link follows to the card that replaced the one it named."""


class Reviewer(Protocol):
    """What the confirm in order asks of :class:`multitool.review.reviewer.Reviewer` (which calls it)."""

    @property
    def drafts(self) -> DraftStore: ...

    def clock(self) -> datetime: ...

    def get(self, caller: Caller, draft_id: str) -> Draft: ...

    def confirm(self, caller: Caller, draft_id: str, body: Mapping[str, Any]) -> Draft: ...


class WaitsFor(ReviewConflict):
    """The card names a value of a card not confirmed yet: nothing done (``waitsFor`` says which)."""

    code = "waits_for"

    def __init__(self, message: str, *, draft: Draft, waits_for: Sequence[str]) -> None:
        super().__init__(message, draft=draft)
        self.waits_for = tuple(waits_for)

    def detail(self) -> dict[str, Any]:
        return {"waitsFor": list(self.waits_for)}


class PrerequisiteRefused(WaitsFor):
    """Confirming first a card this one waits for was refused (a name or a slot to choose): nothing
    done to this one; ``waitsFor`` names the card to settle."""

    code = "prerequisite_refused"


class LinkDropped(ReviewConflict):
    """The card it waited for was discarded or failed: the placeholder is gone from the card, which
    is an ordinary draft again (its note says why); nothing done, review it and confirm again."""

    code = "link_dropped"


def links_of(draft: Draft) -> list[Link]:
    return [Link.from_wire(item) for item in draft.payload.get("links") or ()]


def _noun(action: str) -> str:
    tool = REGISTRY.by_action(action)
    return tool.nouns[0] if tool is not None else "another card"


def prerequisite(reviewer: Reviewer, caller: Caller, link: Link) -> Draft | None:
    """The card a link waits for, followed to its revision; None when it is gone (or not the caller's)."""
    draft_id: str | None = link.waits_for
    for _ in range(_MAX_CHAIN):
        if draft_id is None:
            return None
        found = reviewer.drafts.get(draft_id)
        if found is None or found.owner != caller.user_id or is_expired(found, reviewer.clock()):
            return None
        if found.status is not DraftStatus.SUPERSEDED:
            return found
        draft_id = found.superseded_by
    return None


def settle(
    reviewer: Reviewer, caller: Caller, draft: Draft, content: WireModel, *, settled: bool = False
) -> WireModel:
    """The content with every placeholder of the draft's links filled in; or :class:`WaitsFor`, or
    :class:`LinkDropped` (after turning the draft back into an ordinary one).

    ``settled``: the draft is done already; what can be filled is (a retry then compares equal to
    what was confirmed), and nothing is refused or written."""
    links = links_of(draft)
    if not links:
        return content
    texts = {name: value for name, value in content if isinstance(value, str)}
    present = [link for link in links if any(link.placeholder in text for text in texts.values())]
    values: dict[str, str] = {}
    waiting: dict[str, Draft] = {}
    dropped: list[tuple[Link, str]] = []
    for link in present:
        other = prerequisite(reviewer, caller, link)
        if other is None:
            dropped.append((link, f"{_noun(link.kind)} it named is gone"))
        elif other.status is DraftStatus.DONE:
            tool = REGISTRY.by_action(other.action)
            produced = tool.produces.get(link.value) if tool is not None else None
            if produced is None or other.result is None:
                dropped.append((link, "the card it named produced no such value"))
                continue
            values[link.placeholder] = produced.fill(other.result, ZoneInfo(link.zone))
        elif other.status in (DraftStatus.DISCARDED, DraftStatus.FAILED):
            dropped.append((link, f"{_noun(other.action)} it named was {other.status.value}"))
        else:
            waiting[other.id] = other
    if not settled and dropped:
        raise LinkDropped(
            "This card named a value of a card that will not produce it ("
            + "; ".join(dict.fromkeys(why for _, why in dropped))
            + "): the placeholder was removed from its text. Review it and confirm again.",
            draft=drop(reviewer, draft, dropped),
        )
    if not settled and waiting:
        names = ", ".join(f"{_noun(d.action)} ({d.id})" for d in waiting.values())
        raise WaitsFor(
            f"This card names what {names} will produce: confirm that first, or confirm with its "
            "prerequisites first.",
            draft=draft,
            waits_for=list(waiting),
        )
    filled = {name: fill(text, values) for name, text in texts.items()}
    return content.model_copy(update={k: v for k, v in filled.items() if v != texts[k]})


def drop(reviewer: Reviewer, draft: Draft, dropped: Sequence[tuple[Link, str]]) -> Draft:
    """The draft as an ordinary one: these links' placeholders removed from its text, a note each."""
    from multitool.tools.linking import detach_words

    gone = {link.placeholder for link, _ in dropped}
    payload = dict(draft.payload)
    for link, _ in dropped:
        if isinstance(payload.get(link.field), str):
            payload[link.field] = remove(payload[link.field], [link.placeholder])
    payload["links"] = [item for item in payload.get("links") or () if item.get("placeholder") not in gone]
    notes = list(payload.get("notes") or ())
    notes.extend(detach_words([link.preview or link.placeholder], why) for link, why in dropped)
    payload["notes"] = list(dict.fromkeys(notes))
    edits = draft.edits
    if edits is not None:  # a failed confirm's content keeps no placeholder either
        edits = {k: remove(v, gone) if isinstance(v, str) else v for k, v in edits.items()}
    updated = draft.model_copy(update={"payload": payload, "edits": edits, "updated_at": reviewer.clock()})
    try:
        return reviewer.drafts.replace(draft, updated)
    except DraftWriteConflict:
        stored = reviewer.drafts.get(draft.id)
        return stored if stored is not None else draft


# -- confirm in order ------------------------------------------------------------


def confirm_in_order(
    reviewer: Reviewer, caller: Caller, draft_id: str, body: Mapping[str, Any], *, depth: int = 0
) -> Draft:
    """Confirm the draft, confirming first every card it waits for (as proposed, or as last
    confirmed); a prerequisite that cannot be confirmed answers its own refusal."""
    for _ in range(_MAX_CHAIN):
        try:
            return reviewer.confirm(caller, draft_id, body)
        except WaitsFor as waits:
            if depth >= _MAX_CHAIN:
                raise
            for other in waits.waits_for:
                try:
                    confirm_in_order(reviewer, caller, other, {}, depth=depth + 1)
                except PrerequisiteRefused:
                    raise
                except ServiceError as error:
                    refused = _current(reviewer, caller, other)
                    noun = _noun(refused.action) if refused is not None else "the card"
                    raise PrerequisiteRefused(
                        f"This card waits for {noun} ({other}), which could not be confirmed as "
                        f"proposed: {error.public_message()} Settle that card, then confirm this one.",
                        draft=waits.draft or reviewer.get(caller, draft_id),
                        waits_for=[other],
                    ) from error
    return reviewer.confirm(caller, draft_id, body)


class Outcome(WireModel):
    """What confirm-all did to one card."""

    id: str
    outcome: str = Field(
        description="sent, booked, created (done now or before), discarded, replaced, held (waits for a "
        "card that was not confirmed) or refused (the error says why)"
    )
    code: str | None = Field(default=None, description="The error's code, for refused and held")
    message: str | None = None
    waits_for: tuple[str, ...] = Field(default=(), description="held: the cards it waits for")
    action: dict[str, Any] | None = Field(default=None, description="The card's action as it is now")


class ConfirmAllView(WireModel):
    """``POST /actions/confirm-all``: each card's outcome, in the order they were confirmed."""

    outcomes: tuple[Outcome, ...]


def _order(reviewer: Reviewer, caller: Caller, ids: Sequence[str]) -> tuple[list[str], dict[str, set[str]]]:
    """The ids with every card after those of the set it waits for; and what each waits for."""
    waits: dict[str, set[str]] = {}
    for draft_id in ids:
        try:
            draft = reviewer.get(caller, draft_id)
        except ServiceError:
            waits[draft_id] = set()
            continue
        targets = set()
        for link in links_of(draft):
            other = prerequisite(reviewer, caller, link)
            targets.add(other.id if other is not None else link.waits_for)
        waits[draft_id] = {t for t in targets if t in ids and t != draft_id}
    ordered: list[str] = []
    while len(ordered) < len(ids):
        ready = [i for i in ids if i not in ordered and waits[i] <= set(ordered)]
        if not ready:  # a cycle cannot be stored; confirm the rest as they are, each refusing itself
            ready = [i for i in ids if i not in ordered]
        ordered.extend(ready)
    return ordered, waits


def confirm_all(
    reviewer: Reviewer, caller: Caller, ids: Sequence[str], edits: Mapping[str, Mapping[str, Any]]
) -> ConfirmAllView:
    """Confirm every card of ``ids`` in dependency order, each once; a card that is refused holds the
    cards that wait for it. A retry confirms nothing twice: a done card answers its stored result."""
    unique = list(dict.fromkeys(ids))
    ordered, waits = _order(reviewer, caller, unique)
    outcomes: dict[str, Outcome] = {}
    for draft_id in ordered:
        blocked = [
            w for w in waits[draft_id] if outcomes.get(w) and outcomes[w].outcome in ("refused", "held")
        ]
        if blocked:
            current = _current(reviewer, caller, draft_id)
            outcomes[draft_id] = Outcome(
                id=draft_id,
                outcome="held",
                code="waits_for",
                message="Not confirmed: it waits for "
                + " and ".join(_named(reviewer, caller, b) for b in blocked)
                + ", which was not confirmed (its outcome says why); settle that card first.",
                waits_for=tuple(blocked),
                action=DraftView.of(current).to_wire() if current is not None else None,
            )
            continue
        outcomes[draft_id] = _confirm_one(reviewer, caller, draft_id, edits.get(draft_id) or {})
    return ConfirmAllView(outcomes=tuple(outcomes[i] for i in ordered))


def _named(reviewer: Reviewer, caller: Caller, draft_id: str) -> str:
    """'the Jira ticket draft (d_…)': a card as an outcome names it."""
    found = _current(reviewer, caller, draft_id)
    noun = _noun(found.action) if found is not None else "a card"
    return f"the {noun.split(' ', 1)[-1]} ({draft_id})"


def _current(reviewer: Reviewer, caller: Caller, draft_id: str) -> Draft | None:
    try:
        return reviewer.get(caller, draft_id)
    except ServiceError:
        return None


def _confirm_one(reviewer: Reviewer, caller: Caller, draft_id: str, body: Mapping[str, Any]) -> Outcome:
    current = _current(reviewer, caller, draft_id)
    if current is not None and current.status is DraftStatus.DISCARDED:
        return Outcome(id=draft_id, outcome="discarded", action=DraftView.of(current).to_wire())
    if current is not None and current.status is DraftStatus.SUPERSEDED:
        return Outcome(id=draft_id, outcome="replaced", action=DraftView.of(current).to_wire())
    try:
        done = reviewer.confirm(caller, draft_id, body)
    except ServiceError as error:
        draft = getattr(error, "draft", None) or _current(reviewer, caller, draft_id)
        held = isinstance(error, WaitsFor)
        return Outcome(
            id=draft_id,
            outcome="held" if held else "refused",
            code=error.code,
            message=error.public_message(),
            waits_for=error.waits_for if isinstance(error, WaitsFor) else (),
            action=DraftView.of(draft).to_wire() if draft is not None else None,
        )
    tool = REGISTRY.by_action(done.action)
    return Outcome(
        id=draft_id, outcome=tool.card.held if tool else "done", action=DraftView.of(done).to_wire()
    )
