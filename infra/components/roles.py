"""A role for aws-cdk-lib's deploy-time providers whose ``'*'`` grants are narrowed to what they act on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import aws_iam as iam
from constructs import Construct


class NarrowedRole(iam.Role):
    """A role given to an aws-cdk-lib construct that grants its provider actions on ``'*'``: each such
    statement whose actions are exactly a key of ``narrowed`` is granted on that key's resources instead
    (the provider only ever acts on those). aws-cdk-lib adds its statements through
    ``add_to_principal_policy``, so they pass through here."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        narrowed: Mapping[frozenset[str], Sequence[str]],
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self._narrowed = dict(narrowed)

    def add_to_principal_policy(self, statement: iam.PolicyStatement) -> iam.AddToPrincipalPolicyResult:
        resources = self._narrowed.get(frozenset(statement.actions))
        if resources is not None and statement.resources == ["*"]:
            statement = iam.PolicyStatement(actions=statement.actions, resources=list(resources))
        return super().add_to_principal_policy(statement)
