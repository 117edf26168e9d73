"""The user Gateway: the tools for outside MCP clients (Claude, VS Code, Cursor), as the signed-in user.

``executor=gateway`` puts the action-group Lambdas behind the harness's IAM-authorized Gateway
(:mod:`infra.components.tool_gateway`). A Gateway has one inbound authorizer, and people's MCP clients
hold no AWS credentials, so they get a second Gateway with the same three Lambda targets:

- Inbound, a JWT authorizer on the stack's Cognito pool: its OIDC discovery URL, the MCP app
  client as the only allowed client and the pool's ``multitool/tools`` scope as the required one
  (https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/inbound-jwt-authorizer.html).
  Cognito access tokens carry no ``aud``; their ``client_id`` is the app client
  (https://docs.aws.amazon.com/verifiedpermissions/latest/userguide/cognito-validation.html), so the
  allowed client and the resource server's scope are what bind a token to this Gateway: a token of
  the page's client, or without the scope, is refused.
- The MCP app client: public (no secret), the authorization code grant only, with the PKCE S256
  challenge every MCP client sends and Cognito verifies
  (https://docs.aws.amazon.com/cognito/latest/developerguide/authorization-endpoint.html), scopes
  ``openid`` and ``multitool/tools``, callbacks from the ``mcpCallbackUrls`` context (Cognito
  matches them exactly, and takes plain http for localhost only).
- A REQUEST interceptor Lambda (:mod:`multitool.ports.agentcore.gateway_caller`), headers passed
  (https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/gateway-interceptors-configuration.html):
  it adds the verified caller to each ``tools/call`` as a signed argument, with a key in a secret
  that only it and the three targets may read. So drafts made from an outside client are the
  signed-in user's, confirmable in the page.

Cognito publishes no RFC 8414 metadata with ``code_challenge_methods_supported``, and no dynamic
registration: a client is configured with the app client id and the scope (docs/mcp.md), which the
stack outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import aws_cdk as cdk
from aws_cdk import aws_bedrockagentcore as agentcore
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_iam as iam
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from infra.components.api import UserDirectory
from infra.components.functions import FunctionSpec, MultitoolFunction
from infra.components.tool_gateway import INSTRUCTIONS, SERVICE_PRINCIPAL, _cfn, target_name, tool_schema
from infra.memory import INTERACTIVE_MEMORY_MB
from infra.nag import acknowledge

RESOURCE_SERVER = "multitool"
TOOLS_SCOPE = "tools"
SCOPE = f"{RESOURCE_SERVER}/{TOOLS_SCOPE}"
"""The scope an MCP client asks for (the local stand-in's :data:`multitool.local.standins.oidc.MCP_SCOPE`)."""


class UserToolGateway(Construct):
    """A Cognito-JWT-authorized MCP Gateway over the action-group Lambdas, with the caller interceptor."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        users: UserDirectory,
        functions: Mapping[str, MultitoolFunction],
        make_function: Callable[[str, FunctionSpec], MultitoolFunction],
        callback_urls: Sequence[str],
    ) -> None:
        super().__init__(scope, construct_id)
        stack = cdk.Stack.of(self)
        pool = users.user_pool
        assert isinstance(pool, cognito.UserPool), "the user Gateway needs the stack's own pool"

        server = pool.add_resource_server(
            "McpResourceServer",
            identifier=RESOURCE_SERVER,
            scopes=[
                cognito.ResourceServerScope(scope_name=TOOLS_SCOPE, scope_description="Draft with multitool")
            ],
        )
        tools_scope = cognito.OAuthScope.resource_server(
            server,
            cognito.ResourceServerScope(scope_name=TOOLS_SCOPE, scope_description="Draft with multitool"),
        )
        self.client = pool.add_client(
            "McpClient",
            generate_secret=False,
            auth_flows=cognito.AuthFlow(user_srp=False, user_password=False),
            o_auth=cognito.OAuthSettings(
                flows=cognito.OAuthFlows(authorization_code_grant=True, implicit_code_grant=False),
                scopes=[cognito.OAuthScope.OPENID, tools_scope],
                callback_urls=list(callback_urls),
            ),
            supported_identity_providers=[cognito.UserPoolClientIdentityProvider.COGNITO],
            prevent_user_existence_errors=True,
            enable_token_revocation=True,
            access_token_validity=cdk.Duration.hours(1),
            id_token_validity=cdk.Duration.hours(1),
            refresh_token_validity=cdk.Duration.hours(12),
        )
        cognito.CfnManagedLoginBranding(
            self,
            "McpManagedLoginStyle",
            user_pool_id=pool.user_pool_id,
            client_id=self.client.user_pool_client_id,
            use_cognito_provided_values=True,
        ).node.add_dependency(*([users.domain] if users.domain is not None else []))

        # The caller-signing key: read by the interceptor and the targets, by nobody else.
        self.caller_key = secretsmanager.Secret(
            self,
            "CallerKey",
            description="multitool user Gateway: signs the caller the interceptor names to the tools",
            generate_secret_string=secretsmanager.SecretStringGenerator(
                password_length=64, exclude_punctuation=True, include_space=False
            ),
        )
        acknowledge(
            self.caller_key,
            "An HMAC key for caller arguments that live five minutes: the functions read it once per "
            "execution environment, so rotating means redeploying; the stack's deploy makes a new one.",
            "AwsSolutions-SMG4",
        )
        self.interceptor = make_function(
            "McpCaller",
            FunctionSpec(
                "mcp_caller",
                "The user Gateway's request interceptor: names the signed-in user to the tools",
                timeout_seconds=10,
                memory_mb=INTERACTIVE_MEMORY_MB,  # it runs before every tools/call: someone waits
                environment={
                    "USER_POOL_ID": pool.user_pool_id,
                    "CALLER_KEY_SECRET_ARN": self.caller_key.secret_arn,
                },
            ),
        )
        self.caller_key.grant_read(self.interceptor.role)
        # A Cognito access token carries neither the email nor the zone: read them, for this pool only.
        self.interceptor.role.add_to_principal_policy(
            iam.PolicyStatement(actions=["cognito-idp:AdminGetUser"], resources=[pool.user_pool_arn])
        )
        for fn in functions.values():
            fn.function.add_environment("CALLER_KEY_SECRET_ARN", self.caller_key.secret_arn)
            self.caller_key.grant_read(fn.role)

        self.role = iam.Role(
            self,
            "Role",
            description="multitool user Gateway: invokes the action-group Lambdas and its interceptor only",
            assumed_by=iam.ServicePrincipal(
                SERVICE_PRINCIPAL,
                conditions={
                    "StringEquals": {"aws:SourceAccount": stack.account},
                    "ArnLike": {
                        "aws:SourceArn": stack.format_arn(service="bedrock-agentcore", resource="gateway/*")
                    },
                },
            ),
        )
        discovery = f"https://cognito-idp.{stack.region}.amazonaws.com/{pool.user_pool_id}/.well-known/openid-configuration"
        self.gateway = agentcore.Gateway(
            self,
            "Gateway",
            gateway_name=cdk.Names.unique_resource_name(self, max_length=48, separator="-").lower(),
            description="multitool tools for MCP clients, as the signed-in user: drafts for review",
            authorizer_configuration=agentcore.GatewayAuthorizer.using_custom_jwt(
                discovery_url=discovery,
                allowed_clients=[self.client.user_pool_client_id],
                allowed_scopes=[SCOPE],
            ),
            interceptor_configurations=[
                agentcore.LambdaInterceptor.for_request(self.interceptor.function, pass_request_headers=True)
            ],
            protocol_configuration=agentcore.McpProtocolConfiguration(
                instructions=INSTRUCTIONS, supported_versions=[agentcore.MCPProtocolVersion.MCP_2025_03_26]
            ),
            role=self.role,
        )
        for group, fn in functions.items():
            self.gateway.add_lambda_target(
                f"{''.join(p.capitalize() for p in group.split('_'))}Target",
                gateway_target_name=target_name(group),
                description=f"multitool {group}",
                lambda_function=fn.function,
                tool_schema=tool_schema(group),
            )

        policy = self.role.node.try_find_child("DefaultPolicy")
        if policy is not None:
            invoked = [*(fn.function for fn in functions.values()), self.interceptor.function]
            acknowledge(
                policy,
                "The user Gateway invokes each target and its interceptor as the function ARN or a "
                "qualified version of that same function (ARN:*), as Lambda's own grantInvoke writes it; "
                "no other function.",
                *(f"AwsSolutions-IAM5[Resource::<{stack.get_logical_id(_cfn(fn))}.Arn>:*]" for fn in invoked),
            )

    @property
    def url(self) -> str:
        return self.gateway.gateway_url or ""
