"""The gate's shape: make test runs its checks side by side and the suites on every core, and the tests that
share the session's synthesized stacks on one pytest-xdist worker."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import pytest_collection_modifyitems

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Item:
    """What the hook reads of a collected test, and the markers it adds."""

    nodeid: str
    fixturenames: tuple[str, ...] = ()
    markers: list[Any] = field(default_factory=list)

    def add_marker(self, marker: Any) -> None:
        self.markers.append(marker)


def _groups(items: list[Item]) -> list[str]:
    return [m.args[0] for item in items for m in item.markers if m.name == "xdist_group"]


def test_a_files_tests_share_a_group_and_every_synth_user_one_group() -> None:
    items = [
        Item("tests/unit/test_a.py::test_one"),
        Item("tests/unit/test_a.py::test_two[x]", ("tmp_path",)),
        Item("tests/infra/test_b.py::test_template", ("harness_stack", "synths")),
        Item("tests/infra/test_c.py::test_template", ("synths",)),
        Item("tests/infra/test_c.py::test_cli"),
    ]

    pytest_collection_modifyitems(items)  # type: ignore[arg-type]

    assert _groups(items) == [
        "tests/unit/test_a.py",
        "tests/unit/test_a.py",
        "synths",
        "synths",
        "tests/infra/test_c.py",
    ]


def test_this_runs_collected_tests_are_grouped(request: pytest.FixtureRequest) -> None:
    for item in request.session.items:
        (group,) = [m.args[0] for m in item.iter_markers("xdist_group")]
        assert group == ("synths" if "synths" in item.fixturenames else item.nodeid.split("::")[0])


def _recipe(makefile: str, target: str) -> tuple[list[str], list[str]]:
    found = re.search(rf"^{re.escape(target)}:(.*)\n((?:\t.*\n)*)", makefile, re.M)
    assert found is not None, target
    return found[1].split(), [line.strip() for line in found[2].splitlines()]


def test_make_test_runs_the_suites_on_every_core_after_the_checks() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")

    prerequisites, recipe = _recipe(makefile, "test")
    assert {"lint", "types", "audit", "eval"} <= set(prerequisites)
    assert recipe == ["$(BIN)/python -m pytest $(PYTEST_PARALLEL)"]
    assert "PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist loadgroup" in makefile
    # the two mypy runs are targets of their own, so make -j runs them side by side
    assert _recipe(makefile, "types") == (["types-layer", "types-infra"], [])
    assert [
        line.split()[0] for line in _recipe(makefile, "types-layer")[1] + _recipe(makefile, "types-infra")[1]
    ] == [
        "$(BIN)/mypy",
        "$(BIN)/mypy",
    ]
    assert "make -j3 test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
