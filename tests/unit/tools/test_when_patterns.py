"""The reader's patterns: compiled when a phrase first needs them, skipped for a phrase without their words
(:mod:`multitool.tools.meeting.when.patterns`)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from multitool.tools.meeting.when import patterns

from tests.support.function_handlers import handler_import
from tests.support.meeting_when import TOKENS, readings


def test_the_words_a_pattern_needs_only_skip_patterns_that_could_not_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each pattern names text every match of it holds, and is skipped (not compiled) for a phrase
    without it: every phrase reads the same as with every pattern run."""
    rng = random.Random(11)
    phrases = [" ".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 7))) for _ in range(3000)]
    phrases += [
        "Thursday at 3pm",
        "tomorrow from 3pm onwards",
        "Jan 5-7 in the afternoon",
        "next week at 3pm London time",
        "between Monday and Wednesday",
        "any day next week except Wednesday",
        "Thursday 10am and Friday 2pm New York time",
        "the last Friday in February at 3pm",
        "in Priya's time zone on Friday at 4",
        "every 2 weeks on Friday at 3pm",
        "the first Monday of every month",
        "daily at 9:30 except Wednesdays",
        "the week of the 14th at 3pm",
        "before Christmas in the afternoon",
        "same time next week",
        "late January or early February",
    ]
    with_needles = readings(phrases)
    monkeypatch.setattr(patterns._LazyPattern, "absent", lambda self, text: False)
    assert readings(phrases) == with_needles


ROOT = Path(__file__).resolve().parents[3]


CTX = (
    "from datetime import UTC, datetime\n"
    "from multitool.toolkit.context import ToolContext\n"
    "now = datetime(2026, 12, 1, 9, tzinfo=UTC)\n"
    "ctx = ToolContext(owner='u', session_id='s', now=now, timezone='Europe/Berlin')\n"
)


def compiled_after(code: str, environment: dict[str, str] | None = None) -> tuple[int, int]:
    """(the phrase reader's patterns, how many are compiled) after ``code`` ran in a fresh interpreter."""
    program = (
        f"import json\n{code}\nfrom multitool.tools.meeting import when\n"
        "print(json.dumps([len(when.LAZY_PATTERNS), sum('compiled' in vars(p) for p in when.LAZY_PATTERNS)]))"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "shared" / "python"), str(ROOT)]),
        **(environment or {}),
    }
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, env=env, cwd=ROOT
    )
    total, compiled = json.loads(done.stdout.splitlines()[-1])
    return total, compiled


@pytest.mark.parametrize("function", ["review", "orchestrator", "meeting_scheduler"])
def test_loading_a_function_that_serves_meetings_compiles_none_of_them(function: str) -> None:
    total, compiled = compiled_after(*handler_import(function))

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
