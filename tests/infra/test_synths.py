"""The suite's synths: one per distinct context, each test with its own template, one layer build."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.infra.synth import LAYERS, Synthesized
from tests.support.synths import StackSynths, context_key

pytestmark = pytest.mark.infra


def _layer_dir(synth: Synthesized) -> Path:
    key: str = synth.props(synth.logical_id(synth.stack.layer))["Content"]["S3Key"]
    return synth.assembly_dir / f"asset.{key.removesuffix('.zip')}"


def test_the_same_overrides_in_any_order_are_one_context() -> None:
    assert context_key({"runtime": "agent", "executor": "gateway"}) == context_key(
        {"executor": "gateway", "runtime": "agent"}
    )
    assert context_key({"runtime": "agent"}) != context_key({"runtime": "converse"})


def test_a_context_asked_for_twice_is_synthesized_once(
    synths: StackSynths, gateway_stack: Synthesized
) -> None:
    # Given the gateway deploy, already synthesized for this test's fixture
    known = len(synths)

    # When another test asks for the same context
    again = synths.get(executor="gateway")

    # Then it gets the same stack without a synth, and an equal template
    assert len(synths) == known
    assert again.stack is gateway_stack.stack
    assert again.data == gateway_stack.data


def test_a_test_that_changes_its_template_changes_no_one_elses(
    synths: StackSynths, gateway_stack: Synthesized
) -> None:
    # Given a test that empties its copy of the template
    resources = len(gateway_stack.resources)
    gateway_stack.data["Resources"].clear()
    gateway_stack.data["Outputs"]["McpUrl"] = "changed"

    # When the next test asks for the same deploy
    later = synths.get(executor="gateway")

    # Then its template is the synthesized one
    assert len(later.resources) == resources > 0
    assert later.data["Outputs"]["McpUrl"] != "changed"


def test_the_layer_is_built_once_and_every_other_synth_links_its_files(
    harness_stack: Synthesized, agent_stack: Synthesized
) -> None:
    # Given two deploys of different contexts, synthesized in this process
    harness, agent = _layer_dir(harness_stack), _layer_dir(agent_stack)

    # Then the layer was built once, both ship the same files (so the same asset hash), hard-linked
    assert LAYERS.builds == 1
    assert harness.name == agent.name
    files = sorted(p.relative_to(harness) for p in harness.rglob("*") if p.is_file())
    assert Path("python/multitool/__init__.py") in files
    assert files == sorted(p.relative_to(agent) for p in agent.rglob("*") if p.is_file())
    assert os.path.samefile(harness / "python/multitool/__init__.py", agent / "python/multitool/__init__.py")
