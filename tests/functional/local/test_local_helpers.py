"""The local server and its helpers on loopback (Lambda's asynchronous Invoke, the moto child, the
Jira, Graph, Google, AgentCore Identity and harness stand-ins) answer their own clients and pages only:
real HTTP requests with foreign Host and Origin headers (a DNS-rebinding page, a page of another site),
without the per-process secret, and with function names that are paths; none answers with CORS, and
none listens beyond loopback."""

from __future__ import annotations

import base64
import http.client
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import boto3
import pytest
from multitool.local.sandbox.api_gateway import ASYNC_INVOKED, LocalApi
from multitool.local.sandbox.embedded import load_seed
from multitool.local.sandbox.invocations import LocalInvocations
from multitool.local.sandbox.moto_process import MotoProcess, start_moto_process
from multitool.local.sandbox.server import LocalHttpServer, make_server
from multitool.local.standins.google_server import sandbox_token, start_fake_google
from multitool.local.standins.graph_server import start_graph_stand_in
from multitool.local.standins.harness_endpoint import HarnessEndpoint
from multitool.local.standins.identity_endpoint import IdentityEndpoint
from multitool.local.standins.jira_server import start_fake_jira
from multitool.local.standins.oidc import CLIENT_ID, LocalOidc, s256
from multitool.ports.jira import SANDBOX_CREDENTIALS_EMAIL, SANDBOX_CREDENTIALS_TOKEN
from multitool.runtimes.offline_harness import OfflineHarness

RECORDING_HANDLER = """
import pathlib

def handler(event, context):
    pathlib.Path({marker!r}).write_text(context.function_name)
"""


def _post(
    url: str, path: str, body: bytes = b"{}", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, Any]]:
    """A raw POST to ``url``'s host and port: ``path`` and the headers exactly as given."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.request("POST", path, body=body, headers=headers or {})
        answer = connection.getresponse()
        text = answer.read()
        return answer.status, json.loads(text) if text else {}
    finally:
        connection.close()


def _wait_for(path: Path, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def invocations(tmp_path: Path) -> Iterator[tuple[LocalInvocations, Path]]:
    """The Invoke endpoint bound to a LocalApi whose functions record that they ran, beside a
    ``handler.py`` outside ``functions/`` that must never run."""
    functions = tmp_path / "checkout" / "functions"
    for name in ("orchestrator", "review", "mcp_caller"):
        (functions / name).mkdir(parents=True)
        (functions / name / "handler.py").write_text(RECORDING_HANDLER.format(marker=str(tmp_path / name)))
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "handler.py").write_text(
        RECORDING_HANDLER.format(marker=str(tmp_path / "escaped"))
    )
    api = LocalApi(functions, load_seed())
    with LocalInvocations() as endpoint:
        endpoint.bind(api.invoke_event, ASYNC_INVOKED)
        yield endpoint, tmp_path


def _invoke_path(url: str, name: str) -> str:
    return f"{urlsplit(url).path}/2015-03-31/functions/{name}/invocations"


EVENT = {"X-Amz-Invocation-Type": "Event", "Content-Type": "application/json"}


def test_the_servers_own_boto3_client_invokes_a_deployed_function(
    invocations: tuple[LocalInvocations, Path],
) -> None:
    endpoint, root = invocations
    client = boto3.client(
        "lambda", endpoint_url=endpoint.url, region_name="us-east-1",
        aws_access_key_id="local", aws_secret_access_key="local",
    )  # fmt: skip

    answer = client.invoke(FunctionName="orchestrator", InvocationType="Event", Payload=b"{}")

    assert answer["StatusCode"] == 202
    assert _wait_for(root / "orchestrator")


@pytest.mark.parametrize(
    "name", ["..%2F..%2Felsewhere", "..%2F..%2F..%2F" + "x" * 3, "%2E%2E%2F..%2Felsewhere"]
)
def test_a_function_name_that_is_a_path_runs_nothing(
    invocations: tuple[LocalInvocations, Path], name: str
) -> None:
    endpoint, root = invocations

    status, body = _post(endpoint.url, _invoke_path(endpoint.url, name), headers=EVENT)

    assert status == 404, body
    time.sleep(0.3)
    assert not (root / "escaped").exists()


@pytest.mark.parametrize("name", ["review", "mcp_caller"])
def test_only_the_function_the_stack_lets_invoke_itself_is_invocable(
    invocations: tuple[LocalInvocations, Path], name: str
) -> None:
    # review is deployed but never invoked asynchronously (only the orchestrator may invoke, itself);
    # mcp_caller's handler is on disk
    endpoint, root = invocations

    status, _ = _post(endpoint.url, _invoke_path(endpoint.url, name), headers=EVENT)

    assert status == 404
    time.sleep(0.3)
    assert not (root / name).exists()


@pytest.mark.parametrize(
    ("headers", "refused"),
    [
        ({"Host": "attacker.example"}, 421),  # a DNS-rebinding page sends its own name
        ({"Host": "attacker.example:8000"}, 421),
        ({"Origin": "https://attacker.example"}, 403),
        ({"Origin": "null"}, 403),
    ],
)
def test_a_request_from_a_web_page_is_refused(
    invocations: tuple[LocalInvocations, Path], headers: dict[str, str], refused: int
) -> None:
    endpoint, root = invocations

    status, body = _post(
        endpoint.url, _invoke_path(endpoint.url, "orchestrator"), headers={**EVENT, **headers}
    )

    assert status == refused, body
    time.sleep(0.3)
    assert not (root / "orchestrator").exists()


@pytest.mark.parametrize("prefix", ["", "/not-the-secret"])
def test_a_request_without_the_process_secret_is_refused(
    invocations: tuple[LocalInvocations, Path], prefix: str
) -> None:
    endpoint, root = invocations

    status, body = _post(
        endpoint.url, f"{prefix}/2015-03-31/functions/orchestrator/invocations", headers=EVENT
    )

    assert status == 403, body
    time.sleep(0.3)
    assert not (root / "orchestrator").exists()


# --- the moto child -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def moto() -> Iterator[MotoProcess]:
    """A moto child holding one table, as the local server starts it."""
    running = start_moto_process()
    try:
        _dynamodb(running.endpoint).create_table(
            TableName="drafts",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        yield running
    finally:
        running.stop()


def _dynamodb(endpoint: str) -> Any:
    return boto3.client(
        "dynamodb", endpoint_url=endpoint, region_name="us-east-1",
        aws_access_key_id="local", aws_secret_access_key="local",
    )  # fmt: skip


def _request(
    endpoint: str, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b""
) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(endpoint)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        connection.close()


def test_the_servers_own_clients_reach_moto_through_its_endpoint(moto: MotoProcess) -> None:
    assert _dynamodb(moto.endpoint).list_tables()["TableNames"] == ["drafts"]
    status, _, body = _request(moto.endpoint, "GET", f"{urlsplit(moto.endpoint).path}/moto-api/data.json")
    assert status == 200
    assert "drafts" in json.loads(body)["dynamodb"]["Table"][0]["name"]


@pytest.mark.parametrize("path", ["/moto-api/data.json", "/not-the-secret/moto-api/data.json", "/"])
def test_without_the_secret_moto_answers_nothing(moto: MotoProcess, path: str) -> None:
    status, headers, body = _request(moto.endpoint, "GET", path)

    assert status == 403
    assert b"drafts" not in body
    assert "access-control-allow-origin" not in headers


def test_a_web_page_cannot_reset_moto(moto: MotoProcess) -> None:
    # A page's form or fetch POST (a simple request: no preflight) to moto's reset, without the secret
    status, _, _ = _request(moto.endpoint, "POST", "/moto-api/reset", {"Origin": "https://attacker.example"})

    assert status == 403
    assert _dynamodb(moto.endpoint).list_tables()["TableNames"] == ["drafts"]


@pytest.mark.parametrize(
    ("headers", "refused"),
    [
        ({"Host": "attacker.example"}, 421),  # DNS rebinding: the page's own name, resolved to 127.0.0.1
        ({"Origin": "https://attacker.example"}, 403),
        ({"Origin": "http://localhost:3000"}, 403),
    ],
)
def test_a_request_from_a_web_page_is_refused_even_with_the_secret(
    moto: MotoProcess, headers: dict[str, str], refused: int
) -> None:
    secret_path = urlsplit(moto.endpoint).path

    for method, path in (("GET", "/moto-api/data.json"), ("POST", "/moto-api/reset"), ("OPTIONS", "/")):
        status, answer, body = _request(moto.endpoint, method, f"{secret_path}{path}", headers)
        assert status == refused, (method, path)
        assert "access-control-allow-origin" not in answer
        assert b"drafts" not in body
    assert _dynamodb(moto.endpoint).list_tables()["TableNames"] == ["drafts"]


# --- the stand-ins (Jira, Graph, Google, AgentCore Identity, the harness) ---------------------------------

ATTACKER_HOSTS = ("attacker.example", "attacker.example:{port}", "127.0.0.1.attacker.example:{port}")
"""A DNS-rebinding page's requests name the page's own host, whatever address it resolved to."""
FOREIGN_ORIGINS = ("https://attacker.example", "null", "http://localhost:3000", "http://127.0.0.1:1")


@dataclass
class Served:
    """A running stand-in and one request its own client makes: the answer it gets, and what the answer
    reveals (or what the request changes)."""

    url: str
    method: str
    path: str
    answered: int
    reveals: bytes
    stop: Callable[[], None]
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    pages: bool = False
    """Whether people open the stand-in's pages and post from them (its own Origin is answered)."""

    @property
    def port(self) -> int:
        return urlsplit(self.url).port or 80

    def send(self, extra: dict[str, str] | None = None, method: str | None = None) -> Any:
        return _request(
            self.url, method or self.method, self.path, {**self.headers, **(extra or {})}, self.body
        )


SANDBOX_AUTH = (
    "Basic " + base64.b64encode(f"{SANDBOX_CREDENTIALS_EMAIL}:{SANDBOX_CREDENTIALS_TOKEN}".encode()).decode()
)
NEW_ISSUE = json.dumps(
    {"fields": {"project": {"key": "WEB"}, "issuetype": {"name": "Task"}, "summary": "Planted by a page"}}
).encode()


def _serve(name: str) -> Served:
    people = load_seed().people
    if name == "jira":
        jira = start_fake_jira()
        jira.create({"project": {"key": "WEB"}, "summary": "Quietly acquire Initech"})
        return Served(
            jira.url, "GET", "/browse/WEB-1", 200, b"Quietly acquire Initech", jira.stop, pages=True
        )
    if name == "jira-create":  # the sandbox's credentials are in the source: anyone may know them
        jira = start_fake_jira()
        return Served(
            jira.url, "POST", "/rest/api/3/issue", 201, b"WEB-1", jira.stop,
            {"Authorization": SANDBOX_AUTH, "Content-Type": "application/json"}, NEW_ISSUE, pages=True,
        )  # fmt: skip
    if name == "graph":
        graph = start_graph_stand_in(people)
        return Served(graph.url, "GET", "/_local/events", 200, b"Weekly planning", graph.stop)
    if name == "google":
        google = start_fake_google(people=people, week_of=date(2026, 12, 7))
        return Served(
            google.url, "POST", "/calendar/v3/freeBusy", 200, b"busy", google.stop,
            {"Authorization": f"Bearer {sandbox_token(people[0].email)}", "Content-Type": "application/json"},
            json.dumps({
                "timeMin": "2026-12-07T00:00:00Z", "timeMax": "2026-12-12T00:00:00Z",
                "items": [{"id": people[0].email}],
            }).encode(),
            pages=True,
        )  # fmt: skip
    if name == "identity":
        identity = IdentityEndpoint(
            workloads={"local": ("http://127.0.0.1:8000/",)}, person=lambda _: None, provider_name="Google"
        ).start()
        return Served(
            identity.url, "GET", "/consent?request_uri=x", 400, b"consent link", identity.stop, pages=True
        )
    harness = HarnessEndpoint(OfflineHarness()).start()
    return Served(
        harness.url, "POST", "/harnesses/invoke", 400, b"ValidationException", harness.stop,
        {"Content-Type": "application/json"}, b"{}",
    )  # fmt: skip


STAND_INS = ("jira", "jira-create", "graph", "google", "identity", "harness")


@pytest.fixture(params=STAND_INS)
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    running = _serve(request.param)
    try:
        yield running
    finally:
        running.stop()


def _answered_nothing(served: Served, answer: tuple[int, dict[str, str], bytes], status: int) -> None:
    code, headers, body = answer
    assert code == status, body
    assert served.reveals not in body
    assert "access-control-allow-origin" not in headers


def test_a_stand_in_answers_its_own_clients(served: Served) -> None:
    status, headers, body = served.send()

    assert status == served.answered, body
    assert served.reveals in body + str(headers).encode()
    assert "access-control-allow-origin" not in headers


@pytest.mark.parametrize("host", ATTACKER_HOSTS)
def test_a_stand_in_answers_no_dns_rebinding_page(served: Served, host: str) -> None:
    _answered_nothing(served, served.send({"Host": host.format(port=served.port)}), 421)
    # and the request did nothing: the next own request is answered as the first
    assert served.send()[0] == served.answered


@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
def test_a_stand_in_answers_no_page_of_another_origin(served: Served, origin: str) -> None:
    _answered_nothing(served, served.send({"Origin": origin}), 403)
    preflight = {"Origin": origin, "Access-Control-Request-Method": "POST"}
    _answered_nothing(served, served.send(preflight, method="OPTIONS"), 403)
    assert served.send()[0] == served.answered


def test_only_a_stand_in_that_serves_pages_answers_its_own_origin(served: Served) -> None:
    # the consent form, the sandbox Jira's issue page and Google's sandbox view post or fetch from their
    # own origin; Graph and the harness serve programs only, which send no Origin
    own = {"Origin": f"http://127.0.0.1:{served.port}"}

    status, _, body = served.send(own)

    assert status == (served.answered if served.pages else 403), body


def test_a_rebinding_page_creates_no_issue_with_the_sandboxs_known_credentials() -> None:
    jira = _serve("jira-create")
    try:
        assert jira.send({"Host": f"attacker.example:{jira.port}"})[0] == 421
        assert jira.send({"Origin": "https://attacker.example"})[0] == 403
        status, _, body = jira.send()
        assert (status, json.loads(body)["key"]) == (201, "WEB-1")  # the first issue: none was made before
    finally:
        jira.stop()


@pytest.mark.parametrize(
    "start",
    [
        lambda: start_fake_jira(host="0.0.0.0"),
        lambda: start_graph_stand_in(load_seed().people, host="0.0.0.0"),
        lambda: start_fake_google(host="0.0.0.0", people=load_seed().people),
        lambda: IdentityEndpoint(
            workloads={},
            person=lambda _: None,
            provider_name="Google",
            host="0.0.0.0",
        ),
        lambda: HarnessEndpoint(OfflineHarness(), host="0.0.0.0"),
        lambda: LocalInvocations("0.0.0.0"),
    ],
    ids=["jira", "graph", "google", "identity", "harness", "invoke"],
)
def test_a_stand_in_listens_on_this_machine_only(start: Callable[[], Any]) -> None:
    with pytest.raises(ValueError, match="serves this machine only"):
        start()


# --- the local server: its page, its API, and the sign-in it serves ---------------------------------------


@pytest.fixture
def local_server(tmp_path: Path) -> Iterator[tuple[LocalHttpServer, Path]]:
    """``multitool serve``'s HTTP server on a LocalApi whose orchestrator records that it ran, with the
    OIDC sign-in (its provider answers on the same server, as ``--sign-in oidc`` serves it)."""
    functions = tmp_path / "functions"
    (functions / "orchestrator").mkdir(parents=True)
    (functions / "orchestrator" / "handler.py").write_text(
        RECORDING_HANDLER.format(marker=str(tmp_path / "ran"))
    )
    seed = load_seed()
    with make_server(LocalApi(functions, seed), port=0) as running:
        yield running, tmp_path


def _signed_in(server: LocalHttpServer) -> LocalOidc:
    auth = LocalOidc(people=lambda: load_seed().people, issuer=server.url.rstrip("/"))
    server.api.auth = auth
    return auth


def _bearer(server: LocalHttpServer, auth: LocalOidc) -> str:
    """An access token for kinshuok, as the page gets one (the sign-in form, then the token endpoint)."""
    verifier = "v" * 64
    form = _sign_in_form(server, challenge=s256(verifier))
    status, headers, _ = _request(server.url, "POST", "/oauth2/authorize", _FORM, form)
    assert status == 302
    code = parse_qs(urlsplit(headers["location"]).query)["code"][0]
    token_form = urlencode({
        "grant_type": "authorization_code", "client_id": auth.client_id, "code": code,
        "redirect_uri": f"{server.url}", "code_verifier": verifier,
    }).encode()  # fmt: skip
    status, _, body = _request(server.url, "POST", "/oauth2/token", _FORM, token_form)
    assert status == 200, body
    return str(json.loads(body)["access_token"])


_FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def _sign_in_form(server: LocalHttpServer, challenge: str = "c" * 43) -> bytes:
    return urlencode({
        "client_id": CLIENT_ID, "redirect_uri": server.url, "response_type": "code",
        "code_challenge": challenge, "code_challenge_method": "S256", "scope": "openid email",
        "state": "s", "username": "kinshuok",
    }).encode()  # fmt: skip


def _own_origin(server: LocalHttpServer) -> str:
    return server.url.rstrip("/")


def test_the_page_posts_to_its_own_server(local_server: tuple[LocalHttpServer, Path]) -> None:
    server, root = local_server
    headers = {"X-Local-User": "kinshuok", "Content-Type": "application/json", "Origin": _own_origin(server)}

    status, answer, body = _request(server.url, "POST", "/chat", headers, b"{}")

    assert status < 300, body
    assert _wait_for(root / "ran")
    assert "access-control-allow-origin" not in answer


@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
def test_a_page_of_another_origin_does_not_drive_the_api(
    local_server: tuple[LocalHttpServer, Path], origin: str
) -> None:
    server, root = local_server
    auth = _signed_in(server)
    token = _bearer(server, auth)  # even with a token (a page that has one cannot be told from the user)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "text/plain", "Origin": origin}

    status, answer, body = _request(server.url, "POST", "/chat", headers, b"{}")
    preflight = {"Origin": origin, "Access-Control-Request-Method": "POST"}
    options = _request(server.url, "OPTIONS", "/chat", preflight)

    assert status == 403, body
    assert options[0] == 403
    assert "access-control-allow-origin" not in answer | options[1]
    time.sleep(0.3)
    assert not (root / "ran").exists()


@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
def test_a_page_of_another_origin_cannot_sign_in_or_out(
    local_server: tuple[LocalHttpServer, Path], origin: str
) -> None:
    # A form posted from another site (a simple request) would sign the browser in as someone (login
    # CSRF) and have a code issued; it is refused before the provider sees it.
    server, _ = local_server
    _signed_in(server)

    status, headers, _ = _request(
        server.url, "POST", "/oauth2/authorize", {**_FORM, "Origin": origin}, _sign_in_form(server)
    )

    assert status == 403
    assert "location" not in headers
    assert "set-cookie" not in headers


def test_the_sign_in_form_posts_with_its_own_origin(local_server: tuple[LocalHttpServer, Path]) -> None:
    # The browser opens the form (a navigation: no Origin) and posts it back with the server's origin:
    # the form's page says "same-origin", under which a browser sends it (not "null")
    server, _ = local_server
    _signed_in(server)
    query = urlencode({
        "client_id": CLIENT_ID, "redirect_uri": server.url, "response_type": "code",
        "code_challenge": "c" * 43, "code_challenge_method": "S256", "scope": "openid",
    })  # fmt: skip

    status, page_headers, _ = _request(server.url, "GET", f"/oauth2/authorize?{query}")
    posted, headers, _ = _request(
        server.url,
        "POST",
        "/oauth2/authorize",
        {**_FORM, "Origin": _own_origin(server)},
        _sign_in_form(server),
    )

    assert status == 200
    assert page_headers["referrer-policy"] == "same-origin"
    assert posted == 302
    assert "code=" in headers["location"]
    assert "set-cookie" in headers


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_the_servers_own_origin_is_the_name_it_was_opened_by(
    local_server: tuple[LocalHttpServer, Path], host: str
) -> None:
    server, _ = local_server
    port = server.server_address[1]
    headers = {
        "Host": f"{host}:{port}", "Origin": f"http://{host}:{port}",
        "X-Local-User": "kinshuok", "Content-Type": "application/json",
    }  # fmt: skip
    other = "127.0.0.1" if host == "localhost" else "localhost"

    assert _request(server.url, "POST", "/chat", headers, b"{}")[0] < 300
    assert (
        _request(server.url, "POST", "/chat", {**headers, "Origin": f"http://{other}:{port}"}, b"{}")[0]
        == 403
    )
