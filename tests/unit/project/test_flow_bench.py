"""The dispatch benchmark runs and reports its rows (a smoke test, not a timed test)."""

from __future__ import annotations

import pytest

from benchmarks import bench_flow


def test_bench_run_reports_one_row_per_case(capsys: pytest.CaptureFixture[str]) -> None:
    rows = bench_flow.run(budget=20, rounds=1)

    assert [(row["name"], row["calls"]) for row in rows] == [
        (name, count) for name, _, count in bench_flow.CASES
    ]
    assert {"group", "individual"} <= {row["name"] for row in rows}
    assert {row["calls"] for row in rows if row["name"] == "group"} == {1, 10, 100}
    for row in rows:
        assert row["us_per_call"] > 0
        assert row["us_per_dispatch"] == pytest.approx(row["us_per_call"] * row["calls"])
    out = capsys.readouterr().out
    assert "us/call" in out
    assert "group" in out


def test_bench_run_can_be_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(bench_flow.run(budget=10, rounds=1, quiet=True)) == len(bench_flow.CASES)
    assert capsys.readouterr().out == ""
