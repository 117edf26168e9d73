"""The tools' ports are chosen in one builder (``multitool.wiring.tool_ports``), which the two
functions that run tools, the orchestrator and the action groups, both call with their settings."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from multitool.ports.atlassian.jira_cloud import DeferredJiraClient
from multitool.ports.aws.dynamo_calendar import DynamoCalendar
from multitool.ports.directory import DynamoDirectory
from multitool.ports.drafts import DynamoDraftStore
from multitool.settings import ToolSettings
from multitool.toolkit.context import ToolPorts
from multitool.wiring import tool_ports as builder
from multitool.wiring.action_groups import aws_environment
from multitool.wiring.orchestrator import aws_chat_service

TABLES = {
    "DRAFTS_TABLE_NAME": "drafts",
    "DIRECTORY_TABLE_NAME": "directory",
    "BOOKINGS_TABLE_NAME": "bookings",
}
CLIENT = object()  # never called: building the ports sends no request


def ports_of(**env: str) -> ToolPorts:
    return builder.tool_ports(ToolSettings.from_env(TABLES | env), CLIENT)


def test_the_builtin_ports_are_the_tables_over_the_functions_client() -> None:
    ports = ports_of()

    assert isinstance(ports.directory, DynamoDirectory)
    assert isinstance(ports.calendar, DynamoCalendar)
    assert isinstance(ports.drafts, DynamoDraftStore)
    assert (ports.directory._table, ports.directory._client) == ("directory", CLIENT)
    assert (ports.suites, ports.jira, ports.jiras, ports.mailboxes) == (None, None, None, None)


def test_a_mailbox_table_gives_each_verified_address_its_builtin_mailbox() -> None:
    ports = ports_of(MAILBOX_TABLE_NAME="mailboxes")

    assert ports.mailboxes is not None
    assert ports.mailboxes(None) is None  # no verified address, no mailbox
    assert ports.mailboxes("me@example.com") is not None


def test_a_provider_calendar_gives_each_caller_their_own_suite() -> None:
    ports = ports_of(CALENDAR="microsoft365", PROVIDER_TOKEN="token", PROVIDER_BASE_URL="http://127.0.0.1:9")

    assert ports.suites is not None
    assert isinstance(ports.directory, DynamoDirectory)  # the suite replaces it per caller


def test_the_jira_reading_account_is_read_from_its_secret_on_first_use() -> None:
    ports = ports_of(JIRA_READER_SECRET_ARN="arn:aws:secretsmanager:us-east-1:1:secret:reader")

    # Made on the first read (its adapter's modules load with the first card that names an issue).
    assert isinstance(ports.jira, builder.JiraReaderOnFirstRead)
    assert isinstance(ports.jira._made(), DeferredJiraClient)
    assert ports.jiras is None


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, Any]]]:
    """Every call of the one builder: which settings class asked, over which client."""
    calls: list[tuple[str, Any]] = []
    real = builder.tool_ports

    def recording(settings: ToolSettings, dynamodb: Any) -> ToolPorts:
        calls.append((type(settings).__name__, dynamodb))
        return real(settings, dynamodb)

    monkeypatch.setattr(builder, "tool_ports", recording)
    for name, value in (
        TABLES | {"SESSIONS_TABLE_NAME": "sessions", "AWS_DEFAULT_REGION": "us-east-1"}
    ).items():
        monkeypatch.setenv(name, value)
    for cached in (aws_environment, aws_chat_service):
        cached.cache_clear()
    yield calls
    for cached in (aws_environment, aws_chat_service):
        cached.cache_clear()


def test_the_action_groups_and_the_orchestrator_build_their_ports_with_the_one_builder(
    built: list[tuple[str, Any]],
) -> None:
    environment = aws_environment()
    aws_chat_service()

    assert [name for name, _ in built] == ["ToolSettings", "ChatSettings"]
    assert environment.ports.drafts._table == "drafts"  # type: ignore[attr-defined]
