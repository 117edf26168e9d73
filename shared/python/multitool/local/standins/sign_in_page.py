"""The local OIDC provider's own pages: the sign-in form, the consent screen and the refusals."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

# The sign-in form is this provider's page: its own CSP lets it post to itself, nothing else.
FORM_HEADERS = {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    # The form posts back with its own Origin, which the local servers require (loopback.refusal):
    # under "no-referrer" a browser sends "Origin: null" with a form's POST (the Fetch standard, "append
    # a request `Origin` header"); "same-origin" still gives other sites no referrer.
    "referrer-policy": "same-origin",
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


KEPT_PARAMETERS = (
    "client_id",
    "redirect_uri",
    "response_type",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
    "resource",
    "consent",
)
"""The authorization request's parameters a form carries to its POST (and the one-time consent token)."""


@dataclass(frozen=True, slots=True)
class ClientAsking:
    """An application that is not multitool's own, asking to act as the user: what the form names."""

    client_id: str
    name: str
    redirect_uri: str

    def notice(self) -> str:
        """Who asks, for what, and where the answer goes (its host: what a look-alike name cannot hide)."""
        where = urlsplit(self.redirect_uri)
        host = where.hostname or self.redirect_uri
        named = f"<strong>{html.escape(self.name)}</strong> ({html.escape(self.client_id)})"
        return (
            f"<p>{named} asks to use multitool's tools as you: to draft emails, meetings and Jira "
            f"tickets you then review. Your answer goes to <strong>{html.escape(host)}</strong> "
            f"({html.escape(where.scheme)}). Allow it only if you started this from that application.</p>"
        )


def _hidden(params: Mapping[str, str]) -> str:
    return "".join(
        f'<input type="hidden" name="{k}" value="{html.escape(params[k])}">'
        for k in KEPT_PARAMETERS
        if k in params
    )


def sign_in_form(
    params: Mapping[str, str], people: Iterable[Person], error: str = "", asking: ClientAsking | None = None
) -> bytes:
    """The form that asks who signs in, carrying the authorization request's parameters; for another
    application (``asking``) it is also the consent screen: signing in allows that application."""
    options = "".join(
        f'<option value="{html.escape(p.id)}">{html.escape(p.display_name)} ({html.escape(p.email)})</option>'
        for p in people
    )
    alert = f'<p role="alert">{html.escape(error)}</p>' if error else ""
    button = "Sign in and allow" if asking else "Sign in"
    content = (
        f"{alert}{asking.notice() if asking else ''}"
        f'<form method="post" action="/oauth2/authorize">{_hidden(params)}'
        '<label for="username">Who are you?</label> '
        f'<select id="username" name="username">{options}</select> '
        f'<button type="submit" name="decision" value="allow">{button}</button>'
        + ('<button type="submit" name="decision" value="deny">Deny</button>' if asking else "")
        + "</form>"
        "<p>Local sign-in stand-in: no password, as with <code>X-Local-User</code>. "
        "Deployed, this is Cognito's managed login.</p>"
    )
    return page("Sign in to multitool", content, raw=True)


def consent_form(params: Mapping[str, str], signed_in: Person, asking: ClientAsking) -> bytes:
    """The consent screen for a signed-in user and an application they have not allowed yet."""
    content = (
        f"<p>Signed in as {html.escape(signed_in.display_name)} ({html.escape(signed_in.email)}).</p>"
        f'{asking.notice()}<form method="post" action="/oauth2/authorize">{_hidden(params)}'
        '<button type="submit" name="decision" value="allow">Allow</button> '
        '<button type="submit" name="decision" value="deny">Deny</button></form>'
    )
    return page(f"Allow {asking.name}?", content, raw=True)


def page(title: str, content: str, *, raw: bool = False) -> bytes:
    body = content if raw else f"<p>{content}</p>"
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>'
        f"{html.escape(title)}</title><style>body{{font:16px system-ui;max-width:32rem;margin:4rem auto}}"
        "select,button{font:inherit;padding:.3rem}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>{body}</body></html>"
    ).encode()
