"""A reviewer whose confirms go to a provider's stand-in (Microsoft 365, Google Workspace).

``drafts`` is the moto-backed draft store (registered for the functional suites);
:func:`provider_reviewer` takes the provider's ``build_suite`` and where its stand-in answers,
and gives a reviewer whose builtin calendar refuses to be used and whose builtin mailer records.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import boto3
import pytest
import urllib3
from moto import mock_aws
from multitool.ports.drafts import DynamoDraftStore
from multitool.ports.provider_suites import SuiteBuilder
from multitool.ports.suites import Suite
from multitool.ports.tables import create_all
from multitool.ports.tokens import Account, TokenSource
from multitool.review import Caller, ReviewConfig
from multitool.review.reviewer import Reviewer

from tests.support.review_support import NOW, SENDER, RecordingMailer


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
