"""What a handler's cold start loads: nothing its requests never use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ("email_draft", "meeting_scheduler", "jira_draft")


def loaded_by(function: str, modules: list[str]) -> list[str]:
    """Which of ``modules`` importing ``functions/<function>/handler.py`` loads, in a fresh interpreter
    (this process has long imported everything)."""
    code = (
        f"import json, sys, functions.{function}.handler; "
        f"print(json.dumps([m for m in {modules!r} if m in sys.modules]))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "shared" / "python"), str(ROOT)])}
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=ROOT
    ).stdout
    loaded: list[str] = json.loads(output)
    return loaded


@pytest.mark.parametrize("function", [*TOOLS, "orchestrator"])
def test_functions_that_never_send_an_invitation_do_not_import_icalendar(function: str) -> None:
    assert loaded_by(function, ["icalendar"]) == []


@pytest.mark.parametrize("function", TOOLS)
def test_an_action_group_function_loads_its_own_tool_and_no_other(function: str) -> None:
    modules = [f"multitool.tools.{tool}" for tool in TOOLS]

    assert loaded_by(function, modules) == [f"multitool.tools.{function}"]


@pytest.mark.parametrize("function", TOOLS)
def test_an_action_group_function_loads_no_confirm_machinery(function: str) -> None:
    # The review function alone runs a confirm: the state machine, the Jira Cloud adapter, the
    # SES adapter and the MIME and header machinery it builds invitations with.
    modules = [
        "multitool.review.reviewer",
        "multitool.ports.jira_cloud",
        "multitool.ports.ses_mail",
        "email.headerregistry",
    ]

    assert loaded_by(function, modules) == []


@pytest.mark.parametrize("function", ["email_draft", "meeting_scheduler"])
def test_only_the_jira_tool_loads_the_jira_port(function: str) -> None:
    assert loaded_by(function, ["multitool.ports.jira"]) == []


@pytest.mark.parametrize("function", ["email_draft", "jira_draft"])
def test_only_the_meeting_tool_loads_the_invitation_and_slot_search(function: str) -> None:
    modules = ["multitool.invitations", "multitool.tools.scheduling", "multitool.tools.when"]

    assert loaded_by(function, modules) == []


def test_the_review_function_loads_every_tool_while_it_initialises() -> None:
    modules = [f"multitool.tools.{tool}" for tool in TOOLS]

    assert loaded_by("review", modules) == modules
