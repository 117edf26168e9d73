"""Operating the stack: alarms that reach someone, one dashboard, and where a failed turn invocation lands.

Every figure is one AWS already publishes or one the functions emit through Powertools' metrics
(namespace ``Multitool``, dimension ``service``; ``multitool.observability``):

- Lambda, per function: ``Errors``, ``Throttles``; for the orchestrator's asynchronous turns also
  ``DestinationDeliveryFailures`` (a failure record Lambda could not deliver)
  (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html);
- the HTTP API: ``5xx`` per ``ApiId`` (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-metrics.html);
- DynamoDB, per table: ``ReadThrottleEvents`` and ``WriteThrottleEvents``
  (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/metrics-dimensions.html);
- Bedrock, per model id: ``InvocationLatency``, ``InputTokenCount``, ``OutputTokenCount``,
  ``InvocationThrottles`` (https://docs.aws.amazon.com/bedrock/latest/userguide/monitoring-runtime-metrics.html);
- SQS: ``ApproximateNumberOfMessagesVisible`` of the failed-turns queue (and of the undo queue's dead letters,
  whose alarm is infra.components.undo's)
  (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-available-cloudwatch-metrics.html);
- the functions' own: ``ClientActions`` once per answered turn, its value the cards made (so its
  sample count is the turns answered), ``ActionsDone``, ``ActionsDiscarded`` and ``ActionsFailed`` per
  confirm or discard, ``ActionsScheduled`` and ``ActionsUndone`` per confirmed mail that waits its undo
  window and per undo, ``ModelFailed`` and ``ModelBusy`` per turn the model runtime (harness, agent or
  Converse) failed, ``TurnsFailed`` per asynchronous turn answered as failed, and Powertools'
  ``ColdStart`` (dimensions ``function_name`` and ``service``) from the orchestrator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import aws_cdk as cdk
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_destinations as destinations
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.components.functions import SERVICE_NAME, MultitoolFunction, metrics_namespace
from infra.nag import acknowledge

PERIOD = cdk.Duration.minutes(5)
"""Every alarm looks at five-minute sums: short enough to page within minutes, long enough to count."""
FAILED_TURNS_RETENTION = cdk.Duration.days(14)
"""SQS's longest retention: a failure on a Friday evening is still there to read on Monday."""
# Thresholds per five minutes. One Lambda error, throttle or DynamoDB throttle already means a user
# was refused or a turn lost; a model or a 5xx answer can be one user's bad luck, a few are a pattern.
FUNCTION_ERRORS_ALARM = 1
FUNCTION_THROTTLES_ALARM = 1
TABLE_THROTTLES_ALARM = 1
API_5XX_ALARM = 5
MODEL_FAILED_ALARM = 3
MODEL_BUSY_ALARM = 10
TURNS_FAILED_ALARM = 3
# CloudWatch publishes an alarm's notification to an encrypted topic only when the topic's key policy
# lets the CloudWatch service principal use the key; the AWS-managed alias/aws/sns key's policy cannot
# ("Enable compatibility between event sources from AWS services and encrypted topics",
# https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html#compatibility-with-aws-services).
CLOUDWATCH_KEY_ACTIONS = ("kms:Decrypt", "kms:GenerateDataKey*")


class TurnFailures(Construct):
    """Where the orchestrator's asynchronous turn invocations that failed land: a standard SQS queue.

    Lambda sends an invocation record there (Lambda destinations take a standard queue, not a FIFO
    one): the request (``{"multitoolTurn": {"turnId": ...}}``, no message text), the condition
    (``RetriesExhausted``: the invocation failed, it is never retried; ``EventAgeExceeded``: it waited
    in Lambda's queue longer than the turn's event age) and the error
    (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html). Encrypted with
    SQS-managed keys (an operator reads it with sqs permissions alone), TLS only, kept 14 days.
    """

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        self.queue = sqs.Queue(
            self,
            "Queue",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=FAILED_TURNS_RETENTION,
        )
        acknowledge(
            self.queue,
            "This queue is itself where failed turn invocations land (the orchestrator's on-failure "
            "destination); an operator reads and deletes its records, nothing consumes it automatically.",
            "AwsSolutions-SQS3",
        )

    @property
    def destination(self) -> lambda_.IDestination:
        return destinations.SqsDestination(self.queue)

    def metric_waiting(self, label: str | None = None) -> cloudwatch.Metric:
        """Records waiting to be read (the most seen in each period)."""
        return self.queue.metric_approximate_number_of_messages_visible(
            statistic="Maximum", period=PERIOD, label=label
        )


def app_metric(
    scope: Construct, name: str, statistic: str = "Sum", label: str | None = None
) -> cloudwatch.Metric:
    """A figure the functions emit through Powertools (namespace and service: infra.components.functions)."""
    return cloudwatch.Metric(
        namespace=metrics_namespace(scope),
        metric_name=name,
        dimensions_map={"service": SERVICE_NAME},
        statistic=statistic,
        period=PERIOD,
        label=label,
    )


class Operations(Construct):
    """An encrypted SNS topic every alarm of the stack notifies (``alarmEmail`` subscribes an address),
    the standard alarms, and one dashboard."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        api: apigwv2.HttpApi,
        tables: Mapping[str, dynamodb.Table],
        orchestrator: MultitoolFunction,
        review: MultitoolFunction,
        turn_failures: TurnFailures,
        model_id: str,
        alarm_email: str | None = None,
        encryption_key: kms.Key | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.stack = cdk.Stack.of(self)
        self.model_id = model_id
        # The deployment's own key (customerManagedKey), else one for the topic alone ($1 a month): the
        # AWS-managed SNS key's policy cannot admit CloudWatch (CLOUDWATCH_KEY_ACTIONS).
        self.key = encryption_key or kms.Key(
            self,
            "Key",
            description="multitool: the alarm topic",
            enable_key_rotation=True,
            removal_policy=cdk.RemovalPolicy.DESTROY,
        )
        self._let_cloudwatch_use(self.key)
        self.topic = sns.Topic(
            self, "Topic", display_name="multitool alarms", master_key=self.key, enforce_ssl=True
        )
        if alarm_email:
            self.topic.add_subscription(subscriptions.EmailSubscription(alarm_email))
        self.functions = [c for c in self.stack.node.find_all() if isinstance(c, MultitoolFunction)]
        for fn in self.functions:
            self._function_alarms(fn)
        self._table_alarms(tables)
        self._turn_alarms(api, orchestrator, turn_failures)
        self.notify_all()
        self.dashboard = self._dashboard(api, tables, orchestrator, review, turn_failures)

    def _table_alarms(self, tables: Mapping[str, dynamodb.Table]) -> None:
        for name, table in tables.items():
            self._alarm(
                f"{name}Throttles",
                _table_throttles(name, table),
                TABLE_THROTTLES_ALARM,
                f"DynamoDB throttled requests to the {name} table: requests were refused. On-demand tables "
                "throttle past their partition's or the account's throughput; see the table's metrics.",
            )

    def _turn_alarms(
        self, api: apigwv2.HttpApi, orchestrator: MultitoolFunction, turn_failures: TurnFailures
    ) -> None:
        """What a user meets as an error: 5xx answers, turns the model failed or refused, failed turns."""
        self._alarm(
            "Api5xx",
            api.metric_server_error(period=PERIOD, statistic="Sum"),
            API_5XX_ALARM,
            "The HTTP API answered 5xx: a function failed (500), the model failed (502) or was busy, or a "
            "store was away (503). The access log has each request's status; the functions' logs the cause.",
        )
        self._alarm(
            "ModelFailed",
            app_metric(self, "ModelFailed"),
            MODEL_FAILED_ALARM,
            "Turns failed in the model runtime (the harness, agent or Converse call): see the orchestrator's "
            "'Model call failed' log lines (service and error code).",
        )
        self._alarm(
            "ModelBusy",
            app_metric(self, "ModelBusy"),
            MODEL_BUSY_ALARM,
            "Turns were refused because the model was busy (throttled or not ready): users were asked to "
            "retry. Bedrock's InvocationThrottles on the dashboard says whether the model's quota is the "
            "cause.",
        )
        self._alarm(
            "TurnsFailed",
            app_metric(self, "TurnsFailed"),
            TURNS_FAILED_ALARM,
            "Turns run past their request (Prefer: respond-async) were answered as failed: see 'Chat turn "
            "failed' and 'Model call failed' in the orchestrator's log.",
        )
        self._alarm(
            "TurnInvocationsFailed",
            cloudwatch.MathExpression(
                expression="waiting + undelivered",
                using_metrics={
                    "waiting": turn_failures.metric_waiting(),
                    "undelivered": orchestrator.function.metric(
                        "DestinationDeliveryFailures", statistic="Sum", period=PERIOD
                    ),
                },
                period=PERIOD,
                label="Failed turn invocations",
            ),
            1,
            "A turn's own invocation failed (error, timeout) or waited too long: its record is in the "
            "failed-turns queue (the stack output FailedTurnsQueueUrl). Read it, then delete it or replay "
            "it (docs/deploy.md, Operate).",
        )

    def _let_cloudwatch_use(self, key: kms.Key) -> None:
        stack = self.stack
        key.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                actions=list(CLOUDWATCH_KEY_ACTIONS),
                resources=["*"],  # in a key policy, "*" is this key
                conditions={
                    "StringEquals": {"aws:SourceAccount": stack.account},
                    "ArnLike": {
                        "aws:SourceArn": stack.format_arn(
                            service="cloudwatch",
                            resource="alarm",
                            resource_name="*",
                            arn_format=cdk.ArnFormat.COLON_RESOURCE_NAME,
                        )
                    },
                },
            )
        )

    def _alarm(
        self, construct_id: str, metric: cloudwatch.IMetric, threshold: float, description: str
    ) -> None:
        cloudwatch.Alarm(
            self,
            f"{construct_id}Alarm",
            metric=metric,
            threshold=threshold,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            alarm_description=description,
        )

    def _function_alarms(self, fn: MultitoolFunction) -> None:
        name = fn.node.id
        self._alarm(
            f"{name}Errors",
            fn.function.metric_errors(period=PERIOD, statistic="Sum"),
            FUNCTION_ERRORS_ALARM,
            f"The {name} function failed (an unhandled error or a timeout): see its log group.",
        )
        self._alarm(
            f"{name}Throttles",
            fn.function.metric_throttles(period=PERIOD, statistic="Sum"),
            FUNCTION_THROTTLES_ALARM,
            f"Lambda throttled the {name} function: its reserved concurrency or the account's "
            "concurrency quota is used up (multitool doctor reads the quota).",
        )

    def notify_all(self) -> None:
        """Every alarm in the stack notifies the topic when it fires and when it clears, the ones other
        constructs made (the spend and the SES reputation alarms) included."""
        action = actions.SnsAction(self.topic)
        for construct in self.stack.node.find_all():
            if isinstance(construct, cloudwatch.Alarm):
                construct.add_alarm_action(action)
                construct.add_ok_action(action)

    def _dashboard(
        self,
        api: apigwv2.HttpApi,
        tables: Mapping[str, dynamodb.Table],
        orchestrator: MultitoolFunction,
        review: MultitoolFunction,
        turn_failures: TurnFailures,
    ) -> cloudwatch.Dashboard:
        def bedrock(name: str, statistic: str, label: str) -> cloudwatch.Metric:
            return cloudwatch.Metric(
                namespace="AWS/Bedrock",
                metric_name=name,
                dimensions_map={"ModelId": self.model_id},
                statistic=statistic,
                period=PERIOD,
                label=label,
            )

        def graph(title: str, metrics: Sequence[cloudwatch.IMetric]) -> cloudwatch.GraphWidget:
            return cloudwatch.GraphWidget(title=title, left=list(metrics), width=8, height=6)

        dashboard = cloudwatch.Dashboard(self, "Dashboard", default_interval=cdk.Duration.hours(24))
        dashboard.add_widgets(
            graph(
                "Turns",
                [
                    app_metric(self, "ClientActions", "SampleCount", "Turns answered"),
                    app_metric(self, "TurnsFailed", label="Async turns failed"),
                    turn_failures.metric_waiting(label="Failed invocations waiting"),
                ],
            ),
            graph(
                "Cards made and confirmed",
                [
                    app_metric(self, "ClientActions", label="Cards made"),
                    app_metric(self, "ActionsDone", label="Confirmed"),
                    app_metric(self, "ActionsDiscarded", label="Discarded"),
                    app_metric(self, "ActionsUndone", label="Undone in their window"),
                ],
            ),
            graph(
                "Confirm errors",
                [
                    app_metric(self, "ActionsFailed", label="Confirms failed"),
                    review.function.metric_errors(period=PERIOD, statistic="Sum", label="Review errors"),
                    api.metric_server_error(period=PERIOD, statistic="Sum", label="API 5xx"),
                ],
            ),
        )
        dashboard.add_widgets(
            graph(
                "Model latency (ms)",
                [
                    bedrock("InvocationLatency", "p50", "p50"),
                    bedrock("InvocationLatency", "p90", "p90"),
                ],
            ),
            graph(
                "Model tokens",
                [
                    bedrock("InputTokenCount", "Sum", "Input"),
                    bedrock("OutputTokenCount", "Sum", "Output"),
                    app_metric(self, "ModelFailed", label="Turns the model failed"),
                ],
            ),
            graph(
                "Cold starts",
                [
                    cloudwatch.Metric(
                        namespace=metrics_namespace(self),
                        metric_name="ColdStart",
                        dimensions_map={
                            "function_name": orchestrator.function.function_name,
                            "service": SERVICE_NAME,
                        },
                        statistic="Sum",
                        period=PERIOD,
                        label="Orchestrator",
                    ),
                ],
            ),
        )
        dashboard.add_widgets(
            graph(
                "Throttles",
                [
                    *(
                        fn.function.metric_throttles(period=PERIOD, statistic="Sum", label=fn.node.id)
                        for fn in self.functions
                    ),
                    bedrock("InvocationThrottles", "Sum", "Model"),
                    app_metric(self, "ModelBusy", label="Turns refused: model busy"),
                ],
            ),
            graph("Table throttles", [_table_throttles(name, table) for name, table in tables.items()]),
        )
        return dashboard


def _table_throttles(name: str, table: dynamodb.Table) -> cloudwatch.MathExpression:
    """A table's throttled reads and writes in one figure (the base table's; no index is read here).

    The ids carry the table's name: a graph of every table holds them all, and ids must differ there.
    """
    key = name.lower()
    return cloudwatch.MathExpression(
        expression=f"{key}_reads + {key}_writes",
        using_metrics={
            f"{key}_reads": table.metric("ReadThrottleEvents", statistic="Sum", period=PERIOD),
            f"{key}_writes": table.metric("WriteThrottleEvents", statistic="Sum", period=PERIOD),
        },
        period=PERIOD,
        label=name,
    )
