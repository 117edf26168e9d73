"""The HTTP API: Cognito JWT on every route, CORS for the page's origin, throttled, access-logged."""

from __future__ import annotations

import json
from collections.abc import Sequence

import aws_cdk as cdk
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_authorizers as authorizers
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct
from multitool.local.deployed.login import CALLBACK_URL

from infra.components.mail import SenderIdentity
from infra.nag import acknowledge

# One line per request; ids and status only, never bodies or tokens. The one claim is the caller's
# ``sub`` (an opaque id, never the address), so a request can be traced to its user
# (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-logging-variables.html).
ACCESS_LOG_FORMAT = json.dumps(
    {
        "requestId": "$context.requestId",
        "sub": "$context.authorizer.claims.sub",
        "requestTime": "$context.requestTime",
        "sourceIp": "$context.identity.sourceIp",
        "routeKey": "$context.routeKey",
        "status": "$context.status",
        "responseLength": "$context.responseLength",
        "latencyMs": "$context.responseLatency",
        "integrationStatus": "$context.integrationStatus",
        "integrationError": "$context.integrationErrorMessage",
        "authorizerError": "$context.authorizer.error",
    }
)


APPROVED_GROUP = "approved"


def _pool_email(sender: SenderIdentity | None) -> cognito.UserPoolEmail | None:
    """Who mails the pool's invitations and codes: Cognito's own sender (None), or SES from the
    stack's sender address. Cognito's default sends at most 50 emails a day per account; through SES
    the sender's own SES quota applies, and the address must be a verified SES identity when the pool
    is created or updated ("Email settings for Amazon Cognito user pools",
    https://docs.aws.amazon.com/cognito/latest/developerguide/user-pool-email.html)."""
    if sender is None:
        return None
    return cognito.UserPoolEmail.with_ses(
        from_email=sender.sender_email,
        ses_region=cdk.Stack.of(sender).region,
        configuration_set_name=sender.configuration_set,
    )


class UserDirectory(Construct):
    """The Cognito user pool, its managed sign-in domain and the page's app client: created, or existing.

    A new pool gets a prefix domain with managed login (``multitool-<stack id>`` unless the context names
    one) and a public app client using the authorization-code flow with PKCE only. The client is added by
    :meth:`add_web_client` once the page's URL (the distribution) exists: its callback URLs are that URL.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        user_pool_id: str | None,
        user_pool_client_id: str | None,
        user_pool_domain: str | None = None,
        domain_prefix: str | None = None,
        self_sign_up: bool = False,
        ses_sender: SenderIdentity | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        # A pool id starts with its region (eu-west-1_AbC123): tokens are issued there.
        self.region: str | None = user_pool_id.split("_", 1)[0] if user_pool_id else None
        self._client: cognito.IUserPoolClient | None = None
        self.cli_client: cognito.IUserPoolClient | None = None
        self.domain: cognito.UserPoolDomain | None = None
        # With self sign-up, only members of this group may confirm: an administrator approves a user by
        # adding them (the group's name is the pool's own namespace, not a global physical name).
        self.approved_group: str | None = None
        # The managed sign-in origin (https://...): None for an existing pool whose domain is not given.
        self.sign_in_origin: str | None = user_pool_domain
        if user_pool_id and user_pool_client_id:
            self.user_pool: cognito.IUserPool = cognito.UserPool.from_user_pool_id(self, "Pool", user_pool_id)
            self._client = cognito.UserPoolClient.from_user_pool_client_id(
                self, "Client", user_pool_client_id
            )
            return
        pool = cognito.UserPool(
            self,
            "Pool",
            self_sign_up_enabled=self_sign_up,
            sign_in_aliases=cognito.SignInAliases(email=True),
            auto_verify=cognito.AutoVerifiedAttrs(email=True),
            password_policy=cognito.PasswordPolicy(
                min_length=12,
                require_lowercase=True,
                require_uppercase=True,
                require_digits=True,
                require_symbols=True,
            ),
            mfa=cognito.Mfa.OPTIONAL,
            mfa_second_factor=cognito.MfaSecondFactor(otp=True, sms=False),
            account_recovery=cognito.AccountRecovery.EMAIL_ONLY,
            feature_plan=cognito.FeaturePlan.ESSENTIALS,
            email=_pool_email(ses_sender),
            # The users survive an update that replaces the pool and a stack deletion; a first create
            # that rolls back deletes it (RetainExceptOnCreate), so a failed first deploy leaves no pool.
            removal_policy=cdk.RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        if ses_sender is not None and ses_sender.identity is not None:
            pool.node.add_dependency(ses_sender.identity)  # Cognito checks the identity when it is set
        self.user_pool = pool
        if self_sign_up:
            group = cognito.CfnUserPoolGroup(
                self,
                "ApprovedGroup",
                user_pool_id=pool.user_pool_id,
                group_name=APPROVED_GROUP,
                description="Users an administrator approved: only they can send, book or create",
            )
            self.approved_group = group.group_name
        # A prefix is unique per region across all of AWS: the stack id's UUID part makes it ours.
        prefix = domain_prefix or cdk.Fn.join(
            "-", ["multitool", cdk.Fn.select(2, cdk.Fn.split("/", cdk.Aws.STACK_ID))]
        )
        self.domain = pool.add_domain(
            "Domain",
            cognito_domain=cognito.CognitoDomainOptions(domain_prefix=prefix),
            managed_login_version=cognito.ManagedLoginVersion.NEWER_MANAGED_LOGIN,
        )
        self.sign_in_origin = self.domain.base_url()
        acknowledge(
            pool,
            "MFA is optional so an administrator-created user can sign in on the managed login page "
            "with a password; users can enrol a TOTP factor. Pass an existing pool (userPoolId) to "
            "enforce MFA.",
            "AwsSolutions-COG2",
        )
        acknowledge(
            pool,
            "Essentials plan: sign-up is closed by default (administrators create users), so Plus's threat "
            "protection is the operator's cost decision rather than a default.",
            "AwsSolutions-COG8",
        )

    @property
    def client(self) -> cognito.IUserPoolClient:
        if self._client is None:
            raise RuntimeError("add_web_client() first: the client needs the page's URL")
        return self._client

    @property
    def creates_client(self) -> bool:
        return isinstance(self.user_pool, cognito.UserPool)

    def add_web_client(self, sign_in_urls: Sequence[str]) -> cognito.IUserPoolClient:
        """The page's public client (no secret): authorization code with PKCE, callbacks = ``sign_in_urls``.

        An existing pool keeps its client; its callback URLs are the operator's to set (the README says
        which). Managed login needs a style per client: Cognito's default one.
        """
        if self._client is not None:
            return self._client
        # The page signs in through managed login only: no password or SRP flow from the browser.
        client = self._public_client("WebClient", list(sign_in_urls))
        self._managed_login_style("ManagedLoginStyle", client)
        self._client = client
        return client

    def add_cli_client(self) -> cognito.IUserPoolClient | None:
        """The command line's own public client (``multitool login``): the code grant with PKCE in the
        browser, one callback on localhost, never the page's client. None for an existing pool: its
        operator registers ``CALLBACK_URL`` on a public client of theirs (docs/deploy.md says how).

        Cognito allows plain HTTP callbacks for http://localhost only, matched exactly (port included):
        https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/cognitoidentityprovider/aws.sdk.kotlin.services.cognitoidentityprovider.model/-create-user-pool-client-request/callback-urls.html
        """
        if not self.creates_client:
            return None
        # No password or SRP flow: the password is typed on the managed login page, never in a shell.
        client = self._public_client("CliClient", [CALLBACK_URL])
        self._managed_login_style("CliManagedLoginStyle", client)
        self.cli_client = client
        return client

    @property
    def api_clients(self) -> list[cognito.IUserPoolClient]:
        """The clients whose tokens the API accepts: the page's and the command line's."""
        return [self.client, *([self.cli_client] if self.cli_client is not None else [])]

    def _public_client(self, construct_id: str, callback_urls: list[str]) -> cognito.UserPoolClient:
        """A client with no secret that signs in through managed login only (the code grant with PKCE,
        no password or SRP flow), back to ``callback_urls``; short-lived tokens, revocable."""
        assert isinstance(self.user_pool, cognito.UserPool)
        return self.user_pool.add_client(
            construct_id,
            generate_secret=False,
            auth_flows=cognito.AuthFlow(user_srp=False, user_password=False),
            o_auth=cognito.OAuthSettings(
                flows=cognito.OAuthFlows(authorization_code_grant=True, implicit_code_grant=False),
                scopes=[cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE],
                callback_urls=callback_urls,
                logout_urls=callback_urls,
            ),
            supported_identity_providers=[cognito.UserPoolClientIdentityProvider.COGNITO],
            prevent_user_existence_errors=True,
            enable_token_revocation=True,
            access_token_validity=cdk.Duration.hours(1),
            id_token_validity=cdk.Duration.hours(1),
            refresh_token_validity=cdk.Duration.hours(12),
        )

    def _managed_login_style(self, construct_id: str, client: cognito.IUserPoolClient) -> None:
        # Managed login needs a style per client: Cognito's default one.
        branding = cognito.CfnManagedLoginBranding(
            self,
            construct_id,
            user_pool_id=self.user_pool.user_pool_id,
            client_id=client.user_pool_client_id,
            use_cognito_provided_values=True,
        )
        if self.domain is not None:
            branding.node.add_dependency(self.domain)


class ChatApi(Construct):
    """POST /chat, GET /turns/{id} and GET /sessions/{id} to the orchestrator; /actions/{id}, confirm,
    discard to review."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        users: UserDirectory,
        orchestrator: lambda_.IFunction,
        review: lambda_.IFunction,
        web_origins: Sequence[str],
        rate_limit: float,
        burst_limit: int,
        log_retention: logs.RetentionDays,
    ) -> None:
        super().__init__(scope, construct_id)
        authorizer = authorizers.HttpUserPoolAuthorizer(
            "CognitoAuthorizer",
            users.user_pool,
            user_pool_clients=users.api_clients,
            user_pool_region=users.region,
        )
        self.http_api = apigwv2.HttpApi(
            self,
            "HttpApi",
            description="multitool chat and review API",
            default_authorizer=authorizer,
            create_default_stage=False,
            cors_preflight=apigwv2.CorsPreflightOptions(
                allow_origins=list(dict.fromkeys(web_origins)),
                allow_methods=[apigwv2.CorsHttpMethod.GET, apigwv2.CorsHttpMethod.POST],
                allow_headers=["authorization", "content-type", "idempotency-key", "prefer"],
                max_age=cdk.Duration.hours(1),
            ),
        )
        chat = integrations.HttpLambdaIntegration("Chat", orchestrator)
        actions = integrations.HttpLambdaIntegration("Actions", review)
        self.http_api.add_routes(path="/chat", methods=[apigwv2.HttpMethod.POST], integration=chat)
        # A turn started with Prefer: respond-async, read by its owner while it runs (same function).
        self.http_api.add_routes(path="/turns/{id}", methods=[apigwv2.HttpMethod.GET], integration=chat)
        self.http_api.add_routes(path="/sessions/{id}", methods=[apigwv2.HttpMethod.GET], integration=chat)
        self.http_api.add_routes(path="/actions/{id}", methods=[apigwv2.HttpMethod.GET], integration=actions)
        for verb in ("confirm", "discard", "undo"):
            self.http_api.add_routes(
                path=f"/actions/{{id}}/{verb}", methods=[apigwv2.HttpMethod.POST], integration=actions
            )
        # Several cards at once, in dependency order (multitool.review.links).
        self.http_api.add_routes(
            path="/actions/confirm-all", methods=[apigwv2.HttpMethod.POST], integration=actions
        )
        # A user's own accounts (multitool.review.accounts): 404 not_found on a stack without identity=...
        self.http_api.add_routes(path="/connections", methods=[apigwv2.HttpMethod.GET], integration=actions)
        for path in ("/connections/complete", "/connections/{provider}/disconnect"):
            self.http_api.add_routes(path=path, methods=[apigwv2.HttpMethod.POST], integration=actions)

        self.access_logs = logs.LogGroup(
            self, "AccessLogs", retention=log_retention, removal_policy=cdk.RemovalPolicy.DESTROY
        )
        self.stage = apigwv2.HttpStage(
            self,
            "DefaultStage",
            http_api=self.http_api,
            stage_name="$default",
            auto_deploy=True,
            throttle=apigwv2.ThrottleSettings(rate_limit=rate_limit, burst_limit=burst_limit),
        )
        cfn_stage = self.stage.node.default_child
        assert isinstance(cfn_stage, apigwv2.CfnStage)
        cfn_stage.access_log_settings = apigwv2.CfnStage.AccessLogSettingsProperty(
            destination_arn=self.access_logs.log_group_arn, format=ACCESS_LOG_FORMAT
        )

    @property
    def url(self) -> str:
        return self.stage.url

    @property
    def endpoint(self) -> str:
        """The API's base URL without the trailing slash: the page appends ``/chat``."""
        return self.http_api.api_endpoint
