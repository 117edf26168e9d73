"""``multitool mcp --http PORT --sign-in oidc``: the official SDK's OAuth client signs in and makes drafts.

The servers run as a user runs them: ``multitool serve --sign-in oidc`` (the page and the HTTP API,
its own sandbox) and ``multitool mcp --http PORT --sign-in oidc --sandbox <its moto>``. The SDK's
``OAuthClientProvider`` does everything an MCP client does: the 401, protected resource metadata
(RFC 9728), authorization server metadata (RFC 8414), dynamic registration (RFC 7591), the code flow
with S256 PKCE and the resource indicator (RFC 8707); this test only plays the person at the sign-in
form. The draft it makes is then found and confirmed through the HTTP API, as the same user, with a
token of the page's own sign-in.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata
from multitool.local.standins.oidc import MCP_SCOPE

from tests.support.local_server import REPO, clean_env, local_server
from tests.support.mcp_storage import MemoryStorage
from tests.support.page_sign_in import hidden_fields, page_id_token

USER = "priya"
EMAIL = {"to": ["Kinshuok"], "subject": "The doc", "body": "Have a look."}
CALLBACK = "http://127.0.0.1:53682/callback"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Servers:
    page: str  # multitool serve, e.g. http://127.0.0.1:41234/
    mcp: str  # http://127.0.0.1:PORT/mcp
    issuer: str  # the MCP server's authorization server


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    output: list[str] = []
    with local_server(args=("--sign-in", "oidc"), output=output) as page:
        moto = re.search(r"moto at (http://[^)\s]+)", "".join(output))
        assert moto, output
        port = _free_port()
        env = {**clean_env(), "PYTHONPATH": f"{REPO / 'shared' / 'python'}:{REPO}"}
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "multitool.local.cli",
                "mcp",
                "--http",
                str(port),
                "--sign-in",
                "oidc",
                "--sandbox",
                moto.group(1),
            ],
            cwd=REPO,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                with suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
                assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
                time.sleep(0.2)
            yield Servers(page, f"http://127.0.0.1:{port}/mcp", f"http://127.0.0.1:{port}")
        finally:
            process.terminate()
            process.wait(timeout=10)


class Person:
    """Who sits at the browser: opens the authorization URL, picks themselves on the sign-in form."""

    def __init__(self, user: str) -> None:
        self.user = user
        self.authorize_urls: list[str] = []
        self.answers: list[dict[str, str]] = []

    async def open(self, url: str) -> None:
        self.authorize_urls.append(url)
        async with httpx.AsyncClient() as browser:
            form = await browser.get(url)
            assert form.status_code == 200, form.text
            action = urlsplit(url)._replace(query="").geturl()
            answer = await browser.post(action, data={**hidden_fields(form.text), "username": self.user})
        assert answer.status_code == 302, answer.text
        self.answers.append(dict(parse_qsl(urlsplit(answer.headers["location"]).query)))

    async def callback(self) -> tuple[str, str | None]:
        answer = self.answers[-1]
        return answer["code"], answer.get("state")


def test_an_mcp_client_signs_in_and_its_draft_is_the_users_to_confirm(servers: Servers) -> None:
    # Given an MCP client that knows only the server's URL, and Priya at the browser
    priya = Person(USER)
    storage = MemoryStorage()
    auth = OAuthClientProvider(
        server_url=servers.mcp,
        client_metadata=OAuthClientMetadata(
            redirect_uris=[CALLBACK], client_name="SDK test client", token_endpoint_auth_method="none"
        ),
        storage=storage,
        redirect_handler=priya.open,
        callback_handler=priya.callback,
    )

    async def run() -> tuple[list[str], Any]:
        async with (
            httpx.AsyncClient(auth=auth, timeout=30) as http,
            streamable_http_client(servers.mcp, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names = [tool.name for tool in (await session.list_tools()).tools]
            return names, await session.call_tool("email-draft___create_email_draft", EMAIL)

    # When it connects, lists the tools and asks for an email draft
    names, result = anyio.run(run)

    # Then it registered, signed Priya in with PKCE for this server, and got a draft
    assert storage.client is not None
    assert (storage.client.client_id or "").startswith("mcp-")
    (authorize,) = priya.authorize_urls
    asked = dict(parse_qsl(urlsplit(authorize).query))
    assert asked["code_challenge_method"] == "S256"
    assert asked["resource"] == servers.mcp
    assert asked["scope"] == MCP_SCOPE
    assert priya.answers[0]["iss"] == servers.issuer  # RFC 9207
    assert "email-draft___create_email_draft" in names
    assert not result.isError, result.content
    draft_id = result.structuredContent["draftId"]

    # And the MCP token is good for the MCP server only: the HTTP API refuses it
    assert storage.tokens is not None
    api = servers.page.rstrip("/")
    mcp_token = {"Authorization": f"Bearer {storage.tokens.access_token}"}
    assert httpx.get(f"{api}/actions/{draft_id}", headers=mcp_token).status_code == 401

    def _other() -> dict[str, str]:
        return {"Authorization": f"Bearer {page_id_token(servers.page, 'kinshuok')}"}

    # When Priya signs in to the page, the draft is hers: she finds it and confirms it
    mine = {"Authorization": f"Bearer {page_id_token(servers.page, USER)}"}
    found = httpx.get(f"{api}/actions/{draft_id}", headers=mine)
    assert found.status_code == 200, found.text
    assert found.json()["status"] == "proposed", found.json()
    assert httpx.get(f"{api}/actions/{draft_id}", headers=_other()).status_code == 404
    assert httpx.post(f"{api}/actions/{draft_id}/confirm", headers=_other(), json={}).status_code == 404
    confirmed = httpx.post(f"{api}/actions/{draft_id}/confirm", headers=mine, json={})
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["status"] == "done"


def test_without_a_token_the_server_names_its_metadata_and_the_metadata_its_authorization_server(
    servers: Servers,
) -> None:
    refused = httpx.post(servers.mcp, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert refused.status_code == 401
    metadata_url = f"{servers.issuer}/.well-known/oauth-protected-resource/mcp"
    assert refused.headers["www-authenticate"].startswith("Bearer ")
    assert f'resource_metadata="{metadata_url}"' in refused.headers["www-authenticate"]
    assert 'error="invalid_token"' in refused.headers["www-authenticate"]

    resource = httpx.get(metadata_url).json()
    assert resource["resource"] == servers.mcp
    assert [s.rstrip("/") for s in resource["authorization_servers"]] == [servers.issuer]
    assert resource["scopes_supported"] == [MCP_SCOPE]

    for well_known in ("oauth-authorization-server", "openid-configuration"):
        metadata = httpx.get(f"{servers.issuer}/.well-known/{well_known}").json()
        assert metadata["issuer"] == servers.issuer
        assert metadata["code_challenge_methods_supported"] == ["S256"]
        assert metadata["registration_endpoint"] == f"{servers.issuer}/oauth2/register"
        assert metadata["authorization_response_iss_parameter_supported"] is True
        assert metadata["client_id_metadata_document_supported"] is True
        assert MCP_SCOPE in metadata["scopes_supported"]
