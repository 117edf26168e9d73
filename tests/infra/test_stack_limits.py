"""The synthesized mail limits: the review's recipient policy, the SES configuration set and its alarms,
approval of self-registered users."""

from __future__ import annotations

from typing import Any

import pytest
from multitool.ports.tables import AUDIT, LIMITS
from multitool.settings.review import ReviewSettings

from infra.context import ContextError, DeployContext
from tests.infra.conftest import CONFIGURATION_SET
from tests.infra.iam_queries import dynamodb_actions_by_table, function_id, role_of_function
from tests.infra.synth import Synthesized

pytestmark = pytest.mark.infra

VALID = {"modelId": "anthropic.claude-3-5-sonnet-20241022-v2:0", "senderEmail": "me@example.com"}


def _review_env(synth: Synthesized) -> dict[str, Any]:
    variables: dict[str, Any] = synth.props(function_id(synth, "Review"))["Environment"]["Variables"]
    return variables


def test_the_review_counts_recipients_on_the_limits_table_with_the_default_policy(
    harness_stack: Synthesized,
) -> None:
    env = _review_env(harness_stack)
    limits_table = harness_stack.logical_id(harness_stack.stack.tables[LIMITS])

    assert env["LIMITS_TABLE_NAME"] == {"Ref": limits_table}
    assert (env["OUTSIDE_RECIPIENTS"], env["RECIPIENTS_PER_DAY"], env["OUTSIDE_RECIPIENTS_PER_DAY"]) == (
        "capped",
        "100",
        "20",
    )
    assert "RECIPIENT_DOMAINS" not in env  # the sender's own domain is inside
    assert "APPROVED_GROUP" not in env  # administrators create every user
    role = role_of_function(harness_stack, function_id(harness_stack, "Review"))
    # the quota's conditional UpdateItem, and the confirm token bucket's GetItem and PutItem
    assert dynamodb_actions_by_table(harness_stack, role)[limits_table] == {
        "dynamodb:UpdateItem",
        "dynamodb:GetItem",
        "dynamodb:PutItem",
    }
    # the environment the stack sets is one the review function accepts
    settings = ReviewSettings.from_env({k: v if isinstance(v, str) else "x" for k, v in env.items()})
    assert settings.recipients_per_day == 100


def test_mail_goes_through_a_configuration_set_that_suppresses_bounces_and_complaints(
    harness_stack: Synthesized,
) -> None:
    (set_id, configuration_set) = next(iter(harness_stack.of_type("AWS::SES::ConfigurationSet").items()))
    props = configuration_set["Properties"]

    assert sorted(props["SuppressionOptions"]["SuppressedReasons"]) == ["BOUNCE", "COMPLAINT"]
    assert props["ReputationOptions"] == {"ReputationMetricsEnabled": True}
    assert props["DeliveryOptions"]["TlsPolicy"] == "REQUIRE"
    assert _review_env(harness_stack)["SES_CONFIGURATION_SET"] == {"Ref": set_id}
    (identity,) = harness_stack.of_type("AWS::SES::EmailIdentity").values()
    assert identity["Properties"]["ConfigurationSetAttributes"] == {"ConfigurationSetName": {"Ref": set_id}}
    alarms = {
        a["Properties"]["MetricName"]: a["Properties"]
        for a in harness_stack.of_type("AWS::CloudWatch::Alarm").values()
        if "MetricName" in a["Properties"]  # the spend alarm is a metric expression
    }
    assert {
        name: alarms[name]["Namespace"] for name in ("Reputation.BounceRate", "Reputation.ComplaintRate")
    } == {
        "Reputation.BounceRate": "AWS/SES",
        "Reputation.ComplaintRate": "AWS/SES",
    }
    assert alarms["Reputation.BounceRate"]["Threshold"] < 0.05
    assert alarms["Reputation.ComplaintRate"]["Threshold"] < 0.001


def test_a_named_configuration_set_is_used_instead(return_control_stack: Synthesized) -> None:
    assert return_control_stack.of_type("AWS::SES::ConfigurationSet") == {}
    assert _review_env(return_control_stack)["SES_CONFIGURATION_SET"] == CONFIGURATION_SET


def test_with_self_sign_up_only_approved_users_may_confirm(web_stack: Synthesized) -> None:
    (group,) = web_stack.of_type("AWS::Cognito::UserPoolGroup").values()

    assert group["Properties"]["GroupName"] == "approved"
    assert _review_env(web_stack)["APPROVED_GROUP"] == "approved"


def test_recipient_context_is_validated_with_one_line() -> None:
    settings = DeployContext.from_context(
        {**VALID, "recipientDomains": "Example.com, corp.example.com", "outsideRecipients": "off"}
    )
    assert settings.recipient_domains == ("example.com", "corp.example.com")
    assert settings.outside_recipients.value == "off"

    for key, bad in (
        ("recipientDomains", "not a domain"),
        ("outsideRecipients", "some"),
        ("recipientsPerDay", "0"),
    ):
        with pytest.raises(ContextError) as caught:
            DeployContext.from_context({**VALID, key: bad})
        assert str(caught.value).startswith(f"Invalid context '{key}'"), caught.value


def test_every_side_effect_is_recorded_in_the_audit_table_for_the_retention(
    harness_stack: Synthesized,
) -> None:
    env = _review_env(harness_stack)
    audit_table = harness_stack.logical_id(harness_stack.stack.tables[AUDIT])

    assert env["AUDIT_TABLE_NAME"] == {"Ref": audit_table}
    assert env["AUDIT_RETENTION_DAYS"] == "365"
    props = harness_stack.props(audit_table)
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}
    # written by the review alone, and only written: nobody in the stack changes a record
    for role in harness_stack.of_type("AWS::IAM::Role"):
        granted = dynamodb_actions_by_table(harness_stack, role).get(audit_table, set())
        review = role_of_function(harness_stack, function_id(harness_stack, "Review"))
        assert granted == ({"dynamodb:PutItem"} if role == review else set()), role


def test_turns_and_confirms_have_per_user_buckets_no_reserved_concurrency_and_a_spend_alarm(
    harness_stack: Synthesized,
) -> None:
    limits_table = {"Ref": harness_stack.logical_id(harness_stack.stack.tables[LIMITS])}
    for construct_id in ("Orchestrator", "Review"):
        props = harness_stack.props(function_id(harness_stack, construct_id))
        assert props["Environment"]["Variables"]["RATE_LIMITS_TABLE_NAME"] == limits_table, construct_id
        # the account's shared pool: a reservation is the opt-in (orchestratorConcurrency, reviewConcurrency)
        assert "ReservedConcurrentExecutions" not in props, construct_id
    (spend,) = [
        a["Properties"]
        for a in harness_stack.of_type("AWS::CloudWatch::Alarm").values()
        if any(m.get("Id") == "input" for m in a["Properties"].get("Metrics", []))
    ]
    used = {m["Id"]: m["MetricStat"]["Metric"] for m in spend["Metrics"] if "MetricStat" in m}
    assert {m["Namespace"] for m in used.values()} == {"AWS/Bedrock"}
    assert {m["MetricName"] for m in used.values()} == {"InputTokenCount", "OutputTokenCount"}
    assert all(
        m["Dimensions"] == [{"Name": "ModelId", "Value": harness_stack.stack.settings.model_id}]
        for m in used.values()
    )
    assert spend["Threshold"] == 5_000_000


def _memory(synth: Synthesized, construct_id: str) -> int:
    size: int = synth.props(function_id(synth, construct_id))["MemorySize"]
    return size


def test_the_functions_a_person_waits_on_get_twice_the_cpu_of_the_others(
    harness_stack: Synthesized, gateway_stack: Synthesized
) -> None:
    # Lambda's CPU follows memory: a cold start (CPU work) takes about half as long at 1024 MB.
    assert (_memory(harness_stack, "Orchestrator"), _memory(harness_stack, "Review")) == (1024, 1024)
    # The user Gateway's interceptor runs before each MCP client's tools/call, while its user waits.
    assert _memory(gateway_stack, "McpCaller") == 1024
    for group in ("EmailDraft", "MeetingScheduler", "JiraDraft"):
        assert _memory(gateway_stack, group) == 512, group


def test_a_deployment_chooses_the_memory_of_the_orchestrator_and_the_review(
    converse_stack: Synthesized,
) -> None:
    assert (_memory(converse_stack, "Orchestrator"), _memory(converse_stack, "Review")) == (1769, 512)


@pytest.mark.parametrize("value", ["100", "10241", "lots", "1.5"])
@pytest.mark.parametrize("key", ["orchestratorMemory", "reviewMemory"])
def test_a_memory_outside_what_lambda_allows_is_refused_at_synth(key: str, value: str) -> None:
    with pytest.raises(ContextError) as caught:
        DeployContext.from_context({**VALID, key: value})
    assert str(caught.value).startswith(f"Invalid context '{key}'")
    assert "128 to 10240" in str(caught.value)


def test_a_guardrail_on_a_runtime_that_would_ignore_it_is_refused_at_synth() -> None:
    with pytest.raises(ContextError) as caught:
        DeployContext.from_context({**VALID, "runtime": "agentcore", "guardrailId": "gr0abc123def"})
    assert str(caught.value).startswith("Invalid context 'guardrailId'")
    assert "runtime=agentcore" in str(caught.value)
    for runtime in ("agent", "converse"):  # each applies it: the agent's configuration, Converse's per call
        accepted = DeployContext.from_context({**VALID, "runtime": runtime, "guardrailId": "gr0abc123def"})
        assert accepted.guardrail_id == "gr0abc123def"


def test_what_a_user_owns_is_indexed_by_owner_so_an_erasure_needs_no_scan(harness_stack: Synthesized) -> None:
    from multitool.ports.tables import ALL_TABLES, OWNER_INDEX

    for spec in ALL_TABLES:
        props = harness_stack.props(harness_stack.logical_id(harness_stack.stack.tables[spec]))
        indexes = props.get("GlobalSecondaryIndexes", [])
        if spec.owner_index:
            assert indexes == [
                {
                    "IndexName": OWNER_INDEX,
                    "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                }
            ], spec.logical_name
        else:
            assert indexes == [], spec.logical_name
