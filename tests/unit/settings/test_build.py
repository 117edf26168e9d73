"""Each function builds the settings class it validates and no other (pydantic's defer_build)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.function_handlers import handler_import

ROOT = Path(__file__).resolve().parents[3]
CLASSES = {
    "JiraProject": "multitool.settings",
    "ToolSettings": "multitool.settings",
    "IdentitySettings": "multitool.settings",
    "InterceptorSettings": "multitool.settings",
    "ChatSettings": "multitool.settings.chat",
    "ReviewSettings": "multitool.settings.review",
}
"""Each settings class and its module."""
ENV = {
    "DRAFTS_TABLE_NAME": "drafts",
    "DIRECTORY_TABLE_NAME": "directory",
    "BOOKINGS_TABLE_NAME": "bookings",
    "SESSIONS_TABLE_NAME": "sessions",
    "SENDER_EMAIL": "noreply@example.com",
}


def built_after(code: str, environment: dict[str, str] | None = None) -> list[str]:
    """The settings classes pydantic has built after ``code`` ran in a fresh interpreter (a class whose
    module was never imported was never built)."""
    program = (
        f"import json, sys\n{code}\n"
        f"print(json.dumps([n for n, m in {CLASSES!r}.items() "
        "if m in sys.modules and getattr(sys.modules[m], n).__pydantic_complete__]))"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "shared" / "python"), str(ROOT)]),
        **(environment or {}),
    }
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, env=env, cwd=ROOT
    )
    built: list[str] = json.loads(done.stdout.splitlines()[-1])
    return built


@pytest.mark.parametrize(
    "function", ["email_draft", "meeting_scheduler", "jira_draft", "review", "orchestrator"]
)
def test_importing_a_handler_builds_no_settings_class(function: str) -> None:
    assert built_after(*handler_import(function)) == []


@pytest.mark.parametrize(
    ("settings", "built"),
    [
        ("ReviewSettings", ["JiraProject", "ReviewSettings"]),
        ("ChatSettings", ["JiraProject", "ChatSettings"]),
        ("ToolSettings", ["JiraProject", "ToolSettings"]),
    ],
)
def test_validating_one_kind_of_settings_builds_that_class_only(settings: str, built: list[str]) -> None:
    code = f"from {CLASSES[settings]} import {settings}\n{settings}.from_env({ENV!r})"

    assert built_after(code) == built


def test_deferred_settings_still_refuse_a_bad_environment() -> None:
    from multitool.settings import SettingsError
    from multitool.settings.review import ReviewSettings

    with pytest.raises(SettingsError, match="RECIPIENTS_PER_DAY"):
        ReviewSettings.from_env({**ENV, "RECIPIENTS_PER_DAY": "0"})
