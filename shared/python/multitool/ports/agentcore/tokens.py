"""A :class:`~multitool.ports.tokens.TokenSource` that asks AgentCore Identity for the user's own token.

With the user's token as the HTTP API received it: ``GetWorkloadAccessTokenForJWT`` (this stack's
workload, the user token) answers a workload access token bound to this workload and this user;
``GetResourceOauth2Token`` (``oauth2Flow=USER_FEDERATION``, the provider's credential provider, the
scopes, this stack's return URL) answers either the access token (the vault holds the user's
consent) or an authorization URL and a ``sessionUri`` (the user has not consented yet). The URL goes
back to the user as :class:`~multitool.ports.tokens.AccountNotConnected`; the ``sessionUri`` is
kept (:mod:`multitool.ports.connections`) so the callback can check that whoever completes the
consent is the user who asked, and is sent again on the first request after it ("on the way back").
Operations and shapes: botocore's ``bedrock-agentcore`` model (the layer's botocore 1.44.8,
infra/layer.lock); the flow: https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/oauth2-authorization-url-session-binding.html

A Slack user (the Slack function only, ``slack_users=True``): no JWT of the pool reaches the Slack
function, so its tokens are the vault's for a user id instead (``GetWorkloadAccessTokenForUserId``,
botocore's ``workloadName`` and ``userId``, 1 to 128 characters): :func:`slack_vault_user`, derived
from the directory person the Slack user's verified email matched (the account's ``email``, which the
Slack function sets from that match, never from the Slack payload). Anyone allowed that operation can
act as any user id ("Security controls for GetWorkloadAccessTokenForUserId",
https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/get-workload-access-token.html), so only
the Slack function's role may call it, on this stack's workload identity (infra/components/identity.py).
Its pending consent is kept under that vault user id, so the page can find it for the signed-in user
whose verified email is the same person's (:meth:`multitool.review.accounts.Accounts.complete`).

AgentCore offers no operation that deletes a user's token from the vault (botocore 1.44.8 lists
none), so a disconnected account is one this source will not take a token for again without a
fresh consent: its next request sends ``forceAuthentication`` ("always initiate a new 3LO flow,
regardless of any existing session", the operation's documentation), which answers a new link.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from multitool.observability import logger
from multitool.ports.connections import Connections
from multitool.ports.tokens import (
    PROVIDER_NAMES,
    Account,
    AccountNotConnected,
    Provider,
    ProviderRefused,
    ProviderThrottled,
    ProviderUnavailable,
)

if TYPE_CHECKING:
    from mypy_boto3_bedrock_agentcore import BedrockAgentCoreClient

USER_FEDERATION = "USER_FEDERATION"
SLACK_OWNER_PREFIX = "slack:"
"""A Slack user's owner id (:func:`multitool.slack.identity.owner_id`; a port imports no Slack module)."""
SLACK_VAULT_PREFIX = "slack-"


def slack_vault_user(email: str) -> str:
    """The token vault's user id of the directory person with address ``email``, asking from Slack:
    one per person (any Slack workspace or user id that matches them), 70 characters, within botocore's
    ``userId`` (1 to 128, no pattern). A digest: the vault and the connections table never hold the
    address itself."""
    return SLACK_VAULT_PREFIX + hashlib.sha256(email.strip().casefold().encode()).hexdigest()


THROTTLED_RETRY_AFTER_SECONDS = 2.0
_UNAVAILABLE = frozenset({"InternalServerException", "ServiceUnavailableException"})


class AgentCoreTokens:
    """One per function (its client and settings), safe to reuse across invocations."""

    def __init__(
        self,
        client: BedrockAgentCoreClient,
        *,
        workload_name: str,
        credential_providers: Mapping[Provider, str],
        return_url: str,
        connections: Connections,
        slack_users: bool = False,
    ) -> None:
        """``slack_users``: a Slack user's account (no user token) gets its person's vault token by user
        id; only the Slack function sets it (the only role IAM lets call
        ``GetWorkloadAccessTokenForUserId``)."""
        self._client = client
        self._slack_users = slack_users
        self._workload = workload_name
        self._providers = dict(credential_providers)
        self._return_url = return_url
        self._connections = connections
        self._last: tuple[str, str] | None = None  # (sha256 of the user token, its workload token)

    def access_token(self, provider: Provider, account: Account, scopes: Sequence[str]) -> str:
        name = self._providers.get(provider)
        if name is None:
            raise ProviderRefused(
                provider, f"This deployment does not connect {PROVIDER_NAMES[provider]} accounts."
            )
        owner, workload_token = self._vault_user(provider, account)
        connection = self._connections.get(owner, provider)
        request: dict[str, Any] = {
            "workloadIdentityToken": workload_token,
            "resourceCredentialProviderName": name,
            "scopes": list(scopes),
            "oauth2Flow": USER_FEDERATION,
            "resourceOauth2ReturnUrl": self._return_url,
        }
        if connection is not None and connection.status == "disconnected":
            request["forceAuthentication"] = True
        elif (
            connection is not None
            and connection.session_uri
            and connection.status in ("pending", "completed")
        ):
            request["sessionUri"] = connection.session_uri
        answer = self._oauth2_token(provider, request)
        if answer is None:
            # The session we sent expired or failed: ask once more for a fresh link.
            request.pop("sessionUri", None)
            answer = self._oauth2_token(provider, request) or {}
        token = answer.get("accessToken")
        if token:
            if connection is None or connection.status != "connected":
                self._connections.connected(owner, provider)
            return str(token)
        url, uri = answer.get("authorizationUrl"), answer.get("sessionUri")
        if url and uri:
            self._connections.pending(owner, provider, str(uri))
            raise AccountNotConnected(provider, authorization_url=str(url))
        logger.warning("AgentCore Identity answered no token and no link", extra={"provider": provider})
        raise ProviderUnavailable(
            provider, f"{PROVIDER_NAMES[provider]} could not be reached; try again shortly."
        )

    def _vault_user(self, provider: Provider, account: Account) -> tuple[str, str]:
        """Whose consents these are (the connections' owner) and the workload token for them."""
        if account.user_token:
            return account.user_id, self._workload_token(provider, account.user_token)
        if self._slack_users and account.user_id.startswith(SLACK_OWNER_PREFIX) and account.email:
            user = slack_vault_user(account.email)
            return user, self._workload_token(provider, None, user)
        # The Gateway's tool Lambdas and other paths that carry no user token cannot ask for one.
        raise AccountNotConnected(
            provider,
            f"Your {PROVIDER_NAMES[provider]} account can only be used from the chat or the review.",
        )

    def _workload_token(self, provider: Provider, user_token: str | None, user_id: str = "") -> str:
        """For the user's JWT (``GetWorkloadAccessTokenForJWT``), or for ``user_id`` without one
        (``GetWorkloadAccessTokenForUserId``); the last one kept for the next call of the same user."""
        key = f"jwt:{user_token}" if user_token else f"user:{user_id}"
        digest = hashlib.sha256(key.encode()).hexdigest()
        if self._last is not None and self._last[0] == digest:
            return self._last[1]
        try:
            if user_token:
                answer = self._client.get_workload_access_token_for_jwt(
                    workloadName=self._workload, userToken=user_token
                )
            else:
                answer = self._client.get_workload_access_token_for_user_id(
                    workloadName=self._workload, userId=user_id
                )
        except (ClientError, BotoCoreError) as error:
            raise mapped_error(provider, error) from error
        token = answer["workloadAccessToken"]
        self._last = (digest, token)
        return token

    def _oauth2_token(self, provider: Provider, request: dict[str, Any]) -> dict[str, Any] | None:
        """The answer, or None when the ``sessionUri`` sent is no longer usable (expired or failed)."""
        try:
            answer = dict(self._client.get_resource_oauth2_token(**request))
        except ClientError as error:
            if "sessionUri" in request and _code(error) == "ValidationException":
                return None
            raise mapped_error(provider, error) from error
        except BotoCoreError as error:
            raise mapped_error(provider, error) from error
        if (
            "sessionUri" in request
            and answer.get("sessionStatus") == "FAILED"
            and not answer.get("accessToken")
        ):
            return None
        return answer


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def mapped_error(provider: Provider, error: ClientError | BotoCoreError) -> Exception:
    """One place for AgentCore Identity's errors: the provider errors every adapter raises."""
    name = PROVIDER_NAMES[provider]
    code = _code(error) if isinstance(error, ClientError) else type(error).__name__
    logger.warning("AgentCore Identity refused", extra={"provider": provider, "code": code})
    if code == "ThrottlingException":
        return ProviderThrottled(
            provider,
            f"Too many requests for {name} accounts; try again shortly.",
            retry_after=THROTTLED_RETRY_AFTER_SECONDS,
        )
    if isinstance(error, BotoCoreError) or code in _UNAVAILABLE:
        return ProviderUnavailable(provider, f"{name} could not be reached; try again shortly.")
    if code == "UnauthorizedException":
        return AccountNotConnected(provider, f"Your sign-in was not accepted for {name}; sign in again.")
    # AccessDenied, ResourceNotFound, Validation: this deployment's identity setup, not the user's doing.
    return ProviderRefused(
        provider, f"This deployment could not reach {name} accounts; ask its administrator."
    )
