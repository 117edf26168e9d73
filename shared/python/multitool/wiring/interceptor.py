"""The user Gateway's interceptor's adapters (``functions/mcp_caller``): the caller-signing key in
Secrets Manager (``CALLER_KEY_SECRET_ARN``) and the Cognito pool that says who the token's user is
(``USER_POOL_ID``), read once per execution environment, on the first request."""

from __future__ import annotations

import functools

from multitool.ports.agentcore.gateway_caller import Interceptor, cognito_profile, secret_key


@functools.cache
def aws_interceptor() -> Interceptor:
    """The interceptor Lambda's key and directory, read once per execution environment."""
    import boto3

    from multitool.settings import InterceptorSettings

    settings = InterceptorSettings.from_env()
    return Interceptor(
        secret_key(boto3.client("secretsmanager"), settings.caller_key_secret_arn),
        cognito_profile(boto3.client("cognito-idp"), settings.user_pool_id),
    )
