"""Local runtime: server start-up, the API Gateway stand-in's own cost, and /chat round trips.

- start-up: ``multitool serve --port 0`` from process start to the printed URL
  (imports, moto server, tables, seeded directory, Jira sandbox);
- stand-in overhead: HTTP -> payload 2.0 event -> an echo handler -> HTTP, in process;
- /chat: the combined two-intent message through the real orchestrator on the
  offline model, over HTTP against the started server.

``python -m benchmarks local``
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from multitool.local.sandbox.api_gateway import LocalApi
from multitool.local.sandbox.embedded import load_seed
from multitool.local.sandbox.server import make_server

from tests.support.local_server import local_server

COMBINED = "Email Kinshuok about the doc and schedule a sync for Thursday"
ECHO = "def handler(event, context):\n    return {'statusCode': 200, 'body': event.get('body') or ''}\n"


def _timed(action: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def _row(name: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{name:<44} {len(samples):>5} {statistics.median(samples):>9.2f} {p95:>9.2f} {max(samples):>9.2f}"


def _post(url: str, path: str, body: bytes, user: str = "jordan") -> bytes:
    request = urllib.request.Request(
        url.rstrip("/") + path,
        data=body,
        method="POST",
        headers={"content-type": "application/json", "x-local-user": user},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read()  # type: ignore[no-any-return]


def _stand_in_overhead(repeat: int) -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        for name in ("orchestrator", "review"):
            (Path(folder) / name).mkdir()
            (Path(folder) / name / "handler.py").write_text(ECHO)
        with make_server(LocalApi(Path(folder), load_seed()), port=0) as server:
            body = json.dumps({"message": COMBINED, "sessionId": "bench"}).encode()
            _post(server.url, "/chat", body)
            return _timed(lambda: _post(server.url, "/chat", body), repeat)


def _chat_rounds(url: str, repeat: int) -> tuple[list[float], list[float]]:
    """The first /chat (handlers load and build clients) and ``repeat`` warm ones, new session each."""
    sessions = iter(range(repeat + 1))

    def chat() -> bytes:
        body = {"message": COMBINED, "sessionId": f"bench-{next(sessions)}"}
        return _post(url, "/chat", json.dumps(body).encode())

    return _timed(chat, 1), _timed(chat, repeat)


def run() -> None:
    print(f"{'measure (ms)':<44} {'n':>5} {'p50':>9} {'p95':>9} {'max':>9}")
    print(_row("stand-in overhead: POST /chat -> echo handler", _stand_in_overhead(300)))
    startups: list[float] = []
    for round_number in range(3):
        started = time.perf_counter()
        with local_server(startup_seconds=120) as url:
            startups.append((time.perf_counter() - started) * 1000)
            if round_number == 0:
                cold, warm = _chat_rounds(url, 30)
    print(_row("/chat first request (handlers load)", cold))
    print(_row("/chat combined message, warm (offline model)", warm))
    print(_row("multitool serve start-up to printed URL", startups))


if __name__ == "__main__":
    run()
