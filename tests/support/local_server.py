"""``multitool serve`` as a subprocess, for tests and benchmarks that talk to it over HTTP."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 90


def clean_env() -> dict[str, str]:
    """This process's environment without endpoint overrides (the server starts its own moto)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("AWS_ENDPOINT_URL")}


@contextmanager
def local_server(
    startup_seconds: float = STARTUP_SECONDS,
    *,
    output: list[str] | None = None,
    args: tuple[str, ...] = (),
    env: Mapping[str, str] | None = None,
    pids: list[int] | None = None,
) -> Iterator[str]:
    """``multitool serve --port 0 [args]``; yields the URL it prints, and stops it on exit.

    ``env`` adds to the server's environment (the offline harness's ``OFFLINE_DELAY_SECONDS``, say; the
    undo window's ``UNDO_SECONDS``, 0 unless given: a confirmed mail is sent at once).

    ``output``, when given, collects every line the server prints (stdout and stderr), as it prints it.
    ``pids``, when given, receives the server's process id (a benchmark reads its CPU time).
    Raises ``RuntimeError`` with everything the server printed when no URL comes in time.
    """
    # A test's server keeps nothing unless it names its own --data-dir (never the checkout's).
    kept = () if "--data-dir" in args or "--ephemeral" in args else ("--ephemeral",)
    process = subprocess.Popen(
        [sys.executable, "-m", "multitool.local.cli", "serve", "--port", "0", *kept, *args],
        cwd=REPO,
        # A confirmed mail is sent at once unless a test asks for the undo window (UNDO_SECONDS).
        env={"UNDO_SECONDS": "0", **clean_env(), **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if pids is not None:
        pids.append(process.pid)
    lines: queue.Queue[str] = queue.Queue()
    output = output if output is not None else []

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    try:
        url = None
        while url is None:
            try:
                line = lines.get(timeout=startup_seconds)
            except queue.Empty:
                raise RuntimeError(f"multitool serve printed no URL:\n{''.join(output)}") from None
            if "Open http://" in line:
                url = line.split("Open ", 1)[1].split()[0]
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
