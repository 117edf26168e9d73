"""Token sources for Google Workspace: a fixed token per address, and domain-wide delegation.

:class:`FixedTokenSource` hands out tokens given up front: the local stand-in's sandbox tokens
(:func:`multitool.local.google_server.sandbox_token`), or a developer's own short-lived token.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from multitool.ports.tokens import Account, AccountNotConnected, Provider


class FixedTokenSource:
    """One token per address (case-insensitive); an address without one is not connected."""

    def __init__(self, tokens: Mapping[str, str]) -> None:
        self._tokens = {address.casefold(): token for address, token in tokens.items()}

    def access_token(self, provider: Provider, account: Account, scopes: Sequence[str]) -> str:
        token = self._tokens.get((account.email or "").casefold())
        if provider != "google" or token is None:
            raise AccountNotConnected(provider)
        return token
