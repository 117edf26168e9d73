"""HTTP APIs served by the orchestrator and review Lambdas (Powertools resolvers).

The resolvers live in the layer so the deployed handlers, the local server and
the tests all serve the same app.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def verified_email(claims: Mapping[str, Any]) -> str | None:
    """The caller's address from the JWT claims, only when the identity provider verified it.

    An unverified address is whatever the user typed in their profile: taken as theirs, it would
    make them an organizer as someone else, or read and book that person's time.
    """
    email = claims.get("email")
    verified = claims.get("email_verified") in (True, "true", "True")
    return email.strip() if verified and isinstance(email, str) and email.strip() else None


def bearer_token(authorization: str | None) -> str | None:
    """The caller's own JWT from the ``Authorization`` header the HTTP API's JWT authorizer verified.

    It is what AgentCore Identity exchanges for the user's provider token: handed on to the calls
    made for this request only, never stored, logged or traced."""
    scheme, _, token = (authorization or "").partition(" ")
    return (token.strip() or None) if scheme.casefold() == "bearer" else None


def groups_claim(claims: Mapping[str, Any]) -> frozenset[str]:
    """The user pool groups a token names (``cognito:groups``).

    A JWT carries a JSON array; API Gateway's HTTP API JWT authorizer hands array claims to the
    function as one string, ``"[senders admins]"``: both are read.
    """
    value = claims.get("cognito:groups")
    if isinstance(value, str):
        value = value.strip().removeprefix("[").removesuffix("]").replace(",", " ").split()
    if not isinstance(value, list | tuple):
        return frozenset()
    return frozenset(g.strip() for g in value if isinstance(g, str) and g.strip())
