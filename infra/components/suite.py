"""Which suite the actions use (context ``calendar``), and the one secret a provider suite may need.

``builtin`` adds nothing. ``microsoft365`` and ``google`` set ``CALENDAR`` on every function that
runs tools or confirms; each user's token then comes from the token source the functions build
(docs/deploy.md). With ``microsoft365AppCredential=true`` the organization-wide Entra app credential
lives in one Secrets Manager secret, ``{"tenantId", "clientId", "clientSecret"}``, that only those
functions may read.
"""

from __future__ import annotations

import json

from aws_cdk import aws_iam as iam
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from infra.nag import acknowledge

PLACEHOLDER = {"tenantId": "REPLACE_WITH_TENANT_ID", "clientId": "REPLACE_WITH_APPLICATION_ID"}


class SuiteAccess(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, calendar: str, app_credential: bool) -> None:
        super().__init__(scope, construct_id)
        self.calendar = calendar
        self.secret: secretsmanager.Secret | None = None
        if app_credential:
            self.secret = secretsmanager.Secret(
                self,
                "Microsoft365Credential",
                description="multitool Microsoft 365 app credential: {tenantId, clientId, clientSecret}",
                # The generated clientSecret is a placeholder: no real value is ever in a template.
                generate_secret_string=secretsmanager.SecretStringGenerator(
                    secret_string_template=json.dumps(PLACEHOLDER),
                    generate_string_key="clientSecret",
                    exclude_punctuation=True,
                    password_length=32,
                ),
            )
            acknowledge(
                self.secret,
                "An Entra client secret is issued and expires in the app registration (Microsoft Entra "
                "admin center); Secrets Manager cannot rotate it. Add a new secret there, put it here, "
                "then delete the old one.",
                "AwsSolutions-SMG4",
            )

    @property
    def uses_provider(self) -> bool:
        return self.calendar != "builtin"

    def environment(self) -> dict[str, str]:
        if not self.uses_provider:
            return {}
        env = {"CALENDAR": self.calendar}
        if self.secret is not None:
            env["MICROSOFT365_SECRET_ARN"] = self.secret.secret_arn
        return env

    def grant_read(self, grantee: iam.IGrantable) -> None:
        """secretsmanager:GetSecretValue on the credential only (the token source's one call)."""
        if self.secret is not None:
            iam.Grant.add_to_principal(
                grantee=grantee,
                actions=["secretsmanager:GetSecretValue"],
                resource_arns=[self.secret.secret_arn],
            )
