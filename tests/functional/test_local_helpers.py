"""The local server's helpers on loopback (Lambda's asynchronous Invoke, the moto child) answer the
server's own clients only: real HTTP requests with foreign Host and Origin headers, without the
per-process secret, and with function names that are paths."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import boto3
import pytest
from multitool.local.embedded import load_seed
from multitool.local.gateway import ASYNC_INVOKED, LocalApi
from multitool.local.invocations import LocalInvocations
from multitool.local.moto_process import MotoProcess, start_moto_process

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
    endpoint = LocalInvocations().start()
    endpoint.bind(api.invoke_event, ASYNC_INVOKED)
    try:
        yield endpoint, tmp_path
    finally:
        endpoint.close()


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
    "headers",
    [
        {"Host": "attacker.example"},  # a DNS-rebinding page sends its own name
        {"Host": "attacker.example:8000"},
        {"Origin": "https://attacker.example"},
        {"Origin": "null"},
    ],
)
def test_a_request_from_a_web_page_is_refused(
    invocations: tuple[LocalInvocations, Path], headers: dict[str, str]
) -> None:
    endpoint, root = invocations

    status, body = _post(
        endpoint.url, _invoke_path(endpoint.url, "orchestrator"), headers={**EVENT, **headers}
    )

    assert status == 403, body
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
    "headers",
    [
        {"Host": "attacker.example"},  # DNS rebinding: the page's own name, resolved to 127.0.0.1
        {"Origin": "https://attacker.example"},
        {"Origin": "http://localhost:3000"},
    ],
)
def test_a_request_from_a_web_page_is_refused_even_with_the_secret(
    moto: MotoProcess, headers: dict[str, str]
) -> None:
    secret_path = urlsplit(moto.endpoint).path

    for method, path in (("GET", "/moto-api/data.json"), ("POST", "/moto-api/reset"), ("OPTIONS", "/")):
        status, answer, body = _request(moto.endpoint, method, f"{secret_path}{path}", headers)
        assert status == 403, (method, path)
        assert "access-control-allow-origin" not in answer
        assert b"drafts" not in body
    assert _dynamodb(moto.endpoint).list_tables()["TableNames"] == ["drafts"]
