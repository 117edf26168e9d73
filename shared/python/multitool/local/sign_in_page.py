"""The local OIDC provider's own pages: the sign-in form and its refusals."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Protocol

# The sign-in form is this provider's page: its own CSP lets it post to itself, nothing else.
FORM_HEADERS = {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": (
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; "
        "base-uri 'none'"
    ),
}


# Declared beside the form that lists them: the provider imports its pages, never the reverse.
class Person(Protocol):
    """Who can sign in: the seeded directory's people."""

    @property
    def id(self) -> str: ...
    @property
    def email(self) -> str: ...
    @property
    def display_name(self) -> str: ...
    @property
    def timezone(self) -> str: ...


def sign_in_form(params: Mapping[str, str], people: Iterable[Person], error: str = "") -> bytes:
    """The form that asks who signs in, carrying the authorization request's parameters."""
    keep = (
        "client_id",
        "redirect_uri",
        "response_type",
        "scope",
        "state",
        "code_challenge",
        "code_challenge_method",
        "resource",
    )
    hidden = "".join(
        f'<input type="hidden" name="{k}" value="{html.escape(params[k])}">' for k in keep if k in params
    )
    options = "".join(
        f'<option value="{html.escape(p.id)}">{html.escape(p.display_name)} ({html.escape(p.email)})</option>'
        for p in people
    )
    alert = f'<p role="alert">{html.escape(error)}</p>' if error else ""
    content = (
        f'{alert}<form method="post" action="/oauth2/authorize">{hidden}'
        '<label for="username">Who are you?</label> '
        f'<select id="username" name="username">{options}</select> '
        '<button type="submit">Sign in</button></form>'
        "<p>Local sign-in stand-in: no password, as with <code>X-Local-User</code>. "
        "Deployed, this is Cognito's managed login.</p>"
    )
    return page("Sign in to multitool", content, raw=True)


def page(title: str, content: str, *, raw: bool = False) -> bytes:
    body = content if raw else f"<p>{content}</p>"
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>'
        f"{html.escape(title)}</title><style>body{{font:16px system-ui;max-width:32rem;margin:4rem auto}}"
        "select,button{font:inherit;padding:.3rem}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>{body}</body></html>"
    ).encode()
