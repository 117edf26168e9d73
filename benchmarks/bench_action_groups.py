"""Warm invocation of each action group with in-memory ports: p50 / p95 per event.

Each event runs the group's BedrockAgentResolver (event decoding, request
validation, domain, payload validation, response building) against the
in-memory directory, calendar and draft store. Every iteration uses a new
session id, so every call writes a new draft. Target: p50 under 2 ms.
"""

from __future__ import annotations

import logging
import os
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "shared" / "python"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore  # noqa: E402
from multitool.observability import logger, metrics  # noqa: E402
from multitool.toolkit.context import ToolConfig, ToolContext  # noqa: E402
from multitool.tools import ToolPorts, run_calls  # noqa: E402
from multitool.tools.apps import action_group_app, handle  # noqa: E402
from multitool.tools.environment import ToolEnvironment  # noqa: E402

from tests.support.bedrock_events import LambdaContextStub, bedrock_action_event, sample_people  # noqa: E402

ITERATIONS = 2000
WARMUP = 100
TARGET_P50_MS = 2.0
SESSION = {"userId": "user-1", "timezone": "Europe/Berlin", "now": "2026-12-01T10:00:00+01:00"}

EVENTS: dict[str, tuple[Callable[..., Any], str, str, dict[str, Any]]] = {
    "email_draft": (
        partial(action_group_app, "email_draft"),
        "email_draft",
        "/email-drafts",
        {"to": ["Kinshuok", "guest@partner.org"], "cc": ["Zoe"], "subject": "The doc", "body": "Here it is."},
    ),
    "meeting_scheduler": (
        partial(action_group_app, "meeting_scheduler"),
        "meeting_scheduler",
        "/meeting-proposals",
        {"attendees": ["Kinshuok", "Priya"], "title": "Sync", "when": "Thursday", "durationMinutes": 30},
    ),
    "jira_draft": (
        partial(action_group_app, "jira_draft"),
        "jira_draft",
        "/jira-ticket-drafts",
        {"project": "WEB", "issueType": "Bug", "summary": "Login fails", "assignee": "Priya"},
    ),
}


def _environment() -> ToolEnvironment:
    ports = ToolPorts(MemoryDirectory(sample_people()), MemoryCalendar(), MemoryDraftStore())
    return ToolEnvironment(ports, ToolConfig(), "UTC")


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(len(ordered) * 0.95)] * 1000


def measure_group(group: str) -> tuple[float, float]:
    factory, action_group, path, properties = EVENTS[group]
    environment = _environment()
    app = factory(environment=lambda: environment)
    context = LambdaContextStub()
    events = [
        bedrock_action_event(action_group, path, "POST", properties, SESSION, session_id=f"s-{i}")
        for i in range(ITERATIONS + WARMUP)
    ]
    samples = []
    for i, event in enumerate(events):
        started = time.perf_counter()
        response = handle(app, event, context)
        elapsed = time.perf_counter() - started
        assert response["response"]["httpStatusCode"] == 200, response
        metrics.clear_metrics()  # log_metrics flushes once per invocation in a Lambda
        if i >= WARMUP:
            samples.append(elapsed)
    return _percentiles(samples)


def measure_batch() -> tuple[float, float]:
    """The orchestrator's in-process path: three calls of one turn through run_calls."""
    environment = _environment()
    calls = [(spec_name, EVENTS[group][3]) for spec_name, group in _BATCH]
    samples = []
    now = datetime(2026, 12, 1, 9, tzinfo=UTC)
    for i in range(ITERATIONS + WARMUP):
        ctx = ToolContext(owner="user-1", session_id=f"s-{i}", now=now, timezone="Europe/Berlin")
        started = time.perf_counter()
        outcomes = run_calls(calls, ctx, environment.ports, environment.config)
        elapsed = time.perf_counter() - started
        assert all(o.ok for o in outcomes)
        if i >= WARMUP:
            samples.append(elapsed)
    return _percentiles(samples)


_BATCH = (
    ("create_email_draft", "email_draft"),
    ("propose_meeting", "meeting_scheduler"),
    ("create_jira_ticket_draft", "jira_draft"),
)


def run() -> None:
    # Log lines are still formatted and written (as in a Lambda), to /dev/null instead of the table.
    with open(os.devnull, "w") as sink:
        handler = logger.registered_handler
        previous = handler.setStream(sink) if isinstance(handler, logging.StreamHandler) else None
        try:
            _report()
        finally:
            if previous is not None and isinstance(handler, logging.StreamHandler):
                handler.setStream(previous)


def _report() -> None:
    print(f"warm invocations per figure: {ITERATIONS}; target: p50 < {TARGET_P50_MS} ms")
    print(f"{'invocation':<34}{'p50 ms':>9}{'p95 ms':>9}{'verdict':>9}")
    for group in EVENTS:
        p50, p95 = measure_group(group)
        verdict = "ok" if p50 < TARGET_P50_MS else "OVER"
        print(f"{group + ' (handler path)':<34}{p50:>9.3f}{p95:>9.3f}{verdict:>9}")
    p50, p95 = measure_batch()
    print(f"{'run_calls, 3 tools in one turn':<34}{p50:>9.3f}{p95:>9.3f}{'':>9}")


if __name__ == "__main__":
    run()
