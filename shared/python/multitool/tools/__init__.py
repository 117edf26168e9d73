"""The tools: the registry of every tool, and batch execution.

Each tool is one module holding everything specific to it (see
:class:`multitool.toolkit.spec.ToolSpec`); the lines under ``# The tools`` declare
them, and the registry imports a tool's module when a lookup first needs it: an
action-group function loads its own tool only. Everything else (apps, OpenAPI
documents, Converse and harness tool specs, CDK action groups, cards, the review's
confirm) is read from :data:`REGISTRY`.

Every caller (an action-group Lambda with one call, the orchestrator with all
calls of a model turn) goes through :func:`run_calls`::

    outcomes = run_calls(
        [("create_email_draft", {"to": ["Kinshuok"], "subject": "The doc", "body": "..."}),
         ("propose_meeting", {"attendees": ["Kinshuok"], "title": "Sync", "when": "Thursday"})],
        ToolContext(owner="user-1", session_id="s-1", timezone="Europe/Berlin"),
        ports,            # ToolPorts(directory, calendar, drafts)
        config,           # ToolConfig.from_settings(settings); optional
    )
    for outcome in outcomes:          # same order as the calls
        outcome.status, outcome.body  # 200 + payload, or 4xx/5xx + {"error": {...}}

However many calls, a batch makes ONE directory read for all names, ONE
busy-time read for all meetings and ONE draft write; a bad call gets its own
error outcome and never loses the others. A call that revises a card (``revises``,
:mod:`multitool.tools.revisions`) is written on its own, with the card it supersedes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec
from botocore.exceptions import BotoCoreError, ClientError
from pydantic import ValidationError

from multitool.drafts import Draft, DraftStatus, draft_id, is_expired, is_unclaimed, new_draft
from multitool.observability import error_fields, logger
from multitool.people import NameResolution, Resolution
from multitool.ports.calendar import Interval
from multitool.ports.tokens import AccountNotConnected, ProviderError
from multitool.toolkit.common import BusyTimes, People, Prepared, invalid_input, resolve_recipient
from multitool.toolkit.context import MAX_CALLS_PER_BATCH, ToolConfig, ToolContext, ToolPorts
from multitool.toolkit.errors import (
    BackendUnavailable,
    InvalidInput,
    SuiteRefused,
    ToolError,
    ToolFailed,
    UnknownTool,
)
from multitool.toolkit.links import DRAFT_ID
from multitool.toolkit.registry import REGISTRY
from multitool.toolkit.spec import ToolSpec
from multitool.tools import linking
from multitool.tools.revisions import store_revision

if TYPE_CHECKING:
    from multitool.toolkit.references import ItemResolution

# The tools: one line each. A tool is a package of its own (tools/<tool>/); the module named after
# its action group holds its SPEC (its arguments, prepare and card), its confirm a module beside it.
REGISTRY.declare("multitool.tools.email.email_draft")
REGISTRY.declare("multitool.tools.email.email_reply")
REGISTRY.declare("multitool.tools.email.email_forward")
REGISTRY.declare("multitool.tools.meeting.meeting_scheduler")
REGISTRY.declare("multitool.tools.jira.jira_draft")
REGISTRY.declare("multitool.tools.meeting.meeting_move")
REGISTRY.declare("multitool.tools.meeting.meeting_cancel")
REGISTRY.declare("multitool.tools.meeting.invitation_answer")
REGISTRY.declare("multitool.tools.calendar.calendar_agenda")
REGISTRY.declare("multitool.tools.meeting.free_time")
REGISTRY.declare("multitool.tools.jira_comment.jira_comment")
REGISTRY.declare("multitool.tools.jira_transition.jira_transition")
REGISTRY.declare("multitool.tools.jira_update.jira_update")
REGISTRY.declare("multitool.tools.jira_link.jira_link")

_PORT_FAILURES = (BotoCoreError, ClientError, RuntimeError)


class TooManyCalls(ToolError):
    """A call past :data:`MAX_CALLS_PER_BATCH` in one turn: refused, not run."""

    code = "too_many_calls"
    status = 422

    @classmethod
    def for_calls(cls, names: Sequence[str]) -> TooManyCalls:
        """The one message every refused call of this turn carries: the limit, and which were not run."""
        first, last = MAX_CALLS_PER_BATCH + 1, len(names)
        counts: dict[str, int] = {}
        for name in names[MAX_CALLS_PER_BATCH:]:
            shown = name if isinstance(name, str) and name in REGISTRY else "unknown tool"
            counts[shown] = counts.get(shown, 0) + 1
        which = ", ".join(f"{count} {name}" for name, count in counts.items())
        calls = f"call {first} ({which}) was" if first == last else f"calls {first} to {last} ({which}) were"
        return cls(
            f"At most {MAX_CALLS_PER_BATCH} tool calls run in one turn and this turn asked for {last}: "
            f"the first {MAX_CALLS_PER_BATCH} ran; {calls} not run. "
            "Ask for those again in a new message."
        )


class CallOutcome(msgspec.Struct, frozen=True):
    """What one call produced: a payload (with ``draftId``) or a :class:`ToolError`."""

    name: str
    payload: dict[str, Any] | None = None
    error: ToolError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def status(self) -> int:
        return 200 if self.error is None else self.error.status

    @property
    def body(self) -> dict[str, Any]:
        """The JSON the model (and the trace) sees: the payload, or ``{"error": {...}}``."""
        if self.error is not None:
            return self.error.to_body()
        assert self.payload is not None
        return self.payload


def spec_for(action_group: str, api_path: str, method: str) -> ToolSpec:
    """The tool an action-group event addresses, or :class:`UnknownTool`."""
    spec = REGISTRY.by_group(action_group)
    if spec is not None and (spec.api_path, spec.method) == (api_path, method.upper()):
        return spec
    raise UnknownTool(f"There is no operation {method} {api_path} in action group {action_group}.")


def _validate(name: str, arguments: Any) -> tuple[ToolSpec, Any]:
    spec = REGISTRY.get(name)
    if spec is None:
        raise UnknownTool(f"There is no tool '{name}'. Tools: {', '.join(sorted(REGISTRY))}.", field="name")
    if not isinstance(arguments, Mapping):
        raise InvalidInput("The arguments must be a JSON object.", field="body")
    given = dict(arguments)
    if "label" not in spec.args_model.model_fields:  # a tool that declares no label still takes one
        given.pop("label", None)
    try:
        return spec, spec.args_model.model_validate(given)
    except ValidationError as error:
        raise invalid_input(error) from None


def run_calls(
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    ctx: ToolContext,
    ports: ToolPorts,
    config: ToolConfig | None = None,
) -> list[CallOutcome]:
    """Run every call of one turn as one backend operation; one outcome per call, in order."""
    config = config or ToolConfig()
    ports = ports.for_caller(ctx)
    if len(calls) > MAX_CALLS_PER_BATCH:
        # The first calls run; the rest are refused with ONE shared message naming them, so
        # whoever relays the results (a model, the offline summary) says it once.
        refused = TooManyCalls.for_calls([name for name, _ in calls])
        ran = run_calls(calls[:MAX_CALLS_PER_BATCH], ctx, ports, config)
        return ran + [CallOutcome(name, error=refused) for name, _ in calls[MAX_CALLS_PER_BATCH:]]
    errors: dict[int, ToolError] = {}
    valid: dict[int, tuple[ToolSpec, Any]] = {}
    raw_labels: dict[int, str] = {}
    for index, (name, arguments) in enumerate(calls):
        try:
            valid[index] = _validate(name, arguments)
        except ToolError as error:
            errors[index] = error
            label = arguments.get("label") if isinstance(arguments, Mapping) else None
            if isinstance(label, str) and label.strip():
                raw_labels[index] = label.strip()
        except Exception as error:  # one call's bug never costs the batch its other calls
            errors[index] = _failed(name, error)
    # Links between the calls (multitool.tools.linking): checked before any call runs.
    linked = linking.plan(valid, raw_labels, lambda draft_id: _earlier_card(draft_id, ctx, ports))
    errors.update(linked.errors)
    prepared: dict[int, tuple[ToolSpec, Any, Prepared]] = {}
    for index, args in sorted(linked.args.items()):
        spec = valid[index][0]
        try:
            prepared[index] = (spec, args, spec.prepare(args, ctx, config))
        except ToolError as error:
            errors[index] = error
        except Exception as error:  # one call's bug never costs the batch its other calls
            errors[index] = _failed(spec.name, error)

    connect: dict[int, dict[str, Any]] = {}
    try:
        # The caller's own suite may refuse one read and not the other (the calendar's consent not
        # given yet): only the calls that need the refused read answer it; the others go on.
        try:
            people = _resolve_names(prepared.values(), ports, ctx.requester_email)
        except ProviderError as failure:
            _refuse(failure, [i for i, (_, _, ready) in prepared.items() if ready.names], errors, connect)
            people = {}
        prepared = {i: call for i, call in prepared.items() if i not in errors and i not in connect}
        try:
            found = _find_items(prepared, people, ports, ctx, config)
        except ProviderError as failure:
            _refuse(failure, [i for i, (_, _, ready) in prepared.items() if ready.lookups], errors, connect)
            found = {}
        except ToolError as refused:  # a finder that cannot search at all (no mailbox): its calls only
            errors.update({i: refused for i, (_, _, ready) in prepared.items() if ready.lookups})
            found = {}
        prepared = {i: call for i, call in prepared.items() if i not in errors and i not in connect}
        try:
            busy = _busy_times(prepared, people, ports, found)
        except ProviderError as failure:
            _refuse(
                failure, [i for i, (_, _, ready) in prepared.items() if ready.busy_window], errors, connect
            )
            busy = {}
        prepared = {i: call for i, call in prepared.items() if i not in errors and i not in connect}
        stored = _draft_in_order(prepared, linked, (people, busy, found), ctx, ports, config, errors)
    except ProviderError as failure:
        # The caller's own suite said no past the reads (a name's second look-up): its words.
        logger.warning("The suite refused a read", extra={"code": failure.code, "provider": failure.provider})
        said_no = SuiteRefused(str(failure), code=failure.code, status=failure.status)
        return [
            CallOutcome(name, payload=connect[i])
            if i in connect
            else CallOutcome(name, error=errors.get(i, said_no))
            for i, (name, _) in enumerate(calls)
        ]
    except _PORT_FAILURES as failure:
        logger.warning(
            "A backend failed while running tool calls", extra={"error_type": type(failure).__name__}
        )
        unavailable = BackendUnavailable("A backend is unavailable right now; retry the same call shortly.")
        return [CallOutcome(name, error=errors.get(i, unavailable)) for i, (name, _) in enumerate(calls)]

    payloads: dict[int, dict[str, Any]] = {}
    for index, draft in stored.items():
        if draft.status in _SETTLED:  # every renewal of this request in this session was settled too
            errors[index] = AskedTooOften(
                f"This exact request was already confirmed or discarded {MAX_RENEWALS + 1} times in this "
                "session; ask for it in other words or in a new chat."
            )
        else:
            payloads[index] = draft.payload
    payloads.update(connect)
    # Every call is either an error, a stored draft, or the card that connects the account it needs.
    return [
        CallOutcome(name, payload=payloads[i]) if i in payloads else CallOutcome(name, error=errors[i])
        for i, (name, _) in enumerate(calls)
    ]


def _draft_in_order(
    prepared: Mapping[int, tuple[ToolSpec, Any, Prepared]],
    linked: linking.Plan,
    reads: tuple[People, BusyTimes, Mapping[int, Sequence[ItemResolution]]],
    ctx: ToolContext,
    ports: ToolPorts,
    config: ToolConfig,
    errors: dict[int, ToolError],
) -> dict[int, Draft]:
    """Every prepared call's draft, stored: ONE write for a turn without links; with links, one
    per layer (:func:`multitool.tools.linking.plan`), so a card names the stored id of each card it
    waits for (a settled request proposed afresh gets a new id only its write decides)."""
    people, busy, found = reads
    stored: dict[int, Draft] = {}
    for layer in linked.layers:
        drafts: dict[int, Draft] = {}
        for index in layer:
            if index not in prepared:
                continue
            spec, args, ready = prepared[index]
            try:
                payload = {"action": spec.action, **ready.finish(people, busy, found.get(index, ()))}
                if getattr(args, "revises", None):
                    payload["revises"] = args.revises
                if index in linked.wanted:
                    made: dict[int | str, tuple[ToolSpec, Mapping[str, Any]]] = {
                        i: (prepared[i][0], stored[i].payload) for i in stored
                    }
                    made.update(_earlier_cards(linked.wanted[index], ctx, ports))
                    payload = linking.attach(payload, linked.wanted[index], made, ctx.timezone)
                draft = new_draft(
                    owner=ctx.owner,
                    session_id=ctx.session_id,
                    action=spec.action,
                    arguments=[spec.name, args.to_wire()],
                    payload=payload,
                    now=ctx.now.astimezone(UTC),
                    ttl_seconds=config.draft_ttl_seconds,
                )
                spec.payload_model.model_validate(draft.payload)  # the contract, checked before storing
            except ToolError as error:
                errors[index] = error
                continue
            except Exception as error:  # one call's bug never costs the batch its other calls
                errors[index] = _failed(spec.name, error)
                continue
            drafts[index] = draft
        revising = {i: prepared[i][1].revises for i in drafts if getattr(prepared[i][1], "revises", None)}
        fresh = [i for i in drafts if i not in revising]
        stored.update(zip(fresh, _store_proposals(ports, [drafts[i] for i in fresh]), strict=True))
        for index, earlier_id in revising.items():
            try:
                stored[index] = store_revision(ports.drafts, drafts[index], earlier_id, ctx.now)
            except ToolError as error:
                errors[index] = error
    return stored


def _earlier_card(
    draft_id: str, ctx: ToolContext, ports: ToolPorts
) -> tuple[ToolSpec, dict[str, Any]] | None:
    """A card of the caller's own, not settled, by its draftId: what a placeholder may name in place
    of a label (a client that makes one call at a time links to its earlier call's card)."""
    if not DRAFT_ID.match(draft_id):
        return None
    draft = ports.drafts.get(draft_id)
    # A Gateway-made draft belongs to no user until its turn claims it: never one to link to, or the
    # preview would show one caller another's card.
    if draft is None or draft.owner != ctx.owner or is_unclaimed(draft) or is_expired(draft, ctx.now):
        return None
    if draft.status in (DraftStatus.DISCARDED, DraftStatus.SUPERSEDED):
        return None
    spec = REGISTRY.by_action(draft.action)
    return (spec, draft.payload) if spec is not None else None


def _earlier_cards(
    wanted: Sequence[linking.Wanted], ctx: ToolContext, ports: ToolPorts
) -> dict[int | str, tuple[ToolSpec, Mapping[str, Any]]]:
    found: dict[int | str, tuple[ToolSpec, Mapping[str, Any]]] = {}
    for want in wanted:
        if isinstance(want.prerequisite, str):
            card = _earlier_card(want.prerequisite, ctx, ports)
            if card is not None:
                found[want.prerequisite] = card
    return found


MAX_RENEWALS = 10
"""How many settled drafts of one request a session walks past before refusing it."""

_SETTLED = frozenset({DraftStatus.DISCARDED, DraftStatus.DONE})
"""A draft in one of these states is never shown again as a proposal: asking again renews it."""


class AskedTooOften(ToolError):
    """The same request was confirmed or discarded :data:`MAX_RENEWALS` times in one session."""

    code = "asked_too_often"
    status = 422


def _store_proposals(ports: ToolPorts, drafts: list[Draft]) -> list[Draft]:
    """The drafts as stored (one write); one the user confirmed or discarded is proposed afresh.

    The same input in the same session is the same draft, so a retried call lands on it. Once
    its owner settled it, though (discarded it, or confirmed it and it was sent, booked or
    created), asking again must give a draft they can act on, not a dead card: its successor,
    a NEW action with its own id that the user reviews and confirms on its own; the settled
    one stays as it is (a done draft is never executed again). The successor's id derives
    from the settled id, so a retry of this request lands on the same successor. A draft
    being executed (or failed, retryable) is returned as it is.
    """
    stored = ports.drafts.create_many(drafts) if drafts else []
    for _ in range(MAX_RENEWALS):
        stale = [i for i, draft in enumerate(stored) if draft.status in _SETTLED]
        if not stale:
            break
        successors = [_successor(drafts[i], stored[i]) for i in stale]
        for i, draft in zip(stale, ports.drafts.create_many(successors), strict=True):
            stored[i] = draft
    return stored


def _successor(proposal: Draft, discarded: Draft) -> Draft:
    identifier = draft_id(proposal.owner, proposal.session_id, proposal.action, ["after", discarded.id])
    return proposal.model_copy(
        update={"id": identifier, "payload": {**proposal.payload, "draftId": identifier}}
    )


def _refuse(
    failure: ProviderError,
    indexes: Sequence[int],
    errors: dict[int, ToolError],
    connect: dict[int, dict[str, Any]],
) -> None:
    """The calls at ``indexes`` needed the read the caller's own suite refused: each answers the
    card that connects the account (no draft stands behind it) when the suite offered a link,
    else the suite's own words, code and status."""
    # The consent card's module loads only when a suite refuses: most turns never need it.
    from multitool.toolkit.connect import connect_payload

    logger.warning("The suite refused a read", extra={"code": failure.code, "provider": failure.provider})
    payload = connect_payload(failure) if isinstance(failure, AccountNotConnected) else None
    for index in indexes:
        if payload is not None:
            connect[index] = dict(payload)
        else:
            errors[index] = SuiteRefused(str(failure), code=failure.code, status=failure.status)


def _failed(name: str, error: Exception) -> ToolFailed:
    logger.error("A tool call failed unexpectedly", extra={"tool": str(name)[:64], **error_fields(error)})
    return ToolFailed()


def _resolve_names(calls: Any, ports: ToolPorts, requester: str | None) -> Mapping[str, NameResolution]:
    names = sorted(
        {name for _, _, ready in calls for name in ready.names}
        | {name for _, _, ready in calls for lookup in ready.lookups for name in lookup.names}
    )
    found = ports.directory.resolve(names) if names else {}
    return {name: not_the_requester(resolution, requester) for name, resolution in found.items()}


def not_the_requester(resolution: NameResolution, requester: str | None) -> NameResolution:
    """An ambiguous name without the signed-in user among its candidates.

    Alex Chen asking to "email Alex" means another Alex: the user is never a candidate for a
    name they use for someone else; one candidate left is who the name means.
    """
    if requester is None or resolution.status is not Resolution.AMBIGUOUS:
        return resolution
    own = requester.casefold()
    others = tuple(p for p in resolution.candidates if p.email.casefold() != own)
    if len(others) == len(resolution.candidates) or not others:
        return resolution
    if len(others) == 1:
        return NameResolution(query=resolution.query, status=Resolution.RESOLVED, person=others[0])
    return NameResolution(query=resolution.query, status=Resolution.AMBIGUOUS, candidates=others)


def _find_items(
    calls: Mapping[int, tuple[ToolSpec, Any, Prepared]],
    people: Mapping[str, NameResolution],
    ports: ToolPorts,
    ctx: ToolContext,
    config: ToolConfig,
) -> Mapping[int, Sequence[ItemResolution]]:
    """Every reference of the turn resolved among the caller's own items: each finder once."""
    lookups = {index: ready.lookups for index, (_, _, ready) in calls.items() if ready.lookups}
    if not lookups:
        return {}
    # The references' module loads only for a turn that names something that already exists.
    from multitool.toolkit.references import FindContext, find_all

    return find_all(lookups, FindContext(ctx=ctx, ports=ports, people=people, config=config))


def _busy_times(
    calls: Mapping[int, tuple[ToolSpec, Any, Prepared]],
    people: Mapping[str, NameResolution],
    ports: ToolPorts,
    found: Mapping[int, Sequence[ItemResolution]],
) -> Mapping[str, Sequence[Interval]]:
    windows: list[tuple[datetime, datetime]] = []
    emails: set[str] = set()
    for index, (_, _, ready) in calls.items():
        if ready.busy_window is None:
            continue
        if ready.busy_found is not None:
            emails.update(ready.busy_found(found.get(index, ())))
        windows.append(ready.busy_window)
        for name in ready.busy_names:
            named = resolve_recipient(name, people)
            # Every candidate of an ambiguous name too: the card re-checks the slots for the one chosen.
            emails.update(p.email for p in (named.person, *named.candidates) if p is not None)
        emails.update(ready.busy_emails)
    if not windows or not emails:
        return {}
    start = min(w[0] for w in windows)
    end = max(w[1] for w in windows)
    return ports.calendar.busy(sorted(emails), start, end)


__all__ = [
    "REGISTRY",
    "CallOutcome",
    "TooManyCalls",
    "ToolConfig",
    "ToolContext",
    "ToolError",
    "ToolPorts",
    "ToolSpec",
    "run_calls",
    "spec_for",
]
