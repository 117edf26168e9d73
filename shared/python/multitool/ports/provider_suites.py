"""Which suite a caller's actions run against, as the deployment chose it (``CALENDAR``).

``builtin`` is today's one set of objects for everyone (the DynamoDB directory and bookings,
SES). A provider (``microsoft365``, ``google``) is each caller's own suite, made per caller by
the provider module's ``build_suite`` over the function's one ``PoolManager``; the module is
imported by name on first use, so a function of a builtin deployment never imports it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from multitool.ports import retry
from multitool.ports.suites import Suite, SuiteName
from multitool.ports.tokens import Account, AccountNotConnected, Provider, TokenSource

if TYPE_CHECKING:
    from collections.abc import Sequence

    import urllib3

    from multitool.settings import IdentitySettings, ToolSettings

REQUEST_BUDGET_SECONDS = retry.REQUEST_BUDGET_SECONDS
"""What one caller's suite may spend on a request, retries included: the HTTP API cuts every
request at 30 s (``multitool.chat.service.API_SECONDS``), and the answer needs the rest. The
Lambda invocation's own end bounds it too (:func:`multitool.ports.retry.invocation_deadline`)."""

PROVIDER_MODULES: dict[str, str] = {
    "microsoft365": "multitool.ports.microsoft365.graph",
    "google": "multitool.ports.google.workspace",
}


class SuiteBuilder(Protocol):
    def __call__(
        self,
        account: Account,
        tokens: TokenSource,
        *,
        http: urllib3.PoolManager,
        base_url: str | None = None,
        deadline: Callable[[], float] | None = None,
    ) -> Suite: ...


class NoTokenSource:
    """No token for anyone yet: every provider call asks the user to connect the account."""

    def access_token(self, provider: Provider, account: Account, scopes: Sequence[str]) -> str:
        raise AccountNotConnected(provider)


def suite_builder(name: SuiteName) -> SuiteBuilder:
    """The provider module's ``build_suite`` (imported now: the first provider call needs it)."""
    module = importlib.import_module(PROVIDER_MODULES[name])
    builder: SuiteBuilder = module.build_suite
    return builder


def provider_suites(
    name: SuiteName,
    tokens: TokenSource,
    *,
    http: urllib3.PoolManager,
    base_url: str | None = None,
    deadline: Callable[[], float] | None = None,
    budget_seconds: float = REQUEST_BUDGET_SECONDS,
) -> Callable[[Account], Suite]:
    """Each account's own suite at provider ``name`` (not ``builtin``: that is one suite for all).

    A suite is made per caller and request: without a ``deadline``, its retries stop
    ``budget_seconds`` after it was made."""
    if name == "builtin":
        raise ValueError("The builtin suite is one for everyone; build it once.")
    build = suite_builder(name)

    def for_account(account: Account) -> Suite:
        if deadline is not None:
            return build(account, tokens, http=http, base_url=base_url, deadline=deadline)
        return build(account, tokens, http=http, base_url=base_url, deadline=retry.budget(budget_seconds))

    return for_account


def settings_tokens(settings: ToolSettings, http: urllib3.PoolManager) -> TokenSource:
    """The token source the settings name: a fixed token, or one per address (local stand-ins), each
    user's own consent through AgentCore Identity (``IDENTITY_WORKLOAD_NAME``), an organization-wide
    credential (Google domain-wide delegation signed with ``GOOGLE_DELEGATION_KEY_ARN``, the Entra
    app's ``MICROSOFT365_SECRET_ARN``), or none yet (every call asks to connect)."""
    provider: Provider = "google" if settings.calendar == "google" else "microsoft365"
    if settings.provider_token:
        from multitool.ports.microsoft365.tokens import FixedTokenSource

        return FixedTokenSource(settings.provider_token, provider=provider)
    if settings.provider_tokens:
        from multitool.ports.google.tokens import FixedTokenSource as PerAddressTokens

        return PerAddressTokens(settings.provider_tokens, provider=provider)
    identity = settings.identity()
    if identity is not None and identity.identity_provider is not None:
        return agentcore_tokens(identity)
    if (
        settings.calendar == "google"
        and settings.google_delegation_service_account
        and settings.google_delegation_key_arn
    ):
        import boto3

        from multitool.ports.google.tokens import DomainWideDelegation, KmsSigner

        signer = KmsSigner(
            boto3.client("kms"), settings.google_delegation_key_arn, settings.google_delegation_key_id
        )
        return DomainWideDelegation(settings.google_delegation_service_account, signer, http=http)
    if settings.calendar == "microsoft365" and settings.microsoft365_secret_arn:
        import boto3

        from multitool.ports.microsoft365.tokens import ClientCredentials, EntraAppTokenSource

        secret_arn = settings.microsoft365_secret_arn

        def credentials() -> ClientCredentials:
            secret = boto3.client("secretsmanager").get_secret_value(SecretId=secret_arn)
            return ClientCredentials.from_secret(secret["SecretString"])

        return EntraAppTokenSource(credentials, http)
    return NoTokenSource()


def suites_from_settings(settings: ToolSettings, http: urllib3.PoolManager) -> Callable[[Account], Suite]:
    """Each account's suite at ``settings.calendar`` (a provider), with the settings' token source."""
    return provider_suites(
        settings.calendar, settings_tokens(settings, http), http=http, base_url=settings.provider_base_url
    )


def agentcore_tokens(identity: IdentitySettings) -> TokenSource:
    """Each user's own token from AgentCore Identity, the consents kept in the connections table."""
    import boto3

    from multitool.ports.agentcore.tokens import AgentCoreTokens
    from multitool.ports.connections import DynamoConnections

    return AgentCoreTokens(
        boto3.client("bedrock-agentcore"),
        workload_name=identity.identity_workload_name,
        credential_providers=identity.credential_providers(),
        return_url=identity.identity_return_url,
        connections=DynamoConnections(identity.connections_table_name, boto3.client("dynamodb")),
        slack_users=identity.identity_slack_users,
    )
