"""A user's own accounts: the consent card a turn or a confirm answers when an account is not connected,
the callback that finishes a consent for the user who asked, which accounts are connected, disconnect.

The consent flow (AgentCore Identity's session binding,
https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/oauth2-authorization-url-session-binding.html):
the token source answers the authorization URL (:class:`multitool.ports.tokens.AccountNotConnected`),
the page shows it as a ``show_connect_account`` card and opens it; the user consents at the provider,
which returns through AgentCore to this stack's return URL (the page) with the session in the
``session_id`` query parameter; the page, signed in, posts it to ``POST /connections/complete``, where
:meth:`Accounts.complete` checks that the signed-in user is the user the consent was started for and
only then calls ``CompleteResourceTokenAuth(sessionUri, userIdentifier={"userToken": <the caller's
JWT>})``, so AgentCore checks the same binding again on its side. A callback completed by any other
signed-in user is refused (403 ``consent_not_yours``), and the user who asked can still finish it.

A consent started from Slack (docs/slack.md) comes back to the same page, where the person signs in as
usual. Its pending session is kept under the vault user id of the directory person the Slack user was
matched to (:func:`multitool.ports.agentcore.tokens.slack_vault_user`), so it is found for the signed-in
user only when their verified email is that same directory person's (:meth:`Accounts.complete` asks
the directory, as the Slack function did); the completion then names that vault user
(``userIdentifier={"userId": ...}``, the union's other member in botocore's model). A link forwarded to
and finished by anyone else finds no consent of theirs: 403, nothing bound.
"""

import re
from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Literal, Protocol

from botocore.exceptions import BotoCoreError, ClientError

from multitool.errors import ServiceError
from multitool.ports.agentcore.tokens import mapped_error, slack_vault_user
from multitool.ports.connections import Connections, ConsentNotFound
from multitool.ports.directory import Directory
from multitool.ports.tokens import PROVIDER_NAMES, Provider
from multitool.wire import WireModel

if TYPE_CHECKING:
    from mypy_boto3_bedrock_agentcore import BedrockAgentCoreClient
    from mypy_boto3_bedrock_agentcore.type_defs import UserIdentifierTypeDef

# botocore's CompleteResourceTokenAuth sessionUri: at most 1024 characters of this pattern.
SESSION_URI = re.compile(r"^urn:ietf:params:oauth:request_uri:[a-zA-Z0-9\-._~]{1,990}$")


class ConsentRefused(ServiceError):
    """This consent was not started by the signed-in user, is finished, or expired: nothing was connected."""

    code = "consent_not_yours"
    status = HTTPStatus.FORBIDDEN
    answer = (
        "This consent link was not started by you, or it expired or was already used: nothing was "
        "connected. Ask again from the chat to get your own link."
    )


class InvalidConsent(ServiceError):
    code = "bad_request"
    status = HTTPStatus.BAD_REQUEST

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field

    def detail(self) -> dict[str, Any]:
        return {"field": self.field}


class AccountsNotConfigured(ServiceError):
    code = "not_found"
    status = HTTPStatus.NOT_FOUND
    answer = "This deployment connects no accounts of its users."


class ConnectionView(WireModel):
    provider: Provider
    provider_name: str
    status: Literal["connected", "not_connected", "pending", "disconnected"]


class ConnectionsView(WireModel):
    connections: list[ConnectionView]


class People(Protocol):
    def person_address(self, email: str) -> str | None:
        """The directory person's own address when exactly one person has ``email`` (any case), else None."""
        ...


class DirectoryPeople:
    """A signed-in user's directory person as the Slack app matches one (``who_is``): the one person whose
    own address is the verified email, in one read."""

    def __init__(self, directory: Directory) -> None:
        self._directory = directory

    def person_address(self, email: str) -> str | None:
        found = self._directory.resolve([email]).get(email)
        person = found.person if found is not None and found.settled else None
        if person is None or person.email.casefold() != email.casefold():
            return None
        return str(person.email)


class Accounts:
    def __init__(
        self,
        client: "BedrockAgentCoreClient",
        connections: Connections,
        providers: Sequence[Provider],
        people: People | None = None,
    ) -> None:
        """``people``: the directory, to find a consent started from Slack for the signed-in user's
        person; None: only the signed-in user's own consents complete."""
        self._client = client
        self._connections = connections
        self._providers = tuple(providers)
        self._people = people

    def _provider(self, value: Any) -> Provider:
        if value not in self._providers:
            allowed = ", ".join(self._providers)
            raise InvalidConsent(f"provider: must be one of {allowed}.", "provider")
        provider: Provider = value
        return provider

    def complete(
        self, user_id: str, user_token: str | None, body: Mapping[str, Any], email: str | None = None
    ) -> ConnectionView:
        """``email``: the signed-in user's verified address (None when the token does not vouch for it)."""
        session_uri = body.get("sessionUri")
        if not isinstance(session_uri, str) or not SESSION_URI.match(session_uri):
            raise InvalidConsent(
                "sessionUri: must be the session_id the consent returned with "
                "(urn:ietf:params:oauth:request_uri:...).",
                "sessionUri",
            )
        provider = self._provider(
            body.get("provider", self._providers[0] if len(self._providers) == 1 else None)
        )
        if not user_token:
            raise InvalidConsent(
                "Authorization: the consent is finished with the user's own sign-in.", "Authorization"
            )
        identifier = self._consent_of(user_id, user_token, email, provider, session_uri)
        try:
            self._client.complete_resource_token_auth(sessionUri=session_uri, userIdentifier=identifier)
        except (ClientError, BotoCoreError) as error:
            raise mapped_error(provider, error) from error
        return ConnectionView(provider=provider, provider_name=PROVIDER_NAMES[provider], status="connected")

    def _consent_of(
        self, user_id: str, user_token: str, email: str | None, provider: Provider, session_uri: str
    ) -> "UserIdentifierTypeDef":
        """Marks the signed-in user's pending consent for ``session_uri`` completed: their own (the page's),
        else the one their directory person started from Slack; the vault user to complete it for."""
        try:
            self._connections.complete(user_id, provider, session_uri)
            return {"userToken": user_token}
        except ConsentNotFound:
            pass
        address = self._people.person_address(email) if self._people is not None and email else None
        if address is None:
            raise ConsentRefused("consent not started by this user")
        vault_user = slack_vault_user(address)
        try:
            self._connections.complete(vault_user, provider, session_uri)
        except ConsentNotFound:
            raise ConsentRefused("consent not started by this user's person") from None
        return {"userId": vault_user}

    def list(self, user_id: str) -> ConnectionsView:
        found = {c.provider: c for c in self._connections.of(user_id, self._providers)}
        views = []
        for provider in self._providers:
            connection = found.get(provider)
            status: Any = "not_connected"
            if connection is not None:
                # A completed consent is the vault's token: connected, though no call has used it yet.
                status = "connected" if connection.status == "completed" else connection.status
            views.append(
                ConnectionView(provider=provider, provider_name=PROVIDER_NAMES[provider], status=status)
            )
        return ConnectionsView(connections=views)

    def disconnect(self, user_id: str, provider_value: str) -> ConnectionView:
        """AgentCore offers no call that removes a user's token from its vault: the account is marked
        disconnected, and the token source asks for a fresh consent (``forceAuthentication``) before it
        takes a token for it again."""
        provider = self._provider(provider_value)
        self._connections.disconnected(user_id, provider)
        return ConnectionView(
            provider=provider, provider_name=PROVIDER_NAMES[provider], status="disconnected"
        )
