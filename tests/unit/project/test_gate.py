"""The gate's shape: make test runs its checks side by side, then the suites on every core."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _recipe(makefile: str, target: str) -> tuple[list[str], list[str]]:
    found = re.search(rf"^{re.escape(target)}:(.*)\n((?:\t.*\n)*)", makefile, re.M)
    assert found is not None, target
    return found[1].split(), [line.strip() for line in found[2].splitlines()]


def test_make_test_runs_the_suites_on_every_core_after_the_checks() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")

    prerequisites, recipe = _recipe(makefile, "test")
    assert {"lint", "types", "audit", "eval"} <= set(prerequisites)
    assert recipe == ["$(BIN)/python -m pytest $(PYTEST_PARALLEL)"]
    assert "PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist loadfile" in makefile
    # the two mypy runs are targets of their own, so make -j runs them side by side
    assert _recipe(makefile, "types") == (["types-layer", "types-infra"], [])
    assert [
        line.split()[0] for line in _recipe(makefile, "types-layer")[1] + _recipe(makefile, "types-infra")[1]
    ] == [
        "$(BIN)/mypy",
        "$(BIN)/mypy",
    ]
    assert "make -j3 test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
