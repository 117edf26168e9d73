"""What the MCP client tests share (test_mcp_sign_in, test_mcp_resource_server): the SDK's token
storage, in memory."""

from __future__ import annotations

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class MemoryStorage:
    """The SDK's ``TokenStorage``, in memory (a desktop client keeps these on disk)."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info
