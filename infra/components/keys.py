"""The deployment's own KMS key (context ``customerManagedKey``): every table, log group and credential
secret encrypted with it.

Off by default: the tables then use the AWS-managed DynamoDB key, the log groups CloudWatch Logs'
own encryption and the secrets the AWS-managed Secrets Manager key, at no key charge. A
customer-managed key costs $1 a month, and each backing key that automatic rotation generates $1 a
month more; requests past the free tier are charged, as they are on the AWS-managed key
(https://aws.amazon.com/kms/pricing/). What it buys: the key policy is the operator's (who may
decrypt, audited in CloudTrail), and disabling or deleting the key makes the tables, their
point-in-time backups, the logs and the secrets unreadable at once, a way to end the 35 days PITR
keeps erased items restorable. It is retained with the tables: deleting the stack must not leave
retained tables under a key that is gone.
"""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
import jsii
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from constructs import Construct, IConstruct

# CloudWatch Logs encrypts with a key only when the key policy lets the Logs service principal of the
# region use it, held to this account's log groups by the encryption context it always sends
# ("Encrypt log data in CloudWatch Logs using AWS KMS", step 2,
# https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/encrypt-log-data-kms.html).
LOGS_KEY_ACTIONS = ("kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*")
# DynamoDB uses a table's key on behalf of the principal calling it. This is the statement the
# AWS-managed DynamoDB key (alias/aws/dynamodb) carries in its own key policy: these actions for
# principals of this account, only through DynamoDB of this region, so the key behaves as that key
# did; a function still needs its own IAM grant on the table, and the key adds no access to anything
# else (customer managed table keys: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/encryption.usagenotes.html).
DYNAMODB_KEY_ACTIONS = (
    "kms:Encrypt",
    "kms:Decrypt",
    "kms:ReEncrypt*",
    "kms:GenerateDataKey*",
    "kms:CreateGrant",
    "kms:DescribeKey",
)

# Secrets Manager likewise uses a secret's key on behalf of the principal creating or reading the
# secret (GenerateDataKey on a new value, Decrypt on GetSecretValue). This is the statement the
# AWS-managed key aws/secretsmanager carries: these actions for principals of this account, only
# when Secrets Manager of this region makes the request, so a function still needs its own
# secretsmanager:GetSecretValue on the secret and cannot use the key directly ("Permissions for the
# KMS key" and "Key policy of the AWS managed key (aws/secretsmanager)",
# https://docs.aws.amazon.com/secretsmanager/latest/userguide/security-encryption.html).
SECRETS_MANAGER_KEY_ACTIONS = (
    "kms:Decrypt",
    "kms:ReEncrypt*",
    "kms:GenerateDataKey*",
    "kms:CreateGrant",
    "kms:DescribeKey",
)

# SQS encrypts and decrypts an encrypted queue's messages with the key on behalf of whoever sends or
# receives: a producer needs kms:GenerateDataKey and kms:Decrypt, a consumer kms:Decrypt ("Configuring
# AWS KMS permissions", https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-key-management.html).
# As for DynamoDB and Secrets Manager, the key lets this account's principals use it only through SQS
# of this region, as the AWS-managed alias/aws/sqs key does: a function still needs its own sqs:
# grant on the queue, and gets no statement on the key.
SQS_KEY_ACTIONS = ("kms:GenerateDataKey", "kms:Decrypt")


class DataKey(Construct):
    """A symmetric key with yearly rotation, and the key policy CloudWatch Logs, DynamoDB, Secrets
    Manager and SQS need."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        stack = cdk.Stack.of(self)
        self.key = kms.Key(
            self,
            "Key",
            description="multitool: the tables and log groups of this stack",
            enable_key_rotation=True,
            # Kept when the stack is deleted or the resource replaced; deleted when a first create rolls
            # back (CloudFormation's RetainExceptOnCreate), so a failed first deploy leaves no orphan.
            removal_policy=cdk.RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        log_groups = stack.format_arn(
            service="logs",
            resource="log-group",
            resource_name="*",
            arn_format=cdk.ArnFormat.COLON_RESOURCE_NAME,
        )
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchLogsOfThisAccount",
                principals=[iam.ServicePrincipal(f"logs.{stack.region}.{stack.url_suffix}")],
                actions=list(LOGS_KEY_ACTIONS),
                resources=["*"],
                conditions={"ArnLike": {"kms:EncryptionContext:aws:logs:arn": log_groups}},
            )
        )
        for sid, service, actions in (
            ("DynamoDBForThisAccount", "dynamodb", DYNAMODB_KEY_ACTIONS),
            ("SecretsManagerForThisAccount", "secretsmanager", SECRETS_MANAGER_KEY_ACTIONS),
            ("SqsForThisAccount", "sqs", SQS_KEY_ACTIONS),
        ):
            self.key.add_to_resource_policy(
                iam.PolicyStatement(
                    sid=sid,
                    principals=[iam.AnyPrincipal()],
                    actions=list(actions),
                    resources=["*"],
                    conditions={
                        "StringEquals": {
                            "kms:CallerAccount": stack.account,
                            "kms:ViaService": f"{service}.{stack.region}.{stack.url_suffix}",
                        }
                    },
                )
            )

    def encrypt_log_groups(self, scope: IConstruct) -> None:
        """Every log group under ``scope`` (made now or later in the synth) is encrypted with the key."""
        cdk.Aspects.of(scope).add(_LogGroupsEncrypted(self.key))


@jsii.implements(cdk.IAspect)
class _LogGroupsEncrypted:
    def __init__(self, key: kms.IKey) -> None:
        self.key = key

    def visit(self, node: IConstruct) -> Any:
        if isinstance(node, logs.CfnLogGroup) and node.kms_key_id is None:
            node.kms_key_id = self.key.key_arn
