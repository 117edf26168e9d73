"""The review function's adapters (``functions/review``): the review API (``/actions/…``,
``/connections``) and the undo queue's batches.

The reviewer over DynamoDB (drafts, bookings, directory, quota, audit), SES v2 (built on the first
send), SQS (the undo window), the Jira ``JIRA_AUTH`` chooses (the organization's secret, read on
the first Jira confirm, or each caller's own Atlassian account), each caller's own suite when
``CALENDAR`` names a provider; each user's confirm bucket on ``RATE_LIMITS_TABLE_NAME``; the
accounts service when the stack connects its users' accounts (``IDENTITY_*``). Each is built on
first use and cached per warm container, never at import time: tests set the environment first
and call ``cache_clear()`` on the factory.
"""

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from multitool.api.due_sends import QueueHandler, due_sends
from multitool.api.review_app import review_app
from multitool.ports.rate import BucketLimits, RateLimiter
from multitool.review import Caller, ReviewConfig
from multitool.review.accounts import Accounts, DirectoryPeople
from multitool.review.limits import RecipientPolicy
from multitool.review.reviewer import Reviewer
from multitool.review.undo import UndoWindow
from multitool.settings import IdentitySettings
from multitool.wiring.rate_limits import aws_token_bucket

if TYPE_CHECKING:
    import urllib3
    from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

    from multitool.ports.aws.ses_mail import SesMailer
    from multitool.ports.jira import JiraClient
    from multitool.ports.mailbox import Mailbox
    from multitool.ports.suites import Suite
    from multitool.ports.tokens import TokenSource
    from multitool.settings import ToolSettings
    from multitool.settings.review import ReviewSettings


@functools.cache
def aws_reviewer() -> Reviewer:
    """The reviewer over DynamoDB, SES v2 and (on first Jira confirm) the Jira secret.

    Built on first use and cached per warm container, never at import time:
    tests set the environment first and call ``aws_reviewer.cache_clear()``.
    """
    import boto3
    import urllib3

    from multitool.ports.atlassian.jira_cloud import (
        DeferredJiraClient,
        JiraCloudClient,
        SecretsJiraCredentials,
    )
    from multitool.ports.audit import DynamoAuditLog
    from multitool.ports.aws.dynamo_calendar import DynamoCalendar
    from multitool.ports.directory import DynamoDirectory
    from multitool.ports.drafts import DynamoDraftStore
    from multitool.ports.jira import SANDBOX_CREDENTIALS_EMAIL, SANDBOX_CREDENTIALS_TOKEN
    from multitool.ports.mail import DeferredMailer, Mailer
    from multitool.ports.quota import DynamoRecipientQuota
    from multitool.settings.review import ReviewSettings

    settings = ReviewSettings.from_env()
    dynamodb = boto3.client("dynamodb")

    def ses_mailer() -> Mailer:
        from multitool.ports.aws.ses_mail import SesMailer, ses_client

        return SesMailer(ses_client(), settings.sender_email, settings.ses_configuration_set)

    http = urllib3.PoolManager()
    jira: JiraClient | None = None
    jira_of_caller = None
    tokens: TokenSource | None = None
    identity = settings.identity()
    if identity is not None:
        from multitool.ports.provider_suites import agentcore_tokens

        # One token source for the calendar's provider and Atlassian: one workload token per user token.
        tokens = agentcore_tokens(identity)
    if settings.jira_auth == "user":
        # The settings checked both: JIRA_AUTH=user comes with the identity settings and the site.
        assert tokens is not None
        assert settings.jira_site_url is not None
        jira_of_caller = caller_jira(tokens, settings.jira_site_url, http, settings.atlassian_api_url)
    elif settings.jira_secret_arn:
        secret_arn = settings.jira_secret_arn

        def from_secret() -> "JiraClient":
            credentials = SecretsJiraCredentials(boto3.client("secretsmanager"), secret_arn).get()
            return JiraCloudClient(
                settings.jira_base_url or credentials.base_url,
                credentials.email,
                credentials.api_token,
                urllib3.PoolManager(),
            )

        jira = DeferredJiraClient(from_secret)
    elif settings.sandbox and settings.jira_base_url:
        jira = JiraCloudClient(
            settings.jira_base_url,
            SANDBOX_CREDENTIALS_EMAIL,
            SANDBOX_CREDENTIALS_TOKEN,
            urllib3.PoolManager(),
        )
    return Reviewer(
        DynamoDraftStore(settings.drafts_table_name, dynamodb),
        undo=undo_window(settings),
        suites=(
            caller_suites(settings, http, tokens if _calendar_by_consent(settings) else None)
            if settings.calendar != "builtin"
            else None
        ),
        caller_jira=jira_of_caller,
        mailer=DeferredMailer(ses_mailer),
        calendar=DynamoCalendar(settings.bookings_table_name, dynamodb),
        jira=jira,
        config=ReviewConfig(
            sender_email=settings.sender_email,
            jira_projects=settings.jira_projects,
            sandbox=settings.sandbox,
            recipients=recipient_policy(settings),
            approved_group=settings.approved_group,
        ),
        quota=(
            DynamoRecipientQuota(settings.limits_table_name, dynamodb) if settings.limits_table_name else None
        ),
        audit=(
            DynamoAuditLog(settings.audit_table_name, dynamodb, retention_days=settings.audit_retention_days)
            if settings.audit_table_name
            else None
        ),
        directory=DynamoDirectory(settings.directory_table_name, dynamodb),
        mailboxes=_builtin_mailboxes(settings, dynamodb),
    )


def undo_window(settings: "ReviewSettings") -> UndoWindow | None:
    """The moment a confirmed mail waits (``UNDO_SECONDS`` on ``UNDO_QUEUE_URL``); None: sent at once."""
    if settings.undo_queue_url is None or settings.undo_seconds == 0:
        return None
    import boto3

    from multitool.ports.undo_queue import SqsUndoQueue

    return UndoWindow(
        settings.undo_seconds, SqsUndoQueue(settings.undo_queue_url, lambda: boto3.client("sqs"))
    )


def _builtin_mailboxes(
    settings: "ReviewSettings", dynamodb: Any
) -> "Callable[[str | None], Mailbox | None] | None":
    """The builtin mailbox of each caller's verified address, sending through SES (built on first send)."""
    table = settings.mailbox_table_name
    if not table or settings.calendar != "builtin":
        return None

    @functools.cache
    def ses() -> "SesMailer":
        from multitool.ports.aws.ses_mail import SesMailer, ses_client

        return SesMailer(ses_client(), settings.sender_email, settings.ses_configuration_set)

    from multitool.wiring.tool_ports import builtin_mailboxes

    return builtin_mailboxes(dynamodb, table, ses=ses)


def caller_suites(
    settings: "ToolSettings", http: "urllib3.PoolManager", tokens: "TokenSource | None" = None
) -> "Callable[[Caller], Suite]":
    """Each caller's own suite at the ``CALENDAR`` provider, over the function's one ``PoolManager``,
    with the caller's own JWT for the token source (``tokens``; default: the one the settings name)."""
    from multitool.ports.provider_suites import provider_suites, settings_tokens
    from multitool.ports.tokens import Account

    for_account = provider_suites(
        settings.calendar,
        tokens if tokens is not None else settings_tokens(settings, http),
        http=http,
        base_url=settings.provider_base_url,
    )

    def for_caller(caller: Caller) -> "Suite":
        return for_account(Account(user_id=caller.user_id, email=caller.email, user_token=caller.user_token))

    return for_caller


def _calendar_by_consent(settings: "ToolSettings") -> bool:
    """The calendar's tokens are each user's consent (not a fixed token of the local stand-ins)."""
    identity = settings.identity()
    fixed = settings.provider_token or settings.provider_tokens
    return identity is not None and identity.identity_provider is not None and not fixed


def caller_jira(
    tokens: "TokenSource", site_url: str, http: "urllib3.PoolManager", api_base: str
) -> "Callable[[Caller], JiraClient]":
    """Each caller's own Jira on the site at ``site_url``, with the caller's own JWT for the token
    source (Jira as the user: Atlassian's OAuth through AgentCore Identity)."""
    from multitool.ports.atlassian.jira_user import caller_jira as account_jira
    from multitool.ports.tokens import Account

    for_account = account_jira(tokens, site_url=site_url, http=http, api_base=api_base)

    def for_caller(caller: Caller) -> "JiraClient":
        return for_account(Account(user_id=caller.user_id, email=caller.email, user_token=caller.user_token))

    return for_caller


def recipient_policy(settings: "ReviewSettings") -> RecipientPolicy:
    """The deployment's recipient limits; the inside domains default to the sender's own domain."""
    domains = settings.recipient_domains or (settings.sender_email.rpartition("@")[2],)
    return RecipientPolicy.of(
        domains,
        outside=settings.outside_recipients,
        per_day=settings.recipients_per_day,
        outside_per_day=settings.outside_recipients_per_day,
    )


@functools.cache
def aws_confirm_limiter() -> RateLimiter | None:
    """Each user's confirm token bucket on ``RATE_LIMITS_TABLE_NAME``; None without one."""
    from multitool.settings.review import ReviewSettings

    def limits() -> BucketLimits:
        s = ReviewSettings.from_env()
        return BucketLimits(s.rate_limits_table_name, s.confirms_per_minute, s.confirms_burst)

    return aws_token_bucket(limits)


@functools.cache
def aws_accounts() -> Accounts | None:
    """The deployed accounts service, or None when the stack connects no accounts (no ``IDENTITY_*``)."""
    import os

    if not os.environ.get("IDENTITY_WORKLOAD_NAME"):
        return None
    import boto3

    from multitool.ports.connections import DynamoConnections
    from multitool.ports.directory import DynamoDirectory

    settings = IdentitySettings.from_env()
    dynamodb = boto3.client("dynamodb")
    directory = os.environ.get("DIRECTORY_TABLE_NAME")
    return Accounts(
        boto3.client("bedrock-agentcore"),
        DynamoConnections(settings.connections_table_name, dynamodb),
        tuple(settings.credential_providers()),
        DirectoryPeople(DynamoDirectory(directory, dynamodb)) if directory else None,
    )


def review_function_app() -> "APIGatewayHttpResolver":
    """The review API over the deployment's reviewer, confirm limiter and accounts (built on first use)."""
    return review_app(aws_reviewer, aws_confirm_limiter, aws_accounts)


def undo_queue_handler() -> QueueHandler:
    """The undo queue's batches, sent by the deployment's reviewer."""
    return due_sends(aws_reviewer)
