"""Google token sources: domain-wide delegation signed in AWS KMS (moto), and the fixed source.

Given an RSA key in (moto's) KMS, when a token is asked for a user, then the assertion posted to
Google's token endpoint is an RS256 JWT that KMS's public key verifies, with the claims Google
documents, and Google's answers map to the provider errors. The certificate the administrator
uploads parses as X.509 v3 and its signature verifies with the same key.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, cast
from urllib.parse import parse_qs

import boto3
import pytest
import urllib3
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.serialization import load_der_public_key
from moto import mock_aws
from multitool.local.deployed.google_certificate import SUBJECT, certificate_der, certificate_pem
from multitool.ports import retry
from multitool.ports.google.tokens import (
    GOOGLE_TOKEN_URL,
    JWT_BEARER,
    DomainWideDelegation,
    FixedTokenSource,
    KmsSigner,
)
from multitool.ports.google.workspace import SCOPES
from multitool.ports.tokens import Account, AccountNotConnected, ProviderRefused, ProviderUnavailable

from tests.support.google_api import FakeResponse

SERVICE_ACCOUNT = "multitool-delegation@example-project.iam.gserviceaccount.com"
PRIYA = Account(user_id="sub-priya", email="priya@example.com")


@pytest.fixture
def kms(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, str]]:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    with mock_aws():
        client = boto3.client("kms")
        key = client.create_key(KeySpec="RSA_2048", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
        yield client, key


class TokenEndpoint:
    """Google's token endpoint as the source sees it: records each form post, answers in order."""

    def __init__(self, *answers: tuple[int, dict[str, Any]]) -> None:
        self.forms: list[dict[str, list[str]]] = []
        self.urls: list[str] = []
        self._answers = list(answers)

    @property
    def http(self) -> urllib3.PoolManager:
        return cast(urllib3.PoolManager, self)

    def request(
        self, method: str, url: str, body: bytes | None = None, headers: Any = None, **_: Any
    ) -> FakeResponse:
        assert method == "POST"
        assert headers["Content-Type"] == "application/x-www-form-urlencoded"
        self.urls.append(url)
        self.forms.append(parse_qs((body or b"").decode()))
        status, answer = self._answers.pop(0)
        return FakeResponse(status, json.dumps(answer).encode())


def _decode(part: str) -> Any:
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def test_the_assertion_is_an_rs256_jwt_for_the_user_signed_in_kms(kms: tuple[Any, str]) -> None:
    client, key = kms
    endpoint = TokenEndpoint(
        (200, {"access_token": "ya29.delegated", "expires_in": 3599, "token_type": "Bearer"})
    )
    source = DomainWideDelegation(
        SERVICE_ACCOUNT, KmsSigner(client, key, "0123abcd"), http=endpoint.http, clock=lambda: 1_800_000_000.0
    )

    token = source.access_token("google", PRIYA, SCOPES)

    assert token == "ya29.delegated"
    assert endpoint.urls == [GOOGLE_TOKEN_URL]
    (form,) = endpoint.forms
    assert form["grant_type"] == [JWT_BEARER]
    header, claims, signature = form["assertion"][0].split(".")
    assert _decode(header) == {"alg": "RS256", "typ": "JWT", "kid": "0123abcd"}
    assert _decode(claims) == {
        "iss": SERVICE_ACCOUNT,
        "sub": "priya@example.com",
        "scope": " ".join(sorted(SCOPES)),
        "aud": GOOGLE_TOKEN_URL,
        "iat": 1_800_000_000,
        "exp": 1_800_003_600,
    }
    public = load_der_public_key(client.get_public_key(KeyId=key)["PublicKey"])
    assert isinstance(public, rsa.RSAPublicKey)
    public.verify(
        base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)),
        f"{header}.{claims}".encode(),
        padding.PKCS1v15(),
        hashes.SHA256(),
    )


def test_a_token_is_kept_until_shortly_before_it_expires(kms: tuple[Any, str]) -> None:
    client, key = kms
    endpoint = TokenEndpoint(
        (200, {"access_token": "first", "expires_in": 3600}), (200, {"access_token": "second"})
    )
    now = [1_800_000_000.0]
    source = DomainWideDelegation(
        SERVICE_ACCOUNT, KmsSigner(client, key, "k"), http=endpoint.http, clock=lambda: now[0]
    )

    assert source.access_token("google", PRIYA, SCOPES) == "first"
    now[0] += 3000
    assert source.access_token("google", PRIYA, list(reversed(SCOPES))) == "first"
    now[0] += 400  # within five minutes of expiry
    assert source.access_token("google", PRIYA, SCOPES) == "second"
    assert len(endpoint.forms) == 2


@pytest.mark.parametrize(
    ("status", "answer", "error"),
    [
        (
            400,
            {"error": "invalid_grant", "error_description": "Invalid email or User ID"},
            AccountNotConnected,
        ),
        (
            401,
            {
                "error": "unauthorized_client",
                "error_description": "Client is unauthorized to retrieve access tokens",
            },
            ProviderRefused,
        ),
        (503, {"error": "temporarily_unavailable"}, ProviderUnavailable),
    ],
)
def test_google_token_errors_become_provider_errors(
    kms: tuple[Any, str], status: int, answer: dict[str, Any], error: type[Exception]
) -> None:
    client, key = kms
    endpoint = TokenEndpoint(*[(status, answer)] * retry.MAX_ATTEMPTS)
    source = DomainWideDelegation(
        SERVICE_ACCOUNT, KmsSigner(client, key, "k"), http=endpoint.http, sleep=[].append
    )
    with pytest.raises(error):
        source.access_token("google", PRIYA, SCOPES)
    # A refusal is answered at once; a failing endpoint is tried as every provider request is.
    assert len(endpoint.forms) == (retry.MAX_ATTEMPTS if status >= 500 else 1)


def test_a_throttled_or_failing_token_exchange_is_retried(kms: tuple[Any, str]) -> None:
    client, key = kms
    endpoint = TokenEndpoint(
        (429, {"error": "rate_limit_exceeded"}),
        (503, {"error": "temporarily_unavailable"}),
        (200, {"access_token": "ya29.token", "expires_in": 3599, "token_type": "Bearer"}),
    )
    waits: list[float] = []
    source = DomainWideDelegation(
        SERVICE_ACCOUNT, KmsSigner(client, key, "k"), http=endpoint.http, sleep=waits.append
    )

    assert source.access_token("google", PRIYA, SCOPES) == "ya29.token"
    assert len(endpoint.forms) == 3
    assert len(waits) == 2


def test_no_address_or_another_provider_is_not_connected(kms: tuple[Any, str]) -> None:
    client, key = kms
    source = DomainWideDelegation(SERVICE_ACCOUNT, KmsSigner(client, key, "k"), http=TokenEndpoint().http)
    with pytest.raises(AccountNotConnected):
        source.access_token("google", Account(user_id="x"), SCOPES)
    with pytest.raises(AccountNotConnected):
        source.access_token("microsoft365", PRIYA, SCOPES)


def test_the_certificate_to_upload_is_x509_v3_for_the_kms_key_and_signed_by_it(kms: tuple[Any, str]) -> None:
    client, key = kms
    der = certificate_der(client, key, days=30, now=datetime(2026, 12, 1, tzinfo=UTC))

    certificate = x509.load_pem_x509_certificate(certificate_pem(der).encode())

    assert certificate.version is x509.Version.v3
    assert certificate.subject.rfc4514_string() == f"CN={SUBJECT}"
    assert certificate.not_valid_after_utc == datetime(2026, 12, 31, tzinfo=UTC)
    public = certificate.public_key()
    assert isinstance(public, rsa.RSAPublicKey)
    kms_public = load_der_public_key(client.get_public_key(KeyId=key)["PublicKey"])
    assert isinstance(kms_public, rsa.RSAPublicKey)
    assert public.public_numbers() == kms_public.public_numbers()
    public.verify(
        certificate.signature, certificate.tbs_certificate_bytes, padding.PKCS1v15(), hashes.SHA256()
    )


def test_the_fixed_source_gives_each_address_its_token() -> None:
    source = FixedTokenSource({"Priya@Example.com": "sandbox-google.priya@example.com"})
    assert source.access_token("google", PRIYA, SCOPES) == "sandbox-google.priya@example.com"
    with pytest.raises(AccountNotConnected):
        source.access_token("google", Account(user_id="x", email="x@example.com"), SCOPES)
