"""``multitool login``: tokens for scripts (``curl``), signed in through the stack's Cognito managed login.

The stack gives the command line an app client of its own (``CliClientId``): public (no secret),
the authorization code grant only, one callback URL, :data:`CALLBACK_URL`, on this machine. The
command makes a PKCE pair (a random verifier, its S256 challenge), opens the managed login page in
the browser, takes the code on a one-shot HTTP listener on the loopback interface, checks the
``state`` it sent, and redeems the code with the verifier at the token endpoint. No password ever
passes through the command line, and the page's client is never used.

Cognito accepts plain HTTP callback URLs only for ``http://localhost`` and requires an exact match,
port included, so the port is fixed (CreateUserPoolClient's CallbackURLs, as AWS's SDK reference
words it: https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/cognitoidentityprovider/aws.sdk.kotlin.services.cognitoidentityprovider.model/-create-user-pool-client-request/callback-urls.html);
PKCE in Cognito's code grant: https://docs.aws.amazon.com/cognito/latest/developerguide/using-pkce-in-authorization-code.html

Local only (this package is not in the Lambda layer).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import secrets
import threading
import time
import urllib.error
import urllib.request
import webbrowser
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from multitool.local.sandbox.loopback import refusal
from multitool.local.standins.stand_in import ThreadedServer

LOGIN_PORT = 53682
CALLBACK_PATH = "/callback"
CALLBACK_URL = f"http://localhost:{LOGIN_PORT}{CALLBACK_PATH}"
"""The command line client's one callback URL: the stack registers exactly this."""
SCOPES = ("openid", "email", "profile")
TOKEN_KINDS = ("id", "access")
WAIT_SECONDS = 300.0


class LoginFailed(RuntimeError):
    """The sign-in did not end with tokens; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class LoginTarget:
    """Where to sign in: the managed login origin (``https://<prefix>.auth.<region>.amazoncognito.com``)
    and the command line's app client."""

    sign_in_origin: str
    client_id: str

    def authorize_url(self, *, redirect_uri: str, challenge: str, state: str) -> str:
        query = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": redirect_uri,
            "scope": " ".join(SCOPES),
            "state": state,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
        return f"{self.sign_in_origin.rstrip('/')}/oauth2/authorize?{urlencode(query)}"

    @property
    def token_url(self) -> str:
        return f"{self.sign_in_origin.rstrip('/')}/oauth2/token"


def pkce_pair() -> tuple[str, str]:
    """(verifier, S256 challenge): 64 random bytes, base64url without padding, as RFC 7636 asks."""
    verifier = secrets.token_urlsafe(64)
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


class _Callback(BaseHTTPRequestHandler):
    server: _CallbackServer

    def do_GET(self) -> None:
        # The browser comes back here by a redirect (a navigation: no Origin, this machine's name). A
        # DNS-rebinding page's request names its own host; it must not end the wait with its own answer.
        refused = refusal(self.headers.get("Host"), self.headers.get("Origin"), pages=True)
        if refused is not None:
            self._answer(*refused)
            return
        parts = urlsplit(self.path)
        if parts.path != CALLBACK_PATH:
            self._answer(404, "Not the sign-in callback.")
            return
        received = self.server.receive(dict(parse_qsl(parts.query, keep_blank_values=True)))
        if "code" in received:
            self._answer(200, "Signed in: return to the terminal. You can close this tab.")
        else:
            self._answer(400, "Sign-in did not complete: the terminal says why.")

    def _answer(self, status: int, text: str) -> None:
        body = f"<!doctype html><title>multitool login</title><p>{html.escape(text)}</p>".encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # the query holds the code: never logged
        return


class _CallbackServer(ThreadedServer):
    """The one-shot listener: the first callback's query is what the sign-in redeems (a later one, a
    second tab, changes nothing)."""

    def __init__(self, port: int) -> None:
        super().__init__(("127.0.0.1", port), _Callback, name="login-callback")
        self.received: dict[str, str] | None = None
        self.came_back = threading.Event()
        self._lock = threading.Lock()

    def receive(self, query: dict[str, str]) -> dict[str, str]:
        """Keep ``query`` if it is the first callback; the one kept."""
        with self._lock:
            if self.received is None:
                self.received = query
                self.came_back.set()
            return self.received


PostForm = Callable[[str, Mapping[str, str]], dict[str, Any]]


def post_form(url: str, form: Mapping[str, str]) -> dict[str, Any]:
    """POST ``form`` (urlencoded) and return the JSON answer; an OAuth error becomes :class:`LoginFailed`."""
    request = urllib.request.Request(  # noqa: S310 - the sign-in origin is https (or the local stand-in)
        url,
        data=urlencode(form).encode("ascii"),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            answer: dict[str, Any] = json.loads(response.read())
            return answer
    except urllib.error.HTTPError as error:
        try:
            detail = json.loads(error.read())
        except ValueError:
            detail = {}
        reason = detail.get("error_description") or detail.get("error") or f"HTTP {error.code}"
        raise LoginFailed(f"The token endpoint refused the code: {reason}.") from None
    except (urllib.error.URLError, TimeoutError, ValueError) as error:
        raise LoginFailed(f"Could not reach the token endpoint {url}: {error}.") from None


def login(
    target: LoginTarget,
    *,
    open_browser: Callable[[str], Any] = webbrowser.open,
    port: int = LOGIN_PORT,
    wait_seconds: float = WAIT_SECONDS,
    post: PostForm = post_form,
    announce: Callable[[str], None] = lambda url: None,
) -> dict[str, Any]:
    """Sign in in the browser and return Cognito's token answer (``id_token``, ``access_token``,
    ``refresh_token``, ``expires_in``, ``token_type``) plus ``expires_at`` (epoch seconds)."""
    try:
        server = _CallbackServer(port)
    except OSError as error:
        raise LoginFailed(
            f"Port {port} on 127.0.0.1 is taken ({error.strerror}): the client's callback URL is fixed, "
            "so stop whatever listens there and try again."
        ) from None
    redirect_uri = f"http://localhost:{server.server_address[1]}{CALLBACK_PATH}"
    verifier, challenge = pkce_pair()
    state = secrets.token_urlsafe(24)
    url = target.authorize_url(redirect_uri=redirect_uri, challenge=challenge, state=state)
    with server:
        announce(url)
        threading.Thread(target=open_browser, args=(url,), daemon=True).start()
        if not server.came_back.wait(wait_seconds):
            raise LoginFailed(f"No sign-in came back within {wait_seconds:.0f} s: run it again.")
    received = server.received or {}  # set before came_back was
    if received.get("state") != state:
        raise LoginFailed("The callback's state is not the one this sign-in sent: nothing was redeemed.")
    if "code" not in received:
        reason = received.get("error_description") or received.get("error") or "no code in the callback"
        raise LoginFailed(f"Sign-in did not complete: {reason}.")
    tokens = post(
        target.token_url,
        {
            "grant_type": "authorization_code",
            "client_id": target.client_id,
            "code": received["code"],
            "redirect_uri": redirect_uri,
            "code_verifier": verifier,
        },
    )
    if not all(isinstance(tokens.get(key), str) for key in ("id_token", "access_token")):
        raise LoginFailed("The token endpoint answered without an ID and an access token.")
    return {**tokens, "expires_at": int(time.time()) + int(tokens.get("expires_in", 3600))}


def stack_target(stack: str, region: str | None = None, cloudformation: Any = None) -> LoginTarget:
    """The sign-in origin and command line client from a deployed stack's outputs."""
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    client = cloudformation or boto3.client("cloudformation", region_name=region)
    try:
        [found] = client.describe_stacks(StackName=stack)["Stacks"]
    except (BotoCoreError, ClientError) as error:
        raise LoginFailed(f"Could not read the stack {stack!r}: {error}") from None
    outputs = {o["OutputKey"]: o["OutputValue"] for o in found.get("Outputs", [])}
    missing = [key for key in ("SignInDomain", "CliClientId") if not outputs.get(key)]
    if missing:
        raise LoginFailed(
            f"The stack {stack!r} has no {' or '.join(missing)} output (a user pool passed in with "
            "userPoolId gets no client from the stack): pass --sign-in-domain and --client-id."
        )
    return LoginTarget(outputs["SignInDomain"], outputs["CliClientId"])


def save_tokens(tokens: Mapping[str, Any], path: Path) -> Path:
    """Write the tokens as JSON, readable by this user only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(dict(tokens), file, indent=2)
        file.write("\n")
    path.chmod(0o600)
    return path
