"""A local OIDC provider standing in for Cognito's managed login.

The page signs in exactly as it does against Cognito: ``/oauth2/authorize`` (authorization code, PKCE
S256 required), ``/oauth2/token`` (code and refresh-token grants), ``/oauth2/revoke`` and ``/logout``,
with ``/.well-known/openid-configuration`` and ``/.well-known/jwks.json`` for discovery. Tokens are
RS256 JWTs (joserfc) signed with a key made when the provider starts; they carry Cognito's claims
(``token_use``, ``client_id`` or ``aud``, ``cognito:username``, ``email``, ``name``, ``zoneinfo``).

For MCP clients it is also an OAuth 2.1 authorization server as the MCP authorization spec asks of
one: the same metadata at ``/.well-known/oauth-authorization-server`` (RFC 8414), dynamic client
registration of public clients (RFC 7591, ``/oauth2/register``) beside a pre-registered public
client (:data:`MCP_CLIENT_ID`), loopback redirect URIs on any port (RFC 8252 7.3), resource
indicators (RFC 8707: an access token asked for a resource has that resource as its ``aud``, so it
is good there and nowhere else), the ``iss`` of every authorization response (RFC 9207), and client
ID metadata documents: a ``client_id`` that is an ``https://`` URL names the client's own JSON
document, which must name that same ``client_id`` and lists its redirect URIs
(https://modelcontextprotocol.io/specification/draft/basic/authorization/client-registration).

An application that is not multitool's own (a registered client, a client ID metadata document, the
pre-registered MCP client) gets a code only once the user allowed it: the sign-in form names it and
where its answer goes ("Sign in and allow"), and a user already signed in sees a consent screen for
it, once per client. RFC 6749 10.2: a public client cannot be authenticated, so a repeated
authorization request is not answered without the user's active interaction; the MCP security best
practices' "confused deputy" is that attack, a dynamically registered client and a consent cookie. Each form
carries a one-time ``consent`` token, so only the form this provider showed can allow. Registration
takes an ``application/json`` body only (RFC 7591 3.1), so a web page cannot register a client with
a form or a ``text/plain`` fetch (neither needs a CORS preflight). A client ID metadata document is
fetched only when a user signs in or allows it (never for a request nobody has answered, never by the
token or revocation endpoints), over https without redirects, within
:data:`MAX_CLIENT_DOCUMENT_BYTES` and :data:`DOCUMENT_FETCH_SECONDS`; a document found good is kept
for the process's life, one found bad is not fetched again for :data:`DOCUMENT_RETRY_SECONDS`.

The tokens are checked as the HTTP API checks them by :mod:`multitool.local.sandbox.jwt_authorizer`.

Local only (this package is not in the Lambda layer): the sign-in form lists the seeded people and
asks for no password, as the X-Local-User shortcut does.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

from multitool.local.sandbox.jwt_authorizer import ALGORITHM, JwtAuthorizer, TokenRejected, gateway_claims
from multitool.local.sandbox.request_target import origin_form
from multitool.local.standins.sign_in_page import (
    FORM_HEADERS,
    ClientAsking,
    Person,
    consent_form,
    page,
    sign_in_form,
)

CLIENT_ID = "multitool-local-page"
SCOPES = ("openid", "email", "profile")
MCP_SCOPE = "multitool/tools"
"""What an MCP client asks for to call the tools (a Cognito resource server's ``identifier/scope``)."""
MCP_CLIENT_ID = "multitool-mcp"
"""A pre-registered public client for MCP clients that do not register (loopback redirects only)."""
MCP_REDIRECT_URIS = ("http://127.0.0.1/callback", "http://localhost/callback")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
MAX_CLIENT_DOCUMENT_BYTES = 5 * 1024
"""A client ID metadata document larger than this is refused (it is a few fields)."""
DOCUMENT_FETCH_SECONDS = 5.0
"""How long fetching a client ID metadata document may take, in all."""
DOCUMENT_RETRY_SECONDS = 60.0
"""How long a document that could not be read or was refused stays refused without a new fetch."""
MAX_REFUSED_DOCUMENTS = 256
"""Refused documents remembered at most (the oldest is forgotten first)."""
CONSENT_SECONDS = 600
"""How long a sign-in or consent form may be answered."""
TOKEN_SECONDS = 3600
REFRESH_SECONDS = 12 * 3600
CODE_SECONDS = 300
SESSION_COOKIE = "multitool_sign_in"
PATHS = (
    "/.well-known/openid-configuration",
    "/.well-known/oauth-authorization-server",
    "/oauth2/register",
    "/.well-known/jwks.json",
    "/oauth2/authorize",
    "/oauth2/token",
    "/oauth2/revoke",
    "/oauth2/userInfo",
    "/logout",
)
NO_STORE = {"content-type": "application/json", "cache-control": "no-store", "pragma": "no-cache"}


@dataclass(frozen=True, slots=True)
class OidcResponse:
    status: int
    headers: dict[str, str]
    body: bytes = b""
    cookies: tuple[str, ...] = ()


def _json(status: int, payload: Any, headers: Mapping[str, str] = NO_STORE) -> OidcResponse:
    return OidcResponse(status, dict(headers), json.dumps(payload).encode())


def _oauth_error(status: int, error: str, description: str) -> OidcResponse:
    return _json(status, {"error": error, "error_description": description})


def _redirect(location: str, cookies: tuple[str, ...] = ()) -> OidcResponse:
    return OidcResponse(302, {"location": location, "cache-control": "no-store"}, b"", cookies)


def s256(verifier: str) -> str:
    """RFC 7636's S256 code challenge of ``verifier``."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


@dataclass
class _Grant:
    user_id: str
    client_id: str
    redirect_uri: str
    challenge: str
    scope: str
    expires: float
    resource: str = ""
    """The RFC 8707 resource the access token is for (its ``aud``); empty: the client's own token."""


@dataclass(frozen=True, slots=True)
class _Consent:
    """What a one-time consent token shown on a form allows: one client, to one redirect URI, for the
    user signed in when it was shown (empty: whoever signs in with the form)."""

    client_id: str
    redirect_uri: str
    user_id: str
    expires: float


@dataclass
class LocalOidc:
    """The provider: sign-in form, codes, tokens, refresh, revocation and sign-out, all in memory."""

    people: Callable[[], Iterable[Person]]
    issuer: str = "http://127.0.0.1:8000"
    client_id: str = CLIENT_ID
    token_seconds: int = TOKEN_SECONDS
    refresh_seconds: int = REFRESH_SECONDS
    clock: Callable[[], float] = time.time
    key: RSAKey = field(default_factory=lambda: _signing_key())
    other_clients: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """More public clients and their callback URLs, as a pool has one client per app (the command
    line's ``multitool login`` has its own, with a loopback callback)."""
    resources: tuple[str, ...] = ()
    """The resource servers (RFC 8707 resource indicators) this provider issues access tokens for:
    ``multitool mcp``'s ``/mcp`` URL. A request for any other resource is ``invalid_target``."""
    fetch_document: Callable[[str], bytes] | None = None
    """How a client ID metadata document is fetched (``https://`` only); None: over the network."""
    _registered: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _names: dict[str, str] = field(default_factory=dict, repr=False)
    _refused_documents: dict[str, float] = field(default_factory=dict, repr=False)
    _approved: set[tuple[str, str]] = field(default_factory=set, repr=False)
    _consents: dict[str, _Consent] = field(default_factory=dict, repr=False)
    _codes: dict[str, _Grant] = field(default_factory=dict, repr=False)
    _refresh: dict[str, _Grant] = field(default_factory=dict, repr=False)
    _sessions: dict[str, str] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # --- what the local API asks --------------------------------------------------------------------

    @property
    def redirect_uris(self) -> tuple[str, ...]:
        """Callback and sign-out URLs: the page this server serves, as the stack's are the page's URL."""
        base = self.issuer.rstrip("/")
        return (f"{base}/",)

    @property
    def public_keys(self) -> dict[str, Any]:
        return dict(KeySet([self.key]).as_dict(private=False))

    def callbacks(self, client_id: str | None, *, fetch: bool = False) -> tuple[str, ...] | None:
        """The callback URLs of a client this provider knows; None for any other.

        ``fetch``: a client ID metadata document not known yet may be fetched (only when a user signs
        in or allows the client: see the module's notes).
        """
        if client_id == self.client_id:
            return self.redirect_uris
        if client_id == MCP_CLIENT_ID and self.resources:
            return MCP_REDIRECT_URIS
        with self._lock:
            registered = self._registered.get(client_id or "")
        if registered is None and fetch and self._document_pending(client_id or ""):
            registered = self._document_callbacks(client_id or "")
        return registered if registered is not None else self.other_clients.get(client_id or "")

    def _first_party(self, client_id: str) -> bool:
        """multitool's own clients (the page, the command line's sign-in): no consent to ask."""
        return client_id == self.client_id or client_id in self.other_clients

    def _document_pending(self, client_id: str) -> bool:
        """Whether ``client_id`` names a client ID metadata document not fetched yet (nor refused lately)."""
        if not self.resources or not _is_document_url(client_id):
            return False
        with self._lock:
            if client_id in self._registered:
                return False
            refused = self._refused_documents.get(client_id)
            return refused is None or refused + DOCUMENT_RETRY_SECONDS < self.clock()

    def _document_callbacks(self, client_id: str) -> tuple[str, ...] | None:
        """The redirect URIs a client ID metadata document lists; None for a document that does not
        name ``client_id`` itself, or cannot be read (then remembered as refused for a while)."""
        found = self._read_document(client_id)
        with self._lock:
            if found is None:
                self._refused_documents[client_id] = self.clock()
                while len(self._refused_documents) > MAX_REFUSED_DOCUMENTS:
                    del self._refused_documents[next(iter(self._refused_documents))]
                return None
            uris, name = found
            self._registered[client_id] = uris
            self._names[client_id] = name
            self._refused_documents.pop(client_id, None)
        return uris

    def _read_document(self, client_id: str) -> tuple[tuple[str, ...], str] | None:
        fetch = self.fetch_document or _fetch_https
        try:
            document = json.loads(fetch(client_id)[: MAX_CLIENT_DOCUMENT_BYTES + 1] or b"null")
        except (OSError, ValueError):
            return None
        if not isinstance(document, dict) or document.get("client_id") != client_id:
            return None
        if document.get("token_endpoint_auth_method", "none") != "none":
            return None  # a public client: this provider keeps no secrets and checks no keys
        uris = document.get("redirect_uris")
        if (
            not isinstance(uris, list)
            or not uris
            or not all(isinstance(u, str) and _registrable(u) for u in uris)
        ):
            return None
        name = document.get("client_name")
        return tuple(uris), name if isinstance(name, str) and name.strip() else client_id

    def authorizer(self) -> JwtAuthorizer:
        return JwtAuthorizer(
            issuer=self.issuer,
            audiences=(self.client_id, *self.other_clients),
            keys=KeySet.import_key_set(self.public_keys),  # type: ignore[arg-type]
            clock=self.clock,
        )

    def claims_for(self, headers: Mapping[str, str]) -> dict[str, str] | None:
        """The claims of the request's ``Authorization: Bearer`` token, as strings the way the HTTP API
        passes them to the function; None without the header.

        Raises :class:`TokenRejected` for a token the JWT authorizer would refuse.
        """
        value = next((v for k, v in headers.items() if k.lower() == "authorization"), None)
        if value is None:
            return None
        scheme, _, token = value.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise TokenRejected("the Authorization header is not 'Bearer <token>'")
        return gateway_claims(self.authorizer().claims(token.strip()))

    def page_config(self) -> dict[str, Any]:
        return {
            "auth": "oidc",
            "signInDomain": self.issuer,
            "clientId": self.client_id,
            "scope": " ".join(SCOPES),
        }

    def handles(self, path: str) -> bool:
        return path in PATHS

    # --- the endpoints ------------------------------------------------------------------------------

    def serve(
        self, method: str, target: str, *, headers: Mapping[str, str] | None = None, body: bytes = b""
    ) -> OidcResponse:
        path, raw_query = origin_form(target)
        query = dict(parse_qsl(raw_query, keep_blank_values=True))
        headers = headers or {}
        form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)) if body else {}
        routes: dict[tuple[str, str], Callable[[], OidcResponse]] = {
            ("GET", "/.well-known/openid-configuration"): self._discovery,
            ("GET", "/.well-known/jwks.json"): lambda: _json(
                200, self.public_keys, {"content-type": "application/json"}
            ),
            ("GET", "/oauth2/authorize"): lambda: self._authorize(query, headers),
            ("POST", "/oauth2/authorize"): lambda: self._sign_in(form, headers),
            ("POST", "/oauth2/token"): lambda: self._token(form),
            ("POST", "/oauth2/revoke"): lambda: self._revoke(form),
            ("GET", "/oauth2/userInfo"): lambda: self._user_info(headers),
            ("GET", "/logout"): lambda: self._logout(query, headers),
        }
        routes[("GET", "/.well-known/oauth-authorization-server")] = self._discovery
        routes[("POST", "/oauth2/register")] = lambda: self._register(body, headers)
        handler = routes.get((method.upper(), path))
        if handler is None:
            return _json(405 if path in PATHS else 404, {"message": "Method Not Allowed"})
        return handler()

    def _discovery(self) -> OidcResponse:
        base = self.issuer.rstrip("/")
        return _json(
            200,
            {
                "issuer": self.issuer,
                "authorization_endpoint": f"{base}/oauth2/authorize",
                "token_endpoint": f"{base}/oauth2/token",
                "revocation_endpoint": f"{base}/oauth2/revoke",
                "userinfo_endpoint": f"{base}/oauth2/userInfo",
                "end_session_endpoint": f"{base}/logout",
                "jwks_uri": f"{base}/.well-known/jwks.json",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "id_token_signing_alg_values_supported": [ALGORITHM],
                "subject_types_supported": ["public"],
                "scopes_supported": list(SCOPES),
                "token_endpoint_auth_methods_supported": ["none"],
                **(
                    {
                        "registration_endpoint": f"{base}/oauth2/register",
                        "client_id_metadata_document_supported": True,
                        "authorization_response_iss_parameter_supported": True,
                        "scopes_supported": [*SCOPES, MCP_SCOPE],
                    }
                    if self.resources
                    else {}
                ),
            },
            {"content-type": "application/json"},
        )

    def _check_request(self, params: Mapping[str, str], *, fetch: bool = False) -> str | None:
        """What is wrong with an authorize request, in words; None when it may proceed.

        Without ``fetch``, a client ID metadata document not fetched yet is not read: its client and
        redirect URI are checked when the user answers the form (``fetch``), before any code.
        """
        client_id = params.get("client_id", "")
        callbacks = self.callbacks(client_id, fetch=fetch)
        if callbacks is None and (fetch or not self._document_pending(client_id)):
            return "unknown client_id"
        # Only MCP clients (native apps, RFC 8252) get a loopback redirect on any port.
        with self._lock:
            any_port = client_id == MCP_CLIENT_ID or client_id in self._registered
        if callbacks is not None and not _redirect_allowed(
            params.get("redirect_uri", ""), callbacks, any_port=any_port
        ):
            return f"redirect_uri must be one of {', '.join(callbacks)}"
        if params.get("response_type") != "code":
            return "response_type must be code (the implicit flow is not offered)"
        if params.get("code_challenge_method") != "S256" or not params.get("code_challenge"):
            return "PKCE is required: code_challenge with code_challenge_method=S256"
        scopes = params.get("scope", "").split()
        if "openid" not in scopes and not (self.resources and MCP_SCOPE in scopes):
            return "scope must include openid" + (f" or {MCP_SCOPE}" if self.resources else "")
        resource = params.get("resource")
        if resource is not None and resource not in self.resources:
            return "resource is not a server this provider issues tokens for (invalid_target)"
        return None

    def _authorize(self, params: Mapping[str, str], headers: Mapping[str, str]) -> OidcResponse:
        problem = self._check_request(params)
        if problem:
            # A bad client or redirect is never redirected to (RFC 6749 4.1.2.1): answered here.
            return _refused(problem)
        client_id = params["client_id"]
        user = self._session_user(headers)
        if user is not None:
            with self._lock:
                allowed = self._first_party(client_id) or (user, client_id) in self._approved
            if allowed:
                return self._issue_code(user, params)
            person = self._person(user)
            assert person is not None  # a session's user is a known person
            return OidcResponse(
                200,
                dict(FORM_HEADERS),
                consent_form(self._with_consent(params, user), person, self._asking(params)),
            )
        return self._form(params)

    def _form(self, params: Mapping[str, str], error: str = "") -> OidcResponse:
        """The sign-in form; for another application, also its consent screen, with a consent token."""
        client_id = params.get("client_id", "")
        if self._first_party(client_id):
            return OidcResponse(200, dict(FORM_HEADERS), sign_in_form(params, self.people(), error))
        form = sign_in_form(self._with_consent(params, ""), self.people(), error, self._asking(params))
        return OidcResponse(200, dict(FORM_HEADERS), form)

    def _asking(self, params: Mapping[str, str]) -> ClientAsking:
        client_id = params.get("client_id", "")
        with self._lock:
            name = self._names.get(client_id)
        if name is None:
            name = "An MCP client" if client_id == MCP_CLIENT_ID else "An application"
        return ClientAsking(client_id, name, params.get("redirect_uri", ""))

    def _with_consent(self, params: Mapping[str, str], user: str) -> dict[str, str]:
        """``params`` and a new one-time consent token for this client and redirect URI."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            now = self.clock()
            for stale in [t for t, c in self._consents.items() if c.expires < now]:
                del self._consents[stale]
            self._consents[token] = _Consent(
                params.get("client_id", ""), params.get("redirect_uri", ""), user, now + CONSENT_SECONDS
            )
        return {**params, "consent": token}

    def _take_consent(self, form: Mapping[str, str], user: str | None) -> bool:
        """Whether the form carries a consent token this provider showed for its client and redirect
        URI (and, on a consent screen, to the user now signed in); the token is used up either way."""
        with self._lock:
            consent = self._consents.pop(form.get("consent", ""), None)
        return (
            consent is not None
            and consent.expires >= self.clock()
            and consent.client_id == form.get("client_id")
            and consent.redirect_uri == form.get("redirect_uri")
            and (consent.user_id == "" or consent.user_id == user)
        )

    def _sign_in(self, form: Mapping[str, str], headers: Mapping[str, str]) -> OidcResponse:
        client_id = form.get("client_id", "")
        first_party = self._first_party(client_id)
        chosen = form.get("username")
        user = chosen if chosen is not None else self._session_user(headers)
        if not first_party and not self._take_consent(form, None if chosen is not None else user):
            return _refused(
                "this form was not shown by this sign-in, or has expired: start again from the application"
            )
        problem = self._check_request(form, fetch=True)
        if problem:
            return _refused(problem)
        if user not in {p.id for p in self.people()}:
            return self._form(form, error="Choose who you are.")
        cookies: tuple[str, ...] = ()
        if chosen is not None:
            session = secrets.token_urlsafe(24)
            with self._lock:
                self._sessions[session] = user
            cookies = (f"{SESSION_COOKIE}={session}; Path=/; HttpOnly; SameSite=Lax",)
        if not first_party:
            if form.get("decision") == "deny":  # RFC 6749 4.1.2.1: the redirect URI was checked above
                denied = {"error": "access_denied", **_state(form), "iss": self.issuer}
                return _redirect(f"{form['redirect_uri']}?{urlencode(denied)}", cookies)
            with self._lock:
                self._approved.add((user, client_id))
        response = self._issue_code(user, form)
        return OidcResponse(response.status, response.headers, response.body, cookies)

    def _issue_code(self, user: str, params: Mapping[str, str]) -> OidcResponse:
        code = secrets.token_urlsafe(32)
        with self._lock:
            self._codes[code] = _Grant(
                user_id=user,
                client_id=params["client_id"],
                redirect_uri=params["redirect_uri"],
                challenge=params["code_challenge"],
                scope=params.get("scope", "openid"),
                expires=self.clock() + CODE_SECONDS,
                resource=params.get("resource", ""),
            )
        # RFC 9207: the answer names its issuer, so a client talking to two servers tells them apart.
        answer = {"code": code, **_state(params), "iss": self.issuer}
        return _redirect(f"{params['redirect_uri']}?{urlencode(answer)}")

    def _token(self, form: Mapping[str, str]) -> OidcResponse:
        if self.callbacks(form.get("client_id")) is None:
            return _oauth_error(400, "invalid_client", "unknown client_id")
        grant_type = form.get("grant_type")
        if grant_type == "authorization_code":
            with self._lock:
                grant = self._codes.pop(form.get("code", ""), None)  # single use, even when refused
            if grant is None or grant.expires < self.clock():
                return _oauth_error(400, "invalid_grant", "the code is unknown, used or expired")
            if grant.redirect_uri != form.get("redirect_uri") or grant.client_id != form.get("client_id"):
                return _oauth_error(400, "invalid_grant", "redirect_uri or client_id differ from the request")
            if form.get("resource", grant.resource) != grant.resource:
                return _oauth_error(400, "invalid_target", "resource differs from the authorization request")
            verifier = form.get("code_verifier", "")
            if not verifier or not secrets.compare_digest(s256(verifier), grant.challenge):
                return _oauth_error(400, "invalid_grant", "code_verifier does not match the code_challenge")
            refresh = secrets.token_urlsafe(32)
            with self._lock:
                self._refresh[refresh] = _Grant(
                    grant.user_id, grant.client_id, grant.redirect_uri, "", grant.scope,
                    self.clock() + self.refresh_seconds, grant.resource,
                )  # fmt: skip
            tokens = self._tokens(grant.user_id, grant.scope, grant.client_id, grant.resource)
            return _json(200, {**tokens, "refresh_token": refresh})
        if grant_type == "refresh_token":
            with self._lock:
                grant = self._refresh.get(form.get("refresh_token", ""))
            if grant is None or grant.expires < self.clock() or grant.client_id != form.get("client_id"):
                return _oauth_error(400, "invalid_grant", "the refresh token is unknown, revoked or expired")
            if form.get("resource", grant.resource) != grant.resource:
                return _oauth_error(400, "invalid_target", "resource differs from the authorization request")
            # Cognito: no new refresh token
            return _json(200, self._tokens(grant.user_id, grant.scope, grant.client_id, grant.resource))
        return _oauth_error(
            400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token"
        )

    def _revoke(self, form: Mapping[str, str]) -> OidcResponse:
        if self.callbacks(form.get("client_id")) is None:
            return _oauth_error(400, "invalid_client", "unknown client_id")
        with self._lock:
            grant = self._refresh.get(form.get("token", ""))
            if grant is not None and grant.client_id == form.get("client_id"):
                del self._refresh[form["token"]]
        return OidcResponse(200, dict(NO_STORE), b"")  # RFC 7009: 200 whether or not it was known

    def _register(self, body: bytes, headers: Mapping[str, str]) -> OidcResponse:
        """RFC 7591 dynamic registration, of public clients (PKCE, no secret) only, from a JSON body."""
        if not self.resources:
            return _json(404, {"message": "Not Found"})
        content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
        if content_type.partition(";")[0].strip().lower() != "application/json":
            # RFC 7591 3.1: "a content type of application/json". A page's form or text/plain fetch
            # reaches this without a CORS preflight; a JSON one does not.
            return _oauth_error(400, "invalid_client_metadata", "the body must be application/json")
        try:
            metadata = json.loads(body or b"null")
        except ValueError:
            metadata = None
        if not isinstance(metadata, dict):
            return _oauth_error(400, "invalid_client_metadata", "the body must be a JSON object")
        uris = metadata.get("redirect_uris")
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) for u in uris):
            return _oauth_error(400, "invalid_redirect_uri", "redirect_uris must be a non-empty list of URLs")
        bad = next((u for u in uris if not _registrable(u)), None)
        if bad is not None:
            return _oauth_error(
                400, "invalid_redirect_uri", f"{bad!r} is neither a loopback http:// URL nor an https:// URL"
            )
        grants = metadata.get("grant_types", ["authorization_code"])
        if not isinstance(grants, list) or not set(grants) <= {"authorization_code", "refresh_token"}:
            return _oauth_error(
                400, "invalid_client_metadata", "grant_types may be authorization_code and refresh_token only"
            )
        client_id = f"mcp-{secrets.token_urlsafe(12)}"
        name = metadata.get("client_name")
        with self._lock:
            self._registered[client_id] = tuple(uris)
            self._names[client_id] = name if isinstance(name, str) and name.strip() else client_id
        answer = {
            "client_id": client_id,
            "client_id_issued_at": int(self.clock()),
            "redirect_uris": uris,
            "grant_types": grants,
            "response_types": ["code"],
            # A public client whatever it asked for: this provider keeps no secrets (RFC 7591 3.2.1).
            "token_endpoint_auth_method": "none",
            **{
                k: metadata[k]
                for k in ("client_name", "client_uri", "scope")
                if isinstance(metadata.get(k), str)
            },
        }
        return _json(201, answer)

    def _user_info(self, headers: Mapping[str, str]) -> OidcResponse:
        try:
            claims = self.claims_for(headers)
        except TokenRejected as rejected:
            return _oauth_error(401, "invalid_token", rejected.reason)
        if claims is None:
            return _oauth_error(401, "invalid_token", "no bearer token")
        person = self._person(str(claims.get("sub")))
        if person is None:
            return _oauth_error(401, "invalid_token", "unknown user")
        return _json(200, self._profile(person))

    def _logout(self, params: Mapping[str, str], headers: Mapping[str, str]) -> OidcResponse:
        if params.get("client_id") != self.client_id or params.get("logout_uri") not in self.redirect_uris:
            return OidcResponse(
                400, dict(FORM_HEADERS), page("Sign-out refused", "unknown client_id or logout_uri")
            )
        session = _cookie(headers, SESSION_COOKIE)
        with self._lock:
            self._sessions.pop(session or "", None)
        expired = f"{SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0"
        return _redirect(params["logout_uri"], (expired,))

    # --- tokens -------------------------------------------------------------------------------------

    def _person(self, user_id: str) -> Person | None:
        return next((p for p in self.people() if p.id == user_id), None)

    def _session_user(self, headers: Mapping[str, str]) -> str | None:
        session = _cookie(headers, SESSION_COOKIE)
        with self._lock:
            user = self._sessions.get(session or "")
        return user if user is not None and self._person(user) is not None else None

    @staticmethod
    def _profile(person: Person) -> dict[str, Any]:
        return {
            "sub": person.id,
            "email": person.email,
            "email_verified": True,
            "name": person.display_name,
            "zoneinfo": person.timezone,
            # OpenID Connect Core 1.0, 5.1 Standard Claims: locale, a BCP 47 language tag ("en-US"); the
            # directory's Person has one where it is known
            **({"locale": locale} if (locale := getattr(person, "locale", None)) else {}),
        }

    def _tokens(self, user_id: str, scope: str, client_id: str, resource: str = "") -> dict[str, Any]:
        person = self._person(user_id)
        if person is None:
            raise LookupError(user_id)  # a grant is only ever made for a known person
        now = int(self.clock())
        common = {
            "iss": self.issuer,
            "sub": person.id,
            "auth_time": now,
            "iat": now,
            "exp": now + self.token_seconds,
        }
        header = {"alg": ALGORITHM, "kid": self.key.kid, "typ": "JWT"}
        id_token = jwt.encode(
            header,
            {
                **common,
                "aud": client_id,
                "token_use": "id",
                "cognito:username": person.id,
                "jti": secrets.token_hex(8),
                **self._profile(person),
            },
            self.key,
        )
        access_token = jwt.encode(
            header,
            {
                **common,
                "client_id": client_id,
                "token_use": "access",
                "scope": scope,
                "username": person.id,
                "jti": secrets.token_hex(8),
                **({"aud": resource} if resource else {}),
            },
            self.key,
        )
        return {
            **({"id_token": id_token} if "openid" in scope.split() else {}),
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": self.token_seconds,
        }


def _refused(problem: str) -> OidcResponse:
    return OidcResponse(400, dict(FORM_HEADERS), page("Sign-in request refused", html.escape(problem)))


def _state(params: Mapping[str, str]) -> dict[str, str]:
    return {"state": params["state"]} if params.get("state") else {}


def _signing_key() -> RSAKey:
    """A new RS256 key for this run: tokens of an earlier run never verify."""
    return RSAKey.generate_key(2048, parameters={"kid": secrets.token_hex(8), "alg": ALGORITHM, "use": "sig"})


def _is_document_url(client_id: str) -> bool:
    """A client id that names a client ID metadata document: ``https://`` with a path."""
    parts = urlsplit(client_id)
    return parts.scheme == "https" and bool(parts.hostname) and parts.path not in ("", "/")


def _fetch_https(url: str) -> bytes:
    """The document at ``url`` (https, no redirects), within the size and time bounds; OSError if not."""
    import urllib.request

    if not _is_document_url(url):
        raise OSError("a client ID metadata document is fetched over https only")

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None  # the 3xx is then an HTTPError: the document lives at its client_id URL

    deadline = time.monotonic() + DOCUMENT_FETCH_SECONDS
    opener = urllib.request.build_opener(NoRedirect)
    with opener.open(url, timeout=DOCUMENT_FETCH_SECONDS) as answer:
        body = b""
        while chunk := answer.read(1024):
            body += chunk
            if len(body) > MAX_CLIENT_DOCUMENT_BYTES:
                raise OSError("the client ID metadata document is too large")
            if time.monotonic() > deadline:
                raise OSError("the client ID metadata document took too long")
    return body


def _is_loopback_http(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme == "http" and (parts.hostname or "") in {h.strip("[]") for h in LOOPBACK_HOSTS}


def _registrable(url: str) -> bool:
    """A redirect URI a public client may register: loopback http (RFC 8252 7.3) or https, no fragment."""
    parts = urlsplit(url)
    return not parts.fragment and (
        _is_loopback_http(url) or (parts.scheme == "https" and bool(parts.hostname))
    )


def _redirect_allowed(uri: str, callbacks: Iterable[str], *, any_port: bool) -> bool:
    """Exact match, except that a native client's loopback http callback matches on any port
    (RFC 8252 7.3)."""
    if uri in callbacks:
        return True
    if not any_port or not _is_loopback_http(uri):
        return False
    asked = urlsplit(uri)
    return any(
        _is_loopback_http(c) and (urlsplit(c).hostname, urlsplit(c).path) == (asked.hostname, asked.path)
        for c in callbacks
    )


def _cookie(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() != "cookie":
            continue
        for part in value.split(";"):
            cookie_name, _, cookie_value = part.strip().partition("=")
            if cookie_name == name:
                return cookie_value
    return None
