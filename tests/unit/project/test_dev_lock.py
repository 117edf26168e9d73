"""The infra and dev extras install from a hashed lock that holds every requirement pyproject.toml names."""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from infra.paths import ROOT

LOCK = ROOT / "requirements" / "dev.lock"


def _pins() -> dict[str, list[tuple[Version, int]]]:
    """Each pinned name -> its (version, number of hashes), per marker-split entry."""
    pins: dict[str, list[tuple[Version, int]]] = {}
    for block in re.split(r"\n(?=[a-z0-9])", LOCK.read_text(encoding="utf-8")):
        match = re.match(r"([A-Za-z0-9._-]+)==([^ ;\\\n]+)", block)
        if match:
            pins.setdefault(canonicalize_name(match[1]), []).append(
                (Version(match[2]), block.count("--hash=sha256:"))
            )
    return pins


def test_every_requirement_of_the_project_and_its_extras_is_pinned_with_hashes() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["infra"]]
    wanted += project["optional-dependencies"]["dev"]
    pins = _pins()
    for raw in wanted:
        requirement = Requirement(raw)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not in {LOCK.name}: run make lock-dev"
        for version, hashes in pins[name]:
            assert requirement.specifier.contains(version, prereleases=True), (
                f"{LOCK.name} pins {name}=={version}, outside {requirement.specifier}: run make lock-dev"
            )
            assert hashes >= 1, name
    assert all(hashes >= 1 for entries in pins.values() for _, hashes in entries)


def test_make_installs_from_the_lock_and_reinstalls_when_it_changes() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    stamp = re.search(r"^\$\(STAMP\): (.*)$", makefile, re.M)
    assert stamp is not None
    assert "$(DEV_LOCK)" in stamp[1].split()
    assert "--require-hashes --no-deps -r $(DEV_LOCK)" in makefile
    test_line = re.search(r"^test: (.*)$", makefile, re.M)
    assert test_line is not None
    assert "audit" in test_line[1].split()
