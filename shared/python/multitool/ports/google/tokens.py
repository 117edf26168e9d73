"""Token sources for Google Workspace: a fixed token per address, and domain-wide delegation.

:class:`FixedTokenSource` hands out tokens given up front: the local stand-in's sandbox tokens
(:func:`multitool.local.standins.google_server.sandbox_token`), or a developer's own short-lived token.

:class:`DomainWideDelegation` is the organization-wide credential Google documents for acting
as a user of a Workspace domain: a service account that a super administrator has granted
domain-wide delegation for named scopes signs a JWT whose ``sub`` is the user, and exchanges it
at Google's token endpoint for that user's access token
(https://developers.google.com/identity/protocols/oauth2/service-account#delegatingauthority and
#authorizingrequests: claims ``iss``, ``sub``, ``scope``, ``aud`` = the token endpoint, ``iat``,
``exp`` at most an hour later; ``grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer``).
It is OFF unless a deployment configures it (docs/deploy.md says what it grants and its risks).

The JWT is signed by a :class:`Signer`. :class:`KmsSigner` signs with an RSA key that never
leaves AWS KMS (``kms:Sign``, RSASSA_PKCS1_V1_5_SHA_256 = RS256), whose public key the
administrator uploads to the service account as a certificate
(:mod:`multitool.local.deployed.google_certificate`); boto3 is already in the layer, so this adds no
package and no import at cold start, where google-auth would add google-auth, pyasn1,
pyasn1-modules and cryptography (16 MB; about 140 to 500 ms to import on a loaded 2-core
machine, measured here) and need the private key itself in the function.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlencode

import urllib3

from multitool.ports import retry
from multitool.ports.tokens import (
    Account,
    AccountNotConnected,
    Provider,
    ProviderRefused,
    ProviderThrottled,
    ProviderUnavailable,
)

if TYPE_CHECKING:
    from mypy_boto3_kms import KMSClient

GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token"  # noqa: S105 - an endpoint, not a secret
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ASSERTION_LIFETIME = 3600  # Google's maximum: an hour
_REFRESH_BEFORE = 300  # seconds before expiry a cached token is replaced


class FixedTokenSource:
    """One token per address (case-insensitive) at one provider; an address without one is not connected."""

    def __init__(self, tokens: Mapping[str, str], *, provider: Provider = "google") -> None:
        self._tokens = {address.casefold(): token for address, token in tokens.items()}
        self._provider = provider

    def access_token(self, provider: Provider, account: Account, scopes: Sequence[str]) -> str:
        token = self._tokens.get((account.email or "").casefold())
        if provider != self._provider or token is None:
            raise AccountNotConnected(provider)
        return token


class Signer(Protocol):
    key_id: str | None
    """Google's id of the service account key (the JWT header's ``kid``); None: no ``kid``, and
    Google tries the service account's keys (its documented header is ``alg`` and ``typ`` alone)."""

    def sign(self, message: bytes) -> bytes:
        """The RS256 (RSASSA-PKCS1-v1_5 with SHA-256) signature of ``message``."""
        ...


class KmsSigner:
    """RS256 with an RSA key held in AWS KMS (https://docs.aws.amazon.com/kms/latest/APIReference/API_Sign.html)."""

    def __init__(self, client: KMSClient, kms_key_id: str, google_key_id: str | None = None) -> None:
        self._client = client
        self._kms_key_id = kms_key_id
        self.key_id = google_key_id

    def sign(self, message: bytes) -> bytes:
        answer = self._client.sign(
            KeyId=self._kms_key_id,
            Message=message,
            MessageType="RAW",
            SigningAlgorithm="RSASSA_PKCS1_V1_5_SHA_256",
        )
        return answer["Signature"]


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class DomainWideDelegation:
    """Each user's token from a service account with domain-wide delegation; see the module docstring.

    Tokens are kept per user and scopes until five minutes before they expire, for the life of
    the container (a warm function asks Google once an hour per user, not once per call).
    """

    def __init__(
        self,
        service_account: str,
        signer: Signer,
        *,
        http: urllib3.PoolManager,
        token_url: str = GOOGLE_TOKEN_URL,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._service_account = service_account
        self._signer = signer
        self._http = http
        self._token_url = token_url
        self._clock = clock
        self._sleep = sleep
        self._cache: dict[tuple[str, tuple[str, ...]], tuple[str, float]] = {}
        self._lock = threading.Lock()

    def access_token(self, provider: Provider, account: Account, scopes: Sequence[str]) -> str:
        if provider != "google" or not account.email:
            raise AccountNotConnected(provider)
        key = (account.email.casefold(), tuple(sorted(set(scopes))))
        now = self._clock()
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None and cached[1] - _REFRESH_BEFORE > now:
            return cached[0]
        token, expires_in = self._exchange(self.assertion(account.email, key[1], now))
        with self._lock:
            self._cache[key] = (token, now + expires_in)
        return token

    def assertion(self, user: str, scopes: Sequence[str], now: float) -> str:
        """The signed JWT asking for ``user``'s token covering ``scopes``."""
        header = {"alg": "RS256", "typ": "JWT"}
        if self._signer.key_id:
            header["kid"] = self._signer.key_id
        issued = int(now)
        claims = {
            "iss": self._service_account,
            "sub": user,
            "scope": " ".join(scopes),
            "aud": self._token_url,
            "iat": issued,
            "exp": issued + ASSERTION_LIFETIME,
        }
        signing_input = f"{_b64url(json.dumps(header).encode())}.{_b64url(json.dumps(claims).encode())}"
        return f"{signing_input}.{_b64url(self._signer.sign(signing_input.encode('ascii')))}"

    def _exchange(self, assertion: str) -> tuple[str, float]:
        # Retried as every provider request is (multitool.ports.retry); asking for a token twice
        # changes nothing, so the exchange is idempotent.
        try:
            response = retry.send(
                self._http,
                "POST",
                self._token_url,
                body=urlencode({"grant_type": JWT_BEARER, "assertion": assertion}).encode(),
                headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
                idempotent=True,
                sleep=self._sleep,
            )
        except retry.RequestFailed as error:
            raise ProviderUnavailable(
                "google", f"Google's token endpoint could not be reached ({error.cause}); try again."
            ) from error
        try:
            body = json.loads(response.data) if response.data else {}
        except (ValueError, UnicodeDecodeError):
            body = {}
        if response.status == 200 and body.get("access_token"):
            return str(body["access_token"]), float(body.get("expires_in") or ASSERTION_LIFETIME)
        code = str(body.get("error") or "")
        if code == "invalid_grant":
            # No such user in the domain, a suspended user, or a clock far off: no token for this user.
            raise AccountNotConnected(
                "google", "Google Workspace has no account this organization can act for; nothing was sent."
            )
        if code in ("unauthorized_client", "access_denied", "invalid_client", "invalid_scope"):
            raise ProviderRefused(
                "google",
                "Google refused the organization's delegated access "
                f"({code}): an administrator must grant the service account these scopes.",
            )
        if response.status == 429:
            raise ProviderThrottled(
                "google", "Google's token endpoint is limiting requests; try again shortly."
            )
        if response.status >= 500:
            raise ProviderUnavailable(
                "google", f"Google's token endpoint failed (HTTP {response.status}); try again."
            )
        raise ProviderRefused(
            "google", f"Google's token endpoint refused the request (HTTP {response.status})."
        )
