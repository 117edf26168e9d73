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


def test_provider_tokens_give_each_address_its_own_token_at_the_chosen_provider() -> None:
    from multitool.ports.provider_suites import settings_tokens

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
