"""cdk-nag acknowledgements: always on one resource, always with the reason it is acceptable."""

from __future__ import annotations

import aws_cdk as cdk
from constructs import IConstruct

# cdk-nag's AwsSolutions pack reports as this validation plugin.
PLUGIN = "AwsSolutions"


def acknowledge(construct: IConstruct, reason: str, *rule_ids: str) -> None:
    """Acknowledge findings (e.g. ``AwsSolutions-IAM5[Resource::*]``) on this construct only."""
    cdk.Validations.of(construct).acknowledge(
        *(cdk.Acknowledgment(id=f"{PLUGIN}::{rule}", reason=reason) for rule in rule_ids)
    )
