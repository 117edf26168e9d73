"""What the synthesized stack holds so that no user takes it from the others and nothing it keeps is
unmanaged: each user's running-turn cap, the harness's log group, the page's own CSP, the
customer-managed key."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from cfnlint.api import lint
from multitool.ports.tables import ALL_TABLES, LIMITS
from multitool.settings.chat import ChatSettings

from infra.components.web import WEB_DIR, page_with_connect_policy
from infra.context import ContextError, DeployContext
from tests.infra.iam_queries import (
    dynamodb_actions_by_table,
    function_id,
    role_of_function,
    statements_for_role,
)
from tests.infra.synth import Synthesized
from tests.support.synths import StackSynths

pytestmark = pytest.mark.infra

VALID = {"senderEmail": "me@example.com"}


def test_the_orchestrator_caps_each_users_running_turns_on_the_limits_table(
    harness_stack: Synthesized,
) -> None:
    orchestrator = function_id(harness_stack, "Orchestrator")
    env = harness_stack.props(orchestrator)["Environment"]["Variables"]
    limits = harness_stack.logical_id(harness_stack.stack.tables[LIMITS])

    assert env["RATE_LIMITS_TABLE_NAME"] == {"Ref": limits}
    assert env["RUNNING_TURNS_PER_USER"] == "3"
    settings = ChatSettings.from_env({k: v if isinstance(v, str) else "x" for k, v in env.items()})
    assert settings.running_turns_per_user == 3
    # a place is taken with GetItem + a conditional PutItem, held longer and given back with UpdateItem
    role = role_of_function(harness_stack, orchestrator)
    assert dynamodb_actions_by_table(harness_stack, role)[limits] == {
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
    }


def test_the_running_turn_cap_is_validated_with_one_line() -> None:
    assert DeployContext.from_context({**VALID, "runningTurnsPerUser": "5"}).running_turns_per_user == 5
    for bad in ("0", "101", "many"):
        with pytest.raises(ContextError) as caught:
            DeployContext.from_context({**VALID, "runningTurnsPerUser": bad})
        assert str(caught.value).startswith("Invalid context 'runningTurnsPerUser'"), caught.value


def test_the_harness_runtime_log_group_gets_the_stacks_retention_before_any_write(
    harness_stack: Synthesized,
) -> None:
    harness = harness_stack.stack.harness
    assert harness is not None
    harness_id = harness_stack.logical_id(harness.harness)
    retention_id = harness_stack.logical_id(harness.log_retention.node.default_child)
    retention = harness_stack.props(retention_id)

    # named as AgentCore names the runtime's group: the runtime id and its endpoint
    assert retention["LogGroupName"] == {
        "Fn::Join": [
            "",
            [
                "/aws/bedrock-agentcore/runtimes/",
                {"Fn::GetAtt": [harness_id, "Environment.AgentCoreRuntimeEnvironment.AgentRuntimeId"]},
                "-DEFAULT",
            ],
        ]
    }
    # with the retention every other log group of the stack has, deleted with the stack
    retentions = {
        props["Properties"].get("RetentionInDays")
        for props in harness_stack.of_type("AWS::Logs::LogGroup").values()
    }
    assert retentions == {retention["RetentionInDays"]} == {30}
    assert retention["RemovalPolicy"] == "destroy"
    # the harness role can write or create a log group only once the policy granting it is attached,
    # and that policy waits for the retention
    log_policy = harness_stack.logical_id(harness.log_policy)
    assert retention_id in harness_stack.resources[log_policy]["DependsOn"]
    role = harness_stack.logical_id(harness.role)
    for logical_id, policy in harness_stack.of_type("AWS::IAM::Policy").items():
        if {"Ref": role} not in policy["Properties"].get("Roles", []):
            continue
        actions = {
            action
            for statement in policy["Properties"]["PolicyDocument"]["Statement"]
            for action in (
                [statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"]
            )
        }
        if actions & {"logs:CreateLogGroup", "logs:PutLogEvents", "logs:CreateLogStream"}:
            assert logical_id == log_policy, logical_id


def _published_index(synth: Synthesized) -> tuple[str, dict[str, Any]]:
    """index.html as the page's deployment uploads it, and the markers it fills in at deploy time."""
    (page,) = [
        r["Properties"]
        for r in synth.of_type("Custom::CDKBucketDeployment").values()
        if "DistributionId" in r["Properties"]
    ]
    for key, markers in zip(page["SourceObjectKeys"], page["SourceMarkers"], strict=True):
        index = synth.assembly_dir / f"asset.{key.removesuffix('.zip')}" / "index.html"
        if index.is_file():
            return index.read_text(encoding="utf-8"), markers
    raise AssertionError("no index.html published")


def test_the_pages_own_csp_lets_it_fetch_only_this_api_and_its_sign_in(harness_stack: Synthesized) -> None:
    html, markers = _published_index(harness_stack)
    api = harness_stack.logical_id(harness_stack.stack.api.http_api)
    users = harness_stack.stack.users
    assert users.domain is not None
    domain = harness_stack.logical_id(users.domain)

    (policy,) = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html)
    for marker, value in markers.items():
        policy = policy.replace(marker, f"<{json.dumps(value, sort_keys=True, separators=(',', ':'))}>")
    directive, *sources = policy.split()
    assert directive == "connect-src"
    api_endpoint = json.dumps({"Fn::GetAtt": [api, "ApiEndpoint"]}, sort_keys=True, separators=(",", ":"))
    sign_in = json.dumps({"Ref": domain}, sort_keys=True, separators=(",", ":"))
    assert sources == ["'self'", f"<{api_endpoint}>", f"https://<{sign_in}>.auth.us-east-1.amazoncognito.com"]
    assert "*" not in policy
    # it comes before any script or style, and the rest of the page is web/index.html as it is
    assert html.index("Content-Security-Policy") < min(html.index("<script"), html.index("<link"))
    source = (WEB_DIR / "index.html").read_text(encoding="utf-8")
    assert re.sub(r"\n  <meta http-equiv=[^\n]*", "", html) == source


def test_a_page_without_one_charset_tag_is_refused() -> None:
    with pytest.raises(ValueError, match="charset"):
        page_with_connect_policy("<html><head></head></html>", ["https://api.example.com"])


@pytest.fixture
def keyed_stack(synths: StackSynths) -> Synthesized:
    """The default deploy with customerManagedKey=true, and the Entra app credential (so both of the
    stack's third-party credential secrets are there)."""
    return synths.get(customerManagedKey="true", calendar="microsoft365", microsoft365AppCredential="true")


def _statements(key: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s.get("Sid", ""): s for s in key["Properties"]["KeyPolicy"]["Statement"]}


def test_with_a_customer_managed_key_every_table_and_log_group_is_encrypted_with_it(
    keyed_stack: Synthesized,
) -> None:
    ((key_id, key),) = keyed_stack.of_type("AWS::KMS::Key").items()
    assert key["Properties"]["EnableKeyRotation"] is True
    # retained like the tables: a retained table under a deleted key could never be read again
    assert (key["DeletionPolicy"], key["UpdateReplacePolicy"]) == ("RetainExceptOnCreate", "Retain")
    key_arn = {"Fn::GetAtt": [key_id, "Arn"]}

    tables = keyed_stack.of_type("AWS::DynamoDB::Table")
    assert len(tables) == len(ALL_TABLES)
    for logical_id, table in tables.items():
        assert table["Properties"]["SSESpecification"] == {
            "KMSMasterKeyId": key_arn,
            "SSEEnabled": True,
            "SSEType": "KMS",
        }, logical_id
    groups = keyed_stack.of_type("AWS::Logs::LogGroup")
    # the functions', the access log and the page deployment's (the harness runtime's is put under the
    # key once it exists: test_stack_deploy)
    assert len(groups) >= 4
    for logical_id, group in groups.items():
        assert group["Properties"]["KmsKeyId"] == key_arn, logical_id
        # the key policy exists before a log group names the key
        assert key_id in json.dumps(group), logical_id


def test_the_key_policy_lets_cloudwatch_logs_use_it_only_for_this_accounts_log_groups(
    keyed_stack: Synthesized,
) -> None:
    ((_, key),) = keyed_stack.of_type("AWS::KMS::Key").items()
    logs = _statements(key)["CloudWatchLogsOfThisAccount"]
    assert logs["Principal"] == {
        "Service": {"Fn::Join": ["", ["logs.us-east-1.", {"Ref": "AWS::URLSuffix"}]]}
    }
    assert set(logs["Action"]) == {
        "kms:Encrypt*",
        "kms:Decrypt*",
        "kms:ReEncrypt*",
        "kms:GenerateDataKey*",
        "kms:Describe*",
    }
    assert logs["Condition"] == {
        "ArnLike": {
            "kms:EncryptionContext:aws:logs:arn": {
                "Fn::Join": [
                    "",
                    ["arn:", {"Ref": "AWS::Partition"}, ":logs:us-east-1:123456789012:log-group:*"],
                ]
            }
        }
    }
    dynamodb = _statements(key)["DynamoDBForThisAccount"]
    assert dynamodb["Principal"] == {"AWS": "*"}
    assert dynamodb["Condition"] == {
        "StringEquals": {
            "kms:CallerAccount": "123456789012",
            "kms:ViaService": {"Fn::Join": ["", ["dynamodb.us-east-1.", {"Ref": "AWS::URLSuffix"}]]},
        }
    }
    assert "kms:ScheduleKeyDeletion" not in json.dumps(dynamodb)


def test_with_a_customer_managed_key_the_credential_secrets_are_encrypted_with_it(
    keyed_stack: Synthesized,
) -> None:
    ((key_id, key),) = keyed_stack.of_type("AWS::KMS::Key").items()
    jira = keyed_stack.logical_id(keyed_stack.stack.jira.secret)
    assert keyed_stack.stack.suite.secret is not None
    entra = keyed_stack.logical_id(keyed_stack.stack.suite.secret)
    for secret in (jira, entra):
        assert keyed_stack.props(secret)["KmsKeyId"] == {"Fn::GetAtt": [key_id, "Arn"]}, secret
    # The key policy lets Secrets Manager of this region use the key for this account's principals,
    # as the AWS-managed key aws/secretsmanager does: a reader needs only GetSecretValue on its secret.
    secrets = _statements(key)["SecretsManagerForThisAccount"]
    assert secrets["Principal"] == {"AWS": "*"}
    assert set(secrets["Action"]) == {
        "kms:Decrypt",
        "kms:ReEncrypt*",
        "kms:GenerateDataKey*",
        "kms:CreateGrant",
        "kms:DescribeKey",
    }
    assert secrets["Condition"] == {
        "StringEquals": {
            "kms:CallerAccount": "123456789012",
            "kms:ViaService": {"Fn::Join": ["", ["secretsmanager.us-east-1.", {"Ref": "AWS::URLSuffix"}]]},
        }
    }
    # and no function was given the key itself: the review function reads the secrets as before
    review = role_of_function(keyed_stack, function_id(keyed_stack, "Review"))
    statements = statements_for_role(keyed_stack, review)
    assert not [s for s in statements if "kms:" in json.dumps(s["Action"])]
    read = [s["Resource"] for s in statements if s["Action"] == "secretsmanager:GetSecretValue"]
    assert read == [[{"Ref": jira}, {"Ref": entra}]]


def test_without_the_option_there_is_no_key_and_the_tables_use_the_aws_managed_one(
    harness_stack: Synthesized,
) -> None:
    # the one key is the alarm topic's own: CloudWatch cannot publish to a topic under an AWS-managed key
    assert set(harness_stack.of_type("AWS::KMS::Key")) == {
        harness_stack.logical_id(harness_stack.stack.operations.key)
    }
    for table in harness_stack.of_type("AWS::DynamoDB::Table").values():
        sse = table["Properties"]["SSESpecification"]
        assert sse["SSEEnabled"] is True
        assert "KMSMasterKeyId" not in sse
    assert all(
        "KmsKeyId" not in g["Properties"] for g in harness_stack.of_type("AWS::Logs::LogGroup").values()
    )
    jira = harness_stack.logical_id(harness_stack.stack.jira.secret)
    assert "KmsKeyId" not in harness_stack.props(jira)  # the AWS-managed aws/secretsmanager
    assert DeployContext.from_context(VALID).customer_managed_key is False
    with pytest.raises(ContextError) as caught:
        DeployContext.from_context({**VALID, "customerManagedKey": "maybe"})
    assert str(caught.value).startswith("Invalid context 'customerManagedKey'")


def test_the_keyed_stack_is_cfn_lint_clean(keyed_stack: Synthesized) -> None:
    # cdk-nag ran in the fixture's synth (it raises on any unacknowledged finding)
    matches = lint(json.dumps(keyed_stack.data), regions=["us-east-1"])
    assert [f"{m.rule.id} {m.message}" for m in matches] == []
