"""Refused calls share one message; whoever words the turn for the user says it once."""

from __future__ import annotations

from multitool.chat.service import response_from
from multitool.runtimes.offline import OfflineModel
from multitool.runtimes.traces import ToolFailure, ToolResults
from multitool.toolkit.context import MAX_CALLS_PER_BATCH
from multitool.tools import TooManyCalls

NAMES = ["create_email_draft"] * (MAX_CALLS_PER_BATCH + 2) + ["propose_meeting", "send_fax"]


def test_the_refusal_names_the_limit_the_range_and_the_tools() -> None:
    error = TooManyCalls.for_calls(NAMES)

    assert error.status == 422
    assert error.to_body()["error"]["code"] == "too_many_calls"
    assert error.message == (
        f"At most {MAX_CALLS_PER_BATCH} tool calls run in one turn and this turn asked for 29: the first "
        f"{MAX_CALLS_PER_BATCH} ran; calls 26 to 29 (2 create_email_draft, 1 propose_meeting, "
        "1 unknown tool) were not run. Ask for those again in a new message."
    )
    one_more = TooManyCalls.for_calls(NAMES[: MAX_CALLS_PER_BATCH + 1])
    assert "call 26 (1 create_email_draft) was not run" in one_more.message


def test_the_chat_fallback_says_a_repeated_failure_once() -> None:
    failure = ToolFailure(code="too_many_calls", message=TooManyCalls.for_calls(NAMES).message)
    other = ToolFailure(code="invalid_input", message="subject: Field required")

    wire = response_from(
        ToolResults(message="", failures=(failure, failure, other, failure)), "s-1"
    ).to_wire()

    assert wire["message"].count("At most") == 1
    assert wire["message"].endswith("; subject: Field required")


def test_the_offline_summary_says_a_repeated_problem_once() -> None:
    refused = {"error": {"code": "too_many_calls", "message": TooManyCalls.for_calls(NAMES).message}}
    results = [
        {"toolResult": {"toolUseId": f"t{i}", "content": [{"json": refused}], "status": "error"}}
        for i in range(4)
    ]
    answer = OfflineModel().converse(messages=[{"role": "user", "content": results}])

    (block,) = answer["output"]["message"]["content"]
    assert block["text"].count("At most") == 1
