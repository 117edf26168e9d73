"""Token sources until per-user consent lands: a fixed token (the local stand-ins) and Microsoft
Entra's client-credentials flow for an organization-wide Graph credential (off by default).

The organization-wide credential is the one Microsoft documents for a daemon acting in many
mailboxes: application permissions (``Calendars.ReadWrite``, ``Mail.Send``, ``User.Read.All``)
granted by an administrator, limited to the mailboxes of one mail-enabled security group by an
application access policy (https://learn.microsoft.com/graph/auth-limit-mailbox-access). Every
user's actions then run with the app's rights in *their own* mailbox only because the adapters
address ``/users/{the caller's verified address}``; docs/deploy.md says what that trusts.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import msgspec

from multitool.ports import retry
from multitool.ports.tokens import Account, AccountNotConnected, Provider, ProviderUnavailable

if TYPE_CHECKING:
    import urllib3

# https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow
ENTRA_TOKEN_URL = "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token"  # noqa: S105 (a URL)
GRAPH_DEFAULT_SCOPE = "https://graph.microsoft.com/.default"
_EARLY_SECONDS = 300  # renew this long before the token expires


class FixedTokenSource(msgspec.Struct, frozen=True):
    """One token for every user and scope: the local stand-ins accept any bearer token."""

    token: str
    provider: Provider = "microsoft365"

    def access_token(self, provider: Provider, account: Account, scopes: Sequence[str]) -> str:
        if provider != self.provider:
            raise AccountNotConnected(provider)
        return self.token


class ClientCredentials(msgspec.Struct, frozen=True):
    tenant_id: str
    client_id: str
    client_secret: str

    @classmethod
    def from_secret(cls, text: str) -> ClientCredentials:
        """``{"tenantId", "clientId", "clientSecret"}``, the Secrets Manager secret's JSON."""
        try:
            data = json.loads(text)
            return cls(str(data["tenantId"]), str(data["clientId"]), str(data["clientSecret"]))
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(
                'The Microsoft 365 secret must be JSON {"tenantId", "clientId", "clientSecret"}'
            ) from error


class EntraAppTokenSource:
    """The app's own Graph token (client credentials), cached until shortly before it expires."""

    def __init__(
        self,
        credentials: Callable[[], ClientCredentials],
        http: urllib3.PoolManager,
        *,
        token_url: str | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._credentials = credentials
        self._http = http
        self._token_url = token_url
        self._clock = clock
        self._sleep = sleep
        self._cached: tuple[str, float] | None = None
        self._lock = threading.Lock()

    def access_token(self, provider: Provider, account: Account, scopes: Sequence[str]) -> str:
        if provider != "microsoft365":
            raise AccountNotConnected(provider)
        with self._lock:
            if self._cached is not None and self._cached[1] - _EARLY_SECONDS > self._clock():
                return self._cached[0]
            token, expires_in = self._fetch()
            self._cached = (token, self._clock() + expires_in)
            return token

    def _fetch(self) -> tuple[str, float]:
        credentials = self._credentials()
        url = self._token_url or ENTRA_TOKEN_URL.format(tenant=quote(credentials.tenant_id, safe=""))
        form = urlencode(
            {
                "client_id": credentials.client_id,
                "client_secret": credentials.client_secret,
                "scope": GRAPH_DEFAULT_SCOPE,
                "grant_type": "client_credentials",
            }
        )
        # Retried as every provider request is (multitool.ports.retry): a token request is idempotent.
        try:
            response = retry.send(
                self._http,
                "POST",
                url,
                body=form.encode(),
                headers={"Content-Type": "application/x-www-form-urlencoded"},
                idempotent=True,
                sleep=self._sleep,
            )
        except retry.RequestFailed as error:
            raise ProviderUnavailable(
                "microsoft365", "Microsoft Entra could not be reached; try again."
            ) from error
        body: Any = json.loads(response.data or b"{}") if response.data else {}
        if response.status >= 500:
            raise ProviderUnavailable("microsoft365", "Microsoft Entra failed to issue a token; try again.")
        if response.status != 200 or "access_token" not in body:
            code = body.get("error", "unknown") if isinstance(body, dict) else "unknown"
            # invalid_client, unauthorized_client...: the app's registration or secret is wrong.
            raise AccountNotConnected(
                "microsoft365",
                f"Microsoft Entra refused the app's credential ({code}): an administrator must fix the "
                "app registration or its secret. Nothing was sent.",
            )
        return str(body["access_token"]), float(body.get("expires_in", 3599))
