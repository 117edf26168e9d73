"""The SES sender identity confirmed emails go out from, and the configuration set they go through."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from aws_cdk import aws_ses as ses
from constructs import Construct

from infra.nag import acknowledge

SEND_ACTIONS = ("ses:SendEmail", "ses:SendRawEmail")
# SES publishes Reputation.BounceRate and Reputation.ComplaintRate (0 to 1) to CloudWatch
# (https://docs.aws.amazon.com/ses/latest/DeveloperGuide/reputationdashboard-cloudwatch-alarm.html).
# The alarms warn early, below the rates at which SES puts an account under review.
BOUNCE_RATE_ALARM = 0.02
COMPLAINT_RATE_ALARM = 0.0008


class SenderIdentity(Construct):
    """An SES email identity for the sender address; SES mails a verification link to it on deploy.

    With ``create=False`` the address is already an identity of the account and region
    (CreateEmailIdentity would fail on it), so only the send grant is made.

    Mail goes through a configuration set: the one named (``sesConfigurationSet``, the operator's
    own), else one made here that keeps bounced and complaining addresses off (the account-level
    suppression list, reasons BOUNCE and COMPLAINT), publishes reputation metrics, and alarms on
    the account's bounce and complaint rates.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        sender_email: str,
        configuration_set: str | None = None,
        create: bool = True,
    ) -> None:
        super().__init__(scope, construct_id)
        self.sender_email = sender_email
        self.created_set: ses.ConfigurationSet | None = None
        if configuration_set is None:
            self.created_set = ses.ConfigurationSet(
                self,
                "ConfigurationSet",
                suppression_reasons=ses.SuppressionReasons.BOUNCES_AND_COMPLAINTS,
                reputation_metrics=True,
                sending_enabled=True,
                tls_policy=ses.ConfigurationSetTlsPolicy.REQUIRE,
            )
            configuration_set = self.created_set.configuration_set_name
            self._reputation_alarms()
        self.configuration_set: str = configuration_set
        self.identity: ses.EmailIdentity | None = (
            ses.EmailIdentity(
                self,
                "Identity",
                identity=ses.Identity.email(sender_email),
                configuration_set=self.created_set,
            )
            if create
            else None
        )

    def _reputation_alarms(self) -> None:
        for metric, threshold, words in (
            ("Reputation.BounceRate", BOUNCE_RATE_ALARM, "bounce"),
            ("Reputation.ComplaintRate", COMPLAINT_RATE_ALARM, "complaint"),
        ):
            cloudwatch.Alarm(
                self,
                f"{words.capitalize()}RateAlarm",
                alarm_description=(
                    f"The account's SES {words} rate passed {threshold:.2%}: find which user's mail "
                    "bounces or is reported (the audit log names the sub), before SES reviews the account."
                ),
                metric=cloudwatch.Metric(
                    namespace="AWS/SES", metric_name=metric, statistic="Maximum", period=cdk.Duration.hours(1)
                ),
                threshold=threshold,
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                evaluation_periods=1,
                treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            )

    def grant_send(self, grantee: iam.IGrantable) -> None:
        """Send mail from the sender address only (and through the configuration set, if any).

        While the account is in the SES sandbox, SES authorizes a send against the
        sender's identity *and* each recipient's (verified) identity; an identity-only
        grant would refuse every sandbox send. So the grant names this account's
        identities and is conditioned on ``ses:FromAddress`` being the sender.
        """
        stack = cdk.Stack.of(self)
        identities = stack.format_arn(service="ses", resource="identity", resource_name="*")
        grantee.grant_principal.add_to_principal_policy(
            iam.PolicyStatement(
                actions=list(SEND_ACTIONS),
                resources=[identities],
                conditions={"StringEquals": {"ses:FromAddress": self.sender_email}},
            )
        )
        if isinstance(grantee, Construct):
            acknowledge(
                grantee,
                "SES authorizes a sandbox send against every recipient's verified identity as well as the "
                "sender's, so the send grant names this account's identities; the ses:FromAddress condition "
                f"limits it to mail from {self.sender_email}.",
                f"AwsSolutions-IAM5[Resource::{_nag_arn(stack, 'ses', 'identity/*')}]",
            )
        if self.configuration_set:  # always: the named set, or the one made here
            iam.Grant.add_to_principal(
                grantee=grantee,
                actions=list(SEND_ACTIONS),
                resource_arns=[
                    stack.format_arn(
                        service="ses", resource="configuration-set", resource_name=self.configuration_set
                    )
                ],
            )


def _nag_arn(stack: cdk.Stack, service: str, resource: str) -> str:
    """An ARN as cdk-nag prints it in a finding id (pseudo parameters for an environment-agnostic stack)."""
    region = "<AWS::Region>" if cdk.Token.is_unresolved(stack.region) else stack.region
    account = "<AWS::AccountId>" if cdk.Token.is_unresolved(stack.account) else stack.account
    return f"arn:<AWS::Partition>:{service}:{region}:{account}:{resource}"
