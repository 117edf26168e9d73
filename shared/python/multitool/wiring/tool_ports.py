"""The tools' ports, built from the settings one way for every function that runs tools.

The orchestrator (its batch runner, ``executor=return_control``) and the action-group Lambdas
(Bedrock's action groups and the Gateway's targets) run the same tools over the same adapters:
the tables in DynamoDB, each caller's own suite when ``CALENDAR`` names a provider, and the Jira
the cards that name an existing issue read. :func:`tool_ports` is that choice, made once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from multitool.toolkit.context import ToolPorts

if TYPE_CHECKING:
    from multitool.ports.atlassian.jira_issues import IssueView, JiraReader, LinkType, Transition
    from multitool.settings import ToolSettings


def tool_ports(settings: ToolSettings, dynamodb: Any) -> ToolPorts:
    """The ports the settings choose, over the function's DynamoDB client."""
    ports = dynamo_ports(
        dynamodb,
        drafts_table=settings.drafts_table_name,
        directory_table=settings.directory_table_name,
        bookings_table=settings.bookings_table_name,
        mailbox_table=settings.mailbox_table_name,
    )
    if settings.calendar != "builtin":
        ports = with_caller_suites(ports, settings)
    return with_jira(ports, settings)


def dynamo_ports(
    client: Any,
    *,
    drafts_table: str,
    directory_table: str,
    bookings_table: str,
    mailbox_table: str | None = None,
) -> ToolPorts:
    """The DynamoDB adapters over one client."""
    from multitool.ports.aws.dynamo_calendar import DynamoCalendar
    from multitool.ports.directory import DynamoDirectory
    from multitool.ports.drafts import DynamoDraftStore

    return ToolPorts(
        directory=DynamoDirectory(directory_table, client),
        calendar=DynamoCalendar(bookings_table, client),
        drafts=DynamoDraftStore(drafts_table, client),
        mailboxes=builtin_mailboxes(client, mailbox_table) if mailbox_table else None,
    )


def builtin_mailboxes(client: Any, table: str, ses: Any = None) -> Callable[[str | None], Any]:
    """Each address's builtin mailbox (read-only without ``ses``: the tools only find messages)."""

    def of(address: str | None) -> Any:
        from multitool.ports.aws.dynamo_mailbox import DynamoMailbox

        # The builtin mailbox is the one of the caller's verified address; without one, none.
        return DynamoMailbox(table, client, address, ses=ses) if address else None

    return of


def with_caller_suites(ports: ToolPorts, settings: ToolSettings) -> ToolPorts:
    """``ports`` whose directory and calendar are each caller's own suite (``CALENDAR`` a provider)."""
    import urllib3

    from multitool.ports.provider_suites import suites_from_settings

    return msgspec.structs.replace(ports, suites=suites_from_settings(settings, urllib3.PoolManager()))


def with_jira(ports: ToolPorts, settings: ToolSettings) -> ToolPorts:
    """``ports`` that read Jira for the cards that name an existing issue: the organization's reading
    account (``JIRA_READER_SECRET_ARN``, its secret read on the first such card; never the account
    the review writes with), or each caller's own Atlassian account (``JIRA_AUTH=user``); unchanged
    when neither is configured."""
    import urllib3

    if settings.jira_auth == "user":
        from multitool.ports.atlassian.jira_user import caller_jira
        from multitool.ports.provider_suites import agentcore_tokens

        identity = settings.identity()
        assert identity is not None  # the settings checked it
        assert settings.jira_site_url is not None  # and the site
        jiras = caller_jira(
            agentcore_tokens(identity),
            site_url=settings.jira_site_url,
            http=urllib3.PoolManager(),
            api_base=settings.atlassian_api_url,
        )
        return msgspec.structs.replace(ports, jiras=jiras)
    if settings.jira_reader_secret_arn:
        reader = JiraReaderOnFirstRead(settings.jira_reader_secret_arn, settings.jira_base_url)
        return msgspec.structs.replace(ports, jira=reader)
    return ports


class JiraReaderOnFirstRead:
    """The organization's reading account (:func:`multitool.ports.atlassian.jira_cloud.secret_jira`), made on
    the
    first read: Jira Cloud's adapter, its retry policy and issue views (four modules, about 2 ms of a
    cold start's CPU) load with the first card that names an issue, not with every turn's ports (a
    turn that drafts a mail and a meeting reads no Jira)."""

    def __init__(self, secret_arn: str, base_url: str | None = None) -> None:
        self._secret_arn = secret_arn
        self._base_url = base_url
        self._reader: JiraReader | None = None
        self._lock = threading.Lock()

    def _made(self) -> JiraReader:
        with self._lock:
            if self._reader is None:
                from multitool.ports.atlassian.jira_cloud import secret_jira

                self._reader = secret_jira(self._secret_arn, self._base_url)
            return self._reader

    def issue(self, key: str) -> IssueView | None:
        return self._made().issue(key)

    def search(
        self, texts: Sequence[str], projects: Sequence[str], limit: int | None = None
    ) -> list[IssueView]:
        reader = self._made()  # no limit: the reader's own default
        return reader.search(texts, projects) if limit is None else reader.search(texts, projects, limit)

    def transitions(self, key: str) -> list[Transition]:
        return self._made().transitions(key)

    def link_types(self) -> list[LinkType]:
        return self._made().link_types()
