"""What a handler's cold start loads: nothing its requests never use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("function", ["email_draft", "meeting_scheduler", "jira_draft", "orchestrator"])
def test_functions_that_never_send_an_invitation_do_not_import_icalendar(function: str) -> None:
    # A fresh interpreter: this process has long imported everything.
    code = f"import sys, functions.{function}.handler; print('icalendar' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "shared" / "python"), str(ROOT)])}
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=ROOT
    ).stdout.strip()

    assert loaded == "False"
