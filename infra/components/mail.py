"""The SES sender identity confirmed emails go out from."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_ses as ses
from constructs import Construct

from infra.nag import acknowledge

SEND_ACTIONS = ("ses:SendEmail", "ses:SendRawEmail")


class SenderIdentity(Construct):
    """An SES email identity for the sender address; SES mails a verification link to it on deploy.

    With ``create=False`` the address is already an identity of the account and region
    (CreateEmailIdentity would fail on it), so only the send grant is made.
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
        self.configuration_set = configuration_set
        self.identity: ses.EmailIdentity | None = (
            ses.EmailIdentity(self, "Identity", identity=ses.Identity.email(sender_email)) if create else None
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
        if self.configuration_set:
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
