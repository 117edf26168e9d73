"""``multitool eval`` end to end: embedded AWS in process, ``multitool serve`` over HTTP, models side by side.

The offline model answers the committed dataset's cases; Converse is a real bedrock-runtime client
with botocore's Stubber, so every request the loop sends is checked against the service model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber
from multitool.local.cli import main
from multitool.local.evaluation.cases import load_cases
from multitool.local.evaluation.report import report
from multitool.local.evaluation.runs import embedded_targets, run_all

from tests.support.local_server import local_server

REPO = Path(__file__).resolve().parents[3]
DATASET = REPO / "evals" / "requests.jsonl"
# One case of each kind: three intents, a choice to offer, an edit by chat, a request to decline,
# a dependent pair, and one the offline model gets wrong (so "the same results" covers a miss too).
PICKED = (
    "triple-issue-example",
    "email-ambiguous-alex",
    "edit-duration",
    "ask-weather",
    "pair-bug-then-email",
    "pair-dependent-checkout",  # the offline model asks which project "file a bug for …" goes in
)


@pytest.fixture
def picked(tmp_path: Path) -> Path:
    lines = {json.loads(line)["id"]: line for line in DATASET.read_text(encoding="utf-8").splitlines()}
    path = tmp_path / "picked.jsonl"
    path.write_text("".join(lines[case_id] + "\n" for case_id in PICKED), encoding="utf-8")
    return path


def outcome(case: dict[str, Any]) -> tuple[Any, ...]:
    """What a case scored, without what differs from run to run (card ids, latency, tokens)."""
    checks = [(c["type"], c["found"], c["wrong"], c["got"]) for c in case["cards"]]
    return (
        case["id"],
        case["exact"],
        case["silentlyWrong"],
        case["asked"],
        case["made"],
        checks,
        case["error"],
    )


def test_over_http_against_multitool_serve_the_results_are_those_in_process(
    picked: Path, tmp_path: Path
) -> None:
    in_process = tmp_path / "in-process.json"
    assert main(["eval", str(picked), "--json", str(in_process)]) == 0

    with local_server() as url:
        over_http = tmp_path / "http.json"
        assert main(["eval", str(picked), "--url", url, "--json", str(over_http)]) == 0

    here, there = json.loads(in_process.read_text()), json.loads(over_http.read_text())
    assert [outcome(c) for c in there["cases"]] == [outcome(c) for c in here["cases"]]
    assert [c["id"] for c in here["cases"]] == list(PICKED)
    by_id = {c["id"]: c for c in here["cases"]}
    assert by_id["triple-issue-example"]["exact"] is True
    assert by_id["ask-weather"]["asked"] is True
    missed = by_id["pair-dependent-checkout"]
    assert (missed["exact"], missed["silentlyWrong"]) == (False, False)
    assert [c["found"] for c in missed["cards"]] == [True, False]
    # Every card a case made (the edit's first card too) was discarded, on either path.
    for document in (here, there):
        assert all(c["notDiscarded"] == 0 for c in document["cases"])
        assert sum(c["discarded"] for c in document["cases"]) >= 7
    # Over HTTP the model calls are not visible: no figure rather than a made-up one.
    assert {c["modelCalls"] for c in there["cases"]} == {None}
    assert all(c["modelCalls"] >= 1 for c in here["cases"])
    assert by_id["edit-duration"]["historyModelCalls"] >= 1  # the earlier turn is on the bill
    assert here["summary"][0]["allTurns"]["modelCalls"] > here["summary"][0]["modelCalls"]


def test_model_ids_side_by_side_with_the_offline_model(picked: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "report.json"

    status = main(["eval", str(picked), "--model-id", "model-a", "--model-id", "model-b", "--json", str(out)])

    table = capsys.readouterr().out
    header = table.splitlines()[0].split()
    assert header == ["model-a", "model-b"]
    document = json.loads(out.read_text())
    assert document["models"] == ["model-a", "model-b"]
    a, b = document["summary"]
    assert a["cases"] == b["cases"] == len(PICKED)
    assert a["exactRate"] == b["exactRate"]  # the offline model answers for any id
    assert [c["model"] for c in document["cases"]] == ["model-a"] * len(PICKED) + ["model-b"] * len(PICKED)
    assert status == 0


def test_the_floor_fails_the_run_and_says_by_how_much(picked: Path, capsys) -> None:
    status = main(["eval", str(picked), "--min-exact", "0.99"])

    assert status == 1
    assert "under the floor of 99.0%" in capsys.readouterr().err


def test_the_silently_wrong_ceiling_fails_the_run_but_a_card_that_asks_does_not(
    tmp_path: Path, capsys
) -> None:
    cases = [
        # the offline model drafts to Priya, the case wants Mei: a card a user could send unaware
        {"id": "wrong", "user": "jordan", "message": "Email Priya about the launch",
         "expect": {"cards": [{"type": "show_new_email_draft", "to": ["mei"]}]}},
        # two Alexes: the card asks which, so it is wrong (not Alex Chen) but not silently
        {"id": "flagged", "user": "jordan", "message": "Email alex about the launch",
         "expect": {"cards": [{"type": "show_new_email_draft", "to": ["alex-chen"]}]}},
    ]  # fmt: skip
    dataset, out = tmp_path / "cases.jsonl", tmp_path / "report.json"
    dataset.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")

    status = main(["eval", str(dataset), "--now", "tuesday", "--max-silently-wrong", "0", "--json", str(out)])

    assert status == 1
    assert "silently wrong on 1 of 2 cases (50.0%), over the ceiling of 0.0%" in capsys.readouterr().err
    document = json.loads(out.read_text(encoding="utf-8"))
    assert [(c["id"], c["exact"], c["silentlyWrong"]) for c in document["cases"]] == [
        ("wrong", False, True),
        ("flagged", False, False),
    ]
    assert (document["summary"][0]["silentlyWrong"], document["summary"][0]["flagged"]) == (1, 1)


def test_now_pins_the_days_the_model_the_tools_and_the_scoring_read(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    lines = {json.loads(line)["id"]: line for line in DATASET.read_text(encoding="utf-8").splitlines()}
    dataset = tmp_path / "days.jsonl"
    dataset.write_text(lines["meet-tomorrow"] + "\n" + lines["meet-sync-thursday"] + "\n", encoding="utf-8")
    # A Monday before today (a weekday's "tomorrow" has working hours): unpinned, "tomorrow" would be
    # the day after the real today, and wrong.
    pinned = (datetime.now(UTC) - timedelta(days=1)).replace(hour=12, minute=0, second=0, microsecond=0)
    while pinned.weekday() != 0:
        pinned -= timedelta(days=1)
    out = tmp_path / "report.json"

    assert main(["eval", str(dataset), "--now", pinned.isoformat(), "--json", str(out)]) == 0

    cases = json.loads(out.read_text())["cases"]
    assert [(c["id"], c["exact"]) for c in cases] == [("meet-tomorrow", True), ("meet-sync-thursday", True)]


# --------------------------------------------------------------------------- Converse, two models

CASE = {
    "id": "email-and-bug",
    "user": "jordan",
    "message": "Email Kinshuok about the doc and file a high priority bug in WEB for the login crash",
    "expect": {
        "cards": [
            {"type": "show_new_email_draft", "to": ["kinshuok"]},
            {"type": "show_jira_ticket_draft", "project": "WEB", "issueType": "Bug", "priority": "High"},
        ],
        "asks": False,
    },
}


def tool_use(use_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": use_id, "name": name, "input": arguments}}


def answer(
    content: list[dict[str, Any]], stop: str, tokens: tuple[int, int, int], cache_write: int = 0
) -> dict[str, Any]:
    read, written, cached = tokens
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {
            "inputTokens": read,
            "outputTokens": written,
            "totalTokens": read + written,
            "cacheReadInputTokens": cached,
            "cacheWriteInputTokens": cache_write,
        },
        "metrics": {"latencyMs": 640},
    }


EMAIL = {"to": ["Kinshuok"], "subject": "The doc", "body": "Hi Kinshuok, a word about the doc."}
BUG = {"project": "WEB", "issueType": "Bug", "summary": "Login crash", "priority": "High"}
# model-a calls both tools in one response; model-b writes to the wrong person and forgets the bug.
# One call each: once every call of a response made its draft, the reply is written without the model.
ANSWERS = {
    "model-a": [
        answer(
            [tool_use("a1", "create_email_draft", EMAIL), tool_use("a2", "create_jira_ticket_draft", BUG)],
            "tool_use",
            (1200, 180, 1000),
        )
    ],
    "model-b": [
        answer(
            [tool_use("b1", "create_email_draft", {**EMAIL, "to": ["Priya"]})], "tool_use", (100, 90, 0), 1000
        )
    ],
}


def test_converse_models_side_by_side_through_botocores_stubber(monkeypatch, tmp_path: Path) -> None:
    for key, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(key, value)
    dataset = tmp_path / "one.jsonl"
    dataset.write_text(json.dumps(CASE) + "\n", encoding="utf-8")
    stubbers: list[Stubber] = []

    def stubbed(model_id: str | None) -> Any:
        assert model_id is not None
        client = boto3.client("bedrock-runtime", region_name="us-east-1")
        stubber = Stubber(client)
        for response in ANSWERS[model_id]:
            # The request is validated against bedrock-runtime's model before the stub answers it.
            expected = {
                "modelId": model_id,
                "messages": ANY,
                "system": ANY,
                "toolConfig": ANY,
                "inferenceConfig": ANY,
            }
            stubber.add_response("converse", response, expected)
        stubber.activate()
        stubbers.append(stubber)
        return client

    cases = load_cases([dataset])
    with embedded_targets("converse", ["model-a", "model-b"], client_for=stubbed) as targets:
        runs = run_all(targets, cases)
    document = report(runs, runtime="converse", datasets=[dataset])

    for stubber in stubbers:
        stubber.assert_no_pending_responses()
    a, b = document["cases"]
    assert (a["model"], a["exact"], a["silentlyWrong"]) == ("model-a", True, False)
    assert (b["model"], b["exact"], b["silentlyWrong"], b["foundCards"]) == ("model-b", False, True, 1)
    assert [c["got"] for c in b["cards"] if c["wrong"]] == [{"to": ["priya"]}]
    assert (a["modelCalls"], a["inputTokens"], a["outputTokens"], a["cachedTokens"]) == (1, 1200, 180, 1000)
    assert (b["modelCalls"], b["inputTokens"], b["outputTokens"], b["cachedTokens"]) == (1, 100, 90, 0)
    # Cached and uncached input apart: model-a read its prefix from the cache, model-b wrote it.
    assert (a["cacheWriteTokens"], b["cacheWriteTokens"]) == (0, 1000)
    assert (a["discarded"], a["notDiscarded"], b["discarded"]) == (2, 0, 1)
    # The estimate reads what the model read: the prompt and the tool specs are most of it.
    assert a["estimatedInputTokens"] > 500
    summary_a, summary_b = document["summary"]
    assert (summary_a["intentRecall"], summary_b["intentRecall"]) == (1.0, 0.5)
    assert (summary_a["cachedTokens"], summary_a["cacheWriteTokens"]) == (1000, 0)
    assert (summary_b["cachedTokens"], summary_b["cacheWriteTokens"], summary_b["inputTokens"]) == (
        0,
        1000,
        100,
    )
    assert summary_b["allTurns"]["cacheWriteTokens"] == 1000


def test_a_case_for_a_user_the_directory_lacks_is_a_usage_error(tmp_path: Path, capsys) -> None:
    dataset = tmp_path / "stranger.jsonl"
    dataset.write_text(json.dumps({**CASE, "user": "zoe"}) + "\n", encoding="utf-8")

    assert main(["eval", str(dataset)]) == 2
    assert "cases name users this directory does not have (zoe)" in capsys.readouterr().err
