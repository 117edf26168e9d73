"""The undo window's infrastructure (infra.components.undo): a delay queue the review function alone sends
to and consumes through an event source mapping with partial batch failures, a dead-letter queue with an
alarm on the alarm topic, encryption, and no queue at all with undoSeconds=0."""

from __future__ import annotations

from typing import Any

import pytest

from infra.components.undo import MAX_RECEIVES, VISIBILITY_PER_TIMEOUT
from tests.infra.iam_queries import (
    actions_for_role,
    as_list,
    function_id,
    project_functions,
    resources_for_action,
    role_of_function,
    statements_for_role,
)
from tests.infra.synth import Synthesized
from tests.support.synths import StackSynths

pytestmark = pytest.mark.infra

CONSUME = {"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"}


def _undo(synth: Synthesized) -> tuple[str, str]:
    """The logical ids of the undo queue and its dead-letter queue."""
    undo = synth.stack.undo_queue
    assert undo is not None
    return synth.logical_id(undo.queue.node.default_child), synth.logical_id(
        undo.dead_letters.node.default_child
    )


def _sqs_statements(synth: Synthesized, role: str) -> list[dict[str, Any]]:
    return [
        s for s in statements_for_role(synth, role) if any(a.startswith("sqs:") for a in as_list(s["Action"]))
    ]


@pytest.fixture
def own_key_stack(synths: StackSynths) -> Synthesized:
    return synths.get(customerManagedKey="true")


def test_the_review_function_consumes_the_undo_queue_with_partial_batch_failures(
    harness_stack: Synthesized,
) -> None:
    queue, dead_letters = _undo(harness_stack)
    review = function_id(harness_stack, "Review")

    [mapping] = harness_stack.of_type("AWS::Lambda::EventSourceMapping").values()
    props = mapping["Properties"]
    assert props["FunctionName"] == {"Ref": review}
    assert props["EventSourceArn"] == {"Fn::GetAtt": [queue, "Arn"]}
    assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert props["BatchSize"] == 10

    # The queue: a standard one (a FIFO queue takes no per-message delay), redriven to its DLQ
    queue_props = harness_stack.props(queue)
    assert "FifoQueue" not in queue_props
    assert queue_props["VisibilityTimeout"] == VISIBILITY_PER_TIMEOUT * harness_stack.props(review)["Timeout"]
    assert queue_props["RedrivePolicy"] == {
        "deadLetterTargetArn": {"Fn::GetAtt": [dead_letters, "Arn"]},
        "maxReceiveCount": MAX_RECEIVES,
    }
    # The function is told where and how long
    env = harness_stack.props(review)["Environment"]["Variables"]
    assert env["UNDO_QUEUE_URL"] == {"Ref": queue}
    assert env["UNDO_SECONDS"] == "10"


def test_only_the_review_function_may_send_to_and_consume_the_undo_queue(harness_stack: Synthesized) -> None:
    queue, dead_letters = _undo(harness_stack)
    queue_arn = {"Fn::GetAtt": [queue, "Arn"]}
    review_role = role_of_function(harness_stack, function_id(harness_stack, "Review"))

    # The review role: send and consume, on this queue only, and no other SQS action
    sqs_actions = {a for a in actions_for_role(harness_stack, review_role) if a.startswith("sqs:")}
    assert sqs_actions == {"sqs:SendMessage", *CONSUME}
    for statement in _sqs_statements(harness_stack, review_role):
        assert as_list(statement["Resource"]) == [queue_arn], statement
    assert resources_for_action(harness_stack, review_role, "sqs:SendMessage") == [queue_arn]

    # No other function's role names the queue or any SQS action on it (the orchestrator's failed-turn
    # destination is another queue)
    for logical_id in project_functions(harness_stack):
        role = role_of_function(harness_stack, logical_id)
        if role == review_role:
            continue
        for statement in _sqs_statements(harness_stack, role):
            assert queue_arn not in as_list(statement["Resource"]), (logical_id, statement)
            assert {"Fn::GetAtt": [dead_letters, "Arn"]} not in as_list(statement["Resource"])


def test_both_queues_are_encrypted_and_refuse_plain_http(
    harness_stack: Synthesized, own_key_stack: Synthesized
) -> None:
    for queue_id in _undo(harness_stack):
        assert harness_stack.props(queue_id)["SqsManagedSseEnabled"] is True
    key = own_key_stack.logical_id(own_key_stack.stack.data_key.key)  # type: ignore[union-attr]
    for queue_id in _undo(own_key_stack):
        assert own_key_stack.props(queue_id)["KmsMasterKeyId"] == {"Fn::GetAtt": [key, "Arn"]}
    # With the stack's key, the key's own policy lets this account use it through SQS alone: the review
    # role holds no statement on the key (no function does)
    review_role = role_of_function(own_key_stack, function_id(own_key_stack, "Review"))
    assert not [s for s in statements_for_role(own_key_stack, review_role) if "kms:" in str(s["Action"])]
    key_policy = own_key_stack.props(key)["KeyPolicy"]["Statement"]
    [sqs_use] = [s for s in key_policy if s.get("Sid") == "SqsForThisAccount"]
    assert set(sqs_use["Action"]) == {"kms:GenerateDataKey", "kms:Decrypt"}
    assert sqs_use["Condition"]["StringEquals"]["kms:ViaService"] == {
        "Fn::Join": ["", ["sqs.us-east-1.", {"Ref": "AWS::URLSuffix"}]]
    }
    policies = {
        p["Properties"]["Queues"][0]["Ref"]: p["Properties"]["PolicyDocument"]["Statement"]
        for p in harness_stack.of_type("AWS::SQS::QueuePolicy").values()
    }
    for queue_id in _undo(harness_stack):
        [deny] = policies[queue_id]
        assert deny["Effect"] == "Deny"
        assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_a_message_set_aside_in_the_dead_letter_queue_raises_an_alarm_on_the_alarm_topic(
    harness_stack: Synthesized,
) -> None:
    _, dead_letters = _undo(harness_stack)
    topic = harness_stack.logical_id(harness_stack.stack.operations.topic.node.default_child)

    [alarm] = [
        a["Properties"]
        for a in harness_stack.of_type("AWS::CloudWatch::Alarm").values()
        if a["Properties"].get("MetricName") == "ApproximateNumberOfMessagesVisible"
        and a["Properties"]["Dimensions"]
        == [{"Name": "QueueName", "Value": {"Fn::GetAtt": [dead_letters, "QueueName"]}}]
    ]
    assert alarm["Threshold"] == 1
    assert alarm["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
    assert alarm["AlarmActions"] == [{"Ref": topic}]
    assert harness_stack.data["Outputs"]["UndoDeadLettersQueueUrl"]["Value"] == {"Ref": dead_letters}


def test_undo_seconds_zero_sends_at_once_and_builds_no_queue(synths: StackSynths) -> None:
    synth = synths.get(undoSeconds="0")

    assert synth.stack.undo_queue is None
    assert synth.of_type("AWS::Lambda::EventSourceMapping") == {}
    env = synth.props(function_id(synth, "Review"))["Environment"]["Variables"]
    assert "UNDO_QUEUE_URL" not in env
    review_role = role_of_function(synth, function_id(synth, "Review"))
    assert not {a for a in actions_for_role(synth, review_role) if a.startswith("sqs:")}
    assert "UndoDeadLettersQueueUrl" not in synth.data["Outputs"]
