"""Dispatch overhead of multitool.runtimes.flow: what the machinery costs per tool call.

Handlers do nothing (return None or a prebuilt route), so the figures are the
dispatcher's own cost: validating calls, choosing group or individual handlers,
validating and applying the route, building one result per call. Each case runs
``budget`` calls per round (repetitions = budget // calls) and reports the
median of several rounds. Target: <= 20 microseconds per call, growing linearly
with the number of calls.

Run with ``python -m benchmarks.bench_flow`` or through ``make bench``.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Mapping, Sequence
from typing import Any

from multitool.runtimes.flow import Flow, Route, Step, ToolCall, stay, tool, tools

TARGET_US_PER_CALL = 20.0
_STAY = stay()


class _Done(Step):
    id = "done"


class _Bench(Step):
    id = "bench"

    @tool
    def noop(self, args: Mapping[str, Any]) -> None:
        return None

    @tool
    def noop_route(self, args: Mapping[str, Any]) -> Route:
        return _STAY

    @tool
    def grouped(self, args: Mapping[str, Any]) -> None:
        return None

    @tools(["grouped"])
    def grouped_batch(self, calls: Sequence[ToolCall]) -> Route:
        return _STAY

    @tools(["grouped", "noop"])
    def mixed_batch(self, calls: Sequence[ToolCall]) -> Route:
        return _STAY


def _calls(names: Sequence[str], count: int) -> list[ToolCall]:
    return [ToolCall(f"call-{i}", names[i % len(names)], {"i": i}) for i in range(count)]


CASES: tuple[tuple[str, tuple[str, ...], int], ...] = (
    ("individual", ("noop",), 1),
    ("individual", ("noop",), 10),
    ("individual", ("noop",), 100),
    ("individual+route", ("noop_route",), 10),
    ("group", ("grouped",), 1),
    ("group", ("grouped",), 10),
    ("group", ("grouped",), 100),
    ("group of 2 names", ("grouped", "noop"), 10),
)


def _measure(names: Sequence[str], count: int, repetitions: int, rounds: int) -> list[float]:
    calls = _calls(names, count)
    flow = Flow(steps=[_Bench, _Done], start=_Bench)
    dispatch = flow.dispatch
    for _ in range(min(repetitions, 100)):  # warm up
        dispatch(calls)
    timings = []
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            started = time.perf_counter()
            for _ in range(repetitions):
                dispatch(calls)
            timings.append((time.perf_counter() - started) / repetitions)
    finally:
        if gc_was_enabled:
            gc.enable()
    return timings


def run(*, budget: int = 50_000, rounds: int = 7, quiet: bool = False) -> list[dict[str, Any]]:
    """Measure every case; print a table unless ``quiet``; return one row per case."""
    rows: list[dict[str, Any]] = []
    for name, names, count in CASES:
        repetitions = max(1, budget // count)
        per_dispatch = statistics.median(_measure(names, count, repetitions, rounds))
        rows.append(
            {
                "name": name,
                "calls": count,
                "us_per_call": per_dispatch / count * 1e6,
                "us_per_dispatch": per_dispatch * 1e6,
                "repetitions": repetitions,
                "rounds": rounds,
                "within_target": per_dispatch / count * 1e6 <= TARGET_US_PER_CALL,
            }
        )
    if not quiet:
        _print_table(rows)
    return rows


def _print_table(rows: Sequence[Mapping[str, Any]]) -> None:
    header = f"{'case':<18} {'calls':>5} {'us/call':>9} {'us/dispatch':>12} {'reps':>7}"
    print(f"{header}  target <= {TARGET_US_PER_CALL:g} us/call")
    for row in rows:
        verdict = "ok" if row["within_target"] else "OVER"
        print(
            f"{row['name']:<18} {row['calls']:>5} {row['us_per_call']:>9.2f} "
            f"{row['us_per_dispatch']:>12.2f} {row['repetitions']:>7}  {verdict}"
        )
    for name in ("individual", "group"):
        by_calls = {row["calls"]: row["us_per_dispatch"] for row in rows if row["name"] == name}
        if 10 in by_calls and 100 in by_calls:
            ratio = by_calls[100] / by_calls[10]
            print(f"{name}: 100 calls cost {ratio:.1f}x 10 calls (linear would be 10x)")


if __name__ == "__main__":
    run()
