"""moto DynamoDB with every table created and the directory seeded, as the Lambdas' environment.

``moto_tables`` is the tools' Lambdas' environment; ``review_aws`` adds what the review Lambda
sends with (SES v2, the sender verified) and builds its reviewer afresh; ``dynamo`` is every table
on a client that counts its calls (:class:`Counted`), for the ports' own tests.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from moto import mock_aws
from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends
from multitool.drafts import Draft
from multitool.ports import tables
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.ports.directory import seed_people
from multitool.ports.drafts import DynamoDraftStore
from multitool.wiring.action_groups import aws_environment
from multitool.wiring.review import aws_reviewer

from tests.support.bedrock_events import sample_people
from tests.support.review_support import SENDER

REGION = "us-east-1"
# What a deployment may set for the review; a test sets the ones it is about.
_REVIEW_SETTINGS = ("JIRA_SECRET_ARN", "SANDBOX", "RECIPIENT_DOMAINS", "OUTSIDE_RECIPIENTS", "APPROVED_GROUP")


@dataclass
class Tables:
    client: Any
    names: dict[str, str]

    @property
    def drafts(self) -> DynamoDraftStore:
        return DynamoDraftStore(self.names["DRAFTS_TABLE_NAME"], self.client)

    @property
    def calendar(self) -> DynamoCalendar:
        return DynamoCalendar(self.names["BOOKINGS_TABLE_NAME"], self.client)

    def add(self, draft: Draft) -> Draft:
        """``draft`` as stored (a draft is written once, by the tool that proposed it)."""
        [stored] = self.drafts.create_many([draft])
        return stored

    @staticmethod
    def sent() -> list[Any]:
        """Every message SES v2 accepted, in order."""
        return list(ses_backends[DEFAULT_ACCOUNT_ID][REGION].sent_messages)


@pytest.fixture
def moto_tables(monkeypatch: pytest.MonkeyPatch) -> Iterator[Tables]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        names = tables.create_all(client)
        seed_people(client, names["DIRECTORY_TABLE_NAME"], sample_people())
        for key, value in names.items():
            monkeypatch.setenv(key, value)
        aws_environment.cache_clear()
        yield Tables(client, names)
        aws_environment.cache_clear()


@pytest.fixture
def review_aws(moto_tables: Tables, monkeypatch: pytest.MonkeyPatch) -> Iterator[Tables]:
    """``moto_tables`` as the review Lambda meets them: SES v2 with ``SENDER`` verified, no Jira,
    no sandbox, no recipient limits, and the reviewer made afresh (a cold start).

    The reviewer's clock reads the fixtures' pinned ``NOW`` (``tests.support.review_support``), as
    the provider review tests' does: their slots lie on fixed days, which the wall clock passes."""
    from multitool.review.reviewer import Reviewer
    from multitool.wiring import review as review_wiring

    from tests.support.review_support import NOW

    monkeypatch.setattr(review_wiring, "Reviewer", functools.partial(Reviewer, clock=lambda: NOW))
    boto3.client("sesv2", region_name=REGION).create_email_identity(EmailIdentity=SENDER)
    monkeypatch.setenv("SENDER_EMAIL", SENDER)
    for name in _REVIEW_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    aws_reviewer.cache_clear()
    yield moto_tables
    aws_reviewer.cache_clear()


class Counted:
    """Every table, on a DynamoDB client that counts its calls by operation (one logical read is
    one call: the ports' tests hold them to it)."""

    def __init__(self) -> None:
        self.client = boto3.client("dynamodb", region_name=REGION)
        self.names = tables.create_all(self.client)
        self.calls: Counter[str] = Counter()
        self.client.meta.events.register("before-call.dynamodb.*", self._count)

    def _count(self, model: Any, **_: Any) -> None:
        self.calls[model.name] += 1

    def calendar(self, client: Any = None) -> DynamoCalendar:
        return DynamoCalendar(self.names["BOOKINGS_TABLE_NAME"], client or self.client)


@pytest.fixture
def dynamo() -> Iterator[Counted]:
    with mock_aws():
        yield Counted()
