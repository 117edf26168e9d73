"""The README's first five minutes say what a newcomer meets: the seeded users and the default one."""

from __future__ import annotations

import re
from pathlib import Path

from multitool.local.sandbox.embedded import load_seed

README = Path(__file__).resolve().parents[3] / "README.md"
# One row of the seeded users' table: | `id` [(default)] | name | time zone |
USER_ROW = re.compile(
    r"^\s*\|\s*`(?P<id>[a-z-]+)`(?P<default>\s*\(default\))?\s*\|(?P<name>[^|]+)\|(?P<zone>[^|]+)\|"
)


def seeded_users_in_readme() -> list[re.Match[str]]:
    section = README.read_text(encoding="utf-8").split("## The first five minutes", 1)[1].split("\n## ", 1)[0]
    return [row for line in section.splitlines() if (row := USER_ROW.match(line))]


def test_the_readme_lists_every_seeded_user_with_their_name_and_zone() -> None:
    seed = load_seed()

    listed = {row["id"]: (row["name"].strip(), row["zone"].strip()) for row in seeded_users_in_readme()}

    assert listed == {p.id: (p.display_name, p.timezone) for p in seed.people}


def test_the_readme_marks_the_seeds_default_user_and_only_that_one() -> None:
    seed = load_seed()

    defaults = [row["id"] for row in seeded_users_in_readme() if row["default"]]

    assert defaults == [seed.default_user]
