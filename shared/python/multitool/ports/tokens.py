"""Token-source port: the access token an adapter of a user's own suite (Microsoft 365, Google
Workspace) sends, per user and per provider, and the errors every provider adapter raises.

The adapters never learn where a token comes from: a fixed token (the local stand-ins), an
organization-wide credential where the provider documents one (Graph application permissions,
Google domain-wide delegation), or the user's own consent held by AgentCore Identity. A source
that has no token for the user raises :class:`AccountNotConnected` (with the link that connects
the account, when it has one); the adapters raise it too when the provider answers that a token
has expired or was revoked.
"""

from __future__ import annotations

from collections.abc import Sequence
from http import HTTPStatus
from typing import Any, ClassVar, Literal, Protocol

import msgspec

from multitool.errors import RETRY_AFTER, ServiceError
from multitool.records import Redacted

Provider = Literal["microsoft365", "google", "atlassian"]
PROVIDER_NAMES: dict[str, str] = {
    "microsoft365": "Microsoft 365",
    "google": "Google Workspace",
    "atlassian": "Atlassian (Jira)",
}


class Account(Redacted, msgspec.Struct, frozen=True):
    """Whose suite an adapter acts in: the signed-in user's ``sub`` and verified address, and the
    user's own token as the API received it (what a token vault exchanges for the user's
    provider token; None where the caller reached the function some other way)."""

    redacted = frozenset({"user_token"})

    user_id: str
    email: str | None = None
    user_token: str | None = None


class TokenSource(Protocol):
    def access_token(self, provider: Provider, account: Account, scopes: Sequence[str]) -> str:
        """A bearer token for ``account`` at ``provider`` covering ``scopes``.

        Raises :class:`AccountNotConnected` when there is none (the user must connect or
        reconnect the account).
        """
        ...


class ProviderError(ServiceError):
    """A provider's answer a card or a confirm shows as it is: never a 500."""

    code: ClassVar[str] = "provider_error"
    status: ClassVar[int] = HTTPStatus.BAD_GATEWAY

    def __init__(self, provider: Provider, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.provider = provider
        self.retry_after = retry_after

    def detail(self) -> dict[str, Any]:
        return {"provider": self.provider}

    def headers(self) -> dict[str, str]:
        if self.retry_after is None:
            return {}
        return {RETRY_AFTER: str(max(1, round(self.retry_after)))}


class AccountNotConnected(ProviderError):
    """No usable token: never connected, expired past refresh, or revoked. The user must (re)connect."""

    code = "account_not_connected"
    status = HTTPStatus.FORBIDDEN

    def __init__(
        self, provider: Provider, message: str | None = None, *, authorization_url: str | None = None
    ) -> None:
        name = PROVIDER_NAMES[provider]
        super().__init__(provider, message or f"Connect your {name} account to go on; nothing was sent.")
        self.authorization_url = authorization_url

    def detail(self) -> dict[str, Any]:
        detail = {**super().detail(), "providerName": PROVIDER_NAMES[self.provider]}
        if self.authorization_url is not None:
            detail["authorizationUrl"] = self.authorization_url
        return detail


class ProviderThrottled(ProviderError):
    """The provider kept throttling past the bounded retries; the same request can be tried later."""

    code = "provider_throttled"
    status = HTTPStatus.SERVICE_UNAVAILABLE


class ProviderUnavailable(ProviderError):
    """The provider could not be reached or failed (5xx, timeout); the same request can be tried later."""

    code = "provider_unavailable"
    status = HTTPStatus.SERVICE_UNAVAILABLE


class ProviderOutcomeUnknown(ProviderError):
    """A send (a mail, an event and its invitations) reached the provider and no answer came back:
    it may have gone out. It is never sent again blindly (the provider takes no idempotency key for
    it): the user checks, as for Jira's ``jira_outcome_unknown``
    (:class:`multitool.ports.jira.JiraOutcomeUnknown`), before confirming again."""

    code = "provider_outcome_unknown"
    status = HTTPStatus.BAD_GATEWAY


class ProviderRefused(ProviderError):
    """The provider refused the request as it is (no such mailbox or calendar, a limit, a policy)."""

    code = "provider_refused"
    status = HTTPStatus.BAD_GATEWAY
