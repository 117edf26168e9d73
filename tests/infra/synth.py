"""Synthesize the stack the way `cdk synth` does (cdk.json context + -c overrides), in-process."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

import aws_cdk as cdk
from aws_cdk.assertions import Template

from infra.app import build_app
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


def synthesize(outdir: Path, **context: Any) -> Synthesized:
    """cdk.json's context, then the overrides (senderEmail defaults to a test address)."""
    app = cdk.App(context={**cdk_json_context(), "senderEmail": SENDER, **context}, outdir=str(outdir))
    app, stack = build_app(app, ENV)
    assembly = app.synth()  # raises on any unacknowledged cdk-nag finding
    artifact = assembly.get_stack_artifact(stack.artifact_id)
    return Synthesized(stack, Template.from_stack(stack), artifact.template, Path(assembly.directory))
