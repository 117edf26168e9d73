"""The Slack app's AWS side: its two secrets, and its route on the HTTP API without the JWT authorizer.

Slack calls one request URL for events and interactions alike, ``https://<api>/slack/events`` (Bolt's
default path), and authenticates each request with its signing secret, which the function checks
before anything is parsed (``multitool.slack.verify``): Slack cannot send a Cognito token, so that
route alone has no JWT authorizer. The function itself is made and granted in the stack (it runs the
orchestrator's turns and the review's confirms, with their grants).

The two secrets hold plain strings the operator pastes after the deploy (docs/slack.md): until then
they hold a generated value no Slack workspace signs with or issues, so every request is refused
(401) and no call to Slack is authorized.
"""

from __future__ import annotations

from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from infra.nag import acknowledge

ROUTE = "/slack/events"
ROTATION = (
    "Slack issues the bot token and the signing secret (the app's settings, OAuth & Permissions and "
    "Basic Information); Secrets Manager cannot rotate them. Regenerate them in Slack and put the new "
    "value in this secret (docs/slack.md)."
)


class SlackSecrets(Construct):
    """``BotToken`` (``xoxb-…``) and ``SigningSecret``: plain strings only the Slack function reads."""

    def __init__(
        self, scope: Construct, construct_id: str, *, encryption_key: kms.IKey | None = None
    ) -> None:
        super().__init__(scope, construct_id)
        self._key = encryption_key
        self.bot_token = self._secret(
            "BotToken", "multitool Slack app: the bot token (xoxb-...), a plain string"
        )
        self.signing_secret = self._secret(
            "SigningSecret", "multitool Slack app: the signing secret (Basic Information), a plain string"
        )

    def _secret(self, construct_id: str, description: str) -> secretsmanager.Secret:
        secret = secretsmanager.Secret(
            self,
            construct_id,
            description=description,
            encryption_key=self._key,
            generate_secret_string=secretsmanager.SecretStringGenerator(
                exclude_punctuation=True, password_length=32
            ),
        )
        acknowledge(secret, ROTATION, "AwsSolutions-SMG4")
        return secret

    def environment(self) -> dict[str, str]:
        return {
            "SLACK_BOT_TOKEN_ARN": self.bot_token.secret_arn,
            "SLACK_SIGNING_SECRET_ARN": self.signing_secret.secret_arn,
        }

    def grant_read(self, grantee: iam.IGrantable) -> None:
        """secretsmanager:GetSecretValue on these two secrets only: the one call the function makes."""
        iam.Grant.add_to_principal(
            grantee=grantee,
            actions=["secretsmanager:GetSecretValue"],
            resource_arns=[self.bot_token.secret_arn, self.signing_secret.secret_arn],
        )


def add_slack_route(http_api: apigwv2.HttpApi, function: lambda_.IFunction) -> None:
    """``POST /slack/events`` to ``function``, with no authorizer: Slack's signature is the authentication."""
    routes = http_api.add_routes(
        path=ROUTE,
        methods=[apigwv2.HttpMethod.POST],
        integration=integrations.HttpLambdaIntegration("Slack", function),
        authorizer=apigwv2.HttpNoneAuthorizer(),
    )
    for route in routes:
        acknowledge(
            route,
            "Slack cannot send a Cognito token: every request on this route is authenticated by Slack's "
            "v0 signature with the app's signing secret, checked by the function before the body is read "
            "(multitool.slack.verify); an unsigned or stale request is 401.",
            "AwsSolutions-APIG4",
        )
