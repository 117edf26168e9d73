"""Cold import of each action-group handler vs a bare boto3 + Powertools event-handler process.

Each figure is the median wall time of fresh ``python -c 'import ...'`` processes
(interpreter start included, as in a Lambda cold start); runs alternate between
the baseline and the handlers so machine noise hits all of them alike.
Target: a handler adds at most 15% over the baseline.

A second reference, ``floor``, adds what every handler here must load whatever
its tools do: pydantic (request validation) and ``multitool.observability``
(Powertools Logger, Metrics and Tracer, which loads the X-Ray SDK). The table
shows each handler against both, so the cost of this project's own modules is
visible apart from those two.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = int(os.environ.get("BENCH_COLD_RUNS", "15"))
TARGET = 1.15

BASELINE = "import boto3, aws_lambda_powertools.event_handler"
FLOOR = "import boto3, aws_lambda_powertools.event_handler, pydantic, multitool.observability"
HANDLERS = {
    "email_draft": "import functions.email_draft.handler",
    "meeting_scheduler": "import functions.meeting_scheduler.handler",
    "jira_draft": "import functions.jira_draft.handler",
}


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared" / "python")]),
            "PYTHONDONTWRITEBYTECODE": "",  # Lambda layers ship bytecode; measure warm-disk imports
            "AWS_DEFAULT_REGION": "us-east-1",
            "POWERTOOLS_SERVICE_NAME": "multitool",
            "POWERTOOLS_METRICS_NAMESPACE": "Bench",
            "POWERTOOLS_TRACE_DISABLED": "true",
            "DRAFTS_TABLE_NAME": "drafts",
            "DIRECTORY_TABLE_NAME": "directory",
            "BOOKINGS_TABLE_NAME": "bookings",
        }
    )
    return env


def _once(code: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT)
    return time.perf_counter() - started


def measure(runs: int = RUNS) -> dict[str, float]:
    """name -> median seconds over ``runs`` fresh processes (one warm-up each, discarded)."""
    env = _environment()
    programs = {"baseline": BASELINE, "floor": FLOOR, **HANDLERS}
    samples: dict[str, list[float]] = {name: [] for name in programs}
    for code in programs.values():
        _once(code, env)
    for _ in range(runs):
        for name, code in programs.items():
            samples[name].append(_once(code, env))
    return {name: statistics.median(values) for name, values in samples.items()}


def run() -> None:
    medians = measure()
    baseline, floor = medians["baseline"], medians["floor"]
    print(f"fresh processes per figure: {RUNS}; target: handler <= {TARGET:.2f} x baseline")
    print(f"{'process':<20}{'median ms':>11}{'x baseline':>12}{'x floor':>10}{'verdict':>9}")
    for name, seconds in medians.items():
        ratio = seconds / baseline
        verdict = "" if name in ("baseline", "floor") else ("ok" if ratio <= TARGET else "OVER")
        print(f"{name:<20}{seconds * 1000:>11.1f}{ratio:>12.3f}{seconds / floor:>10.3f}{verdict:>9}")


if __name__ == "__main__":
    run()
