"""The page's scripts: ES modules served as they are, each small, each import a file that ships."""

from __future__ import annotations

import json
import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[3] / "web"
MAX_LINES = 300
# `import { a, b } from "./x.js";` (one line or several) and `import "./x.js";`
IMPORT = re.compile(r'^import\s+(?:[^;]*?\s+from\s+)?"([^"]+)";', re.M | re.S)


def _scripts() -> list[Path]:
    return sorted(WEB.rglob("*.js"))


def test_no_page_script_is_over_300_lines() -> None:
    lengths = {p.relative_to(WEB).as_posix(): len(p.read_text().splitlines()) for p in _scripts()}
    assert len(lengths) > 10  # the page is in modules, not one script
    assert {name: n for name, n in lengths.items() if n > MAX_LINES} == {}


def test_every_import_is_a_relative_module_that_exists() -> None:
    missing = []
    for script in _scripts():
        for target in IMPORT.findall(script.read_text()):
            # No build step: a bare name ("lodash") would need an import map or a bundler.
            if not target.startswith(("./", "../")) or not (script.parent / target).resolve().is_file():
                missing.append(f"{script.relative_to(WEB)} -> {target}")
    assert missing == []


def test_every_module_is_reached_from_the_page() -> None:
    # Given index.html's one entry script, follow the imports
    (entry,) = re.findall(r'<script type="module" src="([^"]+)"', (WEB / "index.html").read_text())
    seen: set[Path] = set()
    todo = [(WEB / entry).resolve()]
    while todo:
        script = todo.pop()
        if script in seen:
            continue
        seen.add(script)
        todo.extend((script.parent / t).resolve() for t in IMPORT.findall(script.read_text()))
    # Then no script is left over (a module nobody imports is dead code that still ships)
    assert {p.resolve() for p in _scripts()} == seen


def test_every_export_of_the_page_carries_its_jsdoc() -> None:
    # tsc --checkJs reads the types from JSDoc: an export without its comment is typed by inference only
    bare = []
    for script in _scripts():
        lines = script.read_text().splitlines()
        for number, line in enumerate(lines):
            if line.startswith("export ") and not (number and lines[number - 1].rstrip().endswith("*/")):
                bare.append(f"{script.relative_to(WEB)}:{number + 1}")
    assert bare == []


def test_the_gate_lints_type_checks_and_unit_tests_the_page() -> None:
    root = WEB.parent
    makefile = (root / "Makefile").read_text(encoding="utf-8")

    def recipe(target: str) -> tuple[list[str], list[str]]:
        found = re.search(rf"^{re.escape(target)}:(.*)\n((?:\t.*\n)*)", makefile, re.M)
        assert found is not None, target
        return found[1].split(), [line.strip() for line in found[2].splitlines()]

    assert "page-check" in recipe("test")[0]
    assert recipe("page-check") == (["page-lint", "page-types", "page-test"], [])
    assert [
        line.split()[:1] for target in ("page-lint", "page-types", "page-test") for line in recipe(target)[1]
    ] == [
        ["node_modules/.bin/eslint"],
        ["node_modules/.bin/tsc"],
        ["node"],
    ]
    assert "web" in recipe("page-lint")[1][0].split()
    assert "--test" in recipe("page-test")[1][0].split()
    assert list((root / "tests" / "page").glob("*.test.js"))
    # the checkers are pinned exactly, so package-lock.json (and make audit) holds what runs
    dev = json.loads((root / "package.json").read_text())["devDependencies"]
    assert {"eslint", "@eslint/js", "globals", "typescript"} <= set(dev)
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", version) for version in dev.values())
