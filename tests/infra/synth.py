"""Synthesize the stack the way `cdk synth` does (cdk.json context + -c overrides), in-process."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from aws_cdk.assertions import Template

from infra.app import build_app
from infra.components import layer
from infra.paths import ROOT
from infra.stack import MultitoolStack

ENV = cdk.Environment(account="123456789012", region="us-east-1")
SENDER = "sender@example.com"


def cdk_json_context() -> dict[str, Any]:
    context: dict[str, Any] = json.loads((ROOT / "cdk.json").read_text())["context"]
    return context


@dataclass
class Synthesized:
    stack: MultitoolStack
    template: Template
    data: dict[str, Any]
    assembly_dir: Path

    @property
    def resources(self) -> dict[str, dict[str, Any]]:
        resources: dict[str, dict[str, Any]] = self.data["Resources"]
        return resources

    def of_type(self, resource_type: str) -> dict[str, dict[str, Any]]:
        return {k: v for k, v in self.resources.items() if v["Type"] == resource_type}

    def props(self, logical_id: str) -> dict[str, Any]:
        properties: dict[str, Any] = self.resources[logical_id].get("Properties", {})
        return properties

    def logical_id(self, construct: Any) -> str:
        element = construct if isinstance(construct, cdk.CfnElement) else construct.node.default_child
        return self.stack.get_logical_id(element)


class LayerBundles:
    """The layer's contents, built once per process and hard-linked into every later synth's bundle.

    Every synth bundles the same layer (the same lock, the same ``multitool`` sources, whatever the
    context): copying the cached wheels, compiling and writing the holiday table take most of a synth.
    The first synth builds it the real way (``layer.build_layer_contents``); the others get its files.
    """

    def __init__(self) -> None:
        self.built: Path | None = None
        self.builds = 0

    def bundle(self, output_dir: Path, requirements: list[str] | None = None) -> None:
        if requirements is not None:  # not the synth's layer: build what was asked
            build_layer_contents(output_dir, requirements)
            return
        if self.built is None:
            build_layer_contents(output_dir)
            self.builds += 1
            kept = Path(tempfile.mkdtemp(prefix="multitool-layer-"))
            atexit.register(shutil.rmtree, kept, ignore_errors=True)
            shutil.copytree(output_dir, kept, copy_function=_link, dirs_exist_ok=True)
            self.built = kept
            return
        shutil.copytree(self.built, output_dir, copy_function=_link, dirs_exist_ok=True)

    @contextmanager
    def reused(self) -> Iterator[None]:
        """While a synth runs, the layer's bundling (a jsii callback into this process) reuses a build."""
        original = layer.build_layer_contents
        layer.build_layer_contents = self.bundle
        try:
            yield
        finally:
            layer.build_layer_contents = original


def _link(source: str, target: str) -> None:
    """A hard link where the file system allows one (bundles are read, never written); else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


build_layer_contents = layer.build_layer_contents
LAYERS = LayerBundles()


def synthesize(outdir: Path, **context: Any) -> Synthesized:
    """cdk.json's context, then the overrides (senderEmail defaults to a test address)."""
    app = cdk.App(context={**cdk_json_context(), "senderEmail": SENDER, **context}, outdir=str(outdir))
    with LAYERS.reused():
        app, stack = build_app(app, ENV)
        assembly = app.synth()  # raises on any unacknowledged cdk-nag finding
    artifact = assembly.get_stack_artifact(stack.artifact_id)
    return Synthesized(stack, Template.from_stack(stack), artifact.template, Path(assembly.directory))
