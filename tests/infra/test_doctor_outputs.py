"""`multitool doctor` reads the stack's outputs and the Jira secret's placeholder: both as synthesized."""

from __future__ import annotations

import json

import pytest
from multitool.local.doctor.findings import expected_outputs, runtime_of_outputs
from multitool.ports.jira import PLACEHOLDER_CREDENTIALS

from tests.infra.synth import Synthesized


@pytest.mark.parametrize(
    ("fixture", "runtime", "gateway"),
    [
        ("harness_stack", "agentcore", False),
        ("gateway_stack", "agentcore", True),
        ("converse_stack", "converse", False),
    ],
)
def test_every_output_the_doctor_needs_is_in_the_template_and_tells_the_runtime(
    request: pytest.FixtureRequest, fixture: str, runtime: str, gateway: bool
) -> None:
    stack: Synthesized = request.getfixturevalue(fixture)
    outputs = dict.fromkeys(stack.data["Outputs"], "set")
    assert set(expected_outputs(runtime_of_outputs(outputs), gateway=gateway)) <= set(outputs)
    assert runtime_of_outputs(outputs) == runtime


def test_the_doctor_knows_the_secrets_placeholder(harness_stack: Synthesized) -> None:
    secret = harness_stack.of_type("AWS::SecretsManager::Secret")[
        harness_stack.logical_id(harness_stack.stack.jira.secret)
    ]
    template = json.loads(secret["Properties"]["GenerateSecretString"]["SecretStringTemplate"])
    assert template == PLACEHOLDER_CREDENTIALS
