"""``multitool`` CLI: runtime flags, `chat` output JSON in-process and against a running server."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from multitool.local.sandbox.embedded import (
    LOCAL_SERVICES,
    BackendChoice,
    LocalSetupError,
    function_env,
    load_seed,
)
from multitool.settings import ModelBackend
from multitool.settings.chat import ChatSettings

from tests.support.local_server import clean_env, local_server

REPO = Path(__file__).resolve().parents[3]
COMBINED = "Email Kinshuok about the doc and schedule a sync for Thursday"
NO_SERVER = "http://127.0.0.1:9"
"""Where no server answers: a chat without --url runs in-process, whatever runs on this machine's :8000."""


def cli_env() -> dict[str, str]:
    return {**clean_env(), "MULTITOOL_URL": NO_SERVER}


def run_cli(
    *args: str, env: dict[str, str] | None = None, timeout: int = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "multitool.local.cli", *args],
        cwd=REPO,
        env=env or cli_env(),
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
        ({}, ModelBackend.OFFLINE),
        ({"agent_id": "AGENT1", "agent_alias_id": "ALIAS1"}, ModelBackend.AGENT),
        ({"model_id": "anthropic.claude-3-5-haiku-20241022-v1:0"}, ModelBackend.CONVERSE),
        ({"runtime": "offline", "model_id": "m"}, ModelBackend.OFFLINE),
    ],
)
def test_the_runtime_follows_the_flags(options: dict[str, str], expected: ModelBackend) -> None:
    assert BackendChoice.from_options(**options).runtime is expected


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
        BackendChoice.from_options(**options)


def test_function_env_points_data_services_at_moto_and_leaves_bedrock_alone() -> None:
    seed = load_seed()
    runtime = BackendChoice.from_options(model_id="m1")
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
    assert settings.runtime is ModelBackend.CONVERSE
    assert settings.model_id == "m1"
    assert set(settings.jira_projects) == {"WEB", "OPS"}
    assert env["SANDBOX"] == "true"


def test_offline_env_uses_fake_credentials() -> None:
    env = function_env(
        endpoint="http://127.0.0.1:5555",
        tables={},
        seed=load_seed(),
        runtime=BackendChoice(),
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
    heavy = "('boto3', 'moto', 'multitool.local.sandbox.server')"
    code = f"import sys, multitool.local.cli; print(sorted(m for m in {heavy} if m in sys.modules))"
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
    result = run_cli("serve", "--agent-id", "AGENT1", "--port", "0", "--ephemeral")

    assert result.returncode == 2
    assert "--agent-id and --alias-id go together" in result.stderr


def test_every_runtime_is_a_backend_choice_and_the_banner_names_it() -> None:
    from multitool.local.commands.serve import model_banner
    from multitool.local.sandbox.embedded import BackendChoice

    result = run_cli("serve", "--help")
    for runtime in ModelBackend:
        assert runtime.value in result.stdout
    assert "--harness-arn" in result.stdout
    arn = "arn:aws:bedrock-agentcore:us-east-1:123456789012:harness/Chat-AbCdEf1234"
    for choice in (
        BackendChoice.from_options(),
        BackendChoice.from_options(runtime="offline-converse"),
        BackendChoice.from_options(harness_arn=arn),
        BackendChoice.from_options(model_id="m1"),
        BackendChoice.from_options(agent_id="A", agent_alias_id="B"),
    ):
        assert model_banner(choice)
    assert arn in model_banner(BackendChoice.from_options(harness_arn=arn))


def test_a_real_harness_without_credentials_says_so(tmp_path: Path) -> None:
    arn = "arn:aws:bedrock-agentcore:us-east-1:123456789012:harness/Chat-AbCdEf1234"
    result = run_cli("chat", "hi", "--harness-arn", arn, env=no_credentials_env(tmp_path))

    assert result.returncode == 2
    assert "needs AWS credentials" in result.stderr


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


def test_chat_without_a_server_says_its_drafts_end_with_it() -> None:
    result = run_cli("chat", "Email Priya about the launch")

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["clientActions"]
    assert f"multitool: no server at {NO_SERVER}: this chat ran in-process" in result.stderr


def test_chat_with_an_unknown_user_lists_the_valid_ids() -> None:
    result = run_cli("chat", "hello", "--user", "mallory")

    assert result.returncode == 2
    assert result.stdout == ""
    assert "unknown user 'mallory'" in result.stderr
    for known in ("jordan", "kinshuok", "priya"):
        assert known in result.stderr


@pytest.fixture(scope="module")
def running_server() -> Iterator[str]:
    with local_server() as url:
        yield url


def test_chat_against_a_running_server(running_server: str) -> None:
    result = run_cli("chat", COMBINED, "--url", running_server, "--session", "cli-remote-1")

    assert result.returncode == 0, result.stderr
    response = json.loads(result.stdout)
    assert len(response["clientActions"]) == 2


def test_chat_then_get_as_the_readme_shows(running_server: str) -> None:
    # Given a running server (make demo), found where the commands look for it, no --url anywhere
    env = {**clean_env(), "MULTITOOL_URL": running_server}
    chat = run_cli("chat", "Email Priya about the launch", env=env)
    assert chat.returncode == 0, chat.stderr
    (card,) = json.loads(chat.stdout)["clientActions"]

    # When the script reads the card the chat made, Then the server has it
    got = run_cli("get", card["id"], env=env)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["status"] == "proposed"


@pytest.mark.parametrize(
    "command", [("chat", "hello"), ("get", "d_1"), ("confirm", "d_1"), ("discard", "d_1")]
)
def test_a_server_that_is_not_there_is_one_clear_line(command: tuple[str, str]) -> None:
    result = run_cli(*command, "--url", "http://127.0.0.1:9")

    assert result.returncode == 1
    assert result.stdout == ""
    assert (
        result.stderr == "multitool: cannot reach multitool at http://127.0.0.1:9: is `make demo` running?\n"
    )


def cli_json(*args: str) -> tuple[int, object, str]:
    result = run_cli(*args)
    return result.returncode, json.loads(result.stdout) if result.stdout else None, result.stderr


def test_review_commands_get_confirm_and_discard_the_cards_of_a_chat(running_server: str) -> None:
    # Given a chat turn with an email card and a meeting card
    code, turn, _ = cli_json("chat", COMBINED, "--url", running_server, "--user", "priya")
    assert code == 0
    email, meeting = turn["clientActions"]  # type: ignore[index]

    # When a script reads the email card, confirms it with an edit, and discards the meeting
    code, got, _ = cli_json("get", email["id"], "--url", running_server, "--user", "priya")
    assert (code, got["status"], got["card"]["id"]) == (0, "proposed", email["id"])  # type: ignore[index]
    edits = json.dumps({"subject": "Doc notes from the CLI"})
    code, confirmed, _ = cli_json(
        "confirm", email["id"], "--edits", edits, "--url", running_server, "--user", "priya"
    )
    code_discard, discarded, _ = cli_json(
        "discard", meeting["id"], "--url", running_server, "--user", "priya"
    )

    # Then each prints the action's JSON and exits 0, and the outbox has the edited mail
    assert code == 0
    assert confirmed["status"] == "done"  # type: ignore[index]
    assert (code_discard, discarded["status"]) == (0, "discarded")  # type: ignore[index]
    assert cli_json("get", email["id"], "--url", running_server, "--user", "priya")[1]["status"] == "done"  # type: ignore[index]


def test_review_errors_exit_1_with_the_apis_code_and_message_on_stderr(running_server: str) -> None:
    _, turn, _ = cli_json("chat", COMBINED, "--url", running_server, "--user", "jordan")
    email = turn["clientActions"][0]  # type: ignore[index]
    assert cli_json("confirm", email["id"], "--url", running_server, "--user", "jordan")[0] == 0

    # Confirmed again with other content: the API's 409 conflict, named on stderr
    changed = json.dumps({"subject": "Something else"})
    code, body, stderr = cli_json(
        "confirm", email["id"], "--edits", changed, "--url", running_server, "--user", "jordan"
    )
    assert code == 1
    assert body["error"]["code"] in stderr  # type: ignore[index]
    assert "HTTP 409" in stderr
    assert body["action"]["status"] == "done"  # type: ignore[index]

    # Another user's action, or none: 404 not_found
    code, _, stderr = cli_json("get", email["id"], "--url", running_server, "--user", "priya")
    assert code == 1
    assert "HTTP 404, not_found: There is no action" in stderr


def test_review_commands_refuse_an_unknown_user_and_bad_edits(running_server: str) -> None:
    unknown = run_cli("get", "d_1", "--url", running_server, "--user", "mallory")
    not_json = run_cli("confirm", "d_1", "--edits", "{subject", "--url", running_server)
    not_object = run_cli("confirm", "d_1", "--edits", "[1]", "--url", running_server)

    assert unknown.returncode == 2
    assert "unknown user 'mallory'; use --user with one of: " in unknown.stderr
    assert "kinshuok" in unknown.stderr
    assert (not_json.returncode, not_object.returncode) == (2, 2)
    assert "--edits is not JSON" in not_json.stderr
    assert "--edits must be a JSON object" in not_object.stderr
    assert "Traceback" not in unknown.stderr + not_json.stderr + not_object.stderr


def test_serve_on_a_busy_port_says_which_flag_to_change() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        result = run_cli("serve", "--port", str(port), "--ephemeral")

    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "--port" in result.stderr


def test_serve_on_every_interface_says_local_sign_in_stays_on_this_machine() -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "multitool.local.cli",
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            "0",
            "--ephemeral",
        ],
        cwd=REPO,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        printed = [process.stdout.readline() for _ in range(4)]
    finally:
        process.terminate()
        process.wait(timeout=10)

    assert "a restart starts empty" in printed[1]
    assert "Open http://0.0.0.0:" in printed[2]
    assert "answer this machine only" in printed[3]


def test_a_meeting_moved_from_the_cli_then_a_stale_card_for_it_is_item_changed(running_server: str) -> None:
    # Given two cards moving the demo's 1:1 of the default user (jordan), made before either is confirmed
    code, first, _ = cli_json("chat", "push the 1:1 30 minutes later", "--url", running_server)
    assert code == 0
    code, second, _ = cli_json("chat", "make the 1:1 45 minutes", "--url", running_server)
    assert code == 0
    (move,) = first["clientActions"]  # type: ignore[index]
    (longer,) = second["clientActions"]  # type: ignore[index]
    assert move["type"] == longer["type"] == "show_meeting_move"

    # When the first is confirmed, and then the second
    code, done, _ = cli_json("confirm", move["id"], "--url", running_server)
    stale = run_cli("confirm", longer["id"], "--url", running_server)

    # Then the meeting moved once, and the second says the meeting changed since its card: nothing written
    assert (code, done["status"]) == (0, "done")  # type: ignore[index]
    assert done["result"]["sequence"] == 1  # type: ignore[index]
    assert stale.returncode == 1
    assert "item_changed" in stale.stderr
    assert "changed since the card was made" in stale.stderr


def test_confirm_first_and_confirm_all_run_linked_cards_in_order(running_server: str) -> None:
    url = ("--url", running_server, "--user", "kinshuok")
    # Given a turn whose mail names the ticket the other card creates
    _, turn, _ = cli_json("chat", "File a WEB bug for the login crash and email Priya about it", *url)
    ticket, email = turn["clientActions"]  # type: ignore[index]
    assert email["links"][0]["waitsFor"] == ticket["id"]

    # The mail alone waits for the ticket (409 waits_for); with --first, the ticket is created first
    code, body, stderr = cli_json("confirm", email["id"], *url)
    assert code == 1
    assert "waits_for" in stderr
    assert body["error"]["waitsFor"] == [ticket["id"]]  # type: ignore[index]
    code, sent, _ = cli_json("confirm", email["id"], "--first", *url)
    assert code == 0
    key = cli_json("get", ticket["id"], *url)[1]["result"]["issueKey"]  # type: ignore[index]
    assert f"I filed {key} (bug)" in sent["edits"]["body"]  # type: ignore[index]
    assert "{{" not in sent["edits"]["body"]  # type: ignore[index]

    # --all on another turn: every card in dependency order, each outcome printed; a retry does nothing twice
    _, turn, _ = cli_json("chat", "File a WEB bug for the signup crash and email Priya about it", *url)
    ids = [card["id"] for card in turn["clientActions"]]  # type: ignore[index]
    code, answer, _ = cli_json("confirm", "--all", *reversed(ids), *url)
    assert code == 0
    assert [o["outcome"] for o in answer["outcomes"]] == ["created", "sent"]  # type: ignore[index]
    again = cli_json("confirm", "--all", *ids, *url)[1]
    assert [o["action"]["result"] for o in again["outcomes"]] == [  # type: ignore[index]
        o["action"]["result"]
        for o in answer["outcomes"]  # type: ignore[index]
    ]
    assert run_cli("confirm", *ids, *url).returncode == 2  # several ids need --all


def test_a_transition_the_workflow_does_not_offer_is_chosen_from_the_command_line(
    running_server: str,
) -> None:
    # Given a card for a status WEB-9's workflow does not reach from To Do
    code, turn, _ = cli_json("chat", "move WEB-9 to In Review", "--url", running_server, "--user", "jordan")
    assert code == 0
    [card] = turn["clientActions"]  # type: ignore[index]
    assert card["type"] == "show_jira_transition"
    offered = {t["toStatus"]: t["id"] for t in card["issue"]["item"]["fields"]["transitions"]}

    # When confirmed as it is, then with one of the transitions it offers
    refused, body, stderr = cli_json("confirm", card["id"], "--url", running_server, "--user", "jordan")
    chosen = json.dumps({"transition": offered["In Progress"]})
    code, done, _ = cli_json(
        "confirm", card["id"], "--edits", chosen, "--url", running_server, "--user", "jordan"
    )

    # Then the first is refused with the field to set, and the second moves the issue
    assert refused == 1
    assert body["error"]["field"] == "transition"  # type: ignore[index]
    assert "HTTP 422" in stderr
    assert (code, done["result"]["status"]) == (0, "In Progress")  # type: ignore[index]


def test_a_forward_is_confirmed_from_the_command_line_without_its_attachment(running_server: str) -> None:
    # Given Jordan's forward of Mei's invoice (the demo's seeded mail), its PDF listed on the card
    code, turn, _ = cli_json(
        "chat", "forward the invoice from Mei to Kinshuok", "--url", running_server, "--user", "jordan"
    )
    assert code == 0
    (forward,) = turn["clientActions"]  # type: ignore[index]
    assert [a["name"] for a in forward["attachments"]] == ["INV-2291.pdf"]

    # When the script confirms it with the attachment left out and a note
    edits = json.dumps({"attachments": [], "note": "FYI, paid already."})
    code, done, stderr = cli_json(
        "confirm", forward["id"], "--edits", edits, "--url", running_server, "--user", "jordan"
    )

    # Then it is sent, and what was confirmed is what the action holds
    assert code == 0, stderr
    assert done["status"] == "done"  # type: ignore[index]
    assert done["edits"]["attachments"] == []  # type: ignore[index]
    assert done["edits"]["note"] == "FYI, paid already."  # type: ignore[index]
