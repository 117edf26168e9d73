"""Human review: a draft's owner reads it, confirms it (with edits) or discards it.

Only a confirm performs a side effect (send the email, send the invitation and
book the time, create the Jira issue), and it does so at most once per draft:

``proposed -> executing -> done``, or ``executing -> failed`` (retryable,
the edits are kept), or ``proposed | failed -> discarded``. Every transition
is one conditional write (:meth:`multitool.ports.drafts.DraftStore.replace`):
of two concurrent confirms exactly one moves the draft to ``executing`` and
performs the side effect; the other sees ``executing`` and is told the action
is in progress. A confirm after ``done`` with the same content returns the
stored result without acting again; with different content it is a conflict.

Exactly once ends where the backends do: SES and Jira take no idempotency key,
so a function that dies between the backend accepting the action and the
``done`` write leaves the draft ``executing``, and a confirm after
:data:`EXECUTION_LEASE` acts again (a second mail or issue; an invitation keeps
the draft id as its UID, a booking is written once). A Jira create sent without
an answer is ``jira_outcome_unknown``: the user checks Jira before retrying.

The edits a confirm carries are validated by the models below, and every name
the draft could not resolve must be settled by them first (``InvalidEdits``
naming the field, e.g. ``to[0]``). Fields a confirm leaves out keep their
last confirmed value, else the draft's.
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
from multitool.ports.drafts import DraftStore, DraftWriteConflict
from multitool.ports.jira import CreatedIssue, IssueRequest, JiraClient, JiraError
from multitool.ports.mail import Mail, Mailer, MailError
from multitool.settings import JiraProject
from multitool.slots import Slot
from multitool.text import CLEAN_MULTI_LINE, CLEAN_SINGLE_LINE, SingleLine
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
from multitool.tools.common import RawName
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
    """The authenticated user: the JWT ``sub`` and, when the token carries it, ``email``."""

    user_id: str
    email: str | None = None


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
        return Participant(ctx.caller.email)
    return Participant(ctx.config.sender_email, "multitool")


def _send_invitation(content: MeetingContent, ctx: _Context, reviewer: Reviewer) -> dict[str, Any]:
    organizer = _organizer(ctx)
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
    sent = reviewer.mailer.send(
        Mail(
            to=tuple(a.email for a in content.attendees),
            subject=f"Invitation: {content.title}",
            text=f"You are invited to {content.title}.\nWhen: {when}\n",
            invitation=invitation,
        )
    )
    # Booked after the invitation went out: a failed send leaves no stray busy time behind,
    # and booking the same draft id again is a no-op.
    attendees = [a.email for a in content.attendees]
    if ctx.caller.email and ctx.caller.email.casefold() not in {a.casefold() for a in attendees}:
        attendees.append(ctx.caller.email)
    reviewer.calendar.book(
        Booking(
            id=ctx.draft.id,
            title=content.title,
            organizer=organizer.email,
            attendees=tuple(attendees),
            start=content.start,
            end=content.end,
            timezone=content.timezone,
        )
    )
    return {
        "messageId": sent.message_id,
        "bookingId": ctx.draft.id,
        "start": content.start.isoformat(),
        "end": content.end.isoformat(),
        "timezone": content.timezone,
        "attendees": attendees,
    }


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
        MeetingEdits, MeetingContent, _meeting_content, _send_invitation, _meeting_not_started
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
            return self._execute(review, content, executing, ctx)
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
        self, review: ActionReview[Any, Any], content: WireModel, executing: Draft, ctx: _Context
    ) -> Draft:
        ctx = _Context(draft=executing, caller=ctx.caller, config=ctx.config, people=ctx.people)
        log = {"draft_id": executing.id, "action": executing.action}
        try:
            result = review.execute(content, ctx, self)
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
