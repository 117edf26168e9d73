"""Human review: a draft's owner reads it, confirms it (with edits) or discards it.

Only a confirm performs a side effect (send the email, book the time and send the
invitation, create the Jira issue), and it does so at most once per draft.

States: ``proposed -> executing -> done``; ``executing -> failed`` (the backend
failed; retryable, the edits are kept); ``executing -> proposed | failed`` when
the chosen slot was taken (:class:`SlotTaken`, 409 ``slot_taken``: back to the
status it had, the edits kept, nothing sent); ``proposed | failed ->
discarded``. Every transition is one conditional write
(:meth:`multitool.ports.drafts.DraftStore.replace`): of two concurrent confirms
of ONE draft exactly one moves it to ``executing`` and acts; the other sees
``executing`` and is told the action is in progress. A confirm after ``done``
with the same content returns the stored result without acting again; with
different content it is a conflict.

A meeting books first, then sends. The booking re-checks every tracked
attendee's busy time for the chosen slot in the same conditional write that
holds it (:meth:`multitool.ports.calendar.Calendar.book`), so of two confirms
of DIFFERENT drafts for one person's same time exactly one books and the other
is refused with ``slot_taken`` before anything is sent. Tracked are the
directory people on the card and the verified organizer; external addresses
are invited but their time is neither checked nor held. A send that fails
after the booking releases it again (the draft is ``failed``, retryable).

Exactly once ends where the backends do: SES and Jira take no idempotency key,
so a function that dies between the backend accepting the action and the
``done`` write leaves the draft ``executing``, and a confirm after
:data:`EXECUTION_LEASE` acts again (a second mail or issue; an invitation keeps
the draft id as its UID, and the booking, whose id is the draft id, is booked
again as a no-op, or moved if another slot is chosen). A Jira create sent
without an answer is ``jira_outcome_unknown``: the user checks Jira before
retrying.

The edits a confirm carries are validated by the models below (text fields by
the policy of :mod:`multitool.text`), and every name the draft could not
resolve must be settled by them first (``InvalidEdits`` naming the field, e.g.
``to[0]``). Fields a confirm leaves out keep their last confirmed value, else
the draft's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, ClassVar, Generic, TypeVar
from zoneinfo import ZoneInfo

from aws_lambda_powertools.metrics import MetricUnit
from pydantic import BaseModel, Field, StringConstraints, ValidationError, field_validator

from multitool.client_actions import card_from_payload
from multitool.drafts import MAX_DRAFT_ID_CHARS, Draft, DraftStatus, canonical_json, is_expired
from multitool.invitations import Invitation, Participant, build_invitation
from multitool.observability import error_fields, logger, metrics
from multitool.people import NameResolution, Person, Resolution
from multitool.ports.calendar import Booking, Calendar
from multitool.ports.calendar import SlotTaken as SlotTakenInCalendar
from multitool.ports.drafts import DraftStore, DraftWriteConflict
from multitool.ports.jira import CreatedIssue, IssueRequest, JiraClient, JiraError
from multitool.ports.mail import Mail, Mailer, MailError
from multitool.settings import JiraProject
from multitool.slots import Slot
from multitool.text import CLEAN_MULTI_LINE, CLEAN_SINGLE_LINE, SingleLine, single_line
from multitool.tools import email_draft, jira_draft, meeting_scheduler
from multitool.tools.base import (
    MAX_ATTENDEES,
    MAX_BODY_CHARS,
    MAX_DESCRIPTION_CHARS,
    MAX_RECIPIENTS,
    MAX_SUBJECT_CHARS,
    MAX_SUMMARY_CHARS,
    MAX_TITLE_CHARS,
    ToolConfig,
    ToolError,
    is_address,
)
from multitool.tools.common import RawName, is_external
from multitool.tools.jira_draft import Priority
from multitool.wire import WireModel

# Longer than the review function's timeout: an ``executing`` draft older than
# this belongs to an invocation that cannot still be running, so a confirm may
# take it over instead of waiting forever.
EXECUTION_LEASE = timedelta(minutes=5)
_MAX_WRITE_ATTEMPTS = 4


# -- errors (mapped to HTTP in one place: multitool.api.review_app) -----------


class ReviewError(Exception):
    code: ClassVar[str] = "review_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class DraftNotFound(ReviewError):
    """No such draft, or not the caller's: the two are indistinguishable on purpose."""

    code = "not_found"


class InvalidEdits(ReviewError):
    code = "invalid_edits"

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


class ReviewConflict(ReviewError):
    """The draft's status does not allow the request; ``draft`` is its current state."""

    def __init__(self, message: str, *, draft: Draft) -> None:
        super().__init__(message)
        self.draft = draft


class ActionInProgress(ReviewConflict):
    code = "in_progress"


class AlreadyDone(ReviewConflict):
    code = "already_done"


class AlreadyDiscarded(ReviewConflict):
    code = "discarded"


class SlotTaken(ReviewConflict):
    """The chosen slot was booked for an attendee since the card was made; nothing was sent.

    ``draft`` is confirmable again (its status as before the confirm, the edits kept): the
    card's other slots, or the same slot once it is free, can be confirmed.
    """

    code = "slot_taken"


class _SlotRefused(Exception):
    """Raised by the meeting's execution when the calendar refused the slot (internal)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotConfigured(ReviewError):
    """The side effect has no backend in this deployment (e.g. no Jira secret)."""

    code = "not_configured"


class SideEffectFailed(ReviewError):
    """The backend refused or failed; the draft is ``failed`` with the reason and can be confirmed again."""

    def __init__(self, message: str, *, code: str, draft: Draft, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.failure_code = code
        self.draft = draft
        self.retry_after = retry_after

    @property
    def code(self) -> str:  # type: ignore[override]
        return self.failure_code


# -- confirm bodies: the fields as the user edited them on the card -----------

Recipients = list[RawName]
# Edited text follows the same policy as the tools' arguments (multitool.text): cleaned, then
# measured, so a field that is empty once cleaned is the same error as an empty field.
# (Constraints first: the cleaning placed after them runs before them.)
Subject = Annotated[str, StringConstraints(min_length=1, max_length=MAX_SUBJECT_CHARS), CLEAN_SINGLE_LINE]
Body = Annotated[str, StringConstraints(min_length=1, max_length=MAX_BODY_CHARS), CLEAN_MULTI_LINE]
Title = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TITLE_CHARS), CLEAN_SINGLE_LINE]
Summary = Annotated[str, StringConstraints(min_length=1, max_length=MAX_SUMMARY_CHARS), CLEAN_SINGLE_LINE]
Description = Annotated[str, StringConstraints(max_length=MAX_DESCRIPTION_CHARS), CLEAN_MULTI_LINE]
ProjectKey = Annotated[str, StringConstraints(min_length=1, max_length=32), CLEAN_SINGLE_LINE]
IssueType = Annotated[str, StringConstraints(min_length=1, max_length=50), CLEAN_SINGLE_LINE]


class EmailEdits(WireModel):
    """Recipients are email addresses or ids of people offered on the card."""

    to: Recipients | None = Field(default=None, min_length=1, max_length=MAX_RECIPIENTS)
    cc: Recipients | None = Field(default=None, max_length=MAX_RECIPIENTS)
    subject: Subject | None = None
    body: Body | None = None


class MeetingEdits(WireModel):
    """``slot`` must be one of the proposed slots (they were checked against everyone's calendar)."""

    attendees: Recipients | None = Field(default=None, min_length=1, max_length=MAX_ATTENDEES)
    title: Title | None = None
    slot: Slot | None = None


class JiraEdits(WireModel):
    """``assignee``: an email address, the id of a person offered on the card, or null for none."""

    project: ProjectKey | None = None
    issue_type: IssueType | None = None
    summary: Summary | None = None
    description: Description | None = None
    priority: Priority | None = None
    assignee: RawName | None = None

    @field_validator("priority", mode="before")
    @classmethod
    def _priority_any_case(cls, value: Any) -> Any:
        return value.strip().capitalize() if isinstance(value, str) else value


# -- confirmed content: what is executed, stored as the draft's ``edits`` -----


class Address(WireModel):
    email: str
    name: SingleLine | None = None


class EmailContent(WireModel):
    to: tuple[Address, ...]
    cc: tuple[Address, ...] = ()
    subject: Subject
    body: Body


class MeetingContent(WireModel):
    title: Title
    attendees: tuple[Address, ...]
    start: datetime
    end: datetime
    timezone: str


class JiraContent(WireModel):
    project: str
    issue_type: str
    summary: Summary
    description: Description = ""
    priority: Priority
    assignee: Address | None = None


# -- what a caller sees --------------------------------------------------------


class DraftView(WireModel):
    """``GET /actions/{id}`` and every confirm/discard answer."""

    id: str
    action: str
    status: DraftStatus
    card: dict[str, Any] | None = Field(description="The card as /chat returned it")
    edits: dict[str, Any] | None = Field(description="The content as last confirmed")
    result: dict[str, Any] | None = None
    error: str | None = None
    retryable: bool = Field(description="A confirm can be sent (again)")
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, draft: Draft) -> DraftView:
        try:
            card: dict[str, Any] | None = card_from_payload(draft.payload).to_wire()
        except ValueError:
            card = None
        return cls(
            id=draft.id,
            action=draft.action,
            status=draft.status,
            card=card,
            edits=draft.edits,
            result=draft.result,
            error=draft.error,
            retryable=draft.status in (DraftStatus.PROPOSED, DraftStatus.FAILED),
            created_at=draft.created_at,
            updated_at=draft.updated_at,
        )


@dataclass(frozen=True, slots=True)
class Caller:
    """The authenticated user: the JWT ``sub``; ``email`` only when the token says it is verified;
    ``name`` (display only: the user's profile name, e.g. the ``name`` claim) when it carries one."""

    user_id: str
    email: str | None = None
    name: str | None = None


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


def _sender_name(caller: Caller) -> str:
    """Whom a mail is from, in words: ``"Alex Müller via multitool"``; ``multitool`` when unknown."""
    return f"{caller.name} {SENT_VIA}" if caller.name else "multitool"


def _reply_to(caller: Caller) -> tuple[str, ...]:
    """Replies go to the requester, only at an address the identity provider verified."""
    return (caller.email,) if caller.email else ()


@dataclass(frozen=True, slots=True)
class ReviewConfig:
    sender_email: str
    jira_projects: Mapping[str, JiraProject] = field(default_factory=lambda: ToolConfig().jira_projects)
    sandbox: bool = False


# -- per action: edits model, content, side effect -----------------------------

E = TypeVar("E", bound=BaseModel)
C = TypeVar("C", bound=WireModel)


@dataclass(frozen=True, slots=True)
class _Context:
    draft: Draft
    caller: Caller
    config: ReviewConfig
    people: Mapping[str, Person]


@dataclass(frozen=True, slots=True)
class ActionReview(Generic[E, C]):
    edits_model: type[E]
    content_model: type[C]
    content: Callable[[E, C | None, _Context], C]
    execute: Callable[[C, _Context, Reviewer], dict[str, Any]]
    check: Callable[[C, _Context, Reviewer], None] = lambda *_: None


def _people_on(payload: Mapping[str, Any]) -> dict[str, Person]:
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


def _address_of(raw: str, where: str, ctx: _Context) -> Address:
    person = ctx.people.get(raw)
    if person is not None:
        return Address(email=person.email, name=person.display_name)
    if is_address(raw):
        known = next((p for p in ctx.people.values() if p.email.casefold() == raw.casefold()), None)
        return Address(email=raw, name=known.display_name if known else None)
    raise InvalidEdits(
        f"'{raw}' is neither an email address nor one of the people offered on the card.", field=where
    )


def _settled(resolution: NameResolution, where: str) -> Address:
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


def _addresses(
    edited: Sequence[str] | None,
    confirmed: Sequence[Address] | None,
    proposed: Sequence[NameResolution],
    name: str,
    ctx: _Context,
) -> tuple[Address, ...]:
    if edited is not None:
        chosen = [_address_of(raw, f"{name}[{i}]", ctx) for i, raw in enumerate(edited)]
    elif confirmed is not None:
        chosen = list(confirmed)
    else:
        chosen = [_settled(r, f"{name}[{i}]") for i, r in enumerate(proposed)]
    unique: dict[str, Address] = {}
    for address in chosen:
        unique.setdefault(address.email.casefold(), address)
    return tuple(unique.values())


def _email_content(edits: EmailEdits, confirmed: EmailContent | None, ctx: _Context) -> EmailContent:
    payload = email_draft.EmailDraftPayload.model_validate(ctx.draft.payload)
    to = _addresses(edits.to, confirmed.to if confirmed else None, payload.to, "to", ctx)
    cc = _addresses(edits.cc, confirmed.cc if confirmed else None, payload.cc, "cc", ctx)
    to_emails = {a.email.casefold() for a in to}
    return EmailContent(
        to=to,
        cc=tuple(a for a in cc if a.email.casefold() not in to_emails),
        subject=edits.subject or (confirmed.subject if confirmed else payload.subject),
        body=edits.body or (confirmed.body if confirmed else payload.body),
    )


def _send_email(content: EmailContent, ctx: _Context, reviewer: Reviewer) -> dict[str, Any]:
    sent = reviewer.mailer.send(
        Mail(
            to=tuple(a.email for a in content.to),
            cc=tuple(a.email for a in content.cc),
            subject=content.subject,
            text=content.body,
            from_name=_sender_name(ctx.caller),
            reply_to=_reply_to(ctx.caller),
        )
    )
    return {"messageId": sent.message_id, "recipients": [a.email for a in (*content.to, *content.cc)]}


def _meeting_content(edits: MeetingEdits, confirmed: MeetingContent | None, ctx: _Context) -> MeetingContent:
    payload = meeting_scheduler.MeetingPayload.model_validate(ctx.draft.payload)
    attendees = _addresses(
        edits.attendees, confirmed.attendees if confirmed else None, payload.attendees, "attendees", ctx
    )
    if edits.slot is not None:
        slot = next(
            (s for s in payload.slots if s.start == edits.slot.start and s.end == edits.slot.end),
            None,
        )
        if slot is None:
            offered = ", ".join(f"{s.start.isoformat()}/{s.end.isoformat()}" for s in payload.slots) or "none"
            raise InvalidEdits(f"Choose one of the proposed slots: {offered}.", field="slot")
        start, end = slot.start, slot.end
    elif confirmed is not None:
        start, end = confirmed.start, confirmed.end
    elif len(payload.slots) == 1:
        start, end = payload.slots[0].start, payload.slots[0].end
    else:
        raise InvalidEdits("Choose one of the proposed slots.", field="slot")
    zone = ZoneInfo(payload.timezone)
    return MeetingContent(
        title=edits.title or (confirmed.title if confirmed else payload.title),
        attendees=attendees,
        start=start.astimezone(zone),
        end=end.astimezone(zone),
        timezone=payload.timezone,
    )


def _meeting_not_started(content: MeetingContent, ctx: _Context, reviewer: Reviewer) -> None:
    if content.start <= reviewer.clock():
        raise InvalidEdits("This slot has already started; choose a later one.", field="slot")


def _organizer(ctx: _Context) -> Participant:
    if ctx.caller.email:
        return Participant(ctx.caller.email, ctx.caller.name)
    return Participant(ctx.config.sender_email, "multitool")


def _tracked_attendees(content: MeetingContent, ctx: _Context) -> tuple[str, ...]:
    """Whose time the booking holds: attendees the directory knows, and the verified organizer.

    An external address (a bare address on the card, or one typed in an edit that the card did
    not offer) is invited but not tracked: its calendar is not ours to know or to hold.
    """
    directory = {p.email.casefold() for p in ctx.people.values() if not is_external(p)}
    tracked = [a.email for a in content.attendees if a.email.casefold() in directory]
    if ctx.caller.email and ctx.caller.email.casefold() not in {t.casefold() for t in tracked}:
        tracked.append(ctx.caller.email)
    return tuple(tracked)


def _slot_words(start: datetime, end: datetime, zone: ZoneInfo) -> str:
    return f"{start.astimezone(zone):%a %d %b %H:%M}-{end.astimezone(zone):%H:%M}"


def _slot_taken_message(
    taken: SlotTakenInCalendar,
    content: MeetingContent,
    tracked: Sequence[str],
    ctx: _Context,
    reviewer: Reviewer,
) -> str:
    """Who is booked now, and which of the card's other slots are still free for everyone tracked."""
    zone = ZoneInfo(content.timezone)
    names = {a.email.casefold(): a.name or a.email for a in content.attendees}
    who = ", ".join(sorted(names.get(email.casefold(), email) for email in taken.busy))
    message = (
        f"{_slot_words(content.start, content.end, zone)} is no longer free: {who} "
        f"{'is' if len(taken.busy) == 1 else 'are'} booked then. Nothing was sent."
    )
    payload = meeting_scheduler.MeetingPayload.model_validate(ctx.draft.payload)
    others = [s for s in payload.slots if s.start != content.start and s.start > reviewer.clock()]
    if not others:
        return f"{message} Ask for new times."
    busy = reviewer.calendar.busy(tracked, min(s.start for s in others), max(s.end for s in others))
    held = [interval for intervals in busy.values() for interval in intervals]
    free = [s for s in others if not any(i.start < s.end and s.start < i.end for i in held)]
    if not free:
        return f"{message} The card's other slots are taken too; ask for new times."
    return f"{message} Still free: {', '.join(_slot_words(s.start, s.end, zone) for s in free)}."


def _book_and_invite(content: MeetingContent, ctx: _Context, reviewer: Reviewer) -> dict[str, Any]:
    """Book first, then send: a refused slot sends nothing, and a failed send releases the time.

    The booking's id is the draft id, so a confirm that runs again (a retry after a failed send,
    a takeover after the lease) books the same booking again (a no-op) or moves it to the newly
    chosen slot; the invitation keeps the draft id as its UID, so a second send updates the
    same event in the attendees' calendars.
    """
    organizer = _organizer(ctx)
    tracked = _tracked_attendees(content, ctx)
    try:
        reviewer.calendar.book(
            Booking(
                id=ctx.draft.id,
                title=content.title,
                organizer=organizer.email,
                attendees=tracked,
                start=content.start,
                end=content.end,
                timezone=content.timezone,
            )
        )
    except SlotTakenInCalendar as taken:
        raise _SlotRefused(_slot_taken_message(taken, content, tracked, ctx, reviewer)) from taken
    invitation = build_invitation(
        Invitation(
            uid=ctx.draft.id,
            title=content.title,
            organizer=organizer,
            attendees=[Participant(a.email, a.name) for a in content.attendees],
            start=content.start,
            end=content.end,
            timezone=content.timezone,
        ),
        stamp=reviewer.clock(),
    )
    when = f"{content.start:%A %d %B %Y, %H:%M}-{content.end:%H:%M} ({content.timezone})"
    # The organizer (a verified caller) gets the invitation too: it is how the meeting reaches
    # their own calendar.
    recipients = [a.email for a in content.attendees]
    if ctx.caller.email and ctx.caller.email.casefold() not in {r.casefold() for r in recipients}:
        recipients.append(ctx.caller.email)
    try:
        sent = reviewer.mailer.send(
            Mail(
                to=tuple(recipients),
                subject=f"Invitation: {content.title}",
                text=f"You are invited to {content.title}.\nWhen: {when}\n",
                invitation=invitation,
                from_name=_sender_name(ctx.caller),
                reply_to=_reply_to(ctx.caller),
            )
        )
    except BaseException:
        _release_after_failed_send(ctx.draft.id, reviewer)
        raise
    return {
        "messageId": sent.message_id,
        "bookingId": ctx.draft.id,
        "start": content.start.isoformat(),
        "end": content.end.isoformat(),
        "timezone": content.timezone,
        "attendees": recipients,
    }


def _release_after_failed_send(booking_id: str, reviewer: Reviewer) -> None:
    """Give the time back when the invitation did not go out (the draft is then ``failed``)."""
    try:
        reviewer.calendar.release(booking_id)
    except Exception as error:
        # The send's failure is what the caller sees; the booking stays until the draft is
        # confirmed again (which books the same id: a no-op or a move).
        logger.error(
            "Booking not released after a failed send", extra={"draft_id": booking_id, **error_fields(error)}
        )


def _jira_content(edits: JiraEdits, confirmed: JiraContent | None, ctx: _Context) -> JiraContent:
    payload = jira_draft.JiraTicketPayload.model_validate(ctx.draft.payload)
    base = confirmed or JiraContent(
        project=payload.project,
        issue_type=payload.issue_type,
        summary=payload.summary,
        description=payload.description,
        priority=payload.priority,
    )
    try:
        project, issue_type = jira_draft.validate_project(
            edits.project or base.project,
            edits.issue_type or base.issue_type,
            ToolConfig(jira_projects=ctx.config.jira_projects),
        )
    except ToolError as error:
        raise InvalidEdits(error.message, field=error.field or "project") from error
    assignee: Address | None
    if "assignee" in edits.model_fields_set:
        assignee = _address_of(edits.assignee, "assignee", ctx) if edits.assignee else None
    elif confirmed is not None:
        assignee = confirmed.assignee
    else:
        assignee = _settled(payload.assignee, "assignee") if payload.assignee else None
    return JiraContent(
        project=project,
        issue_type=issue_type,
        summary=edits.summary or base.summary,
        description=base.description if edits.description is None else edits.description,
        priority=edits.priority or base.priority,
        assignee=assignee,
    )


def _jira_configured(content: JiraContent, ctx: _Context, reviewer: Reviewer) -> None:
    if reviewer.jira is None:
        raise NotConfigured("Jira is not configured in this deployment.")


def _create_issue(content: JiraContent, ctx: _Context, reviewer: Reviewer) -> dict[str, Any]:
    assert reviewer.jira is not None  # checked before execution
    created: CreatedIssue = reviewer.jira.create_issue(
        IssueRequest(
            project=content.project,
            issue_type=content.issue_type,
            summary=content.summary,
            description=content.description,
            priority=content.priority.value,
            assignee_email=content.assignee.email if content.assignee else None,
        )
    )
    return {"issueKey": created.key, "issueId": created.id, "issueUrl": created.url}


ACTIONS: dict[str, ActionReview[Any, Any]] = {
    email_draft.ACTION: ActionReview(EmailEdits, EmailContent, _email_content, _send_email),
    meeting_scheduler.ACTION: ActionReview(
        MeetingEdits, MeetingContent, _meeting_content, _book_and_invite, _meeting_not_started
    ),
    jira_draft.ACTION: ActionReview(JiraEdits, JiraContent, _jira_content, _create_issue, _jira_configured),
}


def field_path(location: Iterable[int | str]) -> str:
    """``("to", 0)`` -> ``to[0]``; ``("slot", "start")`` -> ``slot.start``."""
    path = ""
    for part in location:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path or "body"


def _invalid(error: ValidationError) -> InvalidEdits:
    problems = error.errors(include_url=False, include_input=False)
    first = field_path(problems[0]["loc"]) if problems else "body"
    message = "; ".join(f"{field_path(p['loc'])}: {p['msg']}" for p in problems)
    return InvalidEdits(message or "The edits are invalid.", field=first)


# -- the service -----------------------------------------------------------------


class Reviewer:
    """Get, confirm and discard drafts for their owner; the only code that performs side effects."""

    def __init__(
        self,
        drafts: DraftStore,
        *,
        mailer: Mailer,
        calendar: Calendar,
        jira: JiraClient | None,
        config: ReviewConfig,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.drafts = drafts
        self.mailer = mailer
        self.calendar = calendar
        self.jira = jira
        self.config = config
        self.clock = clock

    def get(self, caller: Caller, draft_id: str) -> Draft:
        """The caller's draft; another user's, an expired one and an impossible id are all not found."""
        # An id no draft can have is not looked up: a key over DynamoDB's limit is a ValidationException.
        plausible = 0 < len(draft_id) <= MAX_DRAFT_ID_CHARS
        draft = self.drafts.get(draft_id) if plausible else None
        if draft is None or draft.owner != caller.user_id or is_expired(draft, self.clock()):
            shown = draft_id if plausible else f"{draft_id[:MAX_DRAFT_ID_CHARS]}..."
            raise DraftNotFound(f"There is no action '{shown}'.")
        return draft

    def confirm(self, caller: Caller, draft_id: str, body: Mapping[str, Any]) -> Draft:
        """Execute the draft with ``body``'s edits, once; returns the ``done`` draft.

        Raises :class:`DraftNotFound`, :class:`InvalidEdits`, :class:`ReviewConflict`,
        :class:`NotConfigured` or :class:`SideEffectFailed` (the draft is then ``failed``).
        """
        for _ in range(_MAX_WRITE_ATTEMPTS):
            draft = self.get(caller, draft_id)
            review = ACTIONS.get(draft.action)
            if review is None:
                raise InvalidEdits(f"Actions of type '{draft.action}' cannot be confirmed.", field="action")
            if draft.status is DraftStatus.DISCARDED:
                raise AlreadyDiscarded("This action was discarded.", draft=draft)
            ctx = _Context(draft=draft, caller=caller, config=self.config, people=_people_on(draft.payload))
            content = self._content(review, body, ctx)
            edits = content.to_wire()
            if draft.status is DraftStatus.DONE:
                if canonical_json(draft.edits) == canonical_json(edits):
                    return draft
                raise AlreadyDone("This action was already done with different content.", draft=draft)
            if draft.status is DraftStatus.EXECUTING and self.clock() - draft.updated_at < EXECUTION_LEASE:
                raise ActionInProgress("This action is being executed; try again shortly.", draft=draft)
            review.check(content, ctx, self)
            executing = draft.model_copy(
                update={
                    "status": DraftStatus.EXECUTING,
                    "edits": edits,
                    "error": None,
                    "result": None,
                    "updated_at": self.clock(),
                }
            )
            try:
                executing = self.drafts.replace(draft, executing)
            except DraftWriteConflict:
                continue  # someone else moved it: decide again on what is stored now
            return self._execute(review, content, executing, ctx, before=draft)
        raise ActionInProgress(
            "This action is changing; try again shortly.", draft=self.get(caller, draft_id)
        )

    def discard(self, caller: Caller, draft_id: str) -> Draft:
        for _ in range(_MAX_WRITE_ATTEMPTS):
            draft = self.get(caller, draft_id)
            if draft.status is DraftStatus.DISCARDED:
                return draft
            if draft.status is DraftStatus.DONE:
                raise AlreadyDone("This action was already done; it cannot be discarded.", draft=draft)
            if draft.status is DraftStatus.EXECUTING:
                raise ActionInProgress(
                    "This action is being executed; it cannot be discarded now.", draft=draft
                )
            try:
                discarded = self.drafts.replace(
                    draft,
                    draft.model_copy(update={"status": DraftStatus.DISCARDED, "updated_at": self.clock()}),
                )
            except DraftWriteConflict:
                continue
            logger.info("Action discarded", extra={"draft_id": draft.id, "action": draft.action})
            metrics.add_metric(name="ActionsDiscarded", unit=MetricUnit.Count, value=1)
            return discarded
        raise ActionInProgress(
            "This action is changing; try again shortly.", draft=self.get(caller, draft_id)
        )

    def _content(self, review: ActionReview[Any, Any], body: Mapping[str, Any], ctx: _Context) -> WireModel:
        try:
            edits = review.edits_model.model_validate(dict(body))
        except ValidationError as error:
            raise _invalid(error) from None
        confirmed = review.content_model.model_validate(ctx.draft.edits) if ctx.draft.edits else None
        try:
            content: WireModel = review.content(edits, confirmed, ctx)
        except ValidationError as error:
            raise _invalid(error) from None
        return content

    def _execute(
        self,
        review: ActionReview[Any, Any],
        content: WireModel,
        executing: Draft,
        ctx: _Context,
        *,
        before: Draft,
    ) -> Draft:
        ctx = _Context(draft=executing, caller=ctx.caller, config=ctx.config, people=ctx.people)
        log = {"draft_id": executing.id, "action": executing.action}
        try:
            result = review.execute(content, ctx, self)
        except _SlotRefused as refused:
            # Nothing happened: the draft goes back to what it was (a taken-over ``executing``
            # becomes ``failed``), with these edits kept, so another slot can be confirmed.
            status = (
                before.status
                if before.status in (DraftStatus.PROPOSED, DraftStatus.FAILED)
                else DraftStatus.FAILED
            )
            restored = self.drafts.replace(
                executing,
                executing.model_copy(
                    update={
                        "status": status,
                        "error": refused.message,
                        "result": None,
                        "updated_at": self.clock(),
                    }
                ),
            )
            logger.info("Slot taken", extra=log)
            metrics.add_metric(name="SlotsTaken", unit=MetricUnit.Count, value=1)
            raise SlotTaken(refused.message, draft=restored) from None
        except (MailError, JiraError) as error:
            failed = self._finish(executing, error=error.reason)
            logger.warning("Action failed", extra={**log, "failure": error.code})
            metrics.add_metric(name="ActionsFailed", unit=MetricUnit.Count, value=1)
            retry_after = error.retry_after if isinstance(error, JiraError) else None
            raise SideEffectFailed(
                error.reason, code=error.code, draft=failed, retry_after=retry_after
            ) from error
        except Exception as error:
            # Unknown failure: record it (retryable) without its text, which may hold content.
            self._finish(executing, error=f"Unexpected error ({type(error).__name__}); try again.")
            logger.error("Action failed unexpectedly", extra={**log, **error_fields(error)})
            raise
        if self.config.sandbox:
            result = {**result, "sandbox": True}
        done = self._finish(executing, result=result)
        logger.info("Action done", extra=log)
        metrics.add_metric(name="ActionsDone", unit=MetricUnit.Count, value=1)
        return done

    def _finish(
        self, executing: Draft, *, result: dict[str, Any] | None = None, error: str | None = None
    ) -> Draft:
        status = DraftStatus.FAILED if error is not None else DraftStatus.DONE
        finished = executing.model_copy(
            update={"status": status, "result": result, "error": error, "updated_at": self.clock()}
        )
        return self.drafts.replace(executing, finished)
