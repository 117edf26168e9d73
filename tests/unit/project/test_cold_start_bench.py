"""The cold-start benchmark's choices of what to run and how a row reads (no process is timed here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import bench_cold_start


def test_every_function_is_measured_unless_some_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_cold_start, "ONLY", ())
    assert bench_cold_start.selected() == bench_cold_start.FUNCTIONS

    monkeypatch.setattr(bench_cold_start, "ONLY", ("review", "orchestrator"))
    assert bench_cold_start.selected() == ("review", "orchestrator")  # in the table's order


def test_an_unknown_function_is_refused_with_the_names_there_are(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_cold_start, "ONLY", ("orchestrater",))

    with pytest.raises(SystemExit, match="orchestrater") as refused:
        bench_cold_start.selected()
    assert "orchestrator" in str(refused.value)


@pytest.mark.parametrize(
    ("label", "function"),
    [
        ("review [bytecode]", "review"),
        ("review @1366eff [bytecode]", "review"),
        ("orchestrator (offline, local) [bytecode]", "orchestrator (offline, local)"),
        ("stack, HTTP API", "stack, HTTP API"),
    ],
)
def test_a_row_is_read_against_its_functions_floor(label: str, function: str) -> None:
    assert bench_cold_start._function_of(label) == function


def test_a_compared_revisions_row_is_no_target() -> None:
    assert bench_cold_start._verdict("review @1366eff [bytecode]", 1.5) == (
        "review @1366eff [bytecode]",
        "cmp",
    )
    assert bench_cold_start._verdict("review [bytecode]", 1.5)[1] == "OVER"
    assert bench_cold_start._verdict("review [bytecode]", 1.1)[1] == "ok"
    assert bench_cold_start._verdict("stack, HTTP API", 0.0) == ("ref stack, HTTP API", "ref")
    assert bench_cold_start._verdict("orchestrator (offline, local) [bytecode]", 1.6)[1] == "local"


def test_p20_is_the_fast_fifths_value() -> None:
    # Ten samples: two fast, eight slowed by a neighbour's load; the median sits among the slow ones.
    samples = [400.0, 410.0, 560.0, 570.0, 575.0, 580.0, 590.0, 600.0, 610.0, 620.0]

    assert bench_cold_start._p20(samples) == 410.0
    assert bench_cold_start._p20([500.0]) == 500.0


def test_each_chat_run_is_the_first_turn_of_a_session_of_its_own(tmp_path: Path) -> None:
    from multitool.chat.sessions import valid_session_id

    from tests.support.http_events import http_api_event

    path = tmp_path / "chat.json"
    path.write_text(json.dumps(http_api_event("POST", "/chat", {"message": "Hi", "sessionId": "bench"})))

    sessions = set()
    for _ in range(3):
        bench_cold_start.fresh_session(path)
        body = json.loads(json.loads(path.read_text())["body"])
        assert body["message"] == "Hi"
        sessions.add(body["sessionId"])

    assert len(sessions) == 3
    assert "bench" not in sessions
    assert all(valid_session_id(s) for s in sessions)
    assert set(bench_cold_start.CHATS) == {"orchestrator", *bench_cold_start.LOCAL, "stack, chat turn"}
