"""The undo window through ``multitool serve`` and the CLI: the embedded moto queue holds the confirmed
mail for its delay, the local server's event source mapping hands it to the review handler at due time,
and ``multitool undo`` cancels it within the window."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.functional.local.test_cli import run_cli
from tests.support.local_server import local_server

WINDOW = 3


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with local_server(env={"UNDO_SECONDS": str(WINDOW)}) as url:
        yield url


def cli(*args: str) -> tuple[int, Any, str]:
    result = run_cli(*args)
    return result.returncode, json.loads(result.stdout) if result.stdout else None, result.stderr


def outbox_subjects(server: str, user: str) -> list[str]:
    request = urllib.request.Request(f"{server}/sandbox/outbox", headers={"X-Local-User": user})
    with urllib.request.urlopen(request, timeout=10) as response:
        return [m["subject"] for m in json.load(response)["emails"]]


def email_card(server: str, user: str, session: str) -> str:
    code, turn, stderr = cli(
        "chat", "Email Priya about the launch", "--url", server, "--user", user, "--session", session
    )
    assert code == 0, stderr
    (card,) = turn["clientActions"]
    return str(card["id"])


def test_undo_within_the_window_cancels_and_the_send_comes_after_it(server: str) -> None:
    card = email_card(server, "jordan", "undo-1")
    edits = json.dumps({"subject": "Launch, undone"})

    # When the user confirms, then undoes within the window
    code, scheduled, _ = cli("confirm", card, "--edits", edits, "--url", server, "--user", "jordan")
    assert code == 0
    assert scheduled["status"] == "scheduled"
    assert scheduled["undoUntil"] == scheduled["dueAt"]
    code, undone, _ = cli("undo", card, "--url", server, "--user", "jordan")

    # Then the card is a draft again with the edits kept, and after the window nothing was sent
    assert (code, undone["status"]) == (0, "proposed")
    assert undone["edits"]["subject"] == "Launch, undone"
    time.sleep(WINDOW + 2)
    assert cli("get", card, "--url", server, "--user", "jordan")[1]["status"] == "proposed"
    assert "Launch, undone" not in outbox_subjects(server, "jordan")


def test_a_confirmed_mail_is_sent_once_its_window_has_passed_and_then_undo_is_too_late(server: str) -> None:
    card = email_card(server, "priya", "undo-2")
    edits = json.dumps({"subject": "Launch, for real"})

    code, scheduled, _ = cli("confirm", card, "--edits", edits, "--url", server, "--user", "priya")
    assert (code, scheduled["status"]) == (0, "scheduled")
    assert "Launch, for real" not in outbox_subjects(server, "priya")  # not before its time

    # When the window passes, the local server's mapping delivers the message to the review handler
    deadline = time.monotonic() + WINDOW + 15
    status = "scheduled"
    while status != "done" and time.monotonic() < deadline:
        time.sleep(0.5)
        status = cli("get", card, "--url", server, "--user", "priya")[1]["status"]

    # Then the mail is in the outbox once, and an undo now says it is too late
    assert status == "done"
    assert outbox_subjects(server, "priya").count("Launch, for real") == 1
    code, late, stderr = cli("undo", card, "--url", server, "--user", "priya")
    assert code == 1
    assert "too_late_to_undo" in stderr
    assert late["action"]["status"] == "done"


def test_a_mail_left_in_its_window_by_a_stopped_server_is_sent_after_the_restart(tmp_path: Path) -> None:
    # Given a server on kept data that stops while a confirmed mail waits in its window
    data = tmp_path / "data"
    env = {"UNDO_SECONDS": "10"}
    with local_server(args=("--data-dir", str(data)), env=env) as url:
        card = email_card(url, "mei", "undo-3")
        edits = json.dumps({"subject": "Across a restart"})
        code, scheduled, _ = cli("confirm", card, "--edits", edits, "--url", url, "--user", "mei")
        assert (code, scheduled["status"]) == (0, "scheduled")

    # When it starts again on the same data (moto's SQS is not kept: the message is gone)
    with local_server(args=("--data-dir", str(data)), env=env) as url:
        deadline = time.monotonic() + 30  # the rest of its window, then the send
        status = "scheduled"
        while status in ("scheduled", "executing") and time.monotonic() < deadline:  # executing: sending
            time.sleep(0.5)
            status = cli("get", card, "--url", url, "--user", "mei")[1]["status"]

        # Then the draft is handed to the queue again and sent once, when due
        assert status == "done"
        assert outbox_subjects(url, "mei").count("Across a restart") == 1
