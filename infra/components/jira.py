"""The Jira credentials: the account that writes, a secret only the review function reads; and the
account that reads the issues a card names, a secret only the functions that make those cards read
(give it an account that may browse the projects and nothing more: docs/deploy.md)."""

from __future__ import annotations

from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct
from multitool.ports.jira import PLACEHOLDER_CREDENTIALS as PLACEHOLDER

from infra.components.credentials import credential_secret

# PLACEHOLDER is filled in after deploy (README: Deploy); the token is generated so no real value is
# ever in a template.


class JiraSecret(Construct):
    """``{"baseUrl", "email", "apiToken"}`` for Jira Cloud's REST API."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        encryption_key: kms.IKey | None = None,
        description: str = "multitool Jira credentials: {baseUrl, email, apiToken}",
    ) -> None:
        super().__init__(scope, construct_id)
        self.secret = credential_secret(
            self,
            "Secret",
            description=description,
            placeholder=PLACEHOLDER,
            generated_key="apiToken",
            rotation="A Jira Cloud API token is issued and revoked in Atlassian's account settings; Secrets "
            "Manager cannot rotate it. Rotate it in Jira and put the new value in this secret.",
            encryption_key=encryption_key,
        )

    def grant_read(self, grantee: iam.IGrantable) -> None:
        """secretsmanager:GetSecretValue on this secret only: the one call the Jira adapter makes."""
        iam.Grant.add_to_principal(
            grantee=grantee, actions=["secretsmanager:GetSecretValue"], resource_arns=[self.secret.secret_arn]
        )
