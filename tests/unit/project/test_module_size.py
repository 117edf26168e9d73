"""No module of the package is over 800 lines: a module that grows past it splits along its seams
(the phrase reader by reading stage, flow by its parts, the CLI a module per command)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "shared" / "python" / "multitool"
MAX_LINES = 800


def test_no_module_of_the_package_is_over_800_lines() -> None:
    sizes = {
        str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert len(sizes) > 100  # the whole package was read
    assert {name: lines for name, lines in sizes.items() if lines > MAX_LINES} == {}
