"""Where Bedrock's system-defined cross-region inference profiles exist, by geography prefix.

A geographic profile (``us.``, ``eu.``, ``apac.``, ``jp.``, ``au.``, ``ca.``, ``us-gov.``) can be
called only from a source region of its geography and routes only to destination regions of that
geography; ``global.`` profiles are called from commercial regions and route to any commercial
region. Source: the Amazon Bedrock user guide, "Supported Regions and models for inference
profiles" (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html)
and "Increase throughput with cross-Region inference"; which models have which profiles is per
model (each model card lists its profile ids), so this module knows geographies, not models.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Geography:
    prefix: str
    name: str
    # The IAM region segment that covers the geography's destination regions: a profile may route
    # a request to any of them, and AWS adds destinations without a new profile id.
    region_pattern: str


GEOGRAPHIES: dict[str, Geography] = {
    g.prefix: g
    for g in (
        Geography("us", "US", "us-*"),  # us-east-1, us-east-2, us-west-1, us-west-2 (aws partition)
        Geography("us-gov", "AWS GovCloud (US)", "us-gov-*"),
        Geography("eu", "Europe", "eu-*"),
        # APAC profiles also route to me-central-1, outside the ap- names: no narrower pattern exists.
        Geography("apac", "Asia Pacific", "*"),
        Geography("jp", "Japan", "ap-northeast-*"),  # ap-northeast-1, ap-northeast-3
        Geography("au", "Australia", "ap-southeast-*"),  # ap-southeast-2, ap-southeast-4
        Geography("ca", "Canada", "ca-*"),
        Geography("global", "commercial", "*"),
    )
}
JAPAN = ("ap-northeast-1", "ap-northeast-3")
AUSTRALIA = ("ap-southeast-2", "ap-southeast-4")


def profile_prefixes_for(region: str) -> tuple[str, ...]:
    """The profile prefixes callable from ``region``, most local first; empty where none exist."""
    if region.startswith("cn-"):
        return ()  # the China partition has no cross-region inference profiles
    if region.startswith("us-gov-"):
        return ("us-gov",)
    if region.startswith("us-"):
        return ("us", "global")
    if region.startswith("eu-"):
        return ("eu", "global")
    if region.startswith("ca-"):
        return ("ca", "global")
    if region in JAPAN:
        return ("jp", "apac", "global")
    if region in AUSTRALIA:
        return ("au", "apac", "global")
    if region.startswith("ap-"):
        return ("apac", "global")
    return ("global",)


def profile_region_problem(prefix: str, foundation_model_id: str, region: str) -> str | None:
    """Why a ``prefix.`` profile cannot be called from ``region`` (one sentence), or None if it can."""
    usable = profile_prefixes_for(region)
    if prefix in usable:
        return None
    where = f"The {prefix}. inference profile exists only in {GEOGRAPHIES[prefix].name} regions"
    if not usable:
        return f"{where} and {region} has no cross-region inference profile: use a foundation-model id."
    names = [f"{p}." for p in usable]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    example = f"{usable[0]}.{foundation_model_id}"
    return (
        f"{where} and this stack deploys to {region}: use the {listed} profile of the model "
        f"(e.g. -c modelId={example}) or deploy to a {GEOGRAPHIES[prefix].name} region."
    )
