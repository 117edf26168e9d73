"""The local server without a browser: HTTP -> API Gateway v2 event, local sign-in, static files.

The conversion tests put echo handlers at ``functions/<name>/handler.py`` in a
temporary folder, so they see exactly the event and context the local server
builds; the last tests run the real handlers through ``multitool serve``.
"""

from __future__ import annotations

import base64
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from multitool.local.sandbox.api_gateway import LocalApi
from multitool.local.sandbox.embedded import load_seed
from multitool.local.sandbox.server import LocalHttpServer, make_server, repo_root

ECHO_HANDLER = """
import json

CALLS = []

def handler(event, context):
    CALLS.append(event)
    if event["rawPath"].endswith("/boom"):
        raise RuntimeError("secret detail")
    if event.get("queryStringParameters", {}).get("plain") == "1":
        return {"echo": True}
    return {
        "statusCode": 201,
        "headers": {"Content-Type": "application/json", "X-Function": context.function_name},
        "cookies": ["a=1; Path=/"],
        "body": json.dumps({
            "event": event,
            "context": {
                "functionName": context.function_name,
                "memory": context.memory_limit_in_mb,
                "arn": context.invoked_function_arn,
                "requestId": context.aws_request_id,
                "remaining": context.get_remaining_time_in_millis(),
            },
        }),
    }
"""


@pytest.fixture(scope="module")
def functions_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("functions")
    for name in ("orchestrator", "review"):
        (root / name).mkdir()
        (root / name / "handler.py").write_text(ECHO_HANDLER)
    return root


@pytest.fixture(scope="module")
def server(functions_dir: Path) -> Iterator[LocalHttpServer]:
    outbox = {"emails": [{"to": ["priya.patel@example.com"], "subject": "Hi"}], "issues": []}
    api = LocalApi(functions_dir, load_seed(), outbox=lambda user: {**outbox, "for": user})
    with make_server(api, port=0) as running:
        yield running


def request(
    server: LocalHttpServer,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(
        server.url.rstrip("/") + path, data=body, method=method, headers=headers or {}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def calls(api: LocalApi, function: str = "orchestrator") -> list[dict[str, Any]]:
    """Every event the echo handler's instances of ``function`` received."""
    instances = api.instances(function)
    instances.first()
    return [event for handler in instances.loaded for event in handler.__globals__["CALLS"]]


def echoed(raw: bytes) -> dict[str, Any]:
    return json.loads(raw)  # type: ignore[no-any-return]


def test_post_chat_reaches_the_orchestrator_as_an_http_api_v2_event(server: LocalHttpServer) -> None:
    # Given a signed-in local user
    body = json.dumps({"message": "Email Kinshuok about the doc"}).encode()

    # When the page posts to /chat
    status, headers, raw = request(
        server,
        "POST",
        "/chat",
        body,
        {"Content-Type": "application/json", "X-Local-User": "kinshuok", "X-Trace": "abc"},
    )

    # Then the orchestrator got a payload 2.0 event with the user as the JWT sub
    assert status == 201
    assert headers["x-function"] == "orchestrator"
    assert headers["set-cookie"].startswith("a=1")
    event = echoed(raw)["event"]
    assert event["version"] == "2.0"
    assert event["routeKey"] == "POST /chat"
    assert event["rawPath"] == "/chat"
    assert event["rawQueryString"] == ""
    assert event["body"] == body.decode()
    assert event["isBase64Encoded"] is False
    assert "pathParameters" not in event
    assert all(name == name.lower() for name in event["headers"])
    assert event["headers"]["x-trace"] == "abc"
    assert event["headers"]["content-type"] == "application/json"
    context = event["requestContext"]
    assert context["http"]["method"] == "POST"
    assert context["http"]["path"] == "/chat"
    assert context["http"]["sourceIp"] == "127.0.0.1"
    assert context["stage"] == "$default"
    assert context["routeKey"] == "POST /chat"
    assert isinstance(context["timeEpoch"], int)
    assert context["requestId"]
    claims = context["authorizer"]["jwt"]["claims"]
    assert claims["sub"] == "kinshuok"
    assert claims["email"] == "kinshuok.sharma@example.com"
    assert claims["email_verified"] == "true"  # the review function trusts only a verified address
    assert claims["token_use"] == "access"


def test_lambda_context_carries_what_powertools_reads(server: LocalHttpServer) -> None:
    status, _, raw = request(server, "POST", "/chat", b"{}", {"X-Local-User": "priya"})

    assert status == 201
    context = echoed(raw)["context"]
    assert context["functionName"] == "orchestrator"
    assert context["memory"] == 512
    assert context["arn"].endswith(":function:orchestrator")
    assert 0 < context["remaining"] <= 30_000
    _, _, second = request(server, "POST", "/chat", b"{}", {"X-Local-User": "priya"})
    assert echoed(second)["context"]["requestId"] != context["requestId"]


def test_action_routes_carry_path_parameters_and_query(server: LocalHttpServer) -> None:
    status, headers, raw = request(
        server, "GET", "/actions/d_abc%20def?x=1&y=two", None, {"X-Local-User": "mei"}
    )

    assert status == 201
    assert headers["x-function"] == "review"
    event = echoed(raw)["event"]
    assert event["routeKey"] == "GET /actions/{id}"
    assert event["pathParameters"] == {"id": "d_abc def"}
    assert event["rawPath"] == "/actions/d_abc%20def"
    assert event["rawQueryString"] == "x=1&y=two"
    assert event["queryStringParameters"] == {"x": "1", "y": "two"}
    assert "body" not in event

    for verb in ("confirm", "discard"):
        status, _, raw = request(
            server, "POST", f"/actions/d_1/{verb}", b'{"fields": {}}', {"X-Local-User": "mei"}
        )
        event = echoed(raw)["event"]
        assert status == 201
        assert event["routeKey"] == f"POST /actions/{{id}}/{verb}"
        assert event["pathParameters"] == {"id": "d_1"}


def test_binary_bodies_are_base64_encoded(server: LocalHttpServer) -> None:
    payload = b"\xff\xfe\x00binary"
    status, _, raw = request(server, "POST", "/chat", payload, {"X-Local-User": "kinshuok"})

    event = echoed(raw)["event"]
    assert status == 201
    assert event["isBase64Encoded"] is True
    assert base64.b64decode(event["body"]) == payload


@pytest.mark.parametrize("headers", [{}, {"X-Local-User": "nobody"}, {"X-Local-User": ""}])
def test_requests_without_a_known_local_user_are_rejected_before_the_function(
    server: LocalHttpServer, functions_dir: Path, headers: dict[str, str]
) -> None:
    api = server.api
    calls_before = len(calls(api))

    status, _, raw = request(server, "POST", "/chat", b"{}", headers)

    assert status == 401
    assert json.loads(raw) == {"message": "Unauthorized"}
    assert len(calls(api)) == calls_before


def test_a_handler_result_without_status_code_is_a_json_200(server: LocalHttpServer) -> None:
    status, headers, raw = request(server, "POST", "/chat?plain=1", b"{}", {"X-Local-User": "kinshuok"})

    assert status == 200
    assert headers["content-type"] == "application/json"
    assert json.loads(raw) == {"echo": True}


def test_an_unhandled_handler_error_is_a_500_without_details(server: LocalHttpServer) -> None:
    server.api.routes = (*server.api.routes, *_boom_route())
    try:
        status, _, raw = request(server, "POST", "/boom", b"{}", {"X-Local-User": "kinshuok"})
    finally:
        server.api.routes = server.api.routes[:-1]

    assert status == 500
    assert json.loads(raw) == {"message": "Internal Server Error"}
    assert b"secret" not in raw


def _boom_route() -> tuple[Any, ...]:
    from multitool.local.sandbox.api_gateway import Route

    return (Route("POST", "/boom", "orchestrator"),)


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/chat"), ("POST", "/nowhere"), ("DELETE", "/actions/d_1"), ("GET", "/actions/d_1/confirm")],
)
def test_unknown_routes_are_404_like_api_gateway(server: LocalHttpServer, method: str, path: str) -> None:
    status, _, raw = request(server, method, path, None, {"X-Local-User": "kinshuok"})

    assert status == 404
    assert json.loads(raw) == {"message": "Not Found"}


def test_oversized_bodies_are_refused(server: LocalHttpServer) -> None:
    status, _, raw = request(server, "POST", "/chat", b"x" * (1024 * 1024 + 1), {"X-Local-User": "kinshuok"})

    assert status == 413
    assert json.loads(raw)["message"] == "Request Entity Too Large"


def test_the_page_and_its_assets_are_served_from_web(server: LocalHttpServer) -> None:
    status, headers, raw = request(server, "GET", "/")
    assert status == 200
    assert headers["content-type"].startswith("text/html")
    assert raw == (repo_root() / "web" / "index.html").read_bytes()
    assert "default-src 'self'" in headers["content-security-policy"]

    status, headers, raw = request(server, "GET", "/app.js")
    assert status == 200
    assert headers["content-type"].startswith("text/javascript")

    status, headers, _ = request(server, "GET", "/styles.css")
    assert status == 200
    assert headers["content-type"].startswith("text/css")


def test_head_answers_like_get_without_a_body(server: LocalHttpServer) -> None:
    status, headers, raw = request(server, "HEAD", "/app.js")

    assert status == 200
    assert int(headers["content-length"]) == len((repo_root() / "web" / "app.js").read_bytes())
    assert raw == b""


@pytest.mark.parametrize(
    "path", ["/missing.js", "/../pyproject.toml", "/%2e%2e/pyproject.toml", "/..%2fREADME.md"]
)
def test_files_outside_web_or_missing_are_404(server: LocalHttpServer, path: str) -> None:
    status, _, raw = request(server, "GET", path)

    assert status == 404
    assert b"[project]" not in raw


def test_config_json_selects_local_sign_in(server: LocalHttpServer) -> None:
    status, _, raw = request(server, "GET", "/config.json")

    assert status == 200
    assert json.loads(raw) == {
        "apiBase": "",
        "auth": "local",
        # Each project with its own issue types: the Jira card offers these, and nothing else.
        "jiraProjects": {
            "OPS": {"name": "Operations", "issueTypes": ["Bug", "Task", "Incident"]},
            "WEB": {"name": "Website", "issueTypes": ["Bug", "Task", "Story"]},
        },
        "sandbox": True,
    }


def test_local_users_lists_the_seeded_directory(server: LocalHttpServer) -> None:
    status, _, raw = request(server, "GET", "/local/users")

    data = json.loads(raw)
    assert status == 200
    assert data["defaultUser"] == "jordan"
    by_id = {u["id"]: u for u in data["users"]}
    assert by_id["kinshuok"]["timezone"] == "Asia/Kolkata"
    assert by_id["priya"]["timezone"] == "Europe/London"
    alexes = [u for u in data["users"] if u["displayName"].startswith("Alex ")]
    assert len(alexes) == 2
    assert len({u["timezone"] for u in alexes}) == 2


def test_sandbox_outbox_is_labelled_and_the_signed_in_users(server: LocalHttpServer) -> None:
    status, _, raw = request(server, "GET", "/sandbox/outbox", None, {"X-Local-User": "priya"})

    assert status == 200
    assert json.loads(raw) == {
        "sandbox": True,
        "emails": [{"to": ["priya.patel@example.com"], "subject": "Hi"}],
        "issues": [],
        "for": "priya",
        "user": "priya",
    }


@pytest.mark.parametrize("headers", [{}, {"X-Local-User": "mallory"}])
def test_sandbox_outbox_without_a_known_user_is_401(server: LocalHttpServer, headers: dict[str, str]) -> None:
    status, _, raw = request(server, "GET", "/sandbox/outbox", None, headers)

    assert status == 401
    assert "per user" in json.loads(raw)["message"]


# --------------------------------------------------------------------------- bad input and other machines


def raw_exchange(server: LocalHttpServer, data: bytes) -> bytes:
    """Send bytes as they are (no client-side normalisation) and read the whole answer."""
    import socket

    host, port = server.server_address[:2]
    with socket.create_connection((str(host), int(port)), timeout=10) as connection:
        connection.sendall(data)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("path", ["/%00", "/index.html%00.js", "/%2e%2e%00/etc/passwd", "/" + "a" * 5000])
def test_paths_the_file_system_cannot_name_are_404_not_a_dropped_connection(
    server: LocalHttpServer, path: str
) -> None:
    answer = raw_exchange(
        server, f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode()
    )

    assert answer.startswith(b"HTTP/1.1 404 ")
    assert answer.endswith(b'{"message": "Not Found"}')


def test_a_chunked_body_is_refused_with_411_before_the_function(server: LocalHttpServer) -> None:
    api = server.api
    calls_before = len(calls(api))

    answer = raw_exchange(
        server,
        b"POST /chat HTTP/1.1\r\nHost: localhost\r\nX-Local-User: kinshuok\r\nTransfer-Encoding: chunked\r\n"
        b"\r\n5\r\nhello\r\n0\r\n\r\n",
    )

    # Then one answer, and the connection closes (the chunks are never read as a next request)
    assert answer.startswith(b"HTTP/1.1 411 ")
    assert answer.count(b"HTTP/1.1 ") == 1
    assert b"\r\nconnection: close\r\n" in answer.lower()
    assert b"Content-Length" in answer.split(b"\r\n\r\n", 1)[1]
    assert len(calls(api)) == calls_before


def test_local_sign_in_is_honoured_only_for_requests_from_this_machine(server: LocalHttpServer) -> None:
    from multitool.local.sandbox.server import route_request

    api = server.api
    calls_before = len(calls(api))

    # Given a request from another machine (serve --host 0.0.0.0) naming a local user
    response = route_request(
        api,
        server.web_dir,
        "POST",
        "/chat",
        headers={"X-Local-User": "kinshuok", "Content-Type": "application/json"},
        body=b"{}",
        source_ip="192.0.2.10",
    )

    # Then it is not signed in, and the function never runs
    assert response.status == 401
    assert "this machine" in response.json()["message"]
    assert len(calls(api)) == calls_before


@pytest.mark.parametrize("path", ["/local/users", "/sandbox/outbox"])
def test_the_directory_and_the_sandbox_outbox_are_not_served_to_other_machines(
    server: LocalHttpServer, path: str
) -> None:
    from multitool.local.sandbox.server import route_request

    signed_in = {"X-Local-User": "jordan"}
    remote = route_request(server.api, server.web_dir, "GET", path, headers=signed_in, source_ip="192.0.2.10")
    local = route_request(server.api, server.web_dir, "GET", path, headers=signed_in, source_ip="127.0.0.1")

    assert remote.status == 403
    assert b"@example.com" not in remote.body
    assert local.status == 200


def test_the_page_itself_is_served_to_other_machines(server: LocalHttpServer) -> None:
    from multitool.local.sandbox.server import route_request

    response = route_request(server.api, server.web_dir, "GET", "/", source_ip="192.0.2.10")

    assert response.status == 200
    assert response.body == (repo_root() / "web" / "index.html").read_bytes()


# --------------------------------------------------------------------------- concurrency and connections

PROBE_HANDLER = """
import _local_server_probe as probe


def handler(event, context):
    probe.events.append(("enter", event["requestContext"]["requestId"]))
    # Both requests must be inside a handler at once to pass: serialized, the first one waits alone.
    probe.barrier.wait(timeout=5)
    probe.events.append(("exit", event["requestContext"]["requestId"]))
    return {"statusCode": 200, "body": "{}"}
"""


@pytest.fixture
def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, LocalHttpServer]]:
    import sys
    import types

    module = types.ModuleType("_local_server_probe")
    module.events = []  # type: ignore[attr-defined]
    module.barrier = threading.Barrier(2)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "_local_server_probe", module)
    (tmp_path / "orchestrator").mkdir()
    (tmp_path / "orchestrator" / "handler.py").write_text(PROBE_HANDLER)
    with make_server(LocalApi(tmp_path, load_seed()), port=0, idle_timeout=1.0) as running:
        yield module, running


def test_concurrent_requests_to_one_function_run_at_the_same_time(probe: tuple[Any, LocalHttpServer]) -> None:
    module, running = probe
    statuses: list[int] = []

    def post() -> None:
        statuses.append(request(running, "POST", "/chat", b"{}", {"X-Local-User": "jordan"})[0])

    # When two clients post at once
    clients = [threading.Thread(target=post) for _ in range(2)]
    for client in clients:
        client.start()
    for client in clients:
        client.join(15)

    # Then both handlers were entered before either returned (each in an instance of its own)
    assert statuses == [200, 200]
    kinds = [kind for kind, _ in module.events]
    assert kinds[:2] == ["enter", "enter"]
    assert sorted(kinds) == ["enter", "enter", "exit", "exit"]
    assert len(running.api.instances("orchestrator").loaded) == 2


def test_an_idle_connection_is_closed_after_the_timeout(probe: tuple[Any, LocalHttpServer]) -> None:
    import socket

    _, running = probe
    host, port = running.server_address[:2]
    with socket.create_connection((str(host), int(port)), timeout=10) as idle:
        # When the client connects and sends nothing, the server hangs up (recv sees the end)
        assert idle.recv(1024) == b""


def test_a_body_that_never_arrives_is_408_and_the_connection_closed(
    probe: tuple[Any, LocalHttpServer],
) -> None:
    import socket

    module, running = probe
    host, port = running.server_address[:2]
    with socket.create_connection((str(host), int(port)), timeout=10) as stalled:
        stalled.sendall(
            b"POST /chat HTTP/1.1\r\nHost: localhost\r\nX-Local-User: jordan\r\nContent-Length: 50\r\n\r\n{"
        )
        chunks = []
        while chunk := stalled.recv(65536):
            chunks.append(chunk)
    answer = b"".join(chunks)

    assert answer.startswith(b"HTTP/1.1 408 ")
    assert answer.endswith(b'{"message": "Request Timeout: the body did not arrive"}')
    assert module.events == []


def test_a_client_that_disconnects_before_the_answer_leaves_nothing_on_stderr(
    probe: tuple[Any, LocalHttpServer], capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket
    import struct

    module, running = probe
    module.barrier = threading.Barrier(1)  # one request alone passes
    finished = threading.Event()
    original = LocalHttpServer.shutdown_request

    def shutdown_request(self: LocalHttpServer, connection: Any) -> None:
        original(self, connection)
        finished.set()

    monkeypatch.setattr(LocalHttpServer, "shutdown_request", shutdown_request)
    entered = threading.Event()
    module.events = _Signalling(entered)
    host, port = running.server_address[:2]
    capfd.readouterr()

    # Given a client that sends a request and resets the connection while the function runs
    client = socket.create_connection((str(host), int(port)), timeout=10)
    client.sendall(
        b"POST /chat HTTP/1.1\r\nHost: localhost\r\nX-Local-User: jordan\r\nContent-Length: 2\r\n\r\n{}"
    )
    assert entered.wait(10)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()

    # When the server writes the answer to the closed connection and finishes with it
    assert finished.wait(10)

    # Then the console shows nothing: no traceback for a client that went away
    assert capfd.readouterr().err == ""


class _Signalling(list[Any]):
    """An event list that says when a handler was entered."""

    def __init__(self, entered: threading.Event) -> None:
        super().__init__()
        self.entered = entered

    def append(self, item: Any) -> None:
        super().append(item)
        if item[0] == "enter":
            self.entered.set()
            threading.Event().wait(0.3)  # the client resets while the function still runs


@pytest.mark.parametrize("method", ["OPTIONS", "TRACE", "BREW"])
def test_any_method_gets_a_json_answer_below_500(server: LocalHttpServer, method: str) -> None:
    answer = raw_exchange(
        server, f"{method} /chat HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode()
    )

    assert answer.startswith(b"HTTP/1.1 404 ")
    assert answer.endswith(b'{"message": "Not Found"}')


@pytest.mark.parametrize(
    "request_bytes",
    [b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n"],
)
def test_requests_http_server_refuses_are_json_and_below_500(
    server: LocalHttpServer, request_bytes: bytes
) -> None:
    answer = raw_exchange(server, request_bytes)

    status = int(answer.split(b" ", 2)[1])
    assert 400 <= status < 500
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["message"]


def test_the_served_console_has_readable_logs_and_no_metrics_or_tracebacks() -> None:
    import socket
    import struct

    from tests.support.local_server import local_server

    output: list[str] = []
    with local_server(output=output, args=("--log-level", "INFO")) as url:
        base = url.rstrip("/")

        def post(path: str, body: dict[str, Any]) -> Any:
            req = urllib.request.Request(
                base + path,
                data=json.dumps(body).encode(),
                method="POST",
                headers={"content-type": "application/json", "x-local-user": "jordan"},
            )
            try:
                with urllib.request.urlopen(req, timeout=30) as answer:
                    return json.load(answer)
            except urllib.error.HTTPError as error:
                return json.load(error)

        # When a chat turn runs, its cards are confirmed and discarded, and a client hangs up early
        turn = post(
            "/chat",
            {"message": "Email Kinshuok about the doc and file a Jira bug in WEB for the login crash"},
        )
        email, jira = turn["clientActions"]
        assert post(f"/actions/{email['id']}/confirm", {})["status"] == "done"
        assert post(f"/actions/{jira['id']}/discard", {})["status"] == "discarded"
        assert post("/actions/d_missing/confirm", {})["error"]["code"] == "not_found"
        host, port = base.removeprefix("http://").split(":")
        rude = socket.create_connection((host, int(port)), timeout=10)
        rude.sendall(
            b"POST /chat HTTP/1.1\r\nHost: localhost\r\nX-Local-User: jordan\r\nContent-Length: 20\r\n\r\n"
        )
        rude.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        rude.close()
        post("/chat", {"message": "hi"})  # the server is still answering after it

    console = "".join(output)
    # Then the console holds log lines a person reads, and nothing else
    assert "Chat turn done" in console
    assert '"_aws"' not in console
    assert "No application metrics" not in console
    assert "Traceback" not in console
    assert not [line for line in output if line.startswith("{")]


def test_each_user_sees_only_the_mail_and_issues_their_own_confirms_made() -> None:
    from tests.support.local_server import local_server

    with local_server() as url:
        base = url.rstrip("/")

        def call(method: str, path: str, user: str, body: dict[str, Any] | None = None) -> Any:
            data = json.dumps(body).encode() if body is not None else None
            req = urllib.request.Request(
                base + path,
                data=data,
                method=method,
                headers={"content-type": "application/json", "x-local-user": user},
            )
            with urllib.request.urlopen(req, timeout=30) as answer:
                return json.load(answer)

        # Given two users who each confirm an email and a Jira ticket of their own
        mine: dict[str, tuple[str, str]] = {}
        for user in ("priya", "kinshuok"):
            turn = call(
                "POST",
                "/chat",
                user,
                {"message": f"File a Jira bug in WEB for the {user} crash and email Mei about it"},
            )
            jira, email = turn["clientActions"]
            issue = call("POST", f"/actions/{jira['id']}/confirm", user, {})["result"]["issueKey"]
            subject = f"Notes from {user}"
            assert (
                call("POST", f"/actions/{email['id']}/confirm", user, {"subject": subject})["status"]
                == "done"
            )
            mine[user] = (subject, issue)

        # When each one opens the sandbox outbox, and a third who confirmed nothing does
        boxes = {user: call("GET", "/sandbox/outbox", user) for user in ("priya", "kinshuok", "jordan")}

    # Then each sees exactly their own mail and issue, and nobody else's
    for user, (subject, issue) in mine.items():
        assert [m["subject"] for m in boxes[user]["emails"]] == [subject]
        # the local sign-in carries the user's name, so mail says who asked for it
        name = {"priya": "Priya Patel", "kinshuok": "Kinshuok Sharma"}[user]
        assert [m["from"] for m in boxes[user]["emails"]] == [f"{name} via multitool <assistant@example.com>"]
        assert [i["key"] for i in boxes[user]["issues"]] == [issue]
        assert boxes[user]["user"] == user
    assert boxes["jordan"]["emails"] == []
    assert boxes["jordan"]["issues"] == []


# --------------------------------------------------------------------------- sign-in as deployed (OIDC)

WEB = repo_root() / "web"


@pytest.fixture(scope="module")
def oidc_api(functions_dir: Path) -> LocalApi:
    from multitool.local.standins.oidc import LocalOidc

    seed = load_seed()
    api = LocalApi(functions_dir, seed, outbox=lambda user: {"emails": [], "issues": [], "for": user})
    api.auth = LocalOidc(people=lambda: seed.people, issuer="http://127.0.0.1:8000")
    return api


def oidc_tokens(api: LocalApi, user: str) -> dict[str, Any]:
    """The page's code flow with PKCE against the stand-in: the form, the code, the token exchange."""
    import secrets
    from urllib.parse import parse_qs, urlencode, urlsplit

    from multitool.local.standins.oidc import CLIENT_ID, s256

    assert api.auth is not None
    verifier = secrets.token_urlsafe(48)
    params = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": "http://127.0.0.1:8000/",
        "scope": "openid email profile",
        "state": "s",
        "code_challenge": s256(verifier),
        "code_challenge_method": "S256",
    }
    form = urlencode({**params, "username": user}).encode()
    signed_in = api.auth.serve("POST", "/oauth2/authorize", body=form)
    code = parse_qs(urlsplit(signed_in.headers["location"]).query)["code"][0]
    exchange = {
        "grant_type": "authorization_code",
        "client_id": CLIENT_ID,
        "code": code,
        "redirect_uri": params["redirect_uri"],
        "code_verifier": verifier,
    }
    answer = api.auth.serve("POST", "/oauth2/token", body=urlencode(exchange).encode())
    assert answer.status == 200, answer.body
    return json.loads(answer.body)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("method", "path"), [("POST", "/chat"), ("GET", "/actions/d_x"), ("GET", "/turns/t-x")]
)
def test_with_oidc_sign_in_the_local_header_signs_no_one_in(
    oidc_api: LocalApi, method: str, path: str
) -> None:
    from multitool.local.sandbox.server import route_request

    calls_before = len(calls(oidc_api))

    # Given the server signs in as deployed, When a request names a seeded user but carries no token
    response = route_request(oidc_api, WEB, method, path, headers={"X-Local-User": "jordan"}, body=b"{}")

    # Then the authorizer refuses it before the function runs, as the deployed API would
    assert response.status == 401
    assert len(calls(oidc_api)) == calls_before


def test_with_oidc_sign_in_a_valid_token_reaches_the_function_as_its_user(oidc_api: LocalApi) -> None:
    from multitool.local.sandbox.server import route_request

    tokens = oidc_tokens(oidc_api, "priya")

    # When a request carries the page's ID token (and a local header naming someone else)
    response = route_request(
        oidc_api,
        WEB,
        "GET",
        "/actions/d_x",
        headers={"Authorization": f"Bearer {tokens['id_token']}", "X-Local-User": "jordan"},
    )

    # Then the function runs as the token's user, never the header's
    assert response.status == 201
    claims = echoed(response.body)["event"]["requestContext"]["authorizer"]["jwt"]["claims"]
    assert claims["sub"] == "priya"


def test_with_oidc_sign_in_the_outbox_answers_a_valid_token_and_only_that(oidc_api: LocalApi) -> None:
    from multitool.local.sandbox.server import route_request

    tokens = oidc_tokens(oidc_api, "mei")

    def outbox(headers: dict[str, str]) -> Any:
        return route_request(oidc_api, WEB, "GET", "/sandbox/outbox", headers=headers)

    # A valid token: the outbox of the token's user
    signed_in = outbox({"Authorization": f"Bearer {tokens['access_token']}"})
    assert signed_in.status == 200
    assert signed_in.json()["user"] == "mei"
    assert signed_in.json()["for"] == "mei"
    # The local header, no token, or a tampered token: 401, saying how to sign in
    header, payload, _ = tokens["id_token"].split(".")
    for refused in ({"X-Local-User": "mei"}, {}, {"Authorization": f"Bearer {header}.{payload}.AAAA"}):
        answer = outbox(refused)
        assert answer.status == 401, refused
        assert "bearer token" in answer.json()["message"]


def test_with_oidc_sign_in_the_page_config_still_offers_the_sandbox_outbox(oidc_api: LocalApi) -> None:
    config = oidc_api.page_config()

    assert config["auth"] == "oidc"
    assert config["sandbox"] is True


@pytest.mark.parametrize(
    "host", ["localhost", "LOCALHOST:8000", "app.localhost", "127.0.0.1", "127.0.0.1:9", "[::1]:8000"]
)
def test_a_loopback_host_name_is_answered(server: LocalHttpServer, host: str) -> None:
    answer = raw_exchange(
        server, f"GET /config.json HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
    )
    assert answer.startswith(b"HTTP/1.1 200 ")


@pytest.mark.parametrize(
    "host_line",
    [
        "Host: evil.example\r\n",
        "Host: 127.0.0.1.evil.example:8000\r\n",
        "Host: localhost.evil.example\r\n",
        "",
    ],
)
def test_a_request_naming_another_host_is_refused_before_any_route(
    server: LocalHttpServer, host_line: str
) -> None:
    # Given a page on another site whose name was made to resolve to this machine (DNS rebinding):
    # its requests carry that site's name as Host, or none at all
    api = server.api
    before = len(calls(api))

    # When it posts a chat turn
    answer = raw_exchange(
        server,
        (
            f"POST /chat HTTP/1.1\r\n{host_line}X-Local-User: jordan\r\n"
            "Content-Length: 2\r\nConnection: close\r\n\r\n{}"
        ).encode(),
    )

    # Then the server refuses it and no function ran
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 421 ")
    assert "localhost" in json.loads(body)["message"]
    assert len(calls(api)) == before
