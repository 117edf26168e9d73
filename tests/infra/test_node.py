"""The CDK CLI and jsii run on a Node the CDK supports (22, 24 or 26), whatever Node the machine has."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from infra.paths import NODE_BIN, ROOT

pytestmark = pytest.mark.infra

SUPPORTED = {22, 24, 26}


def _major(node: str) -> int:
    done = subprocess.run([node, "-p", "process.versions.node"], capture_output=True, text=True, check=True)
    return int(done.stdout.strip().split(".")[0])


def test_the_node_on_the_suites_path_is_a_supported_one() -> None:
    node = shutil.which("node")
    assert node is not None
    assert _major(node) in SUPPORTED, f"{node} is Node {_major(node)}: run make (it brings Node 22)"


def test_package_json_requires_a_supported_node() -> None:
    engines = json.loads((ROOT / "package.json").read_text())["engines"]["node"]
    assert engines == "^22 || ^24 || ^26"


def test_the_brought_node_is_the_locked_one_where_there_is_one() -> None:
    lock = json.loads((ROOT / "infra" / "node" / "package-lock.json").read_text())["packages"]
    pinned = {entry["version"] for name, entry in lock.items() if name.startswith("node_modules/node-")}
    assert len(pinned) == 1
    assert _major_of(next(iter(pinned))) in SUPPORTED
    if (NODE_BIN / "node").exists():
        assert f"{_major(str(NODE_BIN / 'node'))}" == next(iter(pinned)).split(".")[0]


def _major_of(version: str) -> int:
    return int(version.split(".")[0])
