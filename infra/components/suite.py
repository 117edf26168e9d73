"""Which suite the actions use (context ``calendar``), and the one secret a provider suite may need.

``builtin`` adds nothing. ``microsoft365`` and ``google`` set ``CALENDAR`` on every function that
runs tools or confirms; each user's token then comes from the token source the functions build
(docs/deploy.md). With ``microsoft365AppCredential=true`` the organization-wide Entra app credential
lives in one Secrets Manager secret, ``{"tenantId", "clientId", "clientSecret"}``, that only those
functions may read. With ``googleDelegation=<service account email>`` (``calendar=google``) the
organization-wide Google credential is domain-wide delegation: an asymmetric KMS key (RSA_2048,
SIGN_VERIFY) whose private half never leaves KMS signs each user's JWT
(:class:`multitool.ports.google.tokens.KmsSigner`), and only those functions may ``kms:Sign``
with it; the administrator uploads its certificate to the service account (docs/deploy.md).
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from infra.components.credentials import credential_secret

PLACEHOLDER = {"tenantId": "REPLACE_WITH_TENANT_ID", "clientId": "REPLACE_WITH_APPLICATION_ID"}


class SuiteAccess(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        calendar: str,
        app_credential: bool,
        google_delegation: str | None = None,
        google_key_id: str | None = None,
        encryption_key: kms.IKey | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.calendar = calendar
        self.secret: secretsmanager.Secret | None = None
        self.google_service_account = google_delegation
        self.google_key_id = google_key_id
        self.delegation_key: kms.Key | None = None
        if google_delegation is not None:
            # RS256 is RSASSA_PKCS1_V1_5_SHA_256; an RSA_2048 SIGN_VERIFY key signs with it
            # (https://docs.aws.amazon.com/kms/latest/developerguide/symm-asymm-choose-key-spec.html).
            # Asymmetric keys have no automatic rotation: rotate by a new key and certificate.
            self.delegation_key = kms.Key(
                self,
                "GoogleDelegationKey",
                description=f"multitool: signs the domain-wide delegation JWTs of {google_delegation}",
                key_spec=kms.KeySpec.RSA_2048,
                key_usage=kms.KeyUsage.SIGN_VERIFY,
                # The certificate uploaded to Google names this key: kept on delete and replacement,
                # deleted only when a first create rolls back (RetainExceptOnCreate).
                removal_policy=cdk.RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
            )
        if app_credential:
            # The generated clientSecret is a placeholder: no real value is ever in a template.
            self.secret = credential_secret(
                self,
                "Microsoft365Credential",
                description="multitool Microsoft 365 app credential: {tenantId, clientId, clientSecret}",
                placeholder=PLACEHOLDER,
                generated_key="clientSecret",
                rotation="An Entra client secret is issued and expires in the app registration (Microsoft "
                "Entra admin center); Secrets Manager cannot rotate it. Add a new secret there, put it "
                "here, then delete the old one.",
                encryption_key=encryption_key,
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
        if self.delegation_key is not None and self.google_service_account is not None:
            env["GOOGLE_DELEGATION_SERVICE_ACCOUNT"] = self.google_service_account
            env["GOOGLE_DELEGATION_KEY_ARN"] = self.delegation_key.key_arn
            if self.google_key_id is not None:
                env["GOOGLE_DELEGATION_KEY_ID"] = self.google_key_id
        return env

    def grant_token_source(self, grantee: iam.IGrantable) -> None:
        """What the token source calls, on the credential only: secretsmanager:GetSecretValue on the
        Entra secret, or kms:Sign on the delegation key."""
        if self.delegation_key is not None:
            iam.Grant.add_to_principal(
                grantee=grantee, actions=["kms:Sign"], resource_arns=[self.delegation_key.key_arn]
            )
        if self.secret is not None:
            iam.Grant.add_to_principal(
                grantee=grantee,
                actions=["secretsmanager:GetSecretValue"],
                resource_arns=[self.secret.secret_arn],
            )
