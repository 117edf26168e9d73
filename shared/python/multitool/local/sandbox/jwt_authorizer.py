"""API Gateway's JWT authorizer, run locally in front of the local API.

:class:`JwtAuthorizer` is what API Gateway's JWT authorizer checks before a function runs: a signature
by a key of the issuer's JWKS (RS256 only, so ``alg: none`` is refused), the issuer, the audience
(``aud`` of an ID token or ``client_id`` of an access token is one of the configured clients), expiry
and not-before. A rejected token is :class:`TokenRejected`; the local API answers 401 for it.
Local only, like the rest of :mod:`multitool.local`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from joserfc import errors, jwt
from joserfc.jwk import KeySet

__all__ = ["ALGORITHM", "JwtAuthorizer", "TokenRejected", "gateway_claims"]

ALGORITHM = "RS256"


class TokenRejected(PermissionError):
    """The JWT authorizer refuses the token; ``reason`` says which check failed (never the token)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class JwtAuthorizer:
    """API Gateway's JWT authorizer: issuer, audience (``aud`` or ``client_id``), expiry, signature."""

    issuer: str
    audiences: tuple[str, ...]
    keys: KeySet
    clock: Callable[[], float] = time.time

    def claims(self, token: str) -> dict[str, Any]:
        try:
            decoded = jwt.decode(token, self.keys, algorithms=[ALGORITHM])
        except errors.UnsupportedAlgorithmError:
            raise TokenRejected("the token's algorithm is not RS256") from None
        except errors.BadSignatureError:
            raise TokenRejected("the signature does not verify with the issuer's keys") from None
        except (errors.JoseError, ValueError, TypeError):
            # Malformed, no key with its kid, not JSON: API Gateway answers all of these with a 401.
            raise TokenRejected("the token is not a JWT signed by a key of the issuer") from None
        claims = dict(decoded.claims)
        now = int(self.clock())
        registry = jwt.JWTClaimsRegistry(
            now=now, iss={"essential": True, "value": self.issuer}, exp={"essential": True}
        )
        try:
            registry.validate(claims)
        except errors.ExpiredTokenError:
            raise TokenRejected("the token has expired") from None
        except errors.ClaimError as error:
            words = {
                "iss": "it was issued by another issuer",
                "nbf": "it is not valid yet",
                "exp": "it has no expiry",
            }
            raise TokenRejected(f"the token is refused: {words.get(error.claim, error.claim)}") from None
        audiences = claims.get("aud")
        audience_list = [audiences] if isinstance(audiences, str) else list(audiences or [])
        client = claims.get("client_id")
        if not any(a in self.audiences for a in [*audience_list, client] if isinstance(a, str)):
            raise TokenRejected("the token was issued to another client (aud/client_id)")
        return claims


def gateway_claims(claims: Mapping[str, Any]) -> dict[str, str]:
    """Claims as the HTTP API hands them to the function: every value a string (``true``, ``1800000000``,
    an array as ``[a b]``)."""

    def text(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, list):
            return "[" + " ".join(text(v) for v in value) + "]"
        return value if isinstance(value, str) else json.dumps(value)

    return {key: text(value) for key, value in claims.items()}
