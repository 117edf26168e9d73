"""The README stays the first five minutes (at most 400 lines, the depth in docs/), and every link it
and the docs make to a page of this repository, and to a heading on it, leads somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(?P<title>.+?)\s*$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def anchor(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {anchor(m["title"]) for m in HEADING.finditer(FENCE.sub("", page.read_text(encoding="utf-8")))}


def test_the_readme_is_at_most_400_lines() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 400


def test_anchor_follows_githubs_rule() -> None:
    assert (
        anchor("Cold start (`python -m benchmarks cold_start`)")
        == "cold-start-python--m-benchmarks-cold_start"
    )
    assert (
        anchor("Operate: alarms, the dashboard and failed turns")
        == "operate-alarms-the-dashboard-and-failed-turns"
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_local_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for found in LINK.finditer(FENCE.sub("", page.read_text(encoding="utf-8"))):
        target = found["target"]
        if re.match(r"^[a-z]+:", target):  # https:, mailto:
            continue
        path, _, fragment = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (fragment and linked.suffix == ".md" and fragment not in anchors(linked)):
            broken.append(target)
    assert broken == []
