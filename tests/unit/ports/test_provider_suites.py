"""The deployment's choice of suite: CALENDAR validated, a provider's module imported only when chosen."""

from __future__ import annotations

import subprocess
import sys
from typing import get_args, get_type_hints

import pytest
from multitool.ports.microsoft365.graph import GraphCalendar
from multitool.ports.microsoft365.tokens import FixedTokenSource
from multitool.ports.provider_suites import NoTokenSource, provider_suites, settings_tokens
from multitool.ports.suites import SUITE_NAMES
from multitool.ports.tokens import Account, AccountNotConnected
from multitool.settings import SettingsError, ToolSettings
from multitool.settings.review import ReviewSettings

TABLES = {"DRAFTS_TABLE_NAME": "d", "DIRECTORY_TABLE_NAME": "p", "BOOKINGS_TABLE_NAME": "b"}


def test_calendar_defaults_to_builtin_and_takes_only_the_three_suites() -> None:
    assert get_args(get_type_hints(ToolSettings)["calendar"]) == SUITE_NAMES
    assert ToolSettings.from_env(TABLES).calendar == "builtin"
    assert ToolSettings.from_env({**TABLES, "CALENDAR": "microsoft365"}).calendar == "microsoft365"
    with pytest.raises(SettingsError, match="CALENDAR"):
        ToolSettings.from_env({**TABLES, "CALENDAR": "outlook"})
    with pytest.raises(SettingsError, match="PROVIDER_BASE_URL"):
        ReviewSettings.from_env({**TABLES, "SENDER_EMAIL": "a@b.c", "PROVIDER_BASE_URL": "graph.local"})


def test_a_provider_suite_is_built_per_account_with_its_builder() -> None:
    for_account = provider_suites("microsoft365", FixedTokenSource("t"), http=object())  # type: ignore[arg-type]

    suite = for_account(Account("u", "a@example.com"))

    assert isinstance(suite.calendar, GraphCalendar)
    with pytest.raises(ValueError, match="builtin"):
        provider_suites("builtin", NoTokenSource(), http=object())  # type: ignore[arg-type]


def test_without_a_token_source_the_user_is_asked_to_connect() -> None:
    with pytest.raises(AccountNotConnected, match="Connect your Microsoft 365 account"):
        NoTokenSource().access_token("microsoft365", Account("u"), ["Mail.Send"])


def test_the_review_function_of_a_builtin_deployment_never_imports_a_provider() -> None:
    code = (
        "import sys; import multitool.api.review_app, multitool.ports.provider_suites; "
        "print(sorted(m for m in sys.modules if m in "
        "('multitool.ports.microsoft365.graph', 'multitool.ports.microsoft365.graph_http', "
        "'multitool.ports.google.workspace')))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout

    assert out.strip() == "[]"


def test_without_a_deadline_a_suite_stops_retrying_within_the_request_budget() -> None:
    from multitool.local.standins.graph_state import Fault, GraphPool, GraphState
    from multitool.ports.tokens import ProviderThrottled

    graph = GraphState()
    graph.add_user("Jordan Lee", "jordan@example.com")
    graph.fail_next(
        "GET", "/users", Fault(429, "TooManyRequests", "Slow down", {"Retry-After": "1"}), times=9
    )
    for_account = provider_suites(
        "microsoft365",
        FixedTokenSource("t"),
        http=GraphPool(graph),  # type: ignore[arg-type]
        base_url="http://graph.local/v1.0",
        budget_seconds=2.5,  # one request's worth: no time to wait a second and ask again
    )

    with pytest.raises(ProviderThrottled):
        for_account(Account("u", "jordan@example.com")).directory.resolve(["Jordan Lee"])

    assert len(graph.requests) == 1


def test_provider_tokens_give_each_address_its_own_token_at_the_chosen_provider() -> None:
    settings = ToolSettings.from_env(
        {
            **TABLES,
            "CALENDAR": "google",
            "PROVIDER_TOKENS": '{"Jordan.Lee@example.com": "sandbox-google.jordan.lee@example.com"}',
        }
    )
    tokens = settings_tokens(settings, http=object())  # type: ignore[arg-type]

    jordan = Account("sub-jordan", "jordan.lee@example.com")
    assert tokens.access_token("google", jordan, ["s"]) == "sandbox-google.jordan.lee@example.com"
    with pytest.raises(AccountNotConnected, match="Connect your Google Workspace account"):
        tokens.access_token("google", Account("sub-mei", "mei.tanaka@example.com"), ["s"])
    with pytest.raises(AccountNotConnected):
        tokens.access_token("microsoft365", jordan, ["s"])


def test_provider_tokens_must_be_a_json_object_and_exclude_one_token_for_everyone() -> None:
    with pytest.raises(SettingsError, match=r"PROVIDER_TOKENS: .*JSON object"):
        ToolSettings.from_env({**TABLES, "CALENDAR": "google", "PROVIDER_TOKENS": "jordan=token"})
    with pytest.raises(SettingsError, match="PROVIDER_TOKENS"):
        ToolSettings.from_env({**TABLES, "CALENDAR": "google", "PROVIDER_TOKENS": '["token"]'})
    with pytest.raises(SettingsError, match="exclude each other"):
        ToolSettings.from_env(
            {**TABLES, "CALENDAR": "google", "PROVIDER_TOKEN": "t", "PROVIDER_TOKENS": '{"a@b.c": "t"}'}
        )


@pytest.mark.parametrize("key_id", [None, "0123456789abcdef0123456789abcdef01234567"])
def test_google_delegation_settings_sign_each_users_jwt_with_the_stacks_kms_key(
    monkeypatch: pytest.MonkeyPatch, key_id: str | None
) -> None:
    import base64
    import json

    import boto3
    from moto import mock_aws
    from multitool.ports.google.tokens import DomainWideDelegation

    from tests.unit.ports.test_google_tokens import SERVICE_ACCOUNT, TokenEndpoint

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    with mock_aws():
        kms = boto3.client("kms")
        key_arn = kms.create_key(KeySpec="RSA_2048", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["Arn"]
        # Given the environment the stack sets with googleDelegation
        settings = ToolSettings.from_env(
            {
                **TABLES,
                "CALENDAR": "google",
                "GOOGLE_DELEGATION_SERVICE_ACCOUNT": SERVICE_ACCOUNT,
                "GOOGLE_DELEGATION_KEY_ARN": key_arn,
                **({"GOOGLE_DELEGATION_KEY_ID": key_id} if key_id else {}),
            }
        )
        endpoint = TokenEndpoint((200, {"access_token": "ya29.delegated", "expires_in": 3599}))

        # When a user's token is asked for
        tokens = settings_tokens(settings, endpoint.http)
        token = tokens.access_token("google", Account("sub-priya", "priya@example.com"), ["s"])

        # Then it is domain-wide delegation: a JWT for that user, signed by that key (KMS verifies it)
        assert isinstance(tokens, DomainWideDelegation)
        assert token == "ya29.delegated"
        header, claims, signature = endpoint.forms[0]["assertion"][0].split(".")
        decoded = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))
        assert (decoded["iss"], decoded["sub"]) == (SERVICE_ACCOUNT, "priya@example.com")
        assert json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))) == {
            "alg": "RS256",
            "typ": "JWT",
            **({"kid": key_id} if key_id else {}),
        }
        verified = kms.verify(
            KeyId=key_arn,
            Message=f"{header}.{claims}".encode(),
            MessageType="RAW",
            Signature=base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)),
            SigningAlgorithm="RSASSA_PKCS1_V1_5_SHA_256",
        )
        assert verified["SignatureValid"] is True


def test_google_delegation_needs_both_settings_and_a_kms_arn() -> None:
    google = {**TABLES, "CALENDAR": "google"}
    with pytest.raises(SettingsError, match="go together"):
        ToolSettings.from_env({**google, "GOOGLE_DELEGATION_SERVICE_ACCOUNT": "sa@p.iam.gserviceaccount.com"})
    with pytest.raises(SettingsError, match="GOOGLE_DELEGATION_KEY_ARN"):
        ToolSettings.from_env(
            {
                **google,
                "GOOGLE_DELEGATION_SERVICE_ACCOUNT": "sa@p.iam.gserviceaccount.com",
                "GOOGLE_DELEGATION_KEY_ARN": "k",
            }
        )
    # and without either, no organization-wide credential: each user is asked to connect
    assert isinstance(settings_tokens(ToolSettings.from_env(google), http=object()), NoTokenSource)  # type: ignore[arg-type]


IDENTITY = {
    "IDENTITY_WORKLOAD_NAME": "multitool-identity-a1b2c3",
    "IDENTITY_PROVIDER": "microsoft365",
    "IDENTITY_CREDENTIAL_PROVIDER": "multitool-microsoft365-a1b2c3-oauth",
    "IDENTITY_RETURN_URL": "https://chat.example.com/",
    "CONNECTIONS_TABLE_NAME": "limits",
}


def test_an_identity_workload_makes_the_tokens_each_users_own_consent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from multitool.ports.agentcore.tokens import AgentCoreTokens
    from multitool.ports.provider_suites import settings_tokens

    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    settings = ToolSettings.from_env({**TABLES, "CALENDAR": "microsoft365", **IDENTITY})

    tokens = settings_tokens(settings, object())  # type: ignore[arg-type]

    assert isinstance(tokens, AgentCoreTokens)
    # A caller without the user's own JWT cannot be given a token (no AWS call is made for it).
    with pytest.raises(AccountNotConnected, match="only be used from the chat or the review"):
        tokens.access_token("microsoft365", Account("u", "a@example.com"), ["Mail.Send"])
    assert settings_tokens(
        ToolSettings.from_env({**TABLES, "CALENDAR": "microsoft365"}), object()
    ).__class__ is (  # type: ignore[arg-type]
        NoTokenSource
    )


def test_identity_settings_are_whole_and_name_the_calendars_provider() -> None:
    with pytest.raises(SettingsError, match="CONNECTIONS_TABLE_NAME must be set too"):
        ToolSettings.from_env(
            {**TABLES, "CALENDAR": "microsoft365", **IDENTITY, "CONNECTIONS_TABLE_NAME": ""}
        )
    with pytest.raises(SettingsError, match="IDENTITY_PROVIDER is microsoft365 but CALENDAR is google"):
        ToolSettings.from_env({**TABLES, "CALENDAR": "google", **IDENTITY})
    assert ToolSettings.from_env(TABLES).identity() is None
