"""The moto-backed environment the orchestrator's functional tests run the real handler in."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber
from moto import mock_aws
from multitool.people import Person
from multitool.ports.directory import seed_people
from multitool.ports.tables import create_all
from multitool.wiring.orchestrator import aws_chat_service


@contextmanager
def offline_chat_env(
    monkeypatch: pytest.MonkeyPatch, people: Sequence[Person], runtime: str = "offline"
) -> Iterator[dict[str, Any]]:
    """Tables in moto, the directory seeded, an offline runtime selected; the service rebuilt around it.

    ``offline`` is the offline model behind the offline harness (the AgentCore runtime's code);
    ``offline-converse`` is the offline model run by the Converse loop.
    """
    with mock_aws():
        client = boto3.client("dynamodb")
        names = create_all(client)
        seed_people(client, names["DIRECTORY_TABLE_NAME"], people)
        for key, value in names.items():
            monkeypatch.setenv(key, value)
        monkeypatch.setenv("RUNTIME", runtime)
        monkeypatch.setenv("DEFAULT_TIMEZONE", "Europe/Berlin")
        aws_chat_service.cache_clear()
        try:
            yield {"client": client, "tables": names}
        finally:
            aws_chat_service.cache_clear()


class Launches:
    """The function's Lambda client (the orchestrator's, the Slack function's): real, stubbed; each
    asynchronous self-invoke's parameters kept as sent."""

    def __init__(self) -> None:
        self.client = boto3.client("lambda", region_name="us-east-1")
        self.stubber = Stubber(self.client)
        self.sent: list[dict[str, Any]] = []
        self.client.meta.events.register(
            "provide-client-params.lambda.Invoke", lambda params, **_: self.sent.append(dict(params))
        )
        self.stubber.activate()

    def expect(self) -> None:
        self.stubber.add_response(
            "invoke",
            {"StatusCode": 202},
            {"FunctionName": "orchestrator", "InvocationType": "Event", "Payload": ANY},
        )

    def payload(self, index: int = -1) -> dict[str, Any]:
        payload: dict[str, Any] = json.loads(self.sent[index]["Payload"])
        return payload
