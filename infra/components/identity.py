"""Each user's own account through AgentCore Identity: a workload identity for this stack, one OAuth2
credential provider for the provider users connect (Microsoft 365 or Google Workspace), and the
secret an administrator fills with the registered app's client secret.

AgentCore holds every user's tokens in its token vault; this stack never sees a refresh token. The
orchestrator and the review function (the two that receive the user's JWT) may call exactly the
identity operations the token source and the consent callback make, on this workload and this
provider only (the scope-down pattern of
https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/scope-credential-provider-access.html:
the service does not bind a workload to a credential provider by itself, the callers' IAM does).
"""

from __future__ import annotations

from collections.abc import Sequence

import aws_cdk as cdk
from aws_cdk import aws_bedrockagentcore as agentcore
from aws_cdk import aws_iam as iam
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from infra.context import Identity
from infra.nag import acknowledge

# The credential provider vendors of botocore's CreateOauth2CredentialProvider and of the
# AWS::BedrockAgentCore::OAuth2CredentialProvider schema (cfn-lint's copy).
VENDORS = {Identity.MICROSOFT365: "MicrosoftOauth2", Identity.GOOGLE: "GoogleOauth2"}
SECRET_KEY = "clientSecret"  # noqa: S105 (a JSON key, not a secret)
# The administrator's own secret, read by AgentCore Identity, rather than one the service makes and keeps.
SECRET_SOURCE = "EXTERNAL"  # noqa: S105 (a setting, not a secret)
TOKEN_ACTIONS = ("bedrock-agentcore:GetWorkloadAccessTokenForJWT", "bedrock-agentcore:GetResourceOauth2Token")
COMPLETE_ACTION = "bedrock-agentcore:CompleteResourceTokenAuth"


class UserIdentity(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        provider: Identity,
        client_id: str,
        tenant_id: str | None,
        return_urls: Sequence[str],
    ) -> None:
        super().__init__(scope, construct_id)
        stack = cdk.Stack.of(self)
        self.provider = provider
        self.workload_name = cdk.Names.unique_resource_name(self, max_length=48, separator="-")
        self.workload = agentcore.CfnWorkloadIdentity(
            self,
            "Workload",
            name=self.workload_name,
            # The page is the return URL: it sends the sessionUri back to the review API, signed in.
            allowed_resource_oauth2_return_urls=list(return_urls),
        )
        # A placeholder until an administrator puts the registered app's client secret in it (deploy.md).
        self.client_secret = secretsmanager.Secret(
            self,
            "ClientSecret",
            description=f"multitool {provider.value} app's OAuth client secret: {{{SECRET_KEY}}}",
            generate_secret_string=secretsmanager.SecretStringGenerator(
                secret_string_template="{}",  # noqa: S106 (an empty JSON object)
                generate_string_key=SECRET_KEY,
                exclude_punctuation=True,
            ),
        )
        acknowledge(
            self.client_secret,
            "An OAuth client secret is issued and revoked at the provider (Entra app registration, Google "
            "Cloud console); Secrets Manager cannot rotate it. Make a new one there and put it here.",
            "AwsSolutions-SMG4",
        )
        self.provider_name = cdk.Names.unique_resource_name(self, max_length=64, separator="-") + "-oauth"
        config = agentcore.CfnOAuth2CredentialProvider
        secret_ref = config.SecretReferenceProperty(
            secret_id=self.client_secret.secret_arn, json_key=SECRET_KEY
        )
        if provider is Identity.MICROSOFT365:
            provider_config = config.Oauth2ProviderConfigInputProperty(
                microsoft_oauth2_provider_config=config.MicrosoftOauth2ProviderConfigInputProperty(
                    client_id=client_id,
                    client_secret_source=SECRET_SOURCE,
                    client_secret_config=secret_ref,
                    tenant_id=tenant_id,
                )
            )
        else:
            provider_config = config.Oauth2ProviderConfigInputProperty(
                google_oauth2_provider_config=config.GoogleOauth2ProviderConfigInputProperty(
                    client_id=client_id, client_secret_source=SECRET_SOURCE, client_secret_config=secret_ref
                )
            )
        self.credential_provider = agentcore.CfnOAuth2CredentialProvider(
            self,
            "Provider",
            name=self.provider_name,
            credential_provider_vendor=VENDORS[provider],
            oauth2_provider_config_input=provider_config,
        )
        arn = f"arn:{stack.partition}:bedrock-agentcore:{stack.region}:{stack.account}"
        self.directory_arn = f"{arn}:workload-identity-directory/default"
        self.vault_arn = f"{arn}:token-vault/default"

    @property
    def callback_url(self) -> str:
        """The redirect URL to register at the provider: AgentCore's, known once the provider exists."""
        return self.credential_provider.attr_callback_url

    def environment(self) -> dict[str, str]:
        return {
            "IDENTITY_WORKLOAD_NAME": self.workload_name,
            "IDENTITY_PROVIDER": self.provider.value,
            "IDENTITY_CREDENTIAL_PROVIDER": self.provider_name,
        }

    def grant_tokens(self, grantee: iam.IGrantable, *, complete: bool = False) -> None:
        """A workload token for the caller's JWT and the user's provider token, on this workload and this
        provider only; ``complete``: also finish a consent (the review function's callback)."""
        workload = self.workload.attr_workload_identity_arn
        iam.Grant.add_to_principal(
            grantee=grantee,
            actions=["bedrock-agentcore:GetWorkloadAccessTokenForJWT"],
            resource_arns=[self.directory_arn, workload],
        )
        iam.Grant.add_to_principal(
            grantee=grantee,
            actions=["bedrock-agentcore:GetResourceOauth2Token"],
            resource_arns=[
                self.directory_arn,
                workload,
                self.vault_arn,
                self.credential_provider.attr_credential_provider_arn,
            ],
        )
        # The scope-down page does not say whose credentials read an EXTERNAL client secret when the
        # code is exchanged; the callers may read this one secret and nothing else.
        iam.Grant.add_to_principal(
            grantee=grantee,
            actions=["secretsmanager:GetSecretValue"],
            resource_arns=[self.client_secret.secret_arn],
        )
        if complete:
            iam.Grant.add_to_principal(
                grantee=grantee, actions=[COMPLETE_ACTION], resource_arns=[self.directory_arn, workload]
            )
