"""Where the app finds what it deploys, relative to the repository root."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_PYTHON = ROOT / "shared" / "python"
PACKAGE = SHARED_PYTHON / "multitool"
SCHEMAS = PACKAGE / "schemas"
FUNCTIONS = ROOT / "functions"
PYPROJECT = ROOT / "pyproject.toml"
LAYER_CACHE = ROOT / "build" / "layer-cache"
LAYER_LOCK = ROOT / "infra" / "layer.lock"
# A Node 22 from the npm registry, where the machine's own Node is older than the CDK CLI supports (Makefile).
NODE_BIN = ROOT / "infra" / "node" / "node_modules" / ".bin"


def use_supported_node() -> None:
    """Put the Node the Makefile brought first on PATH, where it brought one: jsii (under aws-cdk-lib) and
    the CDK CLI then run on it in a bare ``pytest`` or ``python -m benchmarks`` as they do under make."""
    path = os.environ.get("PATH", "")
    if (NODE_BIN / "node").exists() and str(NODE_BIN) not in path.split(os.pathsep):
        os.environ["PATH"] = f"{NODE_BIN}{os.pathsep}{path}"
