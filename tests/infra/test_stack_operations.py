"""Operating the stack: the alarm topic and who it reaches, the standard alarms, the dashboard, and where a
failed turn invocation lands (infra.components.operations)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from multitool.ports.tables import ALL_TABLES

from infra.components.functions import SERVICE_NAME
from infra.components.operations import CLOUDWATCH_KEY_ACTIONS, FAILED_TURNS_RETENTION
from infra.context import ContextError, DeployContext
from tests.infra.iam_queries import function_id, project_functions, resources_for_action, role_of_function
from tests.infra.synth import SENDER, Synthesized
from tests.support.synths import StackSynths

ALARM_EMAIL = "oncall@example.com"
APP_DIMENSIONS = [{"Name": "service", "Value": SERVICE_NAME}]


@pytest.fixture
def paged_stack(synths: StackSynths) -> Synthesized:
    """An address subscribed to the alarms, on the deployment's own key (customerManagedKey)."""
    return synths.get(alarmEmail=ALARM_EMAIL, customerManagedKey="true")


def _ref(synth: Synthesized, construct: Any) -> dict[str, str]:
    return {"Ref": synth.logical_id(construct)}


def _alarms(synth: Synthesized) -> dict[str, dict[str, Any]]:
    return {k: v["Properties"] for k, v in synth.of_type("AWS::CloudWatch::Alarm").items()}


def _metrics_of(alarm: dict[str, Any]) -> list[dict[str, Any]]:
    """The metrics an alarm reads: its one metric, or every metric of its expression."""
    if "MetricName" in alarm:
        return [{k: alarm.get(k) for k in ("Namespace", "MetricName", "Dimensions", "Statistic")}]
    found = []
    for entry in alarm["Metrics"]:
        if "MetricStat" in entry:
            stat = entry["MetricStat"]
            found.append({**stat["Metric"], "Statistic": stat["Stat"]})
    return found


def _alarms_on(synth: Synthesized, namespace: str, name: str) -> list[dict[str, Any]]:
    return [
        alarm
        for alarm in _alarms(synth).values()
        if any(m["Namespace"] == namespace and m["MetricName"] == name for m in _metrics_of(alarm))
    ]


@pytest.mark.parametrize("fixture", ["harness_stack", "paged_stack"])
def test_every_alarm_of_the_stack_notifies_the_topic_when_it_fires_and_when_it_clears(
    request: pytest.FixtureRequest, fixture: str
) -> None:
    synth: Synthesized = request.getfixturevalue(fixture)
    topic = _ref(synth, synth.stack.operations.topic)
    alarms = _alarms(synth)
    # the ones made before this construct too: SES's bounce and complaint rates, the model's spend
    assert len(_alarms_on(synth, "AWS/SES", "Reputation.BounceRate")) == 1
    assert len(_alarms_on(synth, "AWS/SES", "Reputation.ComplaintRate")) == 1
    assert len(_alarms_on(synth, "AWS/Bedrock", "InputTokenCount")) == 1
    for logical_id, alarm in alarms.items():
        assert alarm["AlarmActions"] == [topic], logical_id
        assert alarm["OKActions"] == [topic], logical_id


def test_the_topic_is_encrypted_with_a_rotated_key_cloudwatch_of_this_account_may_use(
    harness_stack: Synthesized,
) -> None:
    synth = harness_stack
    operations = synth.stack.operations
    key_id = synth.logical_id(operations.key)
    topic = synth.props(synth.logical_id(operations.topic))
    assert topic["KmsMasterKeyId"] == {"Fn::GetAtt": [key_id, "Arn"]}
    key = synth.props(key_id)
    assert key["EnableKeyRotation"] is True
    (cloudwatch,) = [
        s
        for s in key["KeyPolicy"]["Statement"]
        if s.get("Principal") == {"Service": "cloudwatch.amazonaws.com"}
    ]
    assert cloudwatch["Action"] == list(CLOUDWATCH_KEY_ACTIONS)
    assert cloudwatch["Condition"]["StringEquals"] == {"aws:SourceAccount": "123456789012"}
    assert ":cloudwatch:us-east-1:123456789012:alarm:*" in json.dumps(cloudwatch["Condition"]["ArnLike"])
    # publishing is refused without TLS
    (policy,) = synth.of_type("AWS::SNS::TopicPolicy").values()
    (deny,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert (deny["Effect"], deny["Condition"]) == ("Deny", {"Bool": {"aws:SecureTransport": "false"}})
    # no address is subscribed unless one is given
    assert synth.of_type("AWS::SNS::Subscription") == {}


def test_alarm_email_subscribes_that_address_and_the_deployments_own_key_encrypts_the_topic(
    paged_stack: Synthesized,
) -> None:
    synth = paged_stack
    (subscription,) = synth.of_type("AWS::SNS::Subscription").values()
    assert subscription["Properties"]["Protocol"] == "email"
    assert subscription["Properties"]["Endpoint"] == ALARM_EMAIL
    assert subscription["Properties"]["TopicArn"] == _ref(synth, synth.stack.operations.topic)
    # one key: the deployment's own, which CloudWatch may now use for the topic
    ((key_id, key),) = synth.of_type("AWS::KMS::Key").items()
    assert synth.stack.data_key is not None
    assert key_id == synth.logical_id(synth.stack.data_key.key)
    assert {"Service": "cloudwatch.amazonaws.com"} in [
        s.get("Principal") for s in key["Properties"]["KeyPolicy"]["Statement"]
    ]


@pytest.mark.parametrize("value", ["not-an-address", "a@b", "oncall@example.com,other@example.com"])
def test_an_alarm_email_that_is_no_address_stops_the_synth_naming_the_key(value: str) -> None:
    with pytest.raises(ContextError) as caught:
        DeployContext.from_context({"senderEmail": SENDER, "alarmEmail": value})
    assert str(caught.value).startswith("Invalid context 'alarmEmail'")
    assert (
        DeployContext.from_context({"senderEmail": SENDER, "alarmEmail": ALARM_EMAIL}).alarm_email
        == ALARM_EMAIL
    )


@pytest.mark.parametrize("fixture", ["harness_stack", "gateway_stack"])
def test_each_function_alarms_on_its_errors_and_its_throttles(
    request: pytest.FixtureRequest, fixture: str
) -> None:
    synth: Synthesized = request.getfixturevalue(fixture)
    functions = project_functions(synth)
    assert len(functions) >= 2
    for name in ("Errors", "Throttles"):
        watched = {
            json.dumps(metric["Dimensions"])
            for alarm in _alarms_on(synth, "AWS/Lambda", name)
            for metric in _metrics_of(alarm)
            if metric["MetricName"] == name
        }
        assert watched == {
            json.dumps([{"Name": "FunctionName", "Value": {"Ref": fn}}]) for fn in functions
        }, name
        for alarm in _alarms_on(synth, "AWS/Lambda", name):
            assert (alarm["Threshold"], alarm["ComparisonOperator"]) == (1, "GreaterThanOrEqualToThreshold")
            assert (alarm["Statistic"], alarm["Period"]) == ("Sum", 300)


def test_the_api_alarms_on_5xx_and_every_table_on_its_throttles(harness_stack: Synthesized) -> None:
    synth = harness_stack
    (api_id,) = synth.of_type("AWS::ApiGatewayV2::Api")
    (server_errors,) = _alarms_on(synth, "AWS/ApiGateway", "5xx")
    assert server_errors["Dimensions"] == [{"Name": "ApiId", "Value": {"Ref": api_id}}]
    reads = _alarms_on(synth, "AWS/DynamoDB", "ReadThrottleEvents")
    assert reads == _alarms_on(synth, "AWS/DynamoDB", "WriteThrottleEvents")
    watched = {metric["Dimensions"][0]["Value"]["Ref"] for alarm in reads for metric in _metrics_of(alarm)}
    assert watched == set(synth.of_type("AWS::DynamoDB::Table"))
    assert len(watched) == len(ALL_TABLES)


@pytest.mark.parametrize("name", ["ModelFailed", "ModelBusy", "TurnsFailed"])
def test_the_model_and_async_turn_failures_the_functions_count_raise_alarms(
    harness_stack: Synthesized, name: str
) -> None:
    (alarm,) = _alarms_on(harness_stack, "Multitool", name)
    # Powertools adds the service dimension to every metric the functions emit
    assert alarm["Dimensions"] == APP_DIMENSIONS
    assert alarm["Statistic"] == "Sum"


def test_a_failed_turn_invocation_lands_in_an_encrypted_queue_kept_14_days_and_raises_an_alarm(
    harness_stack: Synthesized,
) -> None:
    synth = harness_stack
    queue = synth.stack.turn_failures.queue
    queue_id = synth.logical_id(queue)
    orchestrator = function_id(synth, "Orchestrator")
    (config,) = [
        c["Properties"]
        for c in synth.of_type("AWS::Lambda::EventInvokeConfig").values()
        if c["Properties"]["FunctionName"] == {"Ref": orchestrator}
    ]
    assert config["DestinationConfig"] == {"OnFailure": {"Destination": {"Fn::GetAtt": [queue_id, "Arn"]}}}
    assert config["MaximumRetryAttempts"] == 0  # still never retried
    props = synth.props(queue_id)
    assert props["SqsManagedSseEnabled"] is True
    assert props["MessageRetentionPeriod"] == FAILED_TURNS_RETENTION.to_seconds() == 14 * 24 * 3600
    assert "FifoQueue" not in props  # Lambda destinations take a standard queue only
    (policy,) = [
        p
        for p in synth.of_type("AWS::SQS::QueuePolicy").values()
        if p["Properties"]["Queues"] == [{"Ref": queue_id}]
    ]
    (deny,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert (deny["Effect"], deny["Condition"]) == ("Deny", {"Bool": {"aws:SecureTransport": "false"}})
    # Lambda sends the record with the function's own role
    role = role_of_function(synth, orchestrator)
    assert resources_for_action(synth, role, "sqs:SendMessage") == [{"Fn::GetAtt": [queue_id, "Arn"]}]
    # records waiting, or records Lambda could not deliver, raise one alarm
    (alarm,) = [  # the undo queue's dead letters have an alarm of their own (test_stack_undo)
        a
        for a in _alarms_on(synth, "AWS/SQS", "ApproximateNumberOfMessagesVisible")
        if any(m["MetricName"] == "DestinationDeliveryFailures" for m in _metrics_of(a))
    ]
    assert alarm["Threshold"] == 1
    undelivered = [m for m in _metrics_of(alarm) if m["MetricName"] == "DestinationDeliveryFailures"]
    assert undelivered[0]["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": orchestrator}}]
    assert synth.data["Outputs"]["FailedTurnsQueueUrl"]["Value"] == {"Ref": queue_id}


def _dashboard_body(synth: Synthesized) -> dict[str, Any]:
    """The dashboard's JSON, each token in it written as the logical id it names."""
    ((_, dashboard),) = synth.of_type("AWS::CloudWatch::Dashboard").items()
    parts = dashboard["Properties"]["DashboardBody"]["Fn::Join"][1]

    def text(part: Any) -> str:
        if isinstance(part, str):
            return part
        if "Ref" in part:
            return str(part["Ref"])
        return str(part["Fn::GetAtt"][0])

    body: dict[str, Any] = json.loads("".join(text(p) for p in parts))
    return body


def test_one_dashboard_shows_turns_cards_confirm_errors_model_latency_and_tokens_cold_starts_and_throttles(
    harness_stack: Synthesized,
) -> None:
    synth = harness_stack
    widgets = {w["properties"]["title"]: w["properties"] for w in _dashboard_body(synth)["widgets"]}
    assert set(widgets) == {
        "Turns",
        "Cards made and confirmed",
        "Confirm errors",
        "Model latency (ms)",
        "Model tokens",
        "Cold starts",
        "Throttles",
        "Table throttles",
    }

    def shown(title: str) -> set[tuple[str, str]]:
        return {(m[0], m[1]) for m in widgets[title]["metrics"] if len(m) > 1 and m[0] != "..."}

    app = "Multitool"  # the default stack's name
    assert {(app, "ClientActions"), (app, "TurnsFailed")} <= shown("Turns")
    assert {
        (app, "ClientActions"),
        (app, "ActionsDone"),
        (app, "ActionsDiscarded"),
        (app, "ActionsUndone"),
    } <= shown("Cards made and confirmed")
    assert {(app, "ActionsFailed"), ("AWS/ApiGateway", "5xx")} <= shown("Confirm errors")
    assert shown("Model latency (ms)") == {("AWS/Bedrock", "InvocationLatency")}
    assert {("AWS/Bedrock", "InputTokenCount"), ("AWS/Bedrock", "OutputTokenCount")} <= shown("Model tokens")
    (cold,) = widgets["Cold starts"]["metrics"]
    orchestrator = function_id(synth, "Orchestrator")
    assert cold[:6] == [app, "ColdStart", "function_name", orchestrator, "service", SERVICE_NAME]
    assert ("AWS/Lambda", "Throttles") in shown("Throttles")
    assert ("AWS/Bedrock", "InvocationThrottles") in shown("Throttles")
    # the model's figures are this deployment's model's
    latency = widgets["Model latency (ms)"]["metrics"][0]
    assert latency[2:4] == ["ModelId", synth.stack.settings.model_id]
    assert synth.data["Outputs"]["DashboardName"]["Value"] == {
        "Ref": synth.logical_id(synth.stack.operations.dashboard)
    }
