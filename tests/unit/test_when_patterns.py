"""The phrase reader's patterns are compiled when a phrase is first read, not when the module loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CTX = (
    "from datetime import UTC, datetime\n"
    "from multitool.tools.base import ToolContext\n"
    "now = datetime(2026, 12, 1, 9, tzinfo=UTC)\n"
    "ctx = ToolContext(owner='u', session_id='s', now=now, timezone='Europe/Berlin')\n"
)


def compiled_after(code: str) -> tuple[int, int]:
    """(the phrase reader's patterns, how many are compiled) after ``code`` ran in a fresh interpreter."""
    program = (
        f"import json\n{code}\nfrom multitool.tools.meeting import when\n"
        "print(json.dumps([len(when.LAZY_PATTERNS), sum('compiled' in vars(p) for p in when.LAZY_PATTERNS)]))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "shared" / "python"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, env=env, cwd=ROOT
    )
    total, compiled = json.loads(done.stdout.splitlines()[-1])
    return total, compiled


@pytest.mark.parametrize("function", ["review", "orchestrator", "meeting_scheduler"])
def test_loading_a_function_that_serves_meetings_compiles_none_of_them(function: str) -> None:
    total, compiled = compiled_after(f"import functions.{function}.handler")

    assert total > 20
    assert compiled == 0


def test_reading_a_phrase_compiles_what_it_uses_and_reads_as_before() -> None:
    code = (
        CTX + "from multitool.tools.meeting.when import read_phrase, resolve_when\n"
        "assert str(resolve_when('Thursday at 3pm', ctx).day) == '2026-12-03'\n"
        "assert read_phrase('Thursday afternoon or Friday morning', ctx).request.options[1].day.isoformat()"
        " == '2026-12-04'\n"
    )

    total, compiled = compiled_after(code)

    assert 0 < compiled <= total
