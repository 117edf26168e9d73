"""``multitool mcp --http PORT --sign-in oidc``: the MCP server as an OAuth 2.1 resource server.

What the MCP authorization spec asks of a remote server
(https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization):

- ``/mcp`` answers a request without a valid bearer token with 401 and
  ``WWW-Authenticate: Bearer resource_metadata="<url>"`` naming its protected resource metadata
  (RFC 9728), served at ``/.well-known/oauth-protected-resource/mcp``; that document names the
  authorization server and the scope the tools need (:data:`multitool.local.standins.oidc.MCP_SCOPE`).
- A token counts only if it was issued for this server: signed by the authorization server's key,
  its issuer, not expired, an access token, and its ``aud`` is this server's ``/mcp`` URL (the RFC 8707
  resource the client asked for). A token for the page (its ``aud``/``client_id`` is the page's
  client) is refused here, and this server's tokens are refused by the HTTP API: neither is ever
  passed through to anything else. A valid token without the scope is 403 ``insufficient_scope``.
- The authorization server is the local OIDC stand-in (:class:`multitool.local.standins.oidc.LocalOidc`),
  served by this same process at the server's origin: metadata (RFC 8414 and OpenID), dynamic
  registration, the sign-in form, tokens.

The SDK's own pieces do the HTTP part (``mcp.server.auth``: the bearer backend, the middleware that
answers 401/403 with ``WWW-Authenticate``, the RFC 9728 route); this module supplies the token check
and who the token's user is, so each tool call runs as that user.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from multitool.local.sandbox.jwt_authorizer import JwtAuthorizer, TokenRejected
from multitool.local.standins.oidc import MCP_SCOPE, LocalOidc

if TYPE_CHECKING:
    from mcp.server.auth.provider import AccessToken

    from multitool.people import Person

MCP_PATH = "/mcp"


def resource_url(host: str, port: int) -> str:
    """This server's resource identifier: the ``/mcp`` URL clients are configured with."""
    return f"http://{host}:{port}{MCP_PATH}"


class AudienceTokenVerifier:
    """The SDK's ``TokenVerifier``: an access token the authorization server issued for ``resource``."""

    def __init__(self, authorizer: JwtAuthorizer, resource: str) -> None:
        # The JWT authorizer's audience check, with this server's resource as the only audience.
        self._authorizer = JwtAuthorizer(authorizer.issuer, (resource,), authorizer.keys, authorizer.clock)
        self._resource = resource

    def check(self, token: str) -> dict[str, Any]:
        """The token's claims; :class:`TokenRejected` saying which check failed."""
        claims = self._authorizer.claims(token)
        if claims.get("token_use") != "access":
            raise TokenRejected("the token is not an access token")
        if claims.get("aud") != self._resource:
            raise TokenRejected("the token was issued for another resource (aud)")
        if not isinstance(claims.get("sub"), str) or not claims["sub"]:
            raise TokenRejected("the token names no user (sub)")
        return claims

    async def verify_token(self, token: str) -> AccessToken | None:
        from mcp.server.auth.provider import AccessToken

        try:
            claims = self.check(token)
        except TokenRejected:
            return None  # the SDK's middleware answers 401 invalid_token
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id", "")),
            scopes=str(claims.get("scope", "")).split(),
            expires_at=int(claims["exp"]),
            resource=self._resource,
            subject=claims["sub"],
            claims={"iss": claims["iss"]},
        )


def token_user(people: Callable[[str], Person | None]) -> Callable[[], Person | None]:
    """Who the current MCP request's verified token belongs to (None outside a signed-in request)."""

    def current() -> Person | None:
        from mcp.server.auth.middleware.auth_context import get_access_token

        token = get_access_token()
        return people(token.subject) if token is not None and token.subject else None

    return current


def protected_routes(mcp_app: Any, oidc: LocalOidc, resource: str) -> list[Any]:
    """Starlette routes: ``/mcp`` behind the bearer check, its RFC 9728 metadata, the OIDC stand-in."""
    import functools

    import anyio
    from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
    from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
    from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
    from pydantic import AnyHttpUrl
    from starlette.middleware.authentication import AuthenticationMiddleware
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from multitool.local.standins.oidc import PATHS

    verifier = AudienceTokenVerifier(oidc.authorizer(), resource)
    metadata_url = build_resource_metadata_url(AnyHttpUrl(resource))
    guarded = AuthenticationMiddleware(
        AuthContextMiddleware(RequireAuthMiddleware(mcp_app, [MCP_SCOPE], metadata_url)),
        backend=BearerAuthBackend(verifier),
    )

    async def provider(request: Request) -> Response:
        body = await request.body()
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        # Off the event loop: a sign-in may fetch a client ID metadata document (up to its time bound).
        answer = await anyio.to_thread.run_sync(
            functools.partial(oidc.serve, request.method, target, headers=dict(request.headers), body=body)
        )
        response = Response(answer.body, status_code=answer.status, headers=answer.headers)
        for cookie in answer.cookies:
            response.headers.append("set-cookie", cookie)
        return response

    return [
        Route(MCP_PATH, endpoint=guarded, methods=["GET", "POST", "DELETE"]),
        *create_protected_resource_routes(
            AnyHttpUrl(resource),
            [AnyHttpUrl(oidc.issuer)],
            scopes_supported=[MCP_SCOPE],
            resource_name="multitool",
        ),
        *(Route(path, endpoint=provider, methods=["GET", "POST"]) for path in PATHS),
    ]
