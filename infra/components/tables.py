"""The DynamoDB tables, built from `multitool.ports.tables` so key names live in one place."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_kms as kms
from constructs import Construct
from multitool.ports.tables import ALL_TABLES, OWNER_ATTRIBUTE, OWNER_INDEX, TableSpec


class Tables(Construct):
    """One on-demand table per spec: generated names, point-in-time recovery, TTL where used, retained."""

    def __init__(
        self, scope: Construct, construct_id: str, *, encryption_key: kms.IKey | None = None
    ) -> None:
        super().__init__(scope, construct_id)
        # The deployment's own key (customerManagedKey), else the AWS-managed DynamoDB key.
        self._key = encryption_key
        self.by_spec: dict[TableSpec, dynamodb.Table] = {spec: self._table(spec) for spec in ALL_TABLES}

    def _table(self, spec: TableSpec) -> dynamodb.Table:
        table = dynamodb.Table(
            self,
            spec.logical_name,
            partition_key=dynamodb.Attribute(name=spec.partition_key, type=dynamodb.AttributeType.STRING),
            sort_key=(
                dynamodb.Attribute(name=spec.sort_key, type=dynamodb.AttributeType.STRING)
                if spec.sort_key
                else None
            ),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            encryption=(
                dynamodb.TableEncryption.CUSTOMER_MANAGED
                if self._key is not None
                else dynamodb.TableEncryption.AWS_MANAGED
            ),
            encryption_key=self._key,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            time_to_live_attribute=spec.ttl_attribute,
            # Kept when the stack is deleted or the resource replaced; deleted when a first create rolls
            # back (CloudFormation's RetainExceptOnCreate), so a failed first deploy leaves no orphan.
            removal_policy=cdk.RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        if spec.owner_index:
            # Keys only: an erasure (multitool erase) finds one user's items and deletes them by key.
            table.add_global_secondary_index(
                index_name=OWNER_INDEX,
                partition_key=dynamodb.Attribute(name=OWNER_ATTRIBUTE, type=dynamodb.AttributeType.STRING),
                projection_type=dynamodb.ProjectionType.KEYS_ONLY,
            )
        return table

    def __getitem__(self, spec: TableSpec) -> dynamodb.Table:
        return self.by_spec[spec]

    def environment(self, *specs: TableSpec) -> dict[str, str]:
        """{env var: table name} for the tables a function uses."""
        return {spec.env_var: self.by_spec[spec].table_name for spec in specs}
