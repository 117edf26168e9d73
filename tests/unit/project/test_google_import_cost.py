"""What the Google Workspace adapters cost a cold start: nothing, unless a function uses them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.unit.project.test_import_cost import ROOT, TOOLS, loaded_by

GOOGLE = [
    "multitool.ports.google.workspace",
    "multitool.ports.google.http",
    "multitool.ports.google.tokens",
    "multitool.local.standins.google_discovery",
]


@pytest.mark.parametrize("function", [*TOOLS, "orchestrator", "review"])
def test_no_function_loads_the_google_adapters_at_cold_start(function: str) -> None:
    assert loaded_by(function, GOOGLE) == []


def test_the_adapters_load_the_email_package_only_to_send() -> None:
    # email.message comes with http.client (urllib3); the MIME building and header machinery does not.
    wanted = ("email.headerregistry", "email.policy", "email.contentmanager")
    code = (
        "import json, sys, multitool.ports.google.workspace\n"
        f"print(json.dumps([m for m in {wanted!r} if m in sys.modules]))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "shared" / "python")}
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert json.loads(output.splitlines()[-1]) == []
