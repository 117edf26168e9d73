"""``multitool serve --data-dir``: what a restart keeps, in a folder the user can delete.

Each test runs the real server as a subprocess (``tests.support.local_server``), stops it and starts
it again on the same folder, talking to it over HTTP as the CLI and scripts do (``X-Local-User``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from multitool.local.sandbox.data_dir import DataDir

from tests.support.local_server import REPO, clean_env, local_server

COMBINED = "Email Kinshuok about the doc and schedule a sync for Thursday"
BUG = "File a Jira bug in WEB for the login crash"


def call(url: str, method: str, path: str, body: Any = None, user: str = "jordan") -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url.rstrip("/") + path,
        data=data,
        method=method,
        headers={"X-Local-User": user, "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def ok(url: str, method: str, path: str, body: Any = None) -> Any:
    status, answer = call(url, method, path, body)
    assert status == 200, (status, answer)
    return answer


def test_a_restart_keeps_drafts_sessions_sent_mail_issues_and_the_next_jira_key(tmp_path: Path) -> None:
    data = tmp_path / "data"
    printed: list[str] = []
    # Given a first run: two cards, the email confirmed; a bug filed and created
    with local_server(args=("--data-dir", str(data)), output=printed) as url:
        first = ok(url, "POST", "/chat", {"message": COMBINED})
        email, meeting = (card["id"] for card in first["clientActions"])
        sent = ok(url, "POST", f"/actions/{email}/confirm", {})
        bug = ok(url, "POST", "/chat", {"message": BUG, "sessionId": first["sessionId"]})
        created = ok(url, "POST", f"/actions/{bug['clientActions'][0]['id']}/confirm", {})
        assert created["result"]["issueKey"] == "WEB-16"  # after the demo's seeded WEB-9, WEB-12, WEB-15
    assert any(f"Data: kept in {data}" in line for line in printed), printed

    # When the server is started again on the same folder
    printed.clear()
    with local_server(args=("--data-dir", str(data)), output=printed) as url:
        # Then it says so, and every draft is there in its state
        assert any(f"Data: restored from {data}" in line for line in printed), printed
        kept = ok(url, "GET", f"/actions/{meeting}")
        assert kept["status"] == "proposed"
        assert ok(url, "GET", f"/actions/{email}")["result"] == sent["result"]
        # and the session's conversation, the outbox and the Jira sandbox's issues
        session = ok(url, "GET", f"/sessions/{first['sessionId']}")
        assert [e["message"] for e in session["exchanges"]] == [COMBINED, BUG]
        outbox = ok(url, "GET", "/sandbox/outbox")
        assert [m["messageId"] for m in outbox["emails"]] == [sent["result"]["messageId"]]
        assert [i["key"] for i in outbox["issues"]] == ["WEB-16"]
        # and the meeting kept can be confirmed, and the next issue is WEB-17, not WEB-16 again
        slot = {key: kept["card"]["slots"][0][key] for key in ("start", "end")}
        assert ok(url, "POST", f"/actions/{meeting}/confirm", {"slot": slot})["status"] == "done"
        again = ok(url, "POST", "/chat", {"message": "File a Jira bug in WEB for the signup crash"})
        assert (
            ok(url, "POST", f"/actions/{again['clientActions'][0]['id']}/confirm", {})["result"]["issueKey"]
            == "WEB-17"
        )

    # When the folder is deleted (once the last run has let go of it: its moto child, which holds the
    # folder's lock, saves its state as it exits, after the server itself has), Then the next run starts empty
    DataDir.open(data).release()
    for path in sorted(data.iterdir()):
        path.unlink()
    data.rmdir()
    with local_server(args=("--data-dir", str(data))) as url:
        assert call(url, "GET", f"/actions/{meeting}")[0] == 404


def test_ephemeral_keeps_nothing_and_says_so(tmp_path: Path) -> None:
    printed: list[str] = []
    with local_server(args=("--ephemeral",), output=printed) as url:
        draft = ok(url, "POST", "/chat", {"message": BUG})["clientActions"][0]["id"]
    assert any("a restart starts empty" in line for line in printed), printed
    with local_server(args=("--ephemeral",)) as url:
        assert call(url, "GET", f"/actions/{draft}")[0] == 404


def test_data_moto_cannot_read_is_set_aside_not_lost_and_the_run_starts_empty(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "aws.pickle").write_bytes(b"not a pickle")
    (data / "jira.json").write_text("{not json", encoding="utf-8")
    printed: list[str] = []

    with local_server(args=("--data-dir", str(data)), output=printed) as url:
        assert ok(url, "GET", "/sandbox/outbox")["emails"] == []

    assert (data / "aws.pickle.unreadable").read_bytes() == b"not a pickle"
    assert (data / "jira.json.unreadable").read_text(encoding="utf-8") == "{not json"
    assert any("could not be read" in line and "aws.pickle.unreadable" in line for line in printed), printed


def test_a_second_server_on_the_same_folder_is_refused_with_what_to_do(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with local_server(args=("--data-dir", str(data))):
        second = subprocess.run(
            [sys.executable, "-m", "multitool.local.cli", "serve", "--port", "0", "--data-dir", str(data)],
            cwd=REPO,
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert second.returncode == 1
    assert f"Another multitool serve is using {data}" in second.stderr
    assert "--data-dir" in second.stderr
    assert "Traceback" not in second.stderr
