"""``multitool login``: the code flow with PKCE through a real browser's steps, against the local OIDC
stand-in (Cognito's managed login endpoints), with the callback on a real loopback listener."""

from __future__ import annotations

import json
import socket
import stat
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from multitool.local.cli import main
from multitool.local.deployed import login as sign_in
from multitool.local.standins.oidc import CLIENT_ID, LocalOidc, s256
from multitool.local.standins.stand_in import ThreadedServer

CLI_CLIENT = "multitool-local-cli"


@dataclass(frozen=True)
class Someone:
    id: str
    email: str
    display_name: str
    timezone: str


PEOPLE = (Someone("priya", "priya@example.com", "Priya Raman", "Europe/London"),)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Provider:
    oidc: LocalOidc
    origin: str
    port: int  # the command line client's callback port
    tokens_asked: list[dict[str, str]]

    @property
    def target(self) -> sign_in.LoginTarget:
        return sign_in.LoginTarget(self.origin, CLI_CLIENT)


@pytest.fixture
def provider() -> Iterator[Provider]:
    """The stand-in served over HTTP, knowing the page's client and the command line's (its callback)."""
    port = free_port()
    asked: list[dict[str, str]] = []
    holder: dict[str, LocalOidc] = {}

    class Handler(BaseHTTPRequestHandler):
        def _serve(self, method: str) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.startswith("/oauth2/token"):
                asked.append(dict(parse_qsl(body.decode())))
            answer = holder["oidc"].serve(method, self.path, headers=dict(self.headers), body=body)
            self.send_response(answer.status)
            for name, value in answer.headers.items():
                self.send_header(name, value)
            for cookie in answer.cookies:
                self.send_header("Set-Cookie", cookie)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def log_message(self, format: str, *args: Any) -> None:
            return

    with ThreadedServer(("127.0.0.1", 0), Handler, name="oidc") as server:
        holder["oidc"] = LocalOidc(
            people=lambda: PEOPLE,
            issuer=server.url,
            other_clients={CLI_CLIENT: (f"http://localhost:{port}{sign_in.CALLBACK_PATH}",)},
        )
        yield Provider(holder["oidc"], server.url, port, asked)


def signs_in_as(user: str, *, tamper: dict[str, str] | None = None) -> Any:
    """A browser: open the authorize URL, pick ``user`` on the sign-in form, follow the redirect home."""

    def browse(url: str) -> None:
        with urllib.request.urlopen(url, timeout=10) as page:  # the sign-in form
            assert page.status == 200
        params = dict(parse_qsl(urlsplit(url).query))
        form = urlencode({**params, "username": user}).encode()
        request = urllib.request.Request(url.split("?", 1)[0], data=form, method="POST")

        class Hold(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: Any, **kwargs: Any) -> None:
                return None  # look at the redirect before following it

        try:
            urllib.request.build_opener(Hold).open(request, timeout=10)
        except urllib.error.HTTPError as redirect:
            location = redirect.headers["Location"]
        parts = urlsplit(location)
        query = {**dict(parse_qsl(parts.query)), **(tamper or {})}
        with urllib.request.urlopen(f"{parts.scheme}://{parts.netloc}{parts.path}?{urlencode(query)}"):
            pass

    return browse


def test_login_returns_tokens_the_api_accepts_for_the_signed_in_person(provider: Provider) -> None:
    opened: list[str] = []

    def browser(url: str) -> None:
        opened.append(url)
        signs_in_as("priya")(url)

    tokens = sign_in.login(provider.target, open_browser=browser, port=provider.port, wait_seconds=20)

    # The authorize request: the command line's client, PKCE S256, its loopback callback
    [url] = opened
    query = dict(parse_qsl(urlsplit(url).query))
    assert query["client_id"] == CLI_CLIENT
    assert query["code_challenge_method"] == "S256"
    assert query["redirect_uri"] == f"http://localhost:{provider.port}/callback"
    # The code was redeemed once, with the verifier behind that challenge
    [redeemed] = provider.tokens_asked
    assert s256(redeemed["code_verifier"]) == query["code_challenge"]
    # The tokens pass the JWT check the HTTP API makes, as that person, for that client
    for kind in ("id_token", "access_token"):
        claims = provider.oidc.claims_for({"authorization": f"Bearer {tokens[kind]}"})
        assert claims is not None
        assert claims["sub"] == "priya"
    assert tokens["refresh_token"]
    assert tokens["expires_at"] > 0


def test_a_callback_with_another_state_redeems_nothing(provider: Provider) -> None:
    with pytest.raises(sign_in.LoginFailed, match="state"):
        sign_in.login(
            provider.target,
            open_browser=signs_in_as("priya", tamper={"state": "forged"}),
            port=provider.port,
            wait_seconds=20,
        )
    assert provider.tokens_asked == []


def test_a_dns_rebinding_page_cannot_answer_the_callback_first(provider: Provider) -> None:
    # A page whose name resolves to 127.0.0.1 sends its own answer before the browser comes back: it is
    # refused (421) and the sign-in the person made completes.
    forged = urlencode({"code": "forged", "state": "forged"})
    answers: list[int] = []

    def race_then_sign_in(url: str) -> None:
        request = urllib.request.Request(
            f"http://127.0.0.1:{provider.port}/callback?{forged}",
            headers={"Host": f"attacker.example:{provider.port}"},
        )
        try:
            urllib.request.urlopen(request, timeout=10)
        except urllib.error.HTTPError as refused:
            answers.append(refused.code)
        signs_in_as("priya")(url)

    tokens = sign_in.login(
        provider.target, open_browser=race_then_sign_in, port=provider.port, wait_seconds=20
    )

    assert answers == [421]
    claims = provider.oidc.claims_for({"authorization": f"Bearer {tokens['access_token']}"})
    assert claims is not None
    assert claims["sub"] == "priya"


def test_a_refused_sign_in_says_why(provider: Provider) -> None:
    def refuse(url: str) -> None:
        state = dict(parse_qsl(urlsplit(url).query))["state"]
        error = {"error": "access_denied", "error_description": "the user cancelled", "state": state}
        with pytest.raises(urllib.error.HTTPError):  # the listener answers 400, then gives up
            urllib.request.urlopen(f"http://localhost:{provider.port}/callback?{urlencode(error)}")

    with pytest.raises(sign_in.LoginFailed, match="the user cancelled"):
        sign_in.login(provider.target, open_browser=refuse, port=provider.port, wait_seconds=20)


def test_the_page_client_cannot_take_the_command_lines_callback(provider: Provider) -> None:
    target = sign_in.LoginTarget(provider.origin, CLIENT_ID)
    _, challenge = sign_in.pkce_pair()
    url = target.authorize_url(
        redirect_uri=f"http://localhost:{provider.port}/callback", challenge=challenge, state="s"
    )

    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url, timeout=10)
    assert refused.value.code == 400


def test_a_taken_port_is_named(provider: Provider) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(sign_in.LoginFailed, match=f"Port {port}"):
            sign_in.login(provider.target, open_browser=lambda url: None, port=port, wait_seconds=1)


def test_the_command_prints_the_chosen_token_and_saves_them_all(
    provider: Provider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("webbrowser.open", signs_in_as("priya"))
    original = sign_in.login

    def on_the_test_port(target: sign_in.LoginTarget, **kwargs: Any) -> dict[str, Any]:
        return original(target, port=provider.port, wait_seconds=20, **kwargs)

    monkeypatch.setattr(sign_in, "login", on_the_test_port)
    saved = tmp_path / "tokens.json"

    domain = ["--sign-in-domain", provider.origin, "--client-id", CLI_CLIENT]
    code = main(["login", *domain, "--token", "access", "--save", str(saved)])

    assert code == 0
    out, err = capsys.readouterr()
    stored = json.loads(saved.read_text())
    assert out.strip() == stored["access_token"]
    assert "Sign in at " in err
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600


def test_the_command_wants_both_domain_and_client(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["login", "--client-id", CLI_CLIENT]) == 2
    assert "--sign-in-domain and --client-id go together" in capsys.readouterr().err
