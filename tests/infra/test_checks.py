"""Every variant: cdk-nag and cfn-lint clean; acknowledgements per resource; assets hold only their code."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import aws_cdk as cdk
import pytest
from cfnlint.api import lint

from infra.components.layer import SDK
from tests.infra.iam_queries import function_id
from tests.infra.synth import Synthesized
from tests.infra.test_layer import assert_bytecode_as_bundled

pytestmark = pytest.mark.infra

VARIANTS = (
    "harness_stack",
    "gateway_stack",
    "agent_stack",
    "return_control_stack",
    "converse_stack",
    "web_stack",
    "slack_stack",
)


@pytest.fixture(params=VARIANTS)
def synth(request: pytest.FixtureRequest) -> Synthesized:
    synthesized: Synthesized = request.getfixturevalue(request.param)
    return synthesized


def test_cdk_nag_reports_no_unacknowledged_finding(synth: Synthesized) -> None:
    # The fixture's synth raises on any finding; the report must agree.
    report = json.loads((synth.assembly_dir / "validation-report.json").read_text())
    failures = [r for r in report["pluginReports"] if r.get("conclusion") != "success"]
    assert failures == []


def test_every_acknowledgement_is_on_one_resource_with_a_reason(synth: Synthesized) -> None:
    key = cdk.Validations.ACKNOWLEDGED_RULES_METADATA_KEY
    stack = synth.stack
    app = stack.node.scope
    assert app is not None
    acknowledged = 0
    for construct in [app, stack, *stack.node.find_all()]:
        for entry in construct.node.metadata:
            if entry.type != key:
                continue
            assert construct is not stack, "no stack-wide acknowledgements"
            assert construct is not app, "no app-wide acknowledgements"
            resource = construct if isinstance(construct, cdk.CfnResource) else construct.node.default_child
            assert isinstance(resource, cdk.CfnResource), f"{construct.node.path} is not one resource"
            for rule, reason in entry.data.items():
                assert rule.startswith("AwsSolutions::AwsSolutions-")
                assert len(reason) > 40, f"{rule} on {construct.node.path} needs a real reason"
                acknowledged += 1
    assert acknowledged > 0


def test_cfn_lint_finds_no_errors_or_warnings(synth: Synthesized) -> None:
    matches = lint(json.dumps(synth.data), regions=["us-east-1"])
    assert [f"{m.rule.id} {m.message}" for m in matches] == []


def _asset_dir(synth: Synthesized, code: dict[str, str]) -> Path:
    return synth.assembly_dir / f"asset.{code['S3Key'].removesuffix('.zip')}"


def test_function_assets_hold_only_their_own_folder(synth: Synthesized) -> None:
    for construct_id, folder in (("Orchestrator", "orchestrator"), ("Review", "review")):
        _assert_ships_only(synth, construct_id, folder)


def _assert_ships_only(synth: Synthesized, construct_id: str, folder: str) -> None:
    asset = _asset_dir(synth, synth.props(function_id(synth, construct_id))["Code"])
    source = Path(__file__).resolve().parents[2] / "functions" / folder
    shipped = {p.relative_to(asset).as_posix() for p in asset.rglob("*") if p.is_file()}
    expected = {
        p.relative_to(source).as_posix()
        for p in source.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc" and "tests" not in p.parts
    }
    assert "handler.py" in shipped
    assert shipped == expected


def test_each_tool_function_runs_the_tool_handler_for_its_own_tool_only(agent_stack: Synthesized) -> None:
    from multitool.tools import REGISTRY

    codes = set()
    for group, construct_id in (("email_draft", "EmailDraft"), ("jira_link", "JiraLink")):
        _assert_ships_only(agent_stack, construct_id, "tool")
        props = agent_stack.props(function_id(agent_stack, construct_id))
        assert props["Handler"] == "handler.handler"
        # What functions/tool/handler.py reads: the module its init loads (no other tool's).
        assert props["Environment"]["Variables"]["TOOL_MODULE"] == REGISTRY.module(group)
        codes.add(props["Code"]["S3Key"])
    assert len(codes) == 1  # one asset, the same small folder, for every tool


def test_layer_holds_multitool_aarch64_dependencies_and_its_own_sdk(agent_stack: Synthesized) -> None:
    layer = agent_stack.resources[agent_stack.logical_id(agent_stack.stack.layer)]
    props = layer["Properties"]
    assert props["CompatibleArchitectures"] == ["arm64"]
    assert props["CompatibleRuntimes"] == ["python3.13"]
    python = _asset_dir(agent_stack, props["Content"]) / "python"
    assert (python / "multitool" / "ports/tables.py").is_file()
    assert (python / "multitool" / "schemas" / "email_draft.json").is_file()
    assert not (python / "multitool" / "local").exists()
    # The in-memory fakes (tests, benchmarks, the local demo) stay out of what Lambda loads.
    fakes = (b"MemoryDirectory", b"MemoryCalendar", b"MemoryDraftStore", b"MemorySessionStore")
    shipped_fakes = [
        str(path.relative_to(python))
        for path in (python / "multitool").rglob("*")
        if path.is_file() and any(fake in path.read_bytes() for fake in fakes)
    ]
    assert shipped_fakes == []
    assert_bytecode_as_bundled(python)
    assert (python / "aws_lambda_powertools").is_dir()
    assert (python / "aws_xray_sdk").is_dir()
    cores = list((python / "pydantic_core").glob("_pydantic_core.*.so"))
    assert [c.name for c in cores] == ["_pydantic_core.cpython-313-aarch64-linux-gnu.so"]
    # The SDK is the layer's own, not the runtime's: boto3, botocore and s3transfer, with their models.
    for package in SDK:
        assert (python / package / "__init__.py").is_file(), f"{package} is not in the layer"
    assert list((python / "botocore" / "data" / "bedrock-agentcore").glob("*/service-2.json*"))


def test_layer_fits_lambdas_size_limit(agent_stack: Synthesized) -> None:
    layer = agent_stack.resources[agent_stack.logical_id(agent_stack.stack.layer)]
    root = _asset_dir(agent_stack, layer["Properties"]["Content"])
    unzipped = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    assert unzipped < 250 * 1024 * 1024
    assert not any(zipfile.is_zipfile(p) for p in root.glob("*.whl"))


def test_the_app_fails_synth_on_an_unacknowledged_finding(tmp_path: Path) -> None:
    # Given the real app with one extra resource nobody acknowledged
    from aws_cdk import aws_secretsmanager as secretsmanager

    from infra.app import build_app
    from tests.infra.synth import ENV, SENDER, cdk_json_context

    app = cdk.App(
        context={**cdk_json_context(), "senderEmail": SENDER, "runtime": "converse"}, outdir=str(tmp_path)
    )
    app, stack = build_app(app, ENV)
    secretsmanager.Secret(stack, "Unreviewed")
    # When it synthesizes, Then cdk-nag stops it and names the rule
    with pytest.raises(RuntimeError, match="AwsSolutions-SMG4"):
        app.synth()
    report = json.loads((tmp_path / "validation-report.json").read_text())
    violations = [v for r in report["pluginReports"] for v in r["violations"]]
    assert [(v["ruleName"], [c["constructPath"] for c in v["violatingConstructs"]]) for v in violations] == [
        ("AwsSolutions-SMG4", ["Multitool/Unreviewed/Resource"])
    ]
