"""Every review error, swept through the review API: the status, the body and the headers it answers.

The errors carry their code and HTTP status themselves (as the tools' errors do); the API maps every
one of them in one generic handler. This sweep pins what each answers, so moving the mapping into the
errors changes nothing on the wire.
"""

from __future__ import annotations

from typing import Any

import pytest
from multitool.api.bodies import UndecodableBody
from multitool.api.review_app import BadRequest, Unauthenticated, review_app
from multitool.errors import ServiceError
from multitool.ports.rate import RateLimited
from multitool.ports.tokens import (
    AccountNotConnected,
    ProviderOutcomeUnknown,
    ProviderRefused,
    ProviderThrottled,
    ProviderUnavailable,
)
from multitool.review import errors as review_errors
from multitool.review import limits
from multitool.review.accounts import AccountsNotConfigured, ConsentRefused, InvalidConsent
from multitool.review.errors import (
    ActionInProgress,
    AlreadyDiscarded,
    AlreadyDone,
    AlreadyScheduled,
    DraftNotFound,
    ItemChangedSince,
    ProviderFailed,
    ReconnectAccount,
    ReviewConflict,
    ScheduleUnavailable,
    SideEffectFailed,
    SlotTaken,
    Superseded,
    TooLateToUndo,
)
from multitool.review.limits import ApprovalRequired, QuotaExceeded, RecipientNotAllowed
from multitool.review.links import LinkDropped, PrerequisiteRefused, WaitsFor
from multitool.review.reviewer import DraftView
from multitool.toolkit import errors as toolkit_errors
from multitool.toolkit.errors import InvalidEdits, NotConfigured, NothingToConfirm, ReviewError

from tests.support.error_sweeps import assert_answers, assert_carries_its_code_and_status, err
from tests.support.http_events import FakeLambdaContext, http_api_event
from tests.support.review_support import email_draft

DRAFT = email_draft()
# Inside an error body the action is dumped as the error is: fields left None are absent.
ACTION = DraftView.of(DRAFT).model_dump(mode="json", by_alias=True, exclude_none=True)


class RaisingReviewer:
    """A reviewer whose every call raises the error under test."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def get(self, *_: Any) -> Any:
        raise self.error


def answer(error: Exception) -> dict[str, Any]:
    app = review_app(reviewer=lambda: RaisingReviewer(error), limiter=lambda: None)  # type: ignore[arg-type,return-value]
    event = http_api_event(
        "GET", f"/actions/{DRAFT.id}", path_parameters={"id": DRAFT.id}, route_key="GET /actions/{id}"
    )
    response: dict[str, Any] = app.resolve(event, FakeLambdaContext())
    return response


CASES: list[tuple[Exception, int, dict[str, Any], dict[str, str]]] = [
    (Unauthenticated("Sign in first."), 401, err("unauthenticated", "Sign in first."), {}),
    (
        BadRequest("body: must be valid JSON."),
        400,
        err("bad_request", "body: must be valid JSON.", field="body"),
        {},
    ),
    (UndecodableBody("body: not UTF-8."), 400, err("bad_request", "body: not UTF-8.", field="body"), {}),
    (DraftNotFound("No such action."), 404, err("not_found", "No such action."), {}),
    (
        InvalidEdits("to[0]: not an address.", field="to[0]"),
        422,
        err("invalid_edits", "to[0]: not an address.", field="to[0]"),
        {},
    ),
    (
        NothingToConfirm("This card only shows your calendar: there is nothing to confirm."),
        409,
        err("read_only", "This card only shows your calendar: there is nothing to confirm."),
        {},
    ),
    (
        ActionInProgress("In progress.", draft=DRAFT),
        409,
        {**err("in_progress", "In progress."), "action": ACTION},
        {},
    ),
    (AlreadyDone("Done.", draft=DRAFT), 409, {**err("already_done", "Done."), "action": ACTION}, {}),
    (
        AlreadyDiscarded("Discarded.", draft=DRAFT),
        409,
        {**err("discarded", "Discarded."), "action": ACTION},
        {},
    ),
    (Superseded("Replaced.", draft=DRAFT), 409, {**err("superseded", "Replaced."), "action": ACTION}, {}),
    (SlotTaken("Taken.", draft=DRAFT), 409, {**err("slot_taken", "Taken."), "action": ACTION}, {}),
    (AlreadyScheduled("Waits.", draft=DRAFT), 409, {**err("scheduled", "Waits."), "action": ACTION}, {}),
    (
        TooLateToUndo("Too late.", draft=DRAFT),
        409,
        {**err("too_late_to_undo", "Too late."), "action": ACTION},
        {},
    ),
    (
        ScheduleUnavailable("Queue away.", draft=DRAFT),
        503,
        {**err("schedule_unavailable", "Queue away.", retryable=True), "action": ACTION},
        {},
    ),
    (
        ItemChangedSince("Changed.", draft=DRAFT),
        409,
        {**err("item_changed", "Changed."), "action": ACTION},
        {},
    ),
    (
        WaitsFor("Confirm the ticket first.", draft=DRAFT, waits_for=["d_ticket"]),
        409,
        {**err("waits_for", "Confirm the ticket first.", waitsFor=["d_ticket"]), "action": ACTION},
        {},
    ),
    (
        PrerequisiteRefused("Choose a slot first.", draft=DRAFT, waits_for=["d_meeting"]),
        409,
        {**err("prerequisite_refused", "Choose a slot first.", waitsFor=["d_meeting"]), "action": ACTION},
        {},
    ),
    (
        LinkDropped("The ticket was discarded.", draft=DRAFT),
        409,
        {**err("link_dropped", "The ticket was discarded."), "action": ACTION},
        {},
    ),
    (
        RecipientNotAllowed("to[0]: not mailed here.", field="to[0]"),
        422,
        err("recipient_not_allowed", "to[0]: not mailed here.", field="to[0]"),
        {},
    ),
    (ApprovalRequired("Wait for approval."), 403, err("approval_required", "Wait for approval."), {}),
    (
        QuotaExceeded("Quota.", retry_after=3600.4),
        429,
        err("recipient_quota_exceeded", "Quota."),
        {"Retry-After": "3600"},
    ),
    (NotConfigured("No Jira."), 503, err("not_configured", "No Jira."), {}),
    (
        SideEffectFailed("SES refused.", code="mail_rejected", draft=DRAFT),
        502,
        {**err("mail_rejected", "SES refused.", retryable=True), "action": ACTION},
        {},
    ),
    (
        SideEffectFailed("SES is away.", code="mail_unavailable", draft=DRAFT),
        503,
        {**err("mail_unavailable", "SES is away.", retryable=True), "action": ACTION},
        {},
    ),
    (
        SideEffectFailed("Jira is busy.", code="jira_busy", draft=DRAFT, retry_after=7.6),
        503,
        {**err("jira_busy", "Jira is busy.", retryable=True), "action": ACTION},
        {"Retry-After": "8"},
    ),
    (
        ReconnectAccount("Connect.", draft=DRAFT),
        403,
        {**err("account_not_connected", "Connect."), "action": ACTION},
        {},
    ),
    (
        ProviderFailed("Graph is busy.", code="provider_throttled", status=503, draft=DRAFT, retry_after=4),
        503,
        {**err("provider_throttled", "Graph is busy.", retryable=True), "action": ACTION},
        {"Retry-After": "4"},
    ),
    (
        RateLimited("confirm", 1.2),
        429,
        err(
            "rate_limited",
            "You are sending confirm requests faster than this deployment allows one user; try again in "
            "2 s. Other users are not affected.",
        ),
        {"Retry-After": "2"},
    ),
    (ConsentRefused(), 403, err("consent_not_yours", ConsentRefused.answer or ""), {}),
    (
        InvalidConsent("sessionUri: required.", "sessionUri"),
        400,
        err("bad_request", "sessionUri: required.", field="sessionUri"),
        {},
    ),
    (AccountsNotConfigured(), 404, err("not_found", AccountsNotConfigured.answer or ""), {}),
    (
        AccountNotConnected("microsoft365", authorization_url="https://login.example/consent"),
        403,
        err(
            "account_not_connected",
            "Connect your Microsoft 365 account to go on; nothing was sent.",
            provider="microsoft365",
            providerName="Microsoft 365",
            authorizationUrl="https://login.example/consent",
        ),
        {},
    ),
    (
        ProviderThrottled("google", "Google is busy.", retry_after=2.4),
        503,
        err("provider_throttled", "Google is busy.", provider="google"),
        {"Retry-After": "2"},
    ),
    (
        ProviderUnavailable("google", "Google did not answer."),
        503,
        err("provider_unavailable", "Google did not answer.", provider="google"),
        {},
    ),
    (
        ProviderOutcomeUnknown("google", "Gmail did not answer after the request was sent; check Sent."),
        502,
        err(
            "provider_outcome_unknown",
            "Gmail did not answer after the request was sent; check Sent.",
            provider="google",
        ),
        {},
    ),
    (
        ProviderRefused("microsoft365", "No such mailbox."),
        502,
        err("provider_refused", "No such mailbox.", provider="microsoft365"),
        {},
    ),
    (RuntimeError("secret draft text"), 500, err("internal_error", "Something went wrong; try again."), {}),
]


@pytest.mark.parametrize(("error", "status", "body", "headers"), CASES, ids=lambda v: type(v).__name__)
def test_each_error_answers_its_status_body_and_headers(
    error: Exception, status: int, body: dict[str, Any], headers: dict[str, str]
) -> None:
    assert_answers(answer(error), status, body, headers)


def review_error_classes() -> set[type[ReviewError]]:
    found: set[type[ReviewError]] = set()
    for module in (review_errors, toolkit_errors, limits):
        found |= {
            value
            for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, ReviewError) and value is not ReviewConflict
        }
    return found | {Unauthenticated, BadRequest}


def test_the_sweep_covers_every_review_error() -> None:
    swept = {type(error) for error, *_ in CASES}

    assert review_error_classes() - {ReviewError} <= swept


@pytest.mark.parametrize(
    "error",
    [error for error, *_ in CASES if not isinstance(error, RuntimeError)],
    ids=lambda v: type(v).__name__,
)
def test_each_error_carries_the_code_and_status_it_answers(error: ServiceError) -> None:
    assert_carries_its_code_and_status(answer(error), error)
