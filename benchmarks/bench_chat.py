"""The chat path's own costs: conversation memory and idempotent replays.

``memory``: one offline turn through :class:`multitool.chat.service.ChatService` (in-memory
ports and sessions) with no history and with a full history of 10 exchanges,
which the offline model re-reads to resolve "it"; plus bounding and encoding a
full history (typical texts, and the 4-byte-character worst case).

``requests``: POST /chat through the orchestrator handler over moto DynamoDB
(in process): the DynamoDB calls each request makes and its median time, for a
request without a key, the first request with an Idempotency-Key, and its
replay. moto's times are not DynamoDB's; the call counts are what a deployment pays.

``concurrent``: ``multitool serve`` (offline runtime, moto in its child process) under
20 clients each sending 10 combined /chat requests back to back, all at once over
HTTP: per-request latency p50/p95/max, errors, and throughput; and the CPU time each
request costs the server and its moto child (Linux ``/proc``), with the latency floor
that sets: with ``c`` CPU seconds per request on ``n`` cores, 20 clients wait at least
``20 * c / n`` each (every request's CPU must be spent, and only ``n`` run at once). It is
labelled local: a measure of moto and this machine's cores, not of a deployment, and no target.
``python -m
benchmarks chat`` runs all three; ``CHAT_BENCH_URL`` points the concurrent part
at a server already running (e.g. another build) instead of starting one.
"""

from __future__ import annotations

import contextlib
import io
import os
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPEATS = 15
COMBINED = "Email Kinshuok about the doc and schedule a sync for Thursday"


def _median_ms(action: Callable[[], Any], repeats: int = REPEATS) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _memory() -> str:
    from multitool.chat.service import ChatRequest, ChatService
    from multitool.chat.sessions import MAX_STORED_TEXT_CHARS, bounded, exchange, history_json
    from multitool.local.sandbox.memory import (
        MemoryCalendar,
        MemoryDirectory,
        MemoryDraftStore,
        MemorySessionStore,
    )
    from multitool.people import Person
    from multitool.runtimes import ConverseRuntime, OfflineModel
    from multitool.runtimes.product import product_flows
    from multitool.tools import ToolPorts

    people = [Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com")]
    ports = ToolPorts(MemoryDirectory(people), MemoryCalendar(), MemoryDraftStore())
    runtime = ConverseRuntime(OfflineModel(), "offline", product_flows(ports))

    def fresh_session_turn(history_exchanges: int) -> Callable[[], Any]:
        store = MemorySessionStore()
        chat = ChatService(runtime, store)
        for number in range(history_exchanges):
            chat.reply(
                "u", ChatRequest(message=f"File a Jira task in WEB for item {number}", session_id="s-1")
            )
        saved = store.histories.get("s-1", ())

        def run() -> None:
            store.histories["s-1"] = saved
            chat.reply("u", ChatRequest(message=COMBINED, session_id="s-1"))

        return run

    typical = tuple(
        m for n in range(10) for m in exchange(f"Email Kinshuok about topic {n}", "I prepared it.")
    )
    worst = tuple(
        m for n in range(10) for m in exchange(f"{n}" + "\U0001f600" * MAX_STORED_TEXT_CHARS, "🙂" * 5000)
    )
    rows = [
        ("offline turn, no history", _median_ms(fresh_session_turn(0))),
        ("offline turn, 10 exchanges of history", _median_ms(fresh_session_turn(10))),
        ("bound + encode 10 typical exchanges", _median_ms(lambda: history_json(bounded(typical)), 200)),
        ("bound + encode 10 worst-case exchanges", _median_ms(lambda: history_json(bounded(worst)), 50)),
    ]
    kept = bounded(worst)
    lines = [f"{'memory':<44} {'median ms':>10}"]
    lines += [f"{label:<44} {value:>10.3f}" for label, value in rows]
    lines.append(
        f"worst case keeps {len(kept) // 2} exchange(s), "
        f"{len(history_json(kept).encode()):,} bytes of JSON (bound 65,536)"
    )
    return "\n".join(lines)


def _requests() -> str:
    import boto3
    from moto import mock_aws

    from tests.support.http_events import FakeLambdaContext, http_api_event

    for key, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_NAMESPACE": "Bench",
        "POWERTOOLS_LOG_LEVEL": "ERROR",
    }.items():
        os.environ.setdefault(key, value)
    with mock_aws():
        from multitool.people import Person
        from multitool.ports.directory import seed_people
        from multitool.ports.tables import create_all
        from multitool.wiring.orchestrator import aws_chat_service

        client = boto3.client("dynamodb")
        names = create_all(client, prefix="bench")
        seed_people(
            client,
            names["DIRECTORY_TABLE_NAME"],
            [Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com")],
        )
        os.environ.update(names)
        os.environ["RUNTIME"] = "offline"
        aws_chat_service.cache_clear()
        from functions.orchestrator.handler import handler

        calls: Counter[str] = Counter()

        def count(event_name: str, **_: Any) -> None:
            calls[event_name.split(".")[-1]] += 1

        aws_chat_service().sessions.client.meta.events.register("before-call.dynamodb", count)  # type: ignore[attr-defined]

        def post(key: str | None, session: str) -> dict[str, Any]:
            headers = {"Idempotency-Key": key} if key else None
            event = http_api_event(
                "POST", "/chat", {"message": COMBINED, "sessionId": session}, headers=headers
            )
            response: dict[str, Any] = handler(event, FakeLambdaContext())
            assert response["statusCode"] == 200, response
            return response

        counter = iter(range(10_000))
        rows: list[tuple[str, str, float]] = []
        cases: list[tuple[str, Callable[[], dict[str, Any]]]] = [
            ("no Idempotency-Key", lambda: post(None, f"s-{next(counter)}")),
            ("first request with a key", lambda: post(f"k-{next(counter)}", "s-key")),
            ("replay of that request", lambda: post("k-replay", "s-replay")),
        ]
        for label, action in cases:
            post("k-replay", "s-replay")  # the stored response the replay row reads
            calls.clear()
            action()
            per_request = ", ".join(f"{name} {n}" for name, n in sorted(calls.items()))
            rows.append((label, per_request, _median_ms(action)))
        split = [_cpu_split(rows[0][0], cases[0][1])]
        for _ in range(GROWTH_REQUESTS):  # each stores two drafts: moto's transaction copies the table
            cases[0][1]()
        split.append(_cpu_split(f"after {2 * GROWTH_REQUESTS} more drafts", cases[0][1]))
        aws_chat_service.cache_clear()
    lines = [f"\n{'POST /chat (moto, in process)':<28} {'median ms':>10}  DynamoDB calls per request"]
    lines += [f"{label:<28} {value:>10.2f}  {per_request}" for label, per_request, value in rows]
    lines.append(
        f"\n{'CPU ms per request (mean)':<28} {'total':>7} {'moto':>7} {'botocore':>9} {'multitool':>10}"
        "  (multitool: its code, Powertools, pydantic)"
    )
    lines += split
    return "\n".join(lines)


GROWTH_REQUESTS = 200


def _cpu_split(label: str, action: Callable[[], Any], repeats: int = REPEATS) -> str:
    """Where a request's CPU time goes: in moto, in botocore around it, and in everything else.

    Times moto's in-process dispatcher and botocore's ``_make_api_call`` (which contains it)
    for ``repeats`` requests; what is left of the request is multitool's (with Powertools
    and pydantic). CPU time, so the other work on a shared machine does not count.
    """
    from botocore.client import BaseClient
    from moto.core.botocore_stubber import BotocoreStubber

    spent = {"moto": 0.0, "botocore": 0.0}

    def timed(original: Callable[..., Any], bucket: str) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            began = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                spent[bucket] += time.process_time() - began

        return wrapper

    client_class: Any = BaseClient  # botocore's stubs do not declare _make_api_call
    originals = (BotocoreStubber.__call__, client_class._make_api_call)
    BotocoreStubber.__call__ = timed(originals[0], "moto")  # type: ignore[method-assign]
    client_class._make_api_call = timed(originals[1], "botocore")
    try:
        began = time.process_time()
        for _ in range(repeats):
            action()
        total = time.process_time() - began
    finally:
        BotocoreStubber.__call__, client_class._make_api_call = originals  # type: ignore[method-assign]
    moto, calls = spent["moto"], spent["botocore"]
    ms = [value * 1000 / repeats for value in (total, moto, calls - moto, total - calls)]
    return f"{label:<28} {ms[0]:>7.1f} {ms[1]:>7.1f} {ms[2]:>9.1f} {ms[3]:>10.1f}"


CLIENTS = 20
REQUESTS_PER_CLIENT = 10


def _cpu_seconds(pid: int) -> dict[int, float]:
    """User + system CPU seconds of ``pid`` and each live descendant, by process id (Linux ``/proc``).

    Empty where there is no ``/proc``: the figure is then left out, not guessed.
    """
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    stats: dict[int, tuple[int, float]] = {}  # pid -> (parent, CPU seconds)
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = entry.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        # After the command name: state, ppid, ... utime is field 14 of stat(5), stime 15.
        stats[int(entry.parent.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / ticks)
    found: dict[int, float] = {}
    wanted = [pid]
    while wanted:
        current = wanted.pop()
        if current in stats:
            found[current] = stats[current][1]
            wanted += [child for child, (parent, _) in stats.items() if parent == current]
    return found


def _cpu_line(before: dict[int, float], after: dict[int, float], server: int, requests: int) -> str:
    """CPU milliseconds per request, the server's and its children's (moto), and the floor they set."""
    if not after:
        return "CPU per request: not measured (no /proc on this system)"
    spent = {pid: after[pid] - before.get(pid, 0.0) for pid in after}
    own = spent.get(server, 0.0) * 1000 / requests
    children = sum(v for pid, v in spent.items() if pid != server) * 1000 / requests
    cores = os.cpu_count() or 1
    per_request = own + children
    return (
        f"CPU per request {per_request:.0f} ms (server {own:.0f} + moto {children:.0f}); "
        f"{cores} cores: at most {cores * 1000 / per_request:.1f} req/s, "
        f"{CLIENTS} clients p50 >= {CLIENTS * per_request / cores:.0f} ms"
    )


def _concurrent_against(url: str, server_pid: int | None = None) -> str:
    import json
    import threading
    import urllib.error
    import urllib.request

    latencies: list[float] = []
    errors: Counter[str] = Counter()
    lock = threading.Lock()
    start = threading.Barrier(CLIENTS)

    def client(number: int) -> None:
        start.wait()
        for turn in range(REQUESTS_PER_CLIENT):
            body = json.dumps({"message": COMBINED, "sessionId": f"bench-{number}-{turn}-{time.time_ns()}"})
            request = urllib.request.Request(
                url.rstrip("/") + "/chat",
                data=body.encode(),
                method="POST",
                headers={"content-type": "application/json", "x-local-user": "jordan"},
            )
            began = time.perf_counter()
            try:
                with urllib.request.urlopen(request, timeout=60) as answer:
                    reply = json.loads(answer.read())
                # A reply is whole when both intents came back as cards (a failed tool is a 200 too).
                cards = len(reply.get("clientActions") or [])
                outcome = None if cards == 2 else f"{cards} card(s)"
            except urllib.error.HTTPError as error:
                outcome = str(error.code)
            except OSError as error:
                outcome = type(error).__name__
            with lock:
                latencies.append((time.perf_counter() - began) * 1000)
                if outcome:
                    errors[outcome] += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    cpu_before = _cpu_seconds(server_pid) if server_pid is not None else {}
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    cpu = (
        "\n" + _cpu_line(cpu_before, _cpu_seconds(server_pid), server_pid, len(latencies))
        if server_pid is not None
        else ""
    )
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    failed = ", ".join(f"{code} x{n}" for code, n in sorted(errors.items())) or "0"
    return (
        f"\n{'multitool serve, ' + str(CLIENTS) + ' clients x ' + str(REQUESTS_PER_CLIENT) + ' /chat':<44}"
        f" {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'req/s':>7}  errors\n"
        f"{'combined message, offline runtime (local)':<44} {statistics.median(latencies):>8.0f} {p95:>8.0f}"
        f" {ordered[-1]:>8.0f} {len(latencies) / wall:>7.1f}  {failed}{cpu}"
    )


def _concurrent() -> str:
    from tests.support.local_server import local_server

    if os.environ.get("CHAT_BENCH_URL"):
        return _concurrent_against(os.environ["CHAT_BENCH_URL"])
    pids: list[int] = []
    with local_server(startup_seconds=120, pids=pids) as url:
        return _concurrent_against(url, pids[0])


def run() -> None:
    from multitool.observability import logger

    level = logger.log_level
    logger.setLevel("ERROR")  # per-turn INFO lines would be measured (and printed) too
    try:
        for part in (_memory, _requests, _concurrent):
            # Powertools prints metrics (EMF) to stdout: keep them out of the tables.
            captured = io.StringIO()
            with contextlib.redirect_stdout(captured):
                table = part()
            print(table)
    finally:
        logger.setLevel(level)
