"""Where the app finds what it deploys, relative to the repository root."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_PYTHON = ROOT / "shared" / "python"
PACKAGE = SHARED_PYTHON / "multitool"
SCHEMAS = PACKAGE / "schemas"
FUNCTIONS = ROOT / "functions"
PYPROJECT = ROOT / "pyproject.toml"
LAYER_CACHE = ROOT / "build" / "layer-cache"
LAYER_LOCK = ROOT / "infra" / "layer.lock"
