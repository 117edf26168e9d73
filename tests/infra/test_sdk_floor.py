"""The SDK the layer ships accepts every request the code sends, and the lock never goes below the floor.

The requests come from the deployed functions themselves (``tests.support.sdk_requests``): a chat
turn through each runtime, an action-group call and a confirm of each card, on real boto3 clients.
They are checked against the service models of the botocore the layer bundles (the pinned wheel, as
installed into the layer), not the venv's, so a lock that drops below the floor fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from infra.components import layer
from infra.paths import PYPROJECT
from tests.infra.test_layer import pins
from tests.support.sdk_requests import SentRequest, botocore_version, deployed_requests, refusals

pytestmark = pytest.mark.infra


@pytest.fixture(scope="module")
def layer_models() -> Path:
    """The ``botocore/data`` folder of the layer's own site-packages (the pinned wheels)."""
    site = layer.cached_site_packages(layer.locked_requirements())
    return site / "botocore" / "data"


@pytest.fixture(scope="module")
def sent() -> list[SentRequest]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        return deployed_requests(monkeypatch)


def test_the_layers_botocore_is_the_locked_one(layer_models: Path) -> None:
    assert botocore_version(layer_models) == pins()["botocore"]


def test_every_request_the_code_sends_is_accepted_by_the_layers_botocore(
    sent: list[SentRequest], layer_models: Path
) -> None:
    # The requests that set the floor are among them, as the runtime builds them.
    harness = [r for r in sent if r.name == "bedrock-agentcore.InvokeHarness"]
    assert harness
    assert all(r.params["runtimeUserId"] == "jordan" for r in harness)
    assert {
        "bedrock-runtime.Converse",
        "sesv2.SendEmail",
        "sqs.SendMessage",  # a confirmed mail's undo window (multitool.ports.undo_queue)
        "secretsmanager.GetSecretValue",
        "lambda.Invoke",
        "bedrock-agent-runtime.InvokeAgent",
    } <= {r.name for r in sent}

    assert refusals(sent, layer_models) == []


def test_the_checker_refuses_what_an_older_model_would(sent: list[SentRequest]) -> None:
    # botocore before 1.43.17 has no runtimeUserId on InvokeHarness: the same check, a parameter the
    # installed model does not know, is what an older model's refusal looks like.
    [first] = [r for r in sent if r.name == "bedrock-agentcore.InvokeHarness"][:1]
    unknown = SentRequest(first.service, first.operation, {**first.params, "runtimeUserKey": "jordan"})
    missing = SentRequest("bedrock-agentcore", "InvokeHarnessLater", {})

    refused = refusals([unknown, missing], None)

    assert len(refused) == 2
    assert 'Unknown parameter in input: "runtimeUserKey"' in refused[0]
    assert "has no such operation" in refused[1]


def test_the_lock_and_pyproject_keep_botocore_at_or_above_the_floor() -> None:
    import tomllib

    floor = Version(layer.SDK_FLOOR)
    pinned = pins()
    assert Version(pinned["botocore"]) >= floor, f"botocore {pinned['botocore']} is below {floor}"
    assert Version(pinned["boto3"]) >= floor  # boto3 and botocore share their version numbers
    dependencies = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    below = f"{floor.major}.{floor.minor}.{floor.micro - 1}"
    for requirement in map(Requirement, dependencies):
        if requirement.name in ("boto3", "botocore"):
            assert not requirement.specifier.contains(below), f"{requirement} allows {below}"
            assert requirement.specifier.contains(layer.SDK_FLOOR)
