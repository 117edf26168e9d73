"""No deployed function can be told who its caller is by whoever invokes it: the synthesized environment
holds no caller-signing key, so every Gateway-path caller key is ignored there."""

from __future__ import annotations

import pytest
from multitool.settings import ToolSettings

from tests.infra.iam_queries import project_functions
from tests.infra.synth import Synthesized

pytestmark = pytest.mark.infra


@pytest.mark.parametrize("variant", ["gateway_stack", "harness_stack"])
def test_no_function_gets_a_caller_signing_key(variant: str, request: pytest.FixtureRequest) -> None:
    synth: Synthesized = request.getfixturevalue(variant)
    functions = project_functions(synth)
    assert functions
    for logical_id, function in functions.items():
        variables = function["Properties"].get("Environment", {}).get("Variables", {})
        assert "CALLER_CONTEXT_KEY" not in variables, logical_id
        assert not any(name.startswith("MULTITOOL_CALLER") for name in variables), logical_id


def test_the_gateway_targets_read_no_caller_key_from_their_environment(gateway_stack: Synthesized) -> None:
    from tests.infra.iam_queries import function_id

    for construct_id in ("EmailDraft", "MeetingScheduler", "JiraDraft"):
        variables = gateway_stack.props(function_id(gateway_stack, construct_id))["Environment"]["Variables"]
        settings = ToolSettings.from_env({k: v if isinstance(v, str) else "x" for k, v in variables.items()})
        assert settings.caller_context_key is None, construct_id
