"""The loopback stand-ins (Graph, Google, Jira) frame every answer the same way, over real HTTP.

Given each stand-in running on loopback, when a client asks for a JSON view, a route it does
not serve, and (Graph) a call with no body in the answer, then each answer's ``Content-Length``
is its body's length, a ``Content-Type`` comes with a body and never without one, and the
stand-ins write nothing to stderr (their request logs are their own).
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from urllib.parse import urlsplit

import pytest
from multitool.local.sandbox.embedded import load_seed
from multitool.local.standins.google_server import start_fake_google
from multitool.local.standins.graph_server import start_graph_stand_in
from multitool.local.standins.jira_server import start_fake_jira
from multitool.local.standins.stand_in import StandInHandler, StandInServer

SEED = load_seed()


def framed(base_url: str, method: str, path: str) -> tuple[int, str | None, bytes, http.client.HTTPMessage]:
    """Status, ``Content-Type``, body and headers of one answer, its length checked against its body."""
    where = urlsplit(base_url)
    connection = http.client.HTTPConnection(where.hostname or "127.0.0.1", where.port, timeout=10)
    try:
        connection.request(method, path)
        answer = connection.getresponse()
        data = answer.read()
    finally:
        connection.close()
    assert answer.getheader("Content-Length") == str(len(data))
    return answer.status, answer.getheader("Content-Type"), data, answer.headers


@pytest.fixture
def empty_and_json() -> Iterator[str]:
    class Handler(StandInHandler):
        def do_GET(self) -> None:
            if self.path == "/empty":
                self.send_json(204, None)
            else:
                self.send_json(200, {"value": [1]}, {"X-Seen": "yes"})

    with StandInServer(Handler, name="answers") as server:
        yield server.url


def test_an_empty_answer_has_a_zero_length_and_no_content_type(empty_and_json: str) -> None:
    status, content_type, data, _ = framed(empty_and_json, "GET", "/empty")
    assert (status, content_type, data) == (204, None, b"")


def test_a_json_answer_carries_its_type_length_and_extra_headers(
    empty_and_json: str, capfd: pytest.CaptureFixture[str]
) -> None:
    status, content_type, data, headers = framed(empty_and_json, "GET", "/value")
    assert (status, content_type, json.loads(data)) == (200, "application/json", {"value": [1]})
    assert headers["X-Seen"] == "yes"
    assert capfd.readouterr().err == "", "a stand-in logs nothing to stderr"


@contextmanager
def graph_url() -> Iterator[str]:
    graph = start_graph_stand_in(SEED.people)
    try:
        yield graph.url
    finally:
        graph.stop()


@contextmanager
def google_url() -> Iterator[str]:
    with start_fake_google(people=SEED.people) as google:
        yield google.url


@pytest.mark.parametrize(
    ("stand_in", "elsewhere", "json_type"),
    [
        (graph_url, "/v1.0/nowhere", "application/json"),
        (google_url, "/calendar/v3/nowhere", "application/json; charset=UTF-8"),
    ],
    ids=["graph", "google"],
)
def test_provider_stand_in_answers_are_framed_and_quiet(
    stand_in: Callable[[], AbstractContextManager[str]],
    elsewhere: str,
    json_type: str,
    capfd: pytest.CaptureFixture[str],
) -> None:
    with stand_in() as url:
        status, content_type, data, _ = framed(url, "GET", "/_local/sent")
        assert (status, content_type, json.loads(data)) == (200, "application/json", {"value": []})
        status, content_type, data, _ = framed(url, "GET", elsewhere)
        assert status >= 400
        assert content_type == json_type
        assert data
    assert capfd.readouterr().err == ""


def test_googles_page_is_html(capfd: pytest.CaptureFixture[str]) -> None:
    with google_url() as url:
        status, content_type, data, _ = framed(url, "GET", "/")
    assert (status, content_type) == (200, "text/html; charset=utf-8")
    assert b"andbox" in data
    assert capfd.readouterr().err == ""


def test_jira_answers_are_framed_and_quiet(capfd: pytest.CaptureFixture[str]) -> None:
    with start_fake_jira() as jira:
        status, content_type, data, _ = framed(jira.url, "GET", "/rest/api/3/issue/WEB-1")
        assert (status, content_type) == (401, "application/json;charset=UTF-8")
        assert data
        status, content_type, data, _ = framed(jira.url, "GET", "/browse/WEB-404")
        assert (status, content_type, data) == (
            404,
            "text/plain; charset=utf-8",
            b"Sandbox Jira: no such issue",
        )
    assert capfd.readouterr().err == ""
