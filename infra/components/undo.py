"""The undo window: a confirmed mail waits as one delayed SQS message, and the review function sends it.

Why a delay queue and not an EventBridge Scheduler one-time schedule: Scheduler invokes its targets
"with 60 second precision" ("Schedule types in EventBridge Scheduler",
https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html), so a ten-second window
could become seventy; each schedule needs an execution role that Scheduler assumes (the review
function would hold ``iam:PassRole`` on it and ``scheduler:CreateSchedule``/``DeleteSchedule``), and
a schedule outlives a function that died before deleting it. SQS holds each message invisible for
its own ``DelaySeconds``, 0 to 900 seconds (SendMessage,
https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html), and
Lambda's event source mapping delivers it to the review function: one queue, two grants on one role.

Exactly once is the draft's, not the queue's: a standard queue delivers at least once, and the draft's
conditional write from ``scheduled`` lets one delivery send (multitool.review.reviewer). The mapping
reports partial batch failures (``ReportBatchItemFailures``: only the failed records return,
https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html); a message failed
:data:`MAX_RECEIVES` times moves to the dead-letter queue, whose alarm notifies the alarm topic
(infra.components.operations: every alarm of the stack does). The queue's visibility timeout is six
times the function's timeout, as "Creating and configuring an Amazon SQS event source mapping" asks
(https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html): a throttled batch can be
retried before its messages reappear.

Only the review function sends to the queue (``sqs:SendMessage``) and consumes it (the mapping's
receive, delete and attributes, on its role); encrypted with the stack's own key when there is one
(customerManagedKey: the key's policy lets this account use it through SQS alone, so no role holds a
statement on the key), else with SQS-managed keys; TLS only.
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.components.functions import MultitoolFunction
from infra.nag import acknowledge

VISIBILITY_PER_TIMEOUT = 6
"""The queue's visibility timeout, in function timeouts (services-sqs-configure.html)."""
MAX_RECEIVES = 5
"""Deliveries of one message before it is set aside in the dead-letter queue."""
BATCH_SIZE = 10
DEAD_LETTER_RETENTION = cdk.Duration.days(14)
"""SQS's longest: a message set aside on a Friday evening is still there on Monday."""
ALARM_PERIOD = cdk.Duration.minutes(5)
SEND_ACTIONS = ("sqs:SendMessage",)
# What Lambda's poller calls with the function's role: the SQS actions of the AWS managed policy
# AWSLambdaSQSQueueExecutionRole ("Execution role permissions",
# https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html), on this queue only
# (Queue.grant_consume_messages would add ChangeMessageVisibility and GetQueueUrl as well).
CONSUME_ACTIONS = ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes")


class UndoQueue(Construct):
    """The delay queue, its dead-letter queue and alarm, and the review function's mapping and grants."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        review: MultitoolFunction,
        seconds: int,
        encryption_key: kms.IKey | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        encryption = (
            sqs.QueueEncryption.KMS if encryption_key is not None else sqs.QueueEncryption.SQS_MANAGED
        )
        self.dead_letters = sqs.Queue(
            self,
            "DeadLetters",
            encryption=encryption,
            encryption_master_key=encryption_key,
            enforce_ssl=True,
            retention_period=DEAD_LETTER_RETENTION,
        )
        acknowledge(
            self.dead_letters,
            "This queue is itself the undo queue's dead-letter queue: an operator reads its records "
            "(each names a draft id only) and deletes them; nothing consumes it automatically.",
            "AwsSolutions-SQS3",
        )
        self.queue = sqs.Queue(
            self,
            "Queue",
            encryption=encryption,
            encryption_master_key=encryption_key,
            enforce_ssl=True,
            visibility_timeout=cdk.Duration.seconds(VISIBILITY_PER_TIMEOUT * review.timeout_seconds),
            dead_letter_queue=sqs.DeadLetterQueue(max_receive_count=MAX_RECEIVES, queue=self.dead_letters),
        )
        # Declared here rather than through SqsEventSource, whose logical id carries the stack's name (two
        # copies of the stack would differ in more than their names).
        self.mapping = lambda_.EventSourceMapping(
            self,
            "Mapping",
            target=review.function,
            event_source_arn=self.queue.queue_arn,
            batch_size=BATCH_SIZE,
            report_batch_item_failures=True,
        )
        # Exactly what sending and polling take, on this queue: the grant_* helpers would add the key's
        # use to the role, which the key's own policy allows through SQS alone (infra.components.keys).
        review.role.add_to_principal_policy(
            iam.PolicyStatement(
                actions=list(SEND_ACTIONS + CONSUME_ACTIONS), resources=[self.queue.queue_arn]
            )
        )
        # The role's grants before the mapping: Lambda checks them when it creates the mapping.
        self.mapping.node.add_dependency(review.role)
        review.function.add_environment("UNDO_QUEUE_URL", self.queue.queue_url)
        review.function.add_environment("UNDO_SECONDS", str(seconds))
        cloudwatch.Alarm(
            self,
            "DeadLettersAlarm",
            metric=self.dead_letters.metric_approximate_number_of_messages_visible(
                statistic="Maximum", period=ALARM_PERIOD
            ),
            threshold=1,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            alarm_description=(
                "A confirmed mail's due send failed "
                f"{MAX_RECEIVES} times before it touched its draft (the drafts table unreachable): its "
                "message is in the undo dead-letter queue (the stack output UndoDeadLettersQueueUrl) and "
                "the draft still says scheduled. See the review function's log; the user can undo and "
                "confirm again."
            ),
        )
