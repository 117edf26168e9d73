"""The confirm contract: what every tool's confirm is built from (the caller, addresses, the confirm context).

A tool holds its own confirm (:class:`ActionReview`: the edits model, how the confirmed
content is made from the edits and the draft, the side effect through a port);
:class:`multitool.review.reviewer.Reviewer` runs it. What a confirm raises is in
:mod:`multitool.toolkit.errors`. Below the review: nothing here imports it (the recipient policy
the review holds a confirm to is named by what the reviewer asks of it, :class:`RecipientLimits`).
"""

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import msgspec
from pydantic import BaseModel, ValidationError

from multitool.drafts import Draft
from multitool.people import NameResolution, Person, Resolution
from multitool.records import Redacted
from multitool.text import SingleLine, single_line
from multitool.toolkit.common import EXTERNAL_ID_PREFIX, RawName
from multitool.toolkit.context import ToolConfig, is_address
from multitool.toolkit.errors import InvalidEdits, NothingToConfirm
from multitool.validation import first_field, problems
from multitool.wire import WireModel

if TYPE_CHECKING:  # named in annotations only; the tools that call a port import it themselves
    from multitool.ports.calendar import Calendar
    from multitool.ports.jira import JiraClient
    from multitool.ports.mail import Mailer
    from multitool.ports.mailbox import Mailbox
    from multitool.ports.quota import Spend
    from multitool.settings import JiraProject

# -- confirmed content: an address as executed ---------------------------------


class Address(WireModel):
    email: str
    name: SingleLine | None = None


Recipients = list[RawName]
"""Edited recipients: email addresses or ids of people offered on the card."""


# -- the caller and the deployment ---------------------------------------------


class Caller(Redacted, msgspec.Struct, frozen=True):
    """The authenticated user: the JWT ``sub``; ``email`` only when the token says it is verified;
    ``name`` (display only: the user's profile name, e.g. the ``name`` claim) when it carries one;
    ``groups``: the user pool groups the token names (``cognito:groups``); ``user_token``: the
    JWT itself, for the user's own suite (AgentCore Identity), never stored or logged."""

    redacted = frozenset({"user_token"})

    user_id: str
    email: str | None = None
    name: str | None = None
    groups: frozenset[str] = frozenset()
    user_token: str | None = None


SENT_VIA = "via multitool"
MAX_SENDER_NAME_CHARS = 100


def name_claim(claims: Mapping[str, Any]) -> str | None:
    """The user's display name from OIDC claims: ``name``, else ``given_name family_name``."""
    name = claims.get("name")
    if not isinstance(name, str) or not single_line(name):
        parts = [claims.get(key) for key in ("given_name", "family_name")]
        name = " ".join(p for p in parts if isinstance(p, str) and single_line(p))
    cleaned = single_line(name)[:MAX_SENDER_NAME_CHARS].strip()
    return cleaned or None


def sender_name(caller: Caller) -> str:
    """Whom a mail is from, in words: ``"Alex Müller via multitool"``; ``multitool`` when unknown."""
    return f"{caller.name} {SENT_VIA}" if caller.name else "multitool"


def reply_to(caller: Caller) -> tuple[str, ...]:
    """Replies go to the requester, only at an address the identity provider verified."""
    return (caller.email,) if caller.email else ()


class RecipientLimits(Protocol):
    """What the reviewer asks of the deployment's recipient policy
    (:class:`multitool.review.limits.RecipientPolicy`) before a confirm mails anyone."""

    @property
    def per_day(self) -> int: ...

    def spend(self, recipients: Sequence[tuple[str, str]]) -> "Spend":
        """The count of ``(field, address)`` pairs, or the refusal of an address not allowed."""
        ...

    def outside_limit(self) -> int | None: ...


class ReviewConfig(msgspec.Struct, frozen=True):
    sender_email: str
    jira_projects: "Mapping[str, JiraProject]" = msgspec.field(
        default_factory=lambda: ToolConfig().jira_projects
    )
    sandbox: bool = False
    recipients: "RecipientLimits | None" = None
    """Whom a confirm may mail, and how many a day (:class:`multitool.review.limits.RecipientPolicy`);
    None: unbounded."""
    approved_group: str | None = None
    """Only members of this user pool group may confirm (self sign-up: an administrator approves)."""


class Backends(Protocol):
    """The ports a confirm's side effect may use (the reviewer holds them)."""

    @property
    def mailer(self) -> "Mailer": ...

    @property
    def calendar(self) -> "Calendar": ...

    @property
    def jira(self) -> "JiraClient | None": ...

    def mailbox(self, caller: "Caller") -> "Mailbox | None":
        """The caller's own mailbox (builtin: by their verified address; else their suite's)."""
        ...

    def clock(self) -> datetime: ...


# -- per action: edits model, content, side effect -----------------------------

E = TypeVar("E", bound=BaseModel)
C = TypeVar("C", bound=WireModel)


class ReviewContext(msgspec.Struct, frozen=True):
    draft: Draft
    caller: Caller
    config: ReviewConfig
    people: Mapping[str, Person]
    addresses: Mapping[str, Person] = msgspec.field(default_factory=dict)
    """Directory people by an address of theirs the edits typed (case-folded): that person."""
    remember: "Callable[[Mapping[str, Any]], None]" = lambda _progress: None
    """Store what the side effect has done so far in the confirm's record (``Draft.progress``), BEFORE
    the step that cannot be taken twice: a confirm tried again reads it (``ctx.draft.progress``)."""


class ActionReview(msgspec.Struct, Generic[E, C], frozen=True):
    edits_model: type[E]
    content_model: type[C]
    content: Callable[[E, C | None, ReviewContext], C]
    execute: Callable[[C, ReviewContext, Backends], dict[str, Any]]
    check: Callable[[C, ReviewContext, Backends], None] = lambda *_: None
    recipients: Callable[[C, ReviewContext], Sequence[tuple[str, str]]] = lambda *_: ()
    """Every address the side effect mails, with the field that named it (``to[0]``)."""
    undoable: bool = False
    """The side effect can wait a moment after the confirm, with Undo on the card (the review's undo
    window): only what nothing else waits on and what the confirm need not hold at once. Its content
    must be all the side effect needs (it runs later, from the stored content, without the request)."""

    @classmethod
    def overlay(
        cls,
        edits_model: type[E],
        content_model: type[C],
        execute: Callable[[C, ReviewContext, Backends], dict[str, Any]],
        *,
        check: Callable[[C, ReviewContext, Backends], None] = lambda *_: None,
        recipients: Callable[[C, ReviewContext], Sequence[tuple[str, str]]] = lambda *_: (),
        undoable: bool = False,
    ) -> "ActionReview[E, C]":
        """A confirm whose content needs nothing but :func:`overlaid`: the edits laid over the content
        confirmed before, or over the payload's fields (by name) on the first confirm."""

        def content(edits: E, confirmed: C | None, ctx: ReviewContext) -> C:
            return overlaid(content_model, edits, confirmed, ctx.draft.payload)

        return cls(edits_model, content_model, content, execute, check, recipients, undoable)


def overlaid(content_model: type[C], edits: BaseModel, confirmed: C | None, payload: Mapping[str, Any]) -> C:
    """The content: each field the edits set (not None), else the confirmed content's, else the payload's.

    Fields are matched by name (the payload by its wire names); an edit the content has no field for is
    not content (the edits model refuses what is no edit at all). Raises ``ValidationError`` when the
    result is not valid content (the reviewer answers it as :class:`InvalidEdits`).
    """
    fields = content_model.model_fields
    if confirmed is not None:
        base = confirmed.model_dump()
    else:
        wire = {info.alias or name: name for name, info in fields.items()}
        base = {wire[key]: value for key, value in payload.items() if key in wire}
    changes = {name: value for name, value in edits.model_dump(exclude_none=True).items() if name in fields}
    return content_model.model_validate({**base, **changes})


def people_on(payload: Mapping[str, Any]) -> dict[str, Person]:
    """Everyone the card offered (resolved people and candidates), by id."""
    found: dict[str, Person] = {}
    for key in ("to", "cc", "attendees", "assignee"):
        value = payload.get(key)
        items = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
        for item in items:
            resolution = NameResolution.from_wire(item)
            for person in (resolution.person, *resolution.candidates):
                if person is not None:
                    found[person.id] = person
    return found


EDITED_ADDRESS_FIELDS = ("to", "cc", "attendees")


def typed_addresses(body: Mapping[str, Any]) -> list[str]:
    """The email addresses a confirm's edits type into its recipient fields."""
    found: list[str] = []
    for key in EDITED_ADDRESS_FIELDS:
        value = body.get(key)
        if isinstance(value, list):
            found.extend(v for v in value if isinstance(v, str) and is_address(single_line(v)))
    return [single_line(v) for v in dict.fromkeys(found)]


def address_of(raw: str, where: str, ctx: ReviewContext) -> Address:
    person = ctx.people.get(raw)
    if person is not None:
        return Address(email=person.email, name=person.display_name)
    if is_address(raw):
        known = ctx.addresses.get(raw.casefold()) or next(
            (p for p in ctx.people.values() if p.email.casefold() == raw.casefold()), None
        )
        if known is not None and not known.id.startswith(EXTERNAL_ID_PREFIX):
            # An address of a directory person is that person: their time is checked and held.
            return Address(email=known.email, name=known.display_name)
        return Address(email=raw, name=known.display_name if known else None)
    raise InvalidEdits(
        f"'{raw}' is neither an email address nor one of the people offered on the card.", field=where
    )


def settled(resolution: NameResolution, where: str) -> Address:
    if resolution.status is Resolution.RESOLVED and resolution.person is not None:
        return Address(email=resolution.person.email, name=resolution.person.display_name)
    if resolution.status is Resolution.AMBIGUOUS:
        options = ", ".join(f"{p.display_name} ({p.id})" for p in resolution.candidates)
        raise InvalidEdits(
            f"'{resolution.query}' matches several people; choose one of: {options}.", field=where
        )
    raise InvalidEdits(
        f"No one named '{resolution.query}' is in the directory; enter an email address.", field=where
    )


def addresses(
    edited: Sequence[str] | None,
    confirmed: Sequence[Address] | None,
    proposed: Sequence[NameResolution],
    name: str,
    ctx: ReviewContext,
) -> tuple[Address, ...]:
    if edited is not None:
        chosen = [address_of(raw, f"{name}[{i}]", ctx) for i, raw in enumerate(edited)]
    elif confirmed is not None:
        chosen = list(confirmed)
    else:
        chosen = [settled(r, f"{name}[{i}]") for i, r in enumerate(proposed)]
    unique: dict[str, Address] = {}
    for address in chosen:
        unique.setdefault(address.email.casefold(), address)
    return tuple(unique.values())


def invalid_edits(error: ValidationError) -> InvalidEdits:
    """The edits' validation error in words (:mod:`multitool.validation`), naming the first field."""
    return InvalidEdits(problems(error) or "The edits are invalid.", field=first_field(error))


class NoEdits(WireModel):
    """A read-only card's confirm body: nothing to edit (nothing to confirm). A tool subclasses it in
    its own package (:func:`read_only_review`), so its confirm is its own like every tool's."""


def _nothing_to_confirm(_edits: NoEdits, _confirmed: NoEdits | None, _ctx: ReviewContext) -> NoEdits:
    raise NothingToConfirm("This card only shows something: there is nothing to confirm.")


def _nothing_done(_content: NoEdits, _ctx: ReviewContext, _backends: Backends) -> dict[str, Any]:
    raise NothingToConfirm("This card only shows something: there is nothing to confirm.")


def read_only_review(edits: type[NoEdits]) -> ActionReview[NoEdits, NoEdits]:
    """The review of a read-only card (``CardSpec(read_only=True)``): the reviewer refuses its confirm
    before it gets here (``409 read_only``); this refuses it too, should anything call it."""
    return ActionReview(edits, edits, _nothing_to_confirm, _nothing_done)
