"""A reviewer whose confirms go to a provider's stand-in (Microsoft 365, Google Workspace).

``drafts`` is the moto-backed draft store (registered for the functional suites);
:func:`provider_reviewer` takes the provider's ``build_suite`` and where its stand-in answers,
and gives a reviewer whose builtin calendar refuses to be used and whose builtin mailer records;
:func:`meeting_with_priya`, :func:`confirmed_twice` and :func:`confirm_over_http` are what each
provider's confirms are given and asked alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import boto3
import pytest
import urllib3
from moto import mock_aws
from multitool.api.review_app import review_app
from multitool.drafts import Draft, DraftStatus
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.provider_suites import SuiteBuilder
from multitool.ports.suites import Suite
from multitool.ports.tables import create_all
from multitool.ports.tokens import Account, TokenSource
from multitool.review import Caller, ReviewConfig
from multitool.review.reviewer import Reviewer

from tests.support.http_events import FakeLambdaContext, http_api_event
from tests.support.review_support import NOW, OWNER, PRIYA, SENDER, RecordingMailer, meeting_draft, resolved


@pytest.fixture
def drafts() -> Iterator[DynamoDraftStore]:
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        tables = create_all(dynamodb)
        yield DynamoDraftStore(tables["DRAFTS_TABLE_NAME"], dynamodb)


class NoBuiltinCalendar:
    """The builtin calendar must not be used once the deployment chose a provider."""

    sends_invitations: ClassVar[bool] = False

    def busy(self, *args: Any) -> Any:
        raise AssertionError("the builtin calendar was used")

    book = release = busy


def provider_reviewer(
    drafts: DynamoDraftStore,
    build_suite: SuiteBuilder,
    tokens: TokenSource,
    *,
    http: urllib3.PoolManager,
    base_url: str,
    deadline: Callable[[], float] | None = None,
) -> tuple[Reviewer, RecordingMailer]:
    """A reviewer confirming each caller's drafts in the caller's own suite at ``base_url``, and
    the builtin mailer it must leave alone."""
    builtin = RecordingMailer()

    def suites(caller: Caller) -> Suite:
        account = Account(user_id=caller.user_id, email=caller.email)
        return build_suite(account, tokens, http=http, base_url=base_url, deadline=deadline)

    review = Reviewer(
        drafts,
        mailer=builtin,
        calendar=NoBuiltinCalendar(),
        jira=None,
        config=ReviewConfig(sender_email=SENDER),
        clock=lambda: NOW,
        suites=suites,
    )
    return review, builtin


def meeting_with_priya(drafts: DynamoDraftStore) -> Draft:
    """A meeting card with Priya, stored as proposed."""
    [draft] = drafts.create_many([meeting_draft(attendees=[resolved("Priya", PRIYA)])])
    return draft


def confirmed_twice(review: Reviewer, caller: Caller, draft: Draft, edits: dict[str, Any]) -> dict[str, Any]:
    """A confirm and its retry: both done with one result (exactly once), the provider's calendar
    inviting; the result."""
    done = review.confirm(caller, draft.id, edits)
    again = review.confirm(caller, draft.id, edits)
    assert done.status is DraftStatus.DONE
    assert again.result == done.result
    assert done.result is not None
    assert done.result["invitedBy"] == "calendar"
    return done.result


def confirm_over_http(
    review: Reviewer,
    draft: Draft,
    edits: dict[str, Any],
    email: str,
    context: FakeLambdaContext | None = None,
) -> dict[str, Any]:
    """The owner's confirm of ``draft`` through the review API's route, ``email`` verified in the
    token's claims; the API's answer."""
    event = http_api_event(
        "POST",
        f"/actions/{draft.id}/confirm",
        edits,
        sub=OWNER,
        path_parameters={"id": draft.id},
        route_key="POST /actions/{id}/confirm",
        claims={"email": email, "email_verified": "true"},
    )
    answer: dict[str, Any] = review_app(lambda: review, lambda: None).resolve(
        event, context or FakeLambdaContext()
    )
    return answer
