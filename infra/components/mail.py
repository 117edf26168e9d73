"""The SES sender identity confirmed emails go out from."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_ses as ses
from constructs import Construct


class SenderIdentity(Construct):
    """An SES email identity for the sender address; SES mails a verification link to it on deploy."""

    def __init__(
        self, scope: Construct, construct_id: str, *, sender_email: str, configuration_set: str | None = None
    ) -> None:
        super().__init__(scope, construct_id)
        self.sender_email = sender_email
        self.configuration_set = configuration_set
        self.identity = ses.EmailIdentity(self, "Identity", identity=ses.Identity.email(sender_email))

    def grant_send(self, grantee: iam.IGrantable) -> None:
        """ses:SendEmail/SendRawEmail on this identity (and the configuration set mail goes through) only."""
        self.identity.grant_send_email(grantee)
        if self.configuration_set:
            iam.Grant.add_to_principal(
                grantee=grantee,
                actions=["ses:SendEmail", "ses:SendRawEmail"],
                resource_arns=[
                    cdk.Stack.of(self).format_arn(
                        service="ses", resource="configuration-set", resource_name=self.configuration_set
                    )
                ],
            )
