"""Each user's own account through AgentCore Identity: a workload identity for this stack, an OAuth2
credential provider for each provider users connect (the calendar's, Microsoft 365 or Google
Workspace, and Atlassian for Jira as the user), and for each the secret an administrator fills with
the registered app's client secret.

AgentCore holds every user's tokens in its token vault; this stack never sees a refresh token. The
orchestrator and the review function (the two that receive the user's JWT) may call exactly the
identity operations the token source and the consent callback make, on this workload and the
providers each uses only (the scope-down pattern of
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
from multitool.deployment import Identity

from infra.nag import acknowledge

# The credential provider vendors of botocore's CreateOauth2CredentialProvider and of the
# AWS::BedrockAgentCore::OAuth2CredentialProvider schema (cfn-lint's copy).
VENDORS = {Identity.MICROSOFT365: "MicrosoftOauth2", Identity.GOOGLE: "GoogleOauth2"}
# Atlassian's config takes the same client id and EXTERNAL secret reference as the others:
# https://docs.aws.amazon.com/bedrock-agentcore-control/latest/APIReference/API_AtlassianOauth2ProviderConfigInput.html
# (clientId, clientSecretSource, clientSecretConfig) and CloudFormation's
# AWS::BedrockAgentCore::OAuth2CredentialProvider AtlassianOauth2ProviderConfigInput (cfn-lint's schema).
ATLASSIAN_VENDOR = "AtlassianOauth2"
SECRET_KEY = "clientSecret"  # noqa: S105 (a JSON key, not a secret)
# The administrator's own secret, read by AgentCore Identity, rather than one the service makes and keeps.
SECRET_SOURCE = "EXTERNAL"  # noqa: S105 (a setting, not a secret)
TOKEN_ACTIONS = ("bedrock-agentcore:GetWorkloadAccessTokenForJWT", "bedrock-agentcore:GetResourceOauth2Token")
USER_ID_ACTION = "bedrock-agentcore:GetWorkloadAccessTokenForUserId"
"""The Slack function's alone: whoever may call it acts as any user id of the workload ("Security
controls for GetWorkloadAccessTokenForUserId",
https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/get-workload-access-token.html)."""
COMPLETE_ACTION = "bedrock-agentcore:CompleteResourceTokenAuth"


class UserIdentity(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        provider: Identity,
        client_id: str | None,
        tenant_id: str | None,
        return_urls: Sequence[str],
        jira_client_id: str | None = None,
    ) -> None:
        """``provider`` (with ``client_id``): the calendar's accounts users connect, or OFF for none;
        ``jira_client_id``: the Atlassian app for Jira as the user, or None."""
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
        config = agentcore.CfnOAuth2CredentialProvider
        self.client_secret: secretsmanager.Secret | None = None
        self.credential_provider: agentcore.CfnOAuth2CredentialProvider | None = None
        self.provider_name: str | None = None
        if provider is not Identity.OFF:
            assert client_id is not None  # the context checked it
            self.client_secret = self._client_secret("ClientSecret", provider.value)
            secret_ref = _secret_reference(self.client_secret)
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
                        client_id=client_id,
                        client_secret_source=SECRET_SOURCE,
                        client_secret_config=secret_ref,
                    )
                )
            self.provider_name = cdk.Names.unique_resource_name(self, max_length=64, separator="-") + "-oauth"
            self.credential_provider = agentcore.CfnOAuth2CredentialProvider(
                self,
                "Provider",
                name=self.provider_name,
                credential_provider_vendor=VENDORS[provider],
                oauth2_provider_config_input=provider_config,
            )
        self.jira_client_secret: secretsmanager.Secret | None = None
        self.jira_provider: agentcore.CfnOAuth2CredentialProvider | None = None
        self.jira_provider_name: str | None = None
        if jira_client_id is not None:
            self.jira_client_secret = self._client_secret("JiraClientSecret", "Atlassian (Jira)")
            self.jira_provider_name = (
                cdk.Names.unique_resource_name(self, max_length=58, separator="-") + "-jira-oauth"
            )
            self.jira_provider = agentcore.CfnOAuth2CredentialProvider(
                self,
                "JiraProvider",
                name=self.jira_provider_name,
                credential_provider_vendor=ATLASSIAN_VENDOR,
                oauth2_provider_config_input=config.Oauth2ProviderConfigInputProperty(
                    atlassian_oauth2_provider_config=config.AtlassianOauth2ProviderConfigInputProperty(
                        client_id=jira_client_id,
                        client_secret_source=SECRET_SOURCE,
                        client_secret_config=_secret_reference(self.jira_client_secret),
                    )
                ),
            )
        arn = f"arn:{stack.partition}:bedrock-agentcore:{stack.region}:{stack.account}"
        self.directory_arn = f"{arn}:workload-identity-directory/default"
        self.vault_arn = f"{arn}:token-vault/default"

    def _client_secret(self, construct_id: str, provider: str) -> secretsmanager.Secret:
        # A placeholder until an administrator puts the registered app's client secret in it (deploy.md).
        secret = secretsmanager.Secret(
            self,
            construct_id,
            description=f"multitool {provider} app's OAuth client secret: {{{SECRET_KEY}}}",
            generate_secret_string=secretsmanager.SecretStringGenerator(
                secret_string_template="{}",  # noqa: S106 (an empty JSON object)
                generate_string_key=SECRET_KEY,
                exclude_punctuation=True,
            ),
        )
        acknowledge(
            secret,
            "An OAuth client secret is issued and revoked at the provider (Entra app registration, Google "
            "Cloud console, Atlassian developer console); Secrets Manager cannot rotate it. Make a new one "
            "there and put it here.",
            "AwsSolutions-SMG4",
        )
        return secret

    @property
    def callback_url(self) -> str | None:
        """The redirect URL to register at the provider: AgentCore's, known once the provider exists."""
        return self.credential_provider.attr_callback_url if self.credential_provider is not None else None

    @property
    def jira_callback_url(self) -> str | None:
        """The callback URL to register in the Atlassian app (AgentCore's, one per credential provider)."""
        return self.jira_provider.attr_callback_url if self.jira_provider is not None else None

    def environment(self, *, calendar: bool = True, jira: bool = False) -> dict[str, str]:
        env = {"IDENTITY_WORKLOAD_NAME": self.workload_name}
        if calendar and self.provider_name is not None:
            env["IDENTITY_PROVIDER"] = self.provider.value
            env["IDENTITY_CREDENTIAL_PROVIDER"] = self.provider_name
        if jira and self.jira_provider_name is not None:
            env["IDENTITY_JIRA_CREDENTIAL_PROVIDER"] = self.jira_provider_name
        return env

    def grant_tokens(
        self,
        grantee: iam.IGrantable,
        *,
        complete: bool = False,
        calendar: bool = True,
        jira: bool = False,
        by_user_id: bool = False,
    ) -> None:
        """A workload token for the caller's JWT and the user's provider token, on this workload and the
        providers named (``calendar``: the calendar's; ``jira``: Atlassian's) only; ``complete``: also
        finish a consent (the review function's callback); ``by_user_id``: the workload token for a user
        id instead of a JWT (the Slack function's, which no JWT reaches: its users' vault ids)."""
        providers = [
            (provider, secret)
            for wanted, provider, secret in (
                (calendar, self.credential_provider, self.client_secret),
                (jira, self.jira_provider, self.jira_client_secret),
            )
            if wanted and provider is not None and secret is not None
        ]
        workload = self.workload.attr_workload_identity_arn
        iam.Grant.add_to_principal(
            grantee=grantee,
            actions=[USER_ID_ACTION if by_user_id else "bedrock-agentcore:GetWorkloadAccessTokenForJWT"],
            resource_arns=[self.directory_arn, workload],
        )
        iam.Grant.add_to_principal(
            grantee=grantee,
            actions=["bedrock-agentcore:GetResourceOauth2Token"],
            resource_arns=[
                self.directory_arn,
                workload,
                self.vault_arn,
                *(provider.attr_credential_provider_arn for provider, _ in providers),
            ],
        )
        # The scope-down page does not say whose credentials read an EXTERNAL client secret when the
        # code is exchanged; the callers may read these secrets and nothing else.
        iam.Grant.add_to_principal(
            grantee=grantee,
            actions=["secretsmanager:GetSecretValue"],
            resource_arns=[secret.secret_arn for _, secret in providers],
        )
        if complete:
            iam.Grant.add_to_principal(
                grantee=grantee, actions=[COMPLETE_ACTION], resource_arns=[self.directory_arn, workload]
            )


def _secret_reference(
    secret: secretsmanager.Secret,
) -> agentcore.CfnOAuth2CredentialProvider.SecretReferenceProperty:
    return agentcore.CfnOAuth2CredentialProvider.SecretReferenceProperty(
        secret_id=secret.secret_arn, json_key=SECRET_KEY
    )
