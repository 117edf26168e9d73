"""The consent card: what a turn or a confirm answers when the user's own account is not connected yet.

``{"type": "show_connect_account", "id": "connect-<provider>", "provider", "providerName",
"authorizationUrl"}``: the page shows the provider and a link that opens the authorization URL
(:mod:`multitool.review.accounts` says how the consent comes back). Not a tool's card: no draft stands
behind it, so it has nothing to confirm or discard.
"""

from typing import Literal

from pydantic import Field

from multitool.ports.tokens import PROVIDER_NAMES, AccountNotConnected, Provider
from multitool.toolkit.cards import TYPE_ALIAS, Card, CardSpec

CONNECT_ACTION = "show_connect_account"


class ConnectAccountCard(Card):
    """Connect an account before the turn or the confirm can go on; nothing was sent."""

    type: Literal["show_connect_account"] = Field(validation_alias=TYPE_ALIAS)
    provider: Provider
    provider_name: str = Field(description="The provider's name as the user knows it: Microsoft 365, ...")
    authorization_url: str = Field(
        max_length=4096, description="Where the user consents, at the provider (through AgentCore Identity)"
    )


CONNECT_CARD: CardSpec[ConnectAccountCard] = CardSpec(
    ConnectAccountCard,
    fingerprint=lambda card: (card.provider,),
    caption=lambda card: f"Connect your {card.provider_name} account to go on: nothing was sent.",
    held="sent",
)


def connect_card(error: AccountNotConnected) -> ConnectAccountCard | None:
    """The card for an account the user has to connect; None when there is no link to offer."""
    if error.authorization_url is None:
        return None
    return ConnectAccountCard.model_validate(
        {
            "type": CONNECT_ACTION,
            "id": f"connect-{error.provider}",
            "provider": error.provider,
            "providerName": PROVIDER_NAMES[error.provider],
            "authorizationUrl": error.authorization_url,
        }
    )


def connect_payload(error: AccountNotConnected) -> dict[str, str] | None:
    """The card as a tool answers it (``{"action", "draftId", ...}``), so a turn's trace carries it like any
    card; None when there is no link to offer."""
    card = connect_card(error)
    if card is None:
        return None
    return {
        "action": card.type,
        "draftId": card.id,
        "provider": card.provider,
        "providerName": card.provider_name,
        "authorizationUrl": card.authorization_url,
    }
