"""Synth refuses a region without the harness (or, with executor=gateway, the Gateway) in one line."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
import pytest

from infra import regions
from infra.app import build_app
from infra.context import ContextError, DeployContext
from infra.regions import GATEWAY, HARNESS, check_region_offers, offers, regions_offering

pytestmark = pytest.mark.infra

SENDER = {"senderEmail": "me@example.com"}
ACCOUNT = "123456789012"


def _settings(**context: Any) -> DeployContext:
    return DeployContext.from_context({**SENDER, **context})


def test_cfn_lints_data_places_the_harness() -> None:
    where = regions_offering(HARNESS)
    assert {"us-east-1", "us-west-2", "eu-west-1"} <= set(where)
    assert "us-west-1" not in where
    assert offers(HARNESS, "us-west-1") is False
    # A commercial stack is told only commercial regions; a GovCloud stack only GovCloud's.
    assert not [r for r in where if r.startswith(("us-gov-", "cn-", "us-iso", "eusc-"))]
    assert set(regions_offering(HARNESS, like="us-gov-west-1")) <= {"us-gov-west-1", "us-gov-east-1"}


def test_the_default_runtime_is_refused_in_us_west_1_with_the_regions_that_have_it() -> None:
    app = cdk.App(context=SENDER)
    with pytest.raises(ContextError) as caught:
        build_app(app, cdk.Environment(account=ACCOUNT, region="us-west-1"))
    message = str(caught.value)
    assert message == (
        "Invalid context 'runtime': 'agentcore'. AWS::BedrockAgentCore::Harness does not exist in "
        f"us-west-1; it exists in {', '.join(regions_offering(HARNESS))} (cfn-lint's region data): "
        "deploy there, or use -c runtime=converse."
    )
    assert "\n" not in message
    assert app.node.try_find_child("Multitool") is None  # nothing was built


@pytest.mark.parametrize("region", ["us-east-1", "us-west-2", "eu-west-1", "ap-southeast-2"])
def test_a_region_with_the_harness_and_gateway_passes(region: str) -> None:
    check_region_offers(_settings(), region)
    check_region_offers(_settings(executor="gateway"), region)


def test_the_converse_runtime_needs_neither() -> None:
    check_region_offers(_settings(runtime="converse"), "us-west-1")


def test_a_region_cfn_lint_has_no_data_for_is_not_guessed() -> None:
    # cfn-lint would answer us-east-1's list for it: that says nothing about the region.
    assert offers(HARNESS, "xx-future-1") is None
    check_region_offers(_settings(), "xx-future-1")
    check_region_offers(_settings(), None)  # an env-agnostic synth


def test_the_gateway_is_refused_where_only_the_harness_exists(monkeypatch: pytest.MonkeyPatch) -> None:
    # No region in today's data has the harness without the Gateway: the branch is shown on a copy.
    data = {
        "us-east-1": frozenset({HARNESS, GATEWAY}),
        "us-east-2": frozenset({HARNESS, GATEWAY}),
        "xx-west-9": frozenset({HARNESS}),
    }
    monkeypatch.setattr(regions, "_provider_types", lambda: data)
    check_region_offers(_settings(), "xx-west-9")  # inline functions need no Gateway
    with pytest.raises(ContextError) as caught:
        check_region_offers(_settings(executor="gateway"), "xx-west-9")
    assert str(caught.value) == (
        "Invalid context 'executor': 'gateway'. AWS::BedrockAgentCore::Gateway does not exist in "
        "xx-west-9; it exists in us-east-1, us-east-2 (cfn-lint's region data): deploy there, "
        "or use -c executor=return_control."
    )
