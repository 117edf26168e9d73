"""moto DynamoDB with every table created and the directory seeded, as the Lambdas' environment."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from moto import mock_aws
from multitool.ports import tables
from multitool.ports.directory import seed_people
from multitool.ports.drafts import DynamoDraftStore
from multitool.tools.environment import aws_environment

from tests.support.events import sample_people


@dataclass
class Tables:
    client: Any
    names: dict[str, str]

    @property
    def drafts(self) -> DynamoDraftStore:
        return DynamoDraftStore(self.names["DRAFTS_TABLE_NAME"], self.client)


@pytest.fixture
def moto_tables(monkeypatch: pytest.MonkeyPatch) -> Iterator[Tables]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        names = tables.create_all(client)
        seed_people(client, names["DIRECTORY_TABLE_NAME"], sample_people())
        for key, value in names.items():
            monkeypatch.setenv(key, value)
        aws_environment.cache_clear()
        yield Tables(client, names)
        aws_environment.cache_clear()
