"""Every tool error, swept through an action group's app: the status and the body it answers.

The tools' errors are :class:`multitool.errors.ServiceError`s like the chat path's and the review's:
each carries its code, its status and its ``field``, and the action group maps every one of them in
its one generic handler. The last test checks that every error an API answers in the layer is swept
here, in ``test_chat_errors_http`` or in ``test_review_errors_http``.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import multitool
import pytest
from multitool.errors import ServiceError
from multitool.toolkit.errors import (
    BackendUnavailable,
    DateInPast,
    InvalidInput,
    InvalidRecurrence,
    ItemChanged,
    NoFreeSlot,
    SuiteRefused,
    ToolError,
    ToolFailed,
    UnknownIssueType,
    UnknownProject,
    UnknownTimeZone,
    UnknownTool,
    UnparseableDate,
)
from multitool.toolkit.references import NothingFound
from multitool.tools import AskedTooOften, TooManyCalls
from multitool.tools.apps import action_group_app, handle
from multitool.tools.environment import ToolEnvironment
from multitool.tools.linking import BadLink
from multitool.tools.revisions import CannotRevise

from tests.support.bedrock_events import (
    LambdaContextStub,
    assert_bedrock_response,
    bedrock_action_event,
    response_body,
)
from tests.support.error_sweeps import err
from tests.unit.api import test_chat_errors_http, test_review_errors_http
from tests.unit.slack import test_errors as test_slack_errors

SESSION = {"userId": "user-1", "timezone": "Europe/Berlin", "now": "2026-12-01T10:00:00+01:00"}
EMAIL = {"to": ["guest@partner.org"], "subject": "The doc", "body": "Draft"}


def answer(error: Exception) -> tuple[int, Any]:
    """What the email tool's action group answers when its call raises ``error``."""

    def raising() -> ToolEnvironment:
        raise error

    app = action_group_app("email_draft", environment=raising)
    event = bedrock_action_event("email_draft", "/email-drafts", "POST", EMAIL, SESSION)
    response = handle(app, event, LambdaContextStub())
    assert_bedrock_response(response)
    return response["response"]["httpStatusCode"], response_body(response)


Case = tuple[ToolError, int, dict[str, Any]]


def said(kind: type[ToolError], message: str, status: int, code: str, field: str | None = None) -> Case:
    """``kind`` raised with ``message`` (on ``field``), the status it answers and its body under ``code``:
    the message and field are written once, as the wire must carry them back."""
    if field is None:
        return kind(message), status, err(code, message)
    return kind(message, field=field), status, err(code, message, field=field)


OFFSITE = "Nothing of yours matches 'the offsite'."
CASES: list[Case] = [
    said(NothingFound, OFFSITE, 404, "not_found", field="meeting"),
    said(
        ItemChanged, "WEB-12 changed since the card: nothing was changed.", 409, "item_changed", field="issue"
    ),
    (
        SuiteRefused("Connect your Microsoft 365 account.", code="account_not_connected", status=403),
        403,
        err("account_not_connected", "Connect your Microsoft 365 account."),
    ),
    said(ToolError, "to[0]: not an address.", 400, "invalid_input", field="to[0]"),
    said(InvalidInput, "subject: required.", 400, "invalid_input"),
    said(BadLink, "{{tikcet.key}} names no call of this turn.", 400, "invalid_link", field="body"),
    said(UnknownTool, "No such tool.", 404, "unknown_tool", field="apiPath"),
    said(UnknownProject, "No project ABC.", 404, "unknown_project", field="project"),
    said(UnknownIssueType, "No Epic.", 422, "unknown_issue_type", field="issueType"),
    said(UnparseableDate, "when: unreadable.", 422, "unparseable_date", field="when"),
    said(DateInPast, "when: past.", 422, "date_in_past", field="when"),
    said(UnknownTimeZone, "No Mars/Base.", 422, "unknown_time_zone", field="timezone"),
    said(NoFreeSlot, "No slot on Thursday.", 422, "no_free_slot"),
    said(
        InvalidRecurrence,
        "The series would end before its first meeting.",
        422,
        "invalid_recurrence",
        field="repeat",
    ),
    (ToolFailed(), 500, err("internal_error", "The tool failed unexpectedly; try again once.")),
    said(BackendUnavailable, "The directory is away.", 503, "backend_unavailable"),
    said(TooManyCalls, "At most 25.", 422, "too_many_calls"),
    said(AskedTooOften, "Asked three times.", 422, "asked_too_often"),
    # The field is the error's own, not given where it is raised.
    (CannotRevise("Already sent."), 409, err("cannot_revise", "Already sent.", field="revises")),
    said(NothingFound, OFFSITE, 404, "not_found", field="message"),
    said(ItemChanged, "The message is no longer in your mailbox.", 409, "item_changed", field="message"),
]


@pytest.mark.parametrize(("error", "status", "body"), CASES, ids=lambda v: type(v).__name__)
def test_each_tool_error_answers_its_status_and_body(
    error: ToolError, status: int, body: dict[str, Any]
) -> None:
    assert answer(error) == (status, body)


@pytest.mark.parametrize("error", [error for error, *_ in CASES], ids=lambda v: type(v).__name__)
def test_each_tool_error_is_a_service_error_answering_its_own_code_and_status(error: ToolError) -> None:
    assert isinstance(error, ServiceError)

    status, body = answer(error)

    assert status == error.status
    assert body == {"error": {"code": error.code, "message": error.public_message(), **error.detail()}}
    assert body == error.to_body()


def service_error_classes() -> set[type[ServiceError]]:
    """Every ServiceError the layer defines (``local/`` is not the layer)."""
    for module in pkgutil.walk_packages(multitool.__path__, "multitool."):
        if not module.name.startswith(("multitool.local", "multitool.schemas.__main__")):
            importlib.import_module(module.name)

    def below(cls: type[ServiceError]) -> set[type[ServiceError]]:
        return {cls, *(sub for direct in cls.__subclasses__() for sub in below(direct))}

    return {cls for cls in below(ServiceError) if cls.__module__.startswith("multitool.")} - {ServiceError}


def test_the_sweeps_cover_every_error_an_api_answers() -> None:
    swept = {type(error) for error, *_ in CASES}
    swept |= {type(error) for error, *_ in test_chat_errors_http.CASES}
    swept |= {type(error) for error, *_ in test_review_errors_http.CASES}
    swept |= {type(error) for error, *_ in test_slack_errors.CASES}
    bases = {"ReviewError", "ReviewConflict", "TurnError", "ProviderError"}

    unswept = {
        f"{cls.__module__}.{cls.__name__}"
        for cls in service_error_classes() - swept
        if cls.__name__ not in bases
    }

    assert unswept == set()
