"""The page's CloudFront response headers policy and origin access control have account-global names:
each name holds the stack's region and its stack, so stacks in two regions (or two in one) never meet."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_logs as logs
from aws_cdk.assertions import Template

from infra.components.web import HEADERS_POLICY_NAME_MAX, OAC_NAME_MAX, ChatWebsite
from tests.infra.synth import Synthesized

pytestmark = pytest.mark.infra


def _names(template: dict[str, Any]) -> tuple[Any, Any]:
    resources = template["Resources"].values()
    (headers,) = [r for r in resources if r["Type"] == "AWS::CloudFront::ResponseHeadersPolicy"]
    (access,) = [r for r in resources if r["Type"] == "AWS::CloudFront::OriginAccessControl"]
    return (
        headers["Properties"]["ResponseHeadersPolicyConfig"]["Name"],
        access["Properties"]["OriginAccessControlConfig"]["Name"],
    )


def _page(stack_name: str, region: str | None) -> dict[str, Any]:
    app = cdk.App()
    env = cdk.Environment(account="123456789012", region=region) if region else None
    stack = cdk.Stack(app, stack_name, env=env)
    ChatWebsite(stack, "Web", connect_sources=[], log_retention=logs.RetentionDays.ONE_MONTH)
    return Template.from_stack(stack).to_json()


def test_the_deployed_stacks_names_hold_its_region(harness_stack: Synthesized) -> None:
    headers, access = _names(harness_stack.data)
    for name, limit in ((headers, HEADERS_POLICY_NAME_MAX), (access, OAC_NAME_MAX)):
        assert name.startswith("Multitool")
        assert name.endswith("-us-east-1")
        assert len(name) <= limit


def test_two_regions_and_two_stacks_never_share_a_name() -> None:
    east, west, other = (
        _page("Multitool", "us-east-1"),
        _page("Multitool", "eu-west-1"),
        _page("Other", "us-east-1"),
    )
    names = [_names(template) for template in (east, west, other)]
    headers, access = {n[0] for n in names}, {n[1] for n in names}
    assert len(headers) == 3
    assert len(access) == 3
    assert names[1] == tuple(n.replace("-us-east-1", "-eu-west-1") for n in names[0])


def test_an_env_agnostic_stack_names_them_with_its_deploy_region() -> None:
    headers, access = _names(_page("Multitool", None))
    for name in (headers, access):
        assert {"Ref": "AWS::Region"} in name["Fn::Join"][1]
