"""First use of a Marketplace model: the principal that makes the first model call may subscribe the
account to exactly the model's product, or synth says the one-time step is the user's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from multitool.models import MARKETPLACE_PRODUCT_IDS

from infra.context import ContextError, DeployContext
from tests.infra.iam_queries import as_list, function_id, role_of_function, statements_for_role
from tests.infra.synth import Synthesized
from tests.support.synths import StackSynths


def synth_warnings(synthesized: Synthesized) -> list[str]:
    """The warnings synth wrote into the cloud assembly (``<stack>.metadata.json``), read as JSON:
    jsii's ``Annotations.find_warning`` can fail resolving its answer's struct ("Unknown interface:
    aws-cdk-lib.cloud_assembly_schema.MetadataEntry") depending on what ran before in the process."""
    found: list[str] = []
    for metadata in synthesized.assembly_dir.glob("*.metadata.json"):
        for entries in json.loads(metadata.read_text(encoding="utf-8")).values():
            found += [str(e["data"]) for e in entries if e.get("type") == "aws:cdk:warning"]
    return found


pytestmark = pytest.mark.infra

OPUS = "global.anthropic.claude-opus-5-5"
OPUS_PRODUCT = "prod-e5xo6z26ie45g"  # the Claude Opus 5.5 Bedrock model card's Marketplace product ID
GIVEN_PRODUCT = "prod-abc123example"


def _marketplace(synth: Synthesized, role: str) -> list[dict[str, Any]]:
    return [
        s
        for s in statements_for_role(synth, role)
        if any(a.startswith("aws-marketplace:") for a in as_list(s["Action"]))
    ]


def _harness_role(synth: Synthesized) -> str:
    ((_, harness),) = synth.of_type("AWS::BedrockAgentCore::Harness").items()
    role: str = harness["Properties"]["ExecutionRoleArn"]["Fn::GetAtt"][0]
    return role


def _assert_first_use_grant(statements: list[dict[str, Any]], product: str) -> None:
    by_action = {a: s for s in statements for a in as_list(s["Action"])}
    assert set(by_action) == {"aws-marketplace:Subscribe", "aws-marketplace:ViewSubscriptions"}
    subscribe = by_action["aws-marketplace:Subscribe"]
    assert subscribe["Condition"] == {"ForAnyValue:StringEquals": {"aws-marketplace:ProductId": [product]}}
    assert "Condition" not in by_action["aws-marketplace:ViewSubscriptions"]


@pytest.fixture
def opus_harness(synths: StackSynths) -> Synthesized:
    return synths.get(modelId=OPUS)


@pytest.fixture
def converse_with_product(synths: StackSynths) -> Synthesized:
    return synths.get(
        runtime="converse",
        modelId="us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        marketplaceProductId=GIVEN_PRODUCT,
    )


def test_the_model_cards_product_is_known_for_opus_5_5() -> None:
    assert MARKETPLACE_PRODUCT_IDS["anthropic.claude-opus-5-5"] == OPUS_PRODUCT
    settings = DeployContext.from_context({"senderEmail": "me@example.com", "modelId": OPUS})
    assert settings.marketplace_product == OPUS_PRODUCT


def test_the_harness_execution_role_may_subscribe_to_the_models_product_only(
    opus_harness: Synthesized,
) -> None:
    # The harness makes the first model call: its role, and no other, holds the subscription.
    role = _harness_role(opus_harness)
    _assert_first_use_grant(_marketplace(opus_harness, role), OPUS_PRODUCT)
    for other in opus_harness.of_type("AWS::IAM::Role"):
        if other != role:
            assert _marketplace(opus_harness, other) == []


def test_with_runtime_converse_the_orchestrator_may_subscribe_to_the_given_product(
    converse_with_product: Synthesized,
) -> None:
    synth = converse_with_product
    orchestrator = role_of_function(synth, function_id(synth, "Orchestrator"))
    _assert_first_use_grant(_marketplace(synth, orchestrator), GIVEN_PRODUCT)


def test_without_a_known_product_nothing_is_granted_and_synth_says_the_step_is_explicit(
    harness_stack: Synthesized,
) -> None:
    for role in harness_stack.of_type("AWS::IAM::Role"):
        assert _marketplace(harness_stack, role) == []
    warnings = [
        w
        for w in synth_warnings(harness_stack)
        if w.startswith("No AWS Marketplace product id is known for anthropic.claude-sonnet-5-5")
    ]
    assert len(warnings) == 1
    assert "-c marketplaceProductId=" in warnings[0]


@pytest.mark.parametrize("bad", ["e5xo6z26ie45g", "prod-", "PROD-ABC", "prod-abc def"])
def test_a_malformed_product_id_is_refused_in_one_line(bad: str) -> None:
    with pytest.raises(ContextError) as caught:
        DeployContext.from_context({"senderEmail": "me@example.com", "marketplaceProductId": bad})
    assert str(caught.value).startswith(f"Invalid context 'marketplaceProductId': {bad!r}. Allowed: ")


def test_the_docs_give_the_explicit_step() -> None:
    deploy = (Path(__file__).resolve().parents[2] / "docs" / "deploy.md").read_text()
    assert "create-foundation-model-agreement" in deploy
    assert "marketplaceProductId" in deploy
