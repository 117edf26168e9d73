"""The one retry policy of the provider clients (multitool.ports.retry), on a scripted pool."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest
import urllib3
from multitool.ports import retry


@dataclass
class Response:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    data: bytes = b""


class Script:
    """A PoolManager stand-in answering (or raising) from a script; it keeps every request."""

    def __init__(self, *steps: Response | Exception) -> None:
        self.steps = deque(steps)
        self.requests: list[tuple[str, Any]] = []

    def request(self, method: str, url: str, **kwargs: Any) -> Response:
        self.requests.append((method, kwargs["timeout"]))
        assert kwargs["retries"] is False  # one mechanism: urllib3 never retries on its own
        step = self.steps.popleft()
        if isinstance(step, Exception):
            raise step
        return step


def send(http: Script, method: str = "POST", *, idempotent: bool, left: float = 20.0, **kw: Any) -> Any:
    waits: list[float] = []
    answer = retry.send(
        http,  # type: ignore[arg-type]
        method,
        "https://provider.example/x",
        headers={},
        idempotent=idempotent,
        deadline=lambda: left,
        sleep=waits.append,
        jitter=lambda: 0.0,
        **kw,
    )
    return answer, waits


READ_TIMEOUT = urllib3.exceptions.ReadTimeoutError(None, "/x", "Read timed out.")  # type: ignore[arg-type]
DROPPED = urllib3.exceptions.ProtocolError("Connection aborted.", ConnectionResetError())
REFUSED = urllib3.exceptions.NewConnectionError(None, "Connection refused")  # type: ignore[arg-type]


@pytest.mark.parametrize("lost", [READ_TIMEOUT, DROPPED, Response(502), Response(503), Response(504)])
def test_a_request_that_is_not_idempotent_is_never_sent_twice_without_an_answer(lost: Any) -> None:
    http = Script(lost, Response(200))

    with pytest.raises(retry.OutcomeUnknown):
        send(http, idempotent=False)

    assert len(http.requests) == 1


@pytest.mark.parametrize("lost", [READ_TIMEOUT, DROPPED, Response(500), Response(503), Response(504)])
def test_an_idempotent_request_is_tried_again_with_backoff(lost: Any) -> None:
    http = Script(lost, lost, Response(200))

    answer, waits = send(http, "GET", idempotent=True)

    assert answer.status == 200
    assert waits == [0.5, 1.0]


def test_a_request_that_never_left_and_a_throttled_one_are_tried_again_whatever_the_method() -> None:
    http = Script(REFUSED, Response(429, {"Retry-After": "3"}), Response(201))

    answer, waits = send(http, idempotent=False)

    assert answer.status == 201
    assert waits == [0.5, 3.0]


def test_retry_after_as_an_http_date_is_honoured() -> None:
    when = datetime.now(UTC) + timedelta(seconds=5)
    http = Script(Response(429, {"Retry-After": format_datetime(when, usegmt=True)}), Response(200))

    _, waits = send(http, idempotent=False)

    assert len(waits) == 1
    assert 3.0 < waits[0] <= 5.0


def test_a_wait_past_the_deadline_is_not_made_and_the_throttling_is_answered() -> None:
    http = Script(Response(429, {"Retry-After": "9"}))

    answer, waits = send(http, idempotent=False, left=10.0)

    assert answer.status == 429
    assert waits == []


def test_the_tries_are_bounded() -> None:
    http = Script(*(Response(503) for _ in range(retry.MAX_ATTEMPTS)))

    answer, waits = send(http, "GET", idempotent=True)

    assert answer.status == 503
    assert waits == [0.5, 1.0, 2.0]


def test_the_read_timeout_and_every_wait_end_before_the_invocation_does() -> None:
    class Context:
        def get_remaining_time_in_millis(self) -> int:
            return 3_000

    http = Script(Response(503), Response(503))
    with retry.invocation_deadline(Context()):
        answer, waits = send(http, "GET", idempotent=True, left=60.0)

    assert answer.status == 503
    assert waits == []  # 0.5 s of wait and a request's 2 s do not fit in what is left
    [(_, timeout)] = http.requests
    assert timeout.read_timeout <= 2.5
    over = type("Over", (), {"get_remaining_time_in_millis": lambda _: 0})()
    with pytest.raises(retry.Unreachable, match="no time left"), retry.invocation_deadline(over):
        send(Script(), idempotent=True)


class Tokens:
    def access_token(self, provider: str, account: Any, scopes: Any) -> str:
        return f"{provider}-token"


class Recorded:
    """A PoolManager stand-in answering 200 ``{}`` to every request; it keeps every URL and header."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, str]]] = []

    def request(self, method: str, url: str, **kwargs: Any) -> Response:
        self.sent.append((url, kwargs["headers"]))
        return Response(200, data=b"{}")


@pytest.mark.parametrize(
    ("base_url", "graph_url", "google_url"),
    [
        (
            None,
            "https://graph.microsoft.com/v1.0/me",
            "https://www.googleapis.com/calendar/v3/calendars/primary",
        ),
        ("http://127.0.0.1:9/", "http://127.0.0.1:9/me", "http://127.0.0.1:9/calendar/v3/calendars/primary"),
    ],
)
def test_the_graph_and_google_clients_reach_the_provider_or_a_stand_in_with_the_users_token(
    base_url: str | None, graph_url: str, google_url: str
) -> None:
    from multitool.ports.google.http import GoogleApi
    from multitool.ports.microsoft365.graph_http import GraphHttp
    from multitool.ports.tokens import Account

    account = Account(user_id="sub-alex", email="alex@example.com")
    http = Recorded()
    clock = {"http": http, "base_url": base_url, "deadline": lambda: 20.0, "jitter": lambda: 0.0}
    graph = GraphHttp(account, Tokens(), **clock)  # type: ignore[arg-type]
    google = GoogleApi(account, Tokens(), **clock)  # type: ignore[arg-type]

    assert graph.send("GET", "/me", scopes=("User.Read",), what="reading the profile").status == 200
    assert google.call("GET", "calendar", "/calendars/primary", scopes=("calendar",)).status == 200
    assert [url for url, _ in http.sent] == [graph_url, google_url]
    assert [headers["Authorization"] for _, headers in http.sent] == [
        "Bearer microsoft365-token",
        "Bearer google-token",
    ]
    assert graph.account == google.account == account
