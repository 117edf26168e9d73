"""The review service: a draft's owner reads it, confirms it (with edits) or discards it.

Only a confirm performs a side effect (send the email, book the time and send the
invitation, create the Jira issue), and it does so at most once per draft.

States: ``proposed -> executing -> done``; ``executing -> failed`` (the backend
failed; retryable, the edits are kept); ``executing -> proposed | failed`` when
the chosen slot was taken (:class:`SlotTaken`, 409 ``slot_taken``: back to the
status it had, the edits kept, nothing sent); ``proposed | failed ->
discarded``; ``proposed -> superseded`` when a revision replaces the draft (written
by the tools with the revision, :meth:`multitool.ports.drafts.DraftStore.supersede`):
a superseded draft is never confirmed or discarded (409 ``superseded``, naming its
successor). Every transition is one conditional write
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
again as a no-op, or moved if another slot is chosen). A send that reached
the backend without an answer (a Jira create, a mail or an event in the
user's own suite) is never sent again blindly: it is ``jira_outcome_unknown``
or ``provider_outcome_unknown``, the draft ``failed`` with words saying where
to check before confirming again, the recipients kept in the day's quota, and
the audit entry ``unknown`` (:mod:`multitool.ports.retry`).

A moment to undo (:mod:`multitool.review.undo`): an ``undoable`` confirm may store the draft
``scheduled`` (``proposed | failed -> scheduled``) instead of acting; :meth:`Reviewer.undo` moves it
back (``scheduled -> proposed``), :meth:`Reviewer.send_due` sends it at due time (``scheduled ->
executing``), each by one conditional write from ``scheduled``: exactly one of them wins.

The edits a confirm carries are validated by the tool's edits model (its
:class:`multitool.toolkit.confirm.ActionReview`, in the tool's module) (text fields by
the policy of :mod:`multitool.text`), and every name the draft could not
resolve must be settled by them first (``InvalidEdits`` naming the field, e.g.
``to[0]``). Fields a confirm leaves out keep their last confirmed value, else
the draft's.
"""

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from pydantic import ValidationError

# A module, not its names: client_actions reads the registry, whose tools import this package.
from multitool.drafts import (
    MAX_DRAFT_ID_CHARS,
    Draft,
    DraftStatus,
    canonical_json,
    is_expired,
    is_unclaimed,
)
from multitool.errors import ServiceError
from multitool.observability import error_fields, logger, metrics
from multitool.people import Person
from multitool.ports.audit import AuditEntry, AuditLog
from multitool.ports.calendar import Calendar
from multitool.ports.directory import Directory
from multitool.ports.drafts import DraftStore, DraftWriteConflict
from multitool.ports.jira import JiraClient, JiraError, JiraOutcomeUnknown
from multitool.ports.mail import Mailer, MailError, MailOutcomeUnknown
from multitool.ports.mailbox import Mailbox
from multitool.ports.quota import QuotaRefused, RecipientQuota, Spend
from multitool.ports.suites import Suite
from multitool.ports.tokens import AccountNotConnected, ProviderError, ProviderOutcomeUnknown
from multitool.review import links
from multitool.review.errors import (
    ActionInProgress,
    AlreadyDiscarded,
    AlreadyDone,
    AlreadyScheduled,
    DraftNotFound,
    ItemChangedSince,
    ProviderFailed,
    ReconnectAccount,
    ScheduleUnavailable,
    SideEffectFailed,
    SlotTaken,
    Superseded,
)
from multitool.review.limits import ApprovalRequired, QuotaExceeded, quota_day, until_next_day
from multitool.review.undo import (
    UndoWindow,
    scheduled,
    scheduled_confirm,
    seconds_left,
    too_late,
    undone,
)
from multitool.review.views import DraftView as DraftView  # where it was read before it had a module
from multitool.toolkit.confirm import (
    ActionReview,
    Backends,
    Caller,
    ReviewConfig,
    ReviewContext,
    invalid_edits,
    people_on,
    typed_addresses,
)
from multitool.toolkit.errors import InvalidEdits, ItemChanged, NothingToConfirm, SlotRefused
from multitool.tools import REGISTRY
from multitool.wire import WireModel

# Longer than the review function's timeout: an ``executing`` draft older than
# this belongs to an invocation that cannot still be running, so a confirm may
# take it over instead of waiting forever.
EXECUTION_LEASE = timedelta(minutes=5)
_MAX_WRITE_ATTEMPTS = 4


# -- what a caller sees --------------------------------------------------------


def _quota_words(spend: Spend, refused: QuotaRefused, per_day: int, outside_limit: int | None) -> str:
    """Which daily limit the confirm would pass, in numbers the user can act on."""
    if outside_limit is not None and refused.used_outside + spend.outside > outside_limit:
        return (
            f"This would mail {spend.outside} outside address(es); you may mail {outside_limit} a day "
            f"outside the organization and have used {refused.used_outside} today. Nothing was sent; "
            "remove outside recipients or try again tomorrow (UTC)."
        )
    return (
        f"This would mail {spend.total} address(es); you may mail {per_day} a day and have used "
        f"{refused.used_total} today. Nothing was sent; remove recipients or try again tomorrow (UTC)."
    )


def _superseded(draft: Draft) -> Superseded:
    successor = f" by {draft.superseded_by}" if draft.superseded_by else ""
    return Superseded(f"This action was replaced{successor}; review the revised card instead.", draft=draft)


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
        quota: RecipientQuota | None = None,
        audit: AuditLog | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        directory: Directory | None = None,
        suites: Callable[[Caller], Suite] | None = None,
        caller_jira: Callable[[Caller], JiraClient] | None = None,
        undo: UndoWindow | None = None,
        mailboxes: Callable[[str | None], Mailbox | None] | None = None,
    ) -> None:
        """``suites``: the caller's own suite (Microsoft 365, Google Workspace) whose directory,
        calendar and mailer a confirm uses instead of ``directory``/``calendar``/``mailer``;
        ``caller_jira``: the caller's own Jira (Jira as the user), used instead of ``jira``;
        ``undo``: the moment an undoable side effect waits after its confirm (none: at once)."""
        self.undo_window = undo
        self.drafts = drafts
        self.suites = suites
        self.caller_jira = caller_jira
        self.mailboxes = mailboxes
        self.directory = directory
        self.mailer = mailer
        self.calendar = calendar
        self.jira = jira
        self.config = config
        self.quota = quota
        self.audit = audit
        self.clock = clock

    def get(self, caller: Caller, draft_id: str) -> Draft:
        """The caller's draft; another user's, an expired one and an impossible id are all not found."""
        # An id no draft can have is not looked up: a key over DynamoDB's limit is a ValidationException.
        plausible = 0 < len(draft_id) <= MAX_DRAFT_ID_CHARS
        draft = self.drafts.get(draft_id) if plausible else None
        if (
            draft is None
            or is_unclaimed(draft)
            or draft.owner != caller.user_id
            or is_expired(draft, self.clock())
        ):
            shown = draft_id if plausible else f"{draft_id[:MAX_DRAFT_ID_CHARS]}..."
            raise DraftNotFound(f"There is no action '{shown}'.")
        return draft

    def confirm(self, caller: Caller, draft_id: str, body: Mapping[str, Any]) -> Draft:
        """Execute the draft with ``body``'s edits, once; returns the ``done`` draft.

        Raises :class:`DraftNotFound`, :class:`InvalidEdits`, :class:`ReviewConflict`,
        :class:`NotConfigured`, :class:`ApprovalRequired`, :class:`QuotaExceeded` (nothing sent,
        the draft as it was) or :class:`SideEffectFailed` (the draft is then ``failed``).
        """
        approved = self.config.approved_group
        if approved is not None and approved not in caller.groups:
            self.get(caller, draft_id)  # someone else's draft stays not found
            raise ApprovalRequired(
                "Your account is waiting for an administrator's approval: until then nothing can be "
                "sent, booked or created. Your cards are kept."
            )
        for _ in range(_MAX_WRITE_ATTEMPTS):
            draft = self.get(caller, draft_id)
            tool = REGISTRY.by_action(draft.action)
            if tool is not None and tool.card.read_only:
                raise NothingToConfirm(
                    f"This card only shows {tool.nouns[0]}: there is nothing to confirm, and nothing was "
                    "sent, booked or created."
                )
            review = tool.action_review() if tool is not None else None
            if review is None:
                raise InvalidEdits(f"Actions of type '{draft.action}' cannot be confirmed.", field="action")
            if draft.status is DraftStatus.DISCARDED:
                raise AlreadyDiscarded("This action was discarded.", draft=draft)
            if draft.status is DraftStatus.SUPERSEDED:
                raise _superseded(draft)
            ctx = ReviewContext(
                draft=draft,
                caller=caller,
                config=self.config,
                people=people_on(draft.payload),
                addresses=self._directory_addresses(body, caller, draft),
            )
            content = self._content(review, body, ctx)
            # Placeholders of other cards' values (review.links): filled, or this waits for them.
            content = links.settle(self, caller, draft, content, settled=draft.status is DraftStatus.DONE)
            edits = content.to_wire()
            if draft.status in (DraftStatus.DONE, DraftStatus.SCHEDULED):
                if canonical_json(draft.edits) == canonical_json(edits):
                    return draft
                if draft.status is DraftStatus.SCHEDULED:
                    raise AlreadyScheduled(
                        "This action is confirmed with other content and waits to be sent; undo it to "
                        "change it.",
                        draft=draft,
                    )
                raise AlreadyDone("This action was already done with different content.", draft=draft)
            if draft.status is DraftStatus.EXECUTING and self.clock() - draft.updated_at < EXECUTION_LEASE:
                raise ActionInProgress("This action is being executed; try again shortly.", draft=draft)
            review.check(content, ctx, self._backends(caller))
            spent = self._spend(review, content, ctx)
            acted = self._run_now_or_schedule(review, content, draft, ctx, spent=spent)
            if acted is not None:
                return acted
            # someone else moved it: decide again on what is stored now
        raise ActionInProgress(
            "This action is changing; try again shortly.", draft=self.get(caller, draft_id)
        )

    def confirm_in_order(self, caller: Caller, draft_id: str, body: Mapping[str, Any]) -> Draft:
        """:meth:`confirm`, confirming first every card this one waits for (:mod:`multitool.review.links`)."""
        return links.confirm_in_order(self, caller, draft_id, body)

    def confirm_all(
        self, caller: Caller, ids: Sequence[str], edits: Mapping[str, Mapping[str, Any]]
    ) -> "links.ConfirmAllView":
        """Confirm several cards in dependency order, each once, and say what happened to each."""
        return links.confirm_all(self, caller, ids, edits)

    def _run_now_or_schedule(
        self,
        review: ActionReview[Any, Any],
        content: WireModel,
        draft: Draft,
        ctx: ReviewContext,
        *,
        spent: tuple[str, Spend] | None,
    ) -> Draft | None:
        """The side effect of a confirm, run now (``executing`` then ``done``) or scheduled for the end
        of the undo window (``scheduled``): the one place a confirmed draft leaves ``proposed``/``failed``.
        None when the stored draft changed since it was read (nothing done, the spend given back)."""
        now = self.clock()
        window = self._window_for(review)
        update: dict[str, Any] = {
            "edits": content.to_wire(),
            "error": None,
            "result": None,
            "updated_at": now,
        }
        if window is not None:
            return self._schedule(draft, update, window, ctx, spent=spent)
        try:
            executing = self.drafts.replace(
                draft, draft.model_copy(update={**update, "status": DraftStatus.EXECUTING})
            )
        except DraftWriteConflict:
            self._refund(ctx.caller, spent)
            return None
        return self._execute(review, content, executing, ctx, before=draft, spent=spent)

    def _window_for(self, review: ActionReview[Any, Any]) -> UndoWindow | None:
        """The undo window this confirm waits, or None to act at once: the tool's side effect must be
        undoable, the window longer than 0, and sent by the deployment's own mailer (the user's own
        suite needs the user's token, which only the request holds; Jira, which may be the user's
        own too, is not undoable)."""
        window = self.undo_window
        if window is None or window.seconds <= 0 or not review.undoable or self.suites is not None:
            return None
        return window

    def _schedule(
        self,
        draft: Draft,
        update: dict[str, Any],
        window: UndoWindow,
        ctx: ReviewContext,
        *,
        spent: tuple[str, Spend] | None,
    ) -> Draft | None:
        """Send the queue's message first, then store the draft ``scheduled``: a message whose write lost
        (or never came) finds nothing scheduled and does nothing."""
        try:
            window.queue.schedule(draft.id, window.seconds)
        except Exception as error:
            self._refund(ctx.caller, spent)
            logger.error("Undo window not scheduled", extra={"draft_id": draft.id, **error_fields(error)})
            raise ScheduleUnavailable(
                "The send could not be scheduled; nothing will be sent. Confirm again.", draft=draft
            ) from None
        caller = ctx.caller
        try:
            waiting = self.drafts.replace(draft, scheduled(draft, update, window, caller))
        except DraftWriteConflict:
            self._refund(caller, spent)
            return None
        logger.info(
            "Action scheduled",
            extra={"draft_id": draft.id, "action": draft.action, "user_id": caller.user_id},
        )
        metrics.add_metric(name="ActionsScheduled", unit=MetricUnit.Count, value=1)
        return waiting

    def undo(self, caller: Caller, draft_id: str) -> Draft:
        """Cancel a scheduled side effect within its window: the draft is ``proposed`` again with the
        edits as confirmed, nothing sent. An undo after the window answers :class:`TooLateToUndo`
        with the draft as it is (being sent or done); an undo of a draft with nothing scheduled (a
        retried undo; a draft proposed, failed, discarded or replaced) answers the draft as it is."""
        for _ in range(_MAX_WRITE_ATTEMPTS):
            draft = self.get(caller, draft_id)
            if draft.status in (DraftStatus.EXECUTING, DraftStatus.DONE):
                raise too_late(draft)
            if draft.status is not DraftStatus.SCHEDULED:
                return draft
            try:
                back = self.drafts.replace(draft, undone(draft, self.clock()))
            except DraftWriteConflict:
                continue  # the send (or another undo) moved it: answer what is stored now
            self._refund(caller, self._scheduled_spend(draft, caller))
            logger.info(
                "Action undone",
                extra={"draft_id": draft.id, "action": draft.action, "user_id": caller.user_id},
            )
            metrics.add_metric(name="ActionsUndone", unit=MetricUnit.Count, value=1)
            return back
        raise ActionInProgress(
            "This action is changing; try again shortly.", draft=self.get(caller, draft_id)
        )

    def send_due(self, draft_id: str) -> Draft | None:
        """Do a scheduled draft's side effect once its window has passed (the undo queue's consumer).

        A draft that is no longer ``scheduled`` (undone, already sent by an earlier delivery of the same
        message, discarded or gone) is left alone: None, or the draft as it is. One still in its window
        (the queue delivered early) is scheduled again for the rest of it. A failed side effect leaves
        the draft ``failed`` (confirmable again) and raises the review's error, as a confirm does.
        """
        draft = self.drafts.get(draft_id) if 0 < len(draft_id) <= MAX_DRAFT_ID_CHARS else None
        if draft is None or draft.status is not DraftStatus.SCHEDULED or draft.due_at is None:
            logger.info("Nothing due", extra={"draft_id": draft_id})
            return draft
        left = seconds_left(draft, self.clock())
        if left > 0 and self.undo_window is not None:
            self.undo_window.queue.schedule(draft.id, left)
            return draft
        confirm = scheduled_confirm(draft, self.config)
        try:
            executing = self.drafts.replace(
                draft, draft.model_copy(update={"status": DraftStatus.EXECUTING, "updated_at": self.clock()})
            )
        except DraftWriteConflict as lost:
            logger.info("Undone before the send", extra={"draft_id": draft.id})
            return lost.stored
        spent = self._scheduled_spend(draft, confirm.ctx.caller)
        return self._execute(
            confirm.review, confirm.content, executing, confirm.ctx, before=draft, spent=spent
        )

    def _scheduled_spend(self, draft: Draft, caller: Caller) -> tuple[str, Spend] | None:
        """What a scheduled draft's confirm counted against the day's quota (on the day it was
        scheduled), to give back when it is undone or its send fails."""
        policy = self.config.recipients
        if policy is None or self.quota is None:
            return None
        confirm = scheduled_confirm(draft, self.config)
        try:
            spend = policy.spend(confirm.review.recipients(confirm.content, confirm.ctx))
        except ServiceError:  # the policy changed since the confirm: nothing to give back by it
            return None
        return (quota_day(draft.updated_at), spend) if spend.total else None

    def discard(self, caller: Caller, draft_id: str) -> Draft:
        for _ in range(_MAX_WRITE_ATTEMPTS):
            draft = self.get(caller, draft_id)
            if draft.status is DraftStatus.DISCARDED:
                return draft
            if draft.status is DraftStatus.SUPERSEDED:
                raise _superseded(draft)
            if draft.status is DraftStatus.DONE:
                raise AlreadyDone("This action was already done; it cannot be discarded.", draft=draft)
            if draft.status is DraftStatus.EXECUTING:
                raise ActionInProgress(
                    "This action is being executed; it cannot be discarded now.", draft=draft
                )
            if draft.status is DraftStatus.SCHEDULED:
                raise AlreadyScheduled(
                    "This action is confirmed and waits to be sent; undo it first to discard it.",
                    draft=draft,
                )
            try:
                discarded = self.drafts.replace(
                    draft,
                    draft.model_copy(update={"status": DraftStatus.DISCARDED, "updated_at": self.clock()}),
                )
            except DraftWriteConflict:
                continue
            logger.info(
                "Action discarded",
                extra={"draft_id": draft.id, "action": draft.action, "user_id": caller.user_id},
            )
            metrics.add_metric(name="ActionsDiscarded", unit=MetricUnit.Count, value=1)
            return discarded
        raise ActionInProgress(
            "This action is changing; try again shortly.", draft=self.get(caller, draft_id)
        )

    def _directory_addresses(
        self, body: Mapping[str, Any], caller: Caller, draft: Draft
    ) -> dict[str, Person]:
        """The directory people whose address (or an alias of it, any case) the edits typed: one read."""
        typed = typed_addresses(body)
        directory = self.suites(caller).directory if self.suites is not None else self.directory
        if directory is None or not typed:
            return {}
        try:
            found = directory.resolve(typed)
        except AccountNotConnected as missing:
            raise ReconnectAccount(
                str(missing),
                draft=draft,
                provider=missing.provider,
                authorization_url=missing.authorization_url,
            ) from None
        except ProviderError as error:
            raise ProviderFailed(
                str(error), code=error.code, status=error.status, draft=draft, retry_after=error.retry_after
            ) from error
        return {
            address.casefold(): resolution.person
            for address, resolution in found.items()
            if resolution.settled and resolution.person is not None
        }

    def _content(
        self, review: ActionReview[Any, Any], body: Mapping[str, Any], ctx: ReviewContext
    ) -> WireModel:
        try:
            edits = review.edits_model.model_validate(dict(body))
        except ValidationError as error:
            raise invalid_edits(error) from None
        confirmed = review.content_model.model_validate(ctx.draft.edits) if ctx.draft.edits else None
        try:
            content: WireModel = review.content(edits, confirmed, ctx)
        except ValidationError as error:
            raise invalid_edits(error) from None
        return content

    def _execute(
        self,
        review: ActionReview[Any, Any],
        content: WireModel,
        executing: Draft,
        ctx: ReviewContext,
        *,
        before: Draft,
        spent: tuple[str, Spend] | None = None,
    ) -> Draft:
        latest = [executing]

        def remember(progress: Mapping[str, Any]) -> None:
            current = latest[0]
            latest[0] = self.drafts.replace(
                current,
                current.model_copy(
                    update={"progress": {**(current.progress or {}), **progress}, "updated_at": self.clock()}
                ),
            )

        ctx = ReviewContext(
            draft=executing,
            caller=ctx.caller,
            config=ctx.config,
            people=ctx.people,
            addresses=ctx.addresses,
            remember=remember,
        )
        # Who acted and how many were mailed, by id and count only: never an address or content.
        recipients = len({address.casefold() for _, address in review.recipients(content, ctx)})
        log = {
            "draft_id": executing.id,
            "action": executing.action,
            "user_id": ctx.caller.user_id,
            "recipients": recipients,
        }
        backends = self._backends(ctx.caller)
        try:
            result = review.execute(content, ctx, backends)
        except SlotRefused as refused:
            self._refund(ctx.caller, spent)
            restored = self._restore(latest[0], before, refused.message)
            logger.info("Slot taken", extra=log)
            metrics.add_metric(name="SlotsTaken", unit=MetricUnit.Count, value=1)
            raise SlotTaken(refused.message, draft=restored) from None
        except ItemChanged as changed:
            # Re-read before writing: the item moved or went since the card; nothing was written.
            self._refund(ctx.caller, spent)
            restored = self._restore(executing, before, changed.message)
            logger.info("Item changed since the card", extra=log)
            raise ItemChangedSince(changed.message, draft=restored) from None
        except AccountNotConnected as missing:
            # Nothing happened in the user's suite: the draft stays confirmable once connected.
            self._refund(ctx.caller, spent)
            restored = self._restore(latest[0], before, str(missing))
            logger.info("Account not connected", extra={**log, "provider": missing.provider})
            raise ReconnectAccount(
                str(missing),
                draft=restored,
                provider=missing.provider,
                authorization_url=missing.authorization_url,
            ) from None
        except ProviderError as error:
            outcome = self._failed(ctx, spent, error)
            failed = self._finish(latest[0], error=str(error))
            logger.warning("Action failed", extra={**log, "failure": error.code, "provider": error.provider})
            self._record(ctx, outcome, recipients, None)
            metrics.add_metric(name="ActionsFailed", unit=MetricUnit.Count, value=1)
            raise SideEffectFailed(
                str(error), code=error.code, draft=failed, retry_after=error.retry_after
            ) from error
        except (MailError, JiraError) as error:
            outcome = self._failed(ctx, spent, error)
            failed = self._finish(latest[0], error=error.reason)
            logger.warning("Action failed", extra={**log, "failure": error.code})
            self._record(ctx, outcome, recipients, None)
            metrics.add_metric(name="ActionsFailed", unit=MetricUnit.Count, value=1)
            retry_after = error.retry_after if isinstance(error, JiraError) else None
            raise SideEffectFailed(
                error.reason, code=error.code, draft=failed, retry_after=retry_after
            ) from error
        except Exception as error:
            # Unknown failure: record it (retryable) without its text, which may hold content. The
            # recipients stay counted: the mail may have gone out before the failure.
            self._finish(latest[0], error=f"Unexpected error ({type(error).__name__}); try again.")
            logger.error("Action failed unexpectedly", extra={**log, **error_fields(error)})
            self._record(ctx, "unknown", recipients, None)
            raise
        if self.config.sandbox:
            result = {**result, "sandbox": True}
        done = self._finish(latest[0], result=result)
        logger.info("Action done", extra=log)
        metrics.add_metric(name="ActionsDone", unit=MetricUnit.Count, value=1)
        self._record(ctx, "done", recipients, result)
        return done

    def _failed(self, ctx: ReviewContext, spent: tuple[str, Spend] | None, error: Exception) -> str:
        """The audit's outcome of a failed side effect. A refusal or a failure before sending
        took nothing: the recipients are given back to the quota. A send without an answer
        (outcome unknown) may have gone out: they stay counted, and the audit says unknown."""
        if isinstance(error, ProviderOutcomeUnknown | JiraOutcomeUnknown | MailOutcomeUnknown):
            return "unknown"
        self._refund(ctx.caller, spent)
        return "failed"

    def mailbox(self, caller: Caller) -> Mailbox | None:
        """The builtin mailbox of the caller's verified address (None: this deployment keeps none)."""
        return self.mailboxes(caller.email) if self.mailboxes is not None else None

    def _backends(self, caller: Caller) -> Backends:
        """The ports a confirm uses: the caller's own where the deployment acts as each user."""
        if self.suites is None and self.caller_jira is None:
            return self
        return _CallerBackends(self, caller)

    def _restore(self, executing: Draft, before: Draft, message: str) -> Draft:
        """Nothing happened: the draft goes back to what it was (a taken-over ``executing``
        becomes ``failed``), with these edits kept, so it can be confirmed again."""
        status = (
            before.status
            if before.status in (DraftStatus.PROPOSED, DraftStatus.FAILED)
            else DraftStatus.FAILED
        )
        return self.drafts.replace(
            executing,
            executing.model_copy(
                update={"status": status, "error": message, "result": None, "updated_at": self.clock()}
            ),
        )

    def _record(
        self, ctx: ReviewContext, outcome: str, recipients: int, result: Mapping[str, Any] | None
    ) -> None:
        """The audit record of one side effect; a failed write is logged, the user still answered."""
        if self.audit is None:
            return
        entry = AuditEntry.of_result(
            result,
            user_id=ctx.caller.user_id,
            draft_id=ctx.draft.id,
            action=ctx.draft.action,
            outcome=outcome,
            at=self.clock(),
            recipients=recipients,
        )
        try:
            self.audit.record(entry)
        except Exception as error:
            logger.error("Audit record not written", extra={"draft_id": ctx.draft.id, **error_fields(error)})
            metrics.add_metric(name="AuditWriteFailed", unit=MetricUnit.Count, value=1)

    def _spend(
        self, review: ActionReview[Any, Any], content: WireModel, ctx: ReviewContext
    ) -> tuple[str, Spend] | None:
        """Check the recipients against the policy and count them against today's quota, or refuse.

        Returns what was counted (the day and the spend) so a failed side effect can give it back.
        """
        policy = self.config.recipients
        if policy is None:
            return None
        spend = policy.spend(review.recipients(content, ctx))
        if spend.total == 0 or self.quota is None:
            return None
        now = self.clock()
        day = quota_day(now)
        outside_limit = policy.outside_limit()
        try:
            self.quota.spend(
                ctx.caller.user_id, day, spend, per_day=policy.per_day, outside_per_day=outside_limit
            )
        except QuotaRefused as refused:
            metrics.add_metric(name="RecipientQuotaRefused", unit=MetricUnit.Count, value=1)
            logger.info(
                "Recipient quota refused",
                extra={"draft_id": ctx.draft.id, "recipients": spend.total, "outside": spend.outside},
            )
            raise QuotaExceeded(
                _quota_words(spend, refused, policy.per_day, outside_limit), retry_after=until_next_day(now)
            ) from None
        return day, spend

    def _refund(self, caller: Caller, spent: tuple[str, Spend] | None) -> None:
        if spent is None or self.quota is None:
            return
        try:
            self.quota.refund(caller.user_id, *spent)
        except Exception as error:  # the user loses places for the day, never the answer
            logger.warning("Recipient quota not refunded", extra=error_fields(error))

    def _finish(
        self, executing: Draft, *, result: dict[str, Any] | None = None, error: str | None = None
    ) -> Draft:
        status = DraftStatus.FAILED if error is not None else DraftStatus.DONE
        finished = executing.model_copy(
            update={"status": status, "result": result, "error": error, "updated_at": self.clock()}
        )
        return self.drafts.replace(executing, finished)


class _CallerBackends:
    """The reviewer's backends with the caller's own suite's calendar and mailer, and the caller's own
    Jira, where the deployment acts as each user."""

    def __init__(self, reviewer: Reviewer, caller: Caller) -> None:
        self._reviewer = reviewer
        self._suite = reviewer.suites(caller) if reviewer.suites is not None else None
        self._jira = reviewer.caller_jira(caller) if reviewer.caller_jira is not None else reviewer.jira

    @property
    def mailer(self) -> Mailer:
        return self._suite.mailer if self._suite is not None else self._reviewer.mailer

    @property
    def calendar(self) -> Calendar:
        return self._suite.calendar if self._suite is not None else self._reviewer.calendar

    @property
    def jira(self) -> JiraClient | None:
        return self._jira

    def mailbox(self, caller: Caller) -> Mailbox | None:
        if self._suite is not None:
            return self._suite.mailbox
        return self._reviewer.mailbox(caller)

    def clock(self) -> datetime:
        return self._reviewer.clock()
