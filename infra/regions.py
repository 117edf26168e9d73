"""Which regions offer the resource types a deploy needs, from cfn-lint's region data.

A stack whose region lacks ``AWS::BedrockAgentCore::Harness`` (the default runtime) or, with
``executor=gateway``, ``AWS::BedrockAgentCore::Gateway`` synthesizes with only cfn-lint's warning
and fails at deploy; synth refuses it instead, with one line naming the regions that have it.

The data is cfn-lint's bundled provider schemas: one file per region listing the CloudFormation
resource types that region's registry offers (cfn-lint builds them from each region's published
CloudFormation resource specification). Only a region with its own file is judged: for any other
region cfn-lint falls back to us-east-1's list, which says nothing about that region, so it is
let through unchecked. Upgrading cfn-lint (``infra`` extra in pyproject.toml) refreshes the data.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from infra.context import ContextError, DeployContext

HARNESS = "AWS::BedrockAgentCore::Harness"
GATEWAY = "AWS::BedrockAgentCore::Gateway"
# Regions of other partitions than the commercial one: never offered to a commercial stack.
_OTHER_PARTITIONS = ("us-gov-", "cn-", "us-iso", "eu-isoe-", "eusc-")


@cache
def _provider_types() -> dict[str, frozenset[str]]:
    """{region: the resource types its registry offers}, for every region cfn-lint has data for."""
    folder = resources.files("cfnlint") / "data" / "schemas" / "providers"
    found: dict[str, frozenset[str]] = {}
    for entry in folder.iterdir():
        region = entry.name.removesuffix(".json")
        if entry.name.endswith(".json") and region != "sam":
            found[region] = frozenset(json.loads(entry.read_text(encoding="utf-8")))
    return found


def _partition(region: str) -> str:
    return next((p for p in _OTHER_PARTITIONS if region.startswith(p)), "")


def regions_offering(resource_type: str, *, like: str = "us-east-1") -> tuple[str, ...]:
    """The regions of ``like``'s partition whose registry offers ``resource_type``, sorted."""
    partition = _partition(like)
    return tuple(
        sorted(
            region
            for region, types in _provider_types().items()
            if resource_type in types and _partition(region) == partition
        )
    )


def offers(resource_type: str, region: str) -> bool | None:
    """Whether ``region`` offers the type; None when cfn-lint has no data for that region."""
    types = _provider_types().get(region)
    return None if types is None else resource_type in types


def check_region_offers(settings: DeployContext, region: str | None) -> None:
    """Refuse a deploy whose region lacks its harness or Gateway; None (env-agnostic) is not checked."""
    if region is None:
        return
    # (resource type, context key, its value, what runs without it)
    needed: list[tuple[str, str, str, str]] = []
    if settings.uses_harness:
        needed.append((HARNESS, "runtime", settings.runtime.value, "-c runtime=converse"))
    if settings.uses_gateway:
        needed.append((GATEWAY, "executor", "gateway", "-c executor=return_control"))
    for resource_type, key, value, instead in needed:
        if offers(resource_type, region) is False:
            where = ", ".join(regions_offering(resource_type, like=region)) or "no region of this partition"
            raise ContextError(
                f"Invalid context '{key}': {value!r}. {resource_type} does not exist in {region}; "
                f"it exists in {where} (cfn-lint's region data): deploy there, or use {instead}."
            )
