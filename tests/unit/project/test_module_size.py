"""No module of the package or of the infrastructure is over 800 lines: a module that grows past it splits
along its seams (the phrase reader by reading stage, flow by its parts, the CLI a module per command, the
deploy context's words apart from its validators)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
MAX_LINES = 800


def _sizes(tree: Path) -> dict[str, int]:
    return {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in tree.rglob("*.py")
    }


@pytest.mark.parametrize(
    ("tree", "at_least"),
    [
        (ROOT / "shared" / "python" / "multitool", 100),
        (ROOT / "infra", 20),
    ],
    ids=["package", "infra"],
)
def test_no_module_is_over_800_lines(tree: Path, at_least: int) -> None:
    sizes = _sizes(tree)
    assert len(sizes) > at_least  # the whole tree was read
    assert {name: lines for name, lines in sizes.items() if lines > MAX_LINES} == {}
