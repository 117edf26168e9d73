"""``multitool`` CLI: runtime flags, `chat` output JSON in-process and against a running server."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from multitool.local.embedded import (
    LOCAL_SERVICES,
    LocalSetupError,
    RuntimeChoice,
    function_env,
    load_seed,
)
from multitool.settings import ChatSettings, Runtime

from tests.local_server import clean_env, local_server

REPO = Path(__file__).resolve().parents[2]
COMBINED = "Email Kinshuok about the doc and schedule a sync for Thursday"


def run_cli(
    *args: str, env: dict[str, str] | None = None, timeout: int = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "multitool.cli", *args],
        cwd=REPO,
        env=env or clean_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def no_credentials_env(tmp_path: Path) -> dict[str, str]:
    env = {
        k: v for k, v in clean_env().items() if not k.startswith(("AWS_ACCESS", "AWS_SECRET", "AWS_SESSION"))
    }
    env.pop("AWS_SECURITY_TOKEN", None)
    env.update(
        {
            "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
            "AWS_CONFIG_FILE": str(tmp_path / "none"),
            "AWS_EC2_METADATA_DISABLED": "true",
        }
    )
    return env


# --------------------------------------------------------------------------- runtime choice and environment


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, Runtime.OFFLINE),
        ({"agent_id": "AGENT1", "agent_alias_id": "ALIAS1"}, Runtime.AGENT),
        ({"model_id": "anthropic.claude-3-5-haiku-20241022-v1:0"}, Runtime.CONVERSE),
        ({"runtime": "offline", "model_id": "m"}, Runtime.OFFLINE),
    ],
)
def test_the_runtime_follows_the_flags(options: dict[str, str], expected: Runtime) -> None:
    assert RuntimeChoice.from_options(**options).runtime is expected


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"agent_id": "AGENT1"}, "--agent-id and --alias-id go together"),
        ({"agent_alias_id": "ALIAS1"}, "--agent-id and --alias-id go together"),
        ({"runtime": "converse"}, "--runtime converse needs --model-id"),
        ({"runtime": "agent"}, "--runtime agent needs --agent-id"),
        ({"runtime": "gpt"}, "--runtime must be one of"),
    ],
)
def test_incomplete_runtime_flags_are_refused_with_the_fix(options: dict[str, str], message: str) -> None:
    with pytest.raises(LocalSetupError, match=message):
        RuntimeChoice.from_options(**options)


def test_function_env_points_data_services_at_moto_and_leaves_bedrock_alone() -> None:
    seed = load_seed()
    runtime = RuntimeChoice.from_options(model_id="m1")
    env = function_env(
        endpoint="http://127.0.0.1:5555",
        tables={
            "DRAFTS_TABLE_NAME": "d",
            "DIRECTORY_TABLE_NAME": "p",
            "BOOKINGS_TABLE_NAME": "b",
            "SESSIONS_TABLE_NAME": "s",
            "IDEMPOTENCY_TABLE_NAME": "i",
        },
        seed=seed,
        runtime=runtime,
        region="eu-west-1",
        jira_secret_arn="arn:aws:secretsmanager:eu-west-1:000000000000:secret:jira",
    )

    assert "AWS_ENDPOINT_URL" not in env
    assert "AWS_ENDPOINT_URL_BEDROCK_RUNTIME" not in env
    assert {f"AWS_ENDPOINT_URL_{s}" for s in LOCAL_SERVICES} <= env.keys()
    assert "AWS_ACCESS_KEY_ID" not in env  # a real model keeps the caller's credentials
    settings = ChatSettings.from_env(env)
    assert settings.runtime is Runtime.CONVERSE
    assert settings.model_id == "m1"
    assert set(settings.jira_projects) == {"WEB", "OPS"}
    assert env["SANDBOX"] == "true"


def test_offline_env_uses_fake_credentials() -> None:
    env = function_env(
        endpoint="http://127.0.0.1:5555",
        tables={},
        seed=load_seed(),
        runtime=RuntimeChoice(),
        region="us-east-1",
        jira_secret_arn="arn",
    )

    assert env["RUNTIME"] == "offline"
    assert env["AWS_ACCESS_KEY_ID"] == "local"


def test_the_seed_has_two_people_sharing_a_first_name_in_different_zones() -> None:
    seed = load_seed()
    by_first: dict[str, list[str]] = {}
    for person in seed.people:
        by_first.setdefault(person.display_name.split()[0], []).append(person.timezone)
    shared = [zones for zones in by_first.values() if len(zones) > 1]
    assert len(shared) == 1
    assert len(set(shared[0])) == 2
    assert {p.id for p in seed.people} >= {"kinshuok", "priya"}
    assert all(p.email.endswith("@example.com") for p in seed.people)


# --------------------------------------------------------------------------- the command line


def test_importing_the_cli_stays_light() -> None:
    heavy = "('boto3', 'moto', 'multitool.local.server')"
    code = f"import sys, multitool.cli; print(sorted(m for m in {heavy} if m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_help_lists_the_commands() -> None:
    result = run_cli("--help")

    assert result.returncode == 0
    assert "serve" in result.stdout
    assert "chat" in result.stdout


def test_serve_with_half_an_agent_is_a_usage_error() -> None:
    result = run_cli("serve", "--agent-id", "AGENT1", "--port", "0")

    assert result.returncode == 2
    assert "--agent-id and --alias-id go together" in result.stderr


def test_a_real_model_without_credentials_says_so(tmp_path: Path) -> None:
    result = run_cli("chat", "hi", "--model-id", "m1", env=no_credentials_env(tmp_path))

    assert result.returncode == 2
    assert "needs AWS credentials" in result.stderr
    assert result.stdout == ""


def test_chat_prints_the_chat_response_json_in_process() -> None:
    result = run_cli("chat", COMBINED, "--user", "jordan")

    assert result.returncode == 0, result.stderr
    response = json.loads(result.stdout)
    types = [action["type"] for action in response["clientActions"]]
    assert sorted(types) == ["show_meeting_scheduler", "show_new_email_draft"]
    assert len(response["clientActionMessages"]) == 2
    assert response["clientAction"] == response["clientActions"][-1]
    assert isinstance(response["message"], str)
    assert "{" not in response["message"]


def test_chat_with_an_unknown_user_is_unauthorized() -> None:
    result = run_cli("chat", "hello", "--user", "mallory")

    assert result.returncode == 1
    assert json.loads(result.stdout) == {"message": "Unauthorized"}
    assert "401" in result.stderr


@pytest.fixture(scope="module")
def running_server() -> Iterator[str]:
    with local_server() as url:
        yield url


def test_chat_against_a_running_server(running_server: str) -> None:
    result = run_cli("chat", COMBINED, "--url", running_server, "--session", "cli-remote-1")

    assert result.returncode == 0, result.stderr
    response = json.loads(result.stdout)
    assert len(response["clientActions"]) == 2


def test_chat_against_a_server_that_is_not_there() -> None:
    result = run_cli("chat", "hello", "--url", "http://127.0.0.1:9")

    assert result.returncode == 1
    assert "multitool:" in result.stderr
    assert result.stdout == ""


def test_serve_on_a_busy_port_says_which_flag_to_change() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        result = run_cli("serve", "--port", str(port))

    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "--port" in result.stderr


def test_serve_on_every_interface_says_local_sign_in_stays_on_this_machine() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "multitool.cli", "serve", "--host", "0.0.0.0", "--port", "0"],
        cwd=REPO,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        printed = [process.stdout.readline() for _ in range(3)]
    finally:
        process.terminate()
        process.wait(timeout=10)

    assert "Open http://0.0.0.0:" in printed[1]
    assert "answer this machine only" in printed[2]
