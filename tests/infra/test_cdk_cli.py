"""`make synth`: the pinned CDK CLI runs `python3 infra/app.py` from cdk.json and gets a template."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from infra.context import ALLOWED
from infra.paths import ROOT

pytestmark = pytest.mark.infra

Synth = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cdk_synth(tmp_path: Path) -> Synth:
    """``cdk synth`` with the pinned CLI into ``tmp_path``, as a user runs it: ``-c senderEmail=...``
    and each ``key=value`` of ``context``; ``AWS_REGION`` is ``region`` (none by default) and no
    other region or account variable is set."""
    npx = shutil.which("npx")
    assert npx is not None
    env = {
        **os.environ,
        "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "CDK_DISABLE_VERSION_CHECK": "1",
    }
    for unset in ("CDK_DEFAULT_ACCOUNT", "CDK_DEFAULT_REGION", "AWS_REGION", "AWS_DEFAULT_REGION"):
        env.pop(unset, None)

    def synth(*context: str, region: str | None = None) -> subprocess.CompletedProcess[str]:
        args = [npx, "--no-install", "cdk", "synth", "--quiet", "--no-notices", "--output", str(tmp_path)]
        for value in ("senderEmail=sender@example.com", *context):
            args += ["-c", value]
        run_env = {**env, "AWS_REGION": region} if region is not None else env
        return subprocess.run(args, cwd=ROOT, env=run_env, capture_output=True, text=True, check=False)

    return synth


def test_pinned_cli_synthesizes_the_stack(cdk_synth: Synth, tmp_path: Path) -> None:
    pinned = json.loads((ROOT / "package.json").read_text())["devDependencies"]["aws-cdk"]
    installed = json.loads((ROOT / "node_modules" / "aws-cdk" / "package.json").read_text())["version"]
    assert installed == pinned, "run `npm ci` for the pinned CDK CLI"

    result = cdk_synth()

    assert result.returncode == 0, result.stderr[-3000:]
    # The CLI and jsii run on a supported Node: neither prints Node's end-of-life notice.
    assert "end-of-life" not in result.stderr, result.stderr[-2000:]
    assert "not supported" not in result.stderr, result.stderr[-2000:]
    template = json.loads((tmp_path / "Multitool.template.json").read_text())
    types = {r["Type"] for r in template["Resources"].values()}
    # The default deploy works for any account: the AgentCore harness, no Agents Classic resource.
    assert {"AWS::BedrockAgentCore::Harness", "AWS::ApiGatewayV2::Api", "AWS::Lambda::LayerVersion"} <= types
    assert not {"AWS::Bedrock::Agent", "AWS::Bedrock::AgentAlias"} & types
    assert (tmp_path / "manifest.json").is_file()


def test_pinned_cli_reports_bad_context_in_one_line(cdk_synth: Synth) -> None:
    result = cdk_synth("runtime=foo")

    assert result.returncode != 0
    assert (
        "Invalid context 'runtime': 'foo'. Allowed: agentcore (the default), agent or converse."
        in result.stderr.splitlines()
    )


def test_pinned_cli_subscribes_the_alarm_email_to_the_alarm_topic(cdk_synth: Synth, tmp_path: Path) -> None:
    result = cdk_synth("alarmEmail=oncall@example.com")

    assert result.returncode == 0, result.stderr[-3000:]
    template = json.loads((tmp_path / "Multitool.template.json").read_text())
    resources = template["Resources"]
    (topic,) = [k for k, r in resources.items() if r["Type"] == "AWS::SNS::Topic"]
    subscriptions = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::SNS::Subscription"]
    assert [(s["Protocol"], s["Endpoint"], s["TopicArn"]) for s in subscriptions] == [
        ("email", "oncall@example.com", {"Ref": topic})
    ]


def test_pinned_cli_reports_an_alarm_email_that_is_no_address_in_one_line(cdk_synth: Synth) -> None:
    result = cdk_synth("alarmEmail=oncall")

    assert result.returncode != 0
    assert (
        f"Invalid context 'alarmEmail': 'oncall'. Allowed: {ALLOWED['alarmEmail']}."
        in result.stderr.splitlines()
    )


def test_pinned_cli_refuses_a_us_profile_in_an_eu_region(cdk_synth: Synth, tmp_path: Path) -> None:
    # A user whose AWS config says eu-west-1 runs `cdk deploy` with the us. profile of cdk.json's model
    model = json.loads((ROOT / "cdk.json").read_text())["context"]["modelId"].split(".", 1)[1]

    result = cdk_synth(f"modelId=us.{model}", region="eu-west-1")

    assert result.returncode != 0
    assert (
        f"Invalid context 'modelId': 'us.{model}'. The us. inference profile exists only in US regions and "
        "this stack deploys to eu-west-1: use the eu. or global. profile of the model "
        f"(e.g. -c modelId=eu.{model}) or deploy to a US region."
    ) in result.stderr.splitlines()
    assert not (tmp_path / "Multitool.template.json").exists()


def test_pinned_cli_refuses_the_default_runtime_in_a_region_without_the_harness(
    cdk_synth: Synth, tmp_path: Path
) -> None:
    # A user whose AWS config says us-west-1 (no AgentCore harness there) runs `cdk deploy`
    result = cdk_synth(region="us-west-1")

    assert result.returncode != 0
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("Invalid context")]
    assert line.startswith(
        "Invalid context 'runtime': 'agentcore'. AWS::BedrockAgentCore::Harness does not exist in "
        "us-west-1; it exists in "
    )
    assert "us-east-1" in line
    assert "us-west-2" in line
    assert not (tmp_path / "Multitool.template.json").exists()


def test_pinned_cli_passes_every_context_key_it_is_given_to_the_app(cdk_synth: Synth, tmp_path: Path) -> None:
    # A team's second copy of the Gateway deploy, with its MCP client's own redirect URI
    callback = "https://mcp.example.org/callback"

    result = cdk_synth("stackName=MultitoolDev", "executor=gateway", f"mcpCallbackUrls={callback}")

    assert result.returncode == 0, result.stderr[-3000:]
    # the stack has the name given, and the MCP app client the callback given (not the loopback default)
    assert not (tmp_path / "Multitool.template.json").exists()
    template = json.loads((tmp_path / "MultitoolDev.template.json").read_text())
    callbacks = [
        r["Properties"].get("CallbackURLs")
        for r in template["Resources"].values()
        if r["Type"] == "AWS::Cognito::UserPoolClient"
    ]
    assert [callback] in callbacks
    assert ["http://localhost:8976/callback"] not in callbacks
