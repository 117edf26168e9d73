"""The deployment's choice of suite: CALENDAR validated, a provider's module imported only when chosen."""

from __future__ import annotations

import subprocess
import sys
from typing import get_args

import pytest
from multitool.ports.microsoft365 import GraphCalendar
from multitool.ports.provider_suites import NoTokenSource, provider_suites
from multitool.ports.suites import SUITE_NAMES
from multitool.ports.token_sources import FixedTokenSource
from multitool.ports.tokens import Account, AccountNotConnected
from multitool.settings import ReviewSettings, SettingsError, ToolSettings

TABLES = {"DRAFTS_TABLE_NAME": "d", "DIRECTORY_TABLE_NAME": "p", "BOOKINGS_TABLE_NAME": "b"}


def test_calendar_defaults_to_builtin_and_takes_only_the_three_suites() -> None:
    assert get_args(ToolSettings.model_fields["calendar"].annotation) == SUITE_NAMES
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
        "('multitool.ports.microsoft365', 'multitool.ports.graph_http', 'multitool.ports.google_workspace')))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout

    assert out.strip() == "[]"


def test_without_a_deadline_a_suite_stops_retrying_within_the_request_budget() -> None:
    from multitool.local.graph_state import Fault, GraphPool, GraphState
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
        budget_seconds=5.5,  # one request's worth: no time to wait and ask again
    )

    with pytest.raises(ProviderThrottled):
        for_account(Account("u", "jordan@example.com")).directory.resolve(["Jordan Lee"])

    assert len(graph.requests) == 1


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
    from multitool.ports.agentcore_tokens import AgentCoreTokens
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
