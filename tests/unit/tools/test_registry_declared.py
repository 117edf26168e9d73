"""Every function finds every tool: the registry's declarations (multitool.tools) load with whatever
app reads it, so a review that runs before any turn in its process still knows each card's tool."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from multitool.tools import REGISTRY

APPS = ["multitool.api.review_app", "multitool.api.chat_app", "multitool.cards.client_actions"]


@pytest.mark.parametrize("app", APPS)
def test_a_fresh_process_of_each_app_knows_every_tools_action(app: str) -> None:
    actions = sorted(tool.action for tool in REGISTRY.described())
    assert len(actions) >= 3
    script = (
        f"import json, sys, {app}\n"
        "from multitool.toolkit.registry import REGISTRY\n"
        "print(json.dumps({a: REGISTRY.by_action(a) is not None for a in json.loads(sys.argv[1])}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(actions)], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == dict.fromkeys(actions, True)
