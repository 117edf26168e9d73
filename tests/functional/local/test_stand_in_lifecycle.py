"""One lifecycle for every part a local run starts (multitool.local.standins.stand_in.Lifecycle): each
stand-in, the local server and the sign-in callback is bound when made, serves once started (``with``
or :meth:`start`), answers nothing once stopped, starts once and stops once, and one never started
stops at once, its port free again."""

from __future__ import annotations

import http.client
import socket
import threading
from collections.abc import Callable
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from multitool.local.deployed import login
from multitool.local.sandbox.api_gateway import LocalApi
from multitool.local.sandbox.embedded import load_seed
from multitool.local.sandbox.invocations import LocalInvocations
from multitool.local.sandbox.moto_process import MotoProcess
from multitool.local.sandbox.queue_poller import QueuePoller
from multitool.local.sandbox.server import LocalHttpServer, make_server
from multitool.local.standins.google_server import FakeGoogle
from multitool.local.standins.graph_server import GraphStandIn
from multitool.local.standins.graph_state import GraphState
from multitool.local.standins.harness_endpoint import HarnessEndpoint
from multitool.local.standins.identity_endpoint import IdentityEndpoint
from multitool.local.standins.jira_server import FakeJira
from multitool.local.standins.slack_server import SlackStandIn
from multitool.local.standins.stand_in import Lifecycle
from multitool.runtimes.offline_harness import OfflineHarness

from tests.support.slack_wire import SlackApi

PEOPLE = load_seed().people

PARTS: dict[str, Callable[[Path], Lifecycle]] = {
    "jira": lambda _: FakeJira(
        "127.0.0.1", 0, email="a@example.com", api_token="t", projects={"WEB": ("Task",)}
    ),
    "google": lambda _: FakeGoogle("127.0.0.1", 0, people=PEOPLE, week_of=date(2026, 12, 7), validate=False),
    "graph": lambda _: GraphStandIn(GraphState()),
    "slack": lambda _: SlackStandIn(PEOPLE, request_url="http://127.0.0.1:9/slack/events"),
    "identity": lambda _: IdentityEndpoint(workloads={}, person=lambda _: None, provider_name="Google"),
    "harness": lambda _: HarnessEndpoint(OfflineHarness()),
    "invoke": lambda _: LocalInvocations(),
    "local-server": lambda folder: make_server(LocalApi(folder, load_seed()), port=0),
    "login-callback": lambda _: login._CallbackServer(0),
    "slack-web-api": lambda _: SlackApi(),
}


def _answers(url: str) -> int | None:
    """The status a ``GET /`` gets from ``url``'s server; None when nothing listens there."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=5)
    try:
        connection.request("GET", "/", headers={"Host": parts.netloc})
        return connection.getresponse().status
    except ConnectionRefusedError:
        return None
    finally:
        connection.close()


def _port(url: str) -> int:
    return urlsplit(url).port or 80


@pytest.mark.parametrize("name", PARTS)
def test_with_serves_it_and_its_end_stops_it(name: str, tmp_path: Path) -> None:
    part = PARTS[name](tmp_path)
    with part as running:
        assert running is part
        assert _answers(part.url) is not None
        assert part.start() is part  # running already: left as it is
        assert _answers(part.url) is not None
    assert _answers(part.url) is None
    part.stop()  # once: a second stop is nothing
    with pytest.raises(RuntimeError, match="was stopped"):
        part.start()


@pytest.mark.parametrize("name", PARTS)
def test_one_never_started_stops_at_once_and_frees_its_port(name: str, tmp_path: Path) -> None:
    part = PARTS[name](tmp_path)
    port = _port(part.url)
    stopping = threading.Thread(target=part.stop, daemon=True)
    stopping.start()
    stopping.join(timeout=5)
    assert not stopping.is_alive()  # socketserver's shutdown() waits forever for a loop never run
    with socket.socket() as again:
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("127.0.0.1", port))


def test_every_part_a_local_run_starts_has_the_one_lifecycle() -> None:
    parts = (
        FakeGoogle,
        FakeJira,
        GraphStandIn,
        SlackStandIn,
        HarnessEndpoint,
        IdentityEndpoint,
        LocalInvocations,
        LocalHttpServer,
        QueuePoller,
        MotoProcess,
        login._CallbackServer,
    )
    assert [p.__name__ for p in parts if not issubclass(p, Lifecycle)] == []
    # none writes its own start, stop, enter or exit: the one lifecycle is written once
    own = {
        p.__name__: sorted(set(vars(p)) & {"start", "stop", "__enter__", "__exit__", "close"}) for p in parts
    }
    assert {name: methods for name, methods in own.items() if methods} == {}


def test_the_login_callback_keeps_the_first_answer_it_gets() -> None:
    with login._CallbackServer(0) as server:
        host = f"localhost:{server.server_address[1]}"
        for code in ("first", "second"):
            connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=5)
            connection.request("GET", f"{login.CALLBACK_PATH}?code={code}&state=s", headers={"Host": host})
            assert connection.getresponse().status == 200
            connection.close()
        assert server.came_back.is_set()
        assert server.received == {"code": "first", "state": "s"}
