"""moto in a child process (multitool.local.sandbox.moto_process): it serves, it stops, it fails clearly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import boto3
import pytest
from multitool.local.sandbox.moto_process import MotoStartFailed, start_moto_process

from tests.support.local_server import REPO


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        # A zombie still answers kill(0): it has exited once its state says so.
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.1)
    return False


def test_the_child_serves_dynamodb_on_loopback_and_exits_when_stopped() -> None:
    # Given a moto child
    moto = start_moto_process()
    try:
        assert moto.endpoint.startswith("http://127.0.0.1:")
        client = boto3.client(
            "dynamodb",
            endpoint_url=moto.endpoint,
            region_name="us-east-1",
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )
        # When a table is made there, Then it is listed by the same endpoint
        client.create_table(
            TableName="t",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        assert client.list_tables()["TableNames"] == ["t"]
        assert moto.pid != os.getpid()
    finally:
        moto.stop()
    # And once stopped, the child has exited
    assert moto.process.returncode is not None


def test_a_child_that_exits_at_start_is_a_clear_error_with_what_it_printed() -> None:
    command = [sys.executable, "-c", "import sys; sys.exit('moto is not installed here')"]

    with pytest.raises(MotoStartFailed, match="exited: moto is not installed here"):
        start_moto_process(command=command)


def test_a_child_that_never_gives_its_endpoint_is_stopped_and_named() -> None:
    command = [sys.executable, "-c", "import sys; sys.stdin.read()"]

    with pytest.raises(MotoStartFailed, match=r"gave no endpoint within 1 s: \(it printed nothing\)"):
        start_moto_process(1, command=command)


def test_the_child_exits_when_its_parent_dies_without_stopping_it() -> None:
    # Given a parent process that started a moto child and is then killed outright
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time; from multitool.local.sandbox.moto_process import start_moto_process; "
            "print(start_moto_process().pid, flush=True); time.sleep(60)",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    parent.stdout.close()

    # Then the child sees its stdin close and exits: no moto is left behind
    assert _gone(child, within=15)


def test_the_local_backend_names_a_moto_that_did_not_start() -> None:
    from multitool.local.sandbox.embedded import LocalSetupError, start_embedded
    from multitool.local.sandbox.moto_process import LaunchedMoto

    exiting = LaunchedMoto([sys.executable, "-c", "import sys; sys.exit('port in use')"])

    with pytest.raises(LocalSetupError, match="The local moto server exited: port in use"):
        start_embedded(moto=exiting, apply_env=False)


def test_a_launched_moto_is_stopped_when_the_backend_is_refused_before_it_is_used(monkeypatch) -> None:
    from multitool.local.sandbox.embedded import BackendChoice, LocalSetupError, start_embedded
    from multitool.local.sandbox.moto_process import LaunchedMoto

    # Given a choice that needs AWS credentials, on a machine without any
    monkeypatch.setattr("multitool.local.sandbox.embedded.aws_credentials_available", lambda: False)
    launched = LaunchedMoto()

    with pytest.raises(LocalSetupError, match="needs AWS credentials"):
        start_embedded(BackendChoice.from_options(model_id="m"), moto=launched, apply_env=False)

    # Then the child it had started is gone too
    assert launched.process.returncode is not None
