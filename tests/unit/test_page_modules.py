"""The page's scripts: ES modules served as they are, each small, each import a file that ships."""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "web"
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
