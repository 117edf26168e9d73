"""The AgentCore harness runtime: scripted InvokeHarness streams, a validating client, in-memory ports."""

from __future__ import annotations

import json
import logging
import re
import time
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from botocore.exceptions import ClientError, ParamValidationError, ReadTimeoutError
from msgspec.structs import replace
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.people import Person
from multitool.runtimes import (
    AgentCoreRuntime,
    AwsClients,
    ConverseRuntime,
    ModelBusy,
    ModelFailed,
    OfflineHarness,
    RuntimeNotConfigured,
    TurnRequest,
    build_runtime,
    harness_tools,
)
from multitool.runtimes.agentcore import CONTEXT_TOO_LONG, FILTERED, MALFORMED, runtime_session_id
from multitool.runtimes.base import MODEL_CALL_RESERVE_SECONDS, OUT_OF_TIME, UNFINISHED
from multitool.runtimes.converse import CUT_SHORT, ROUNDS_EXHAUSTED, tool_specs_from_registry
from multitool.runtimes.offline_harness import (
    OFFLINE_HARNESS_ARN,
    invoke_harness_operation,
    validate_invoke_harness,
)
from multitool.runtimes.product import product_flows
from multitool.runtimes.prompts import EVERY_TOOL, NO_JSON, RAW_NAMES
from multitool.settings.chat import ChatSettings
from multitool.tools import REGISTRY, ToolPorts

from tests.support import harness_streams as h

NOW = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
REQUEST = TurnRequest(
    "user-1",
    "sess-1",
    "Email Kinshuok about the doc and schedule a sync",
    "Europe/Berlin",
    NOW,
    user_email="me@example.com",
)
EMAIL = {"to": ["Kinshuok"], "subject": "About the doc", "body": "Please have a look."}
MEETING = {"attendees": ["Kinshuok"], "title": "Sync", "when": "Thursday"}
JIRA = {"project": "WEB", "issueType": "Bug", "summary": "Login crash", "description": "Crashes on login."}


@pytest.fixture
def ports() -> ToolPorts:
    people = [
        Person(id="p1", display_name="Kinshuok Sharma", email="kinshuok@example.com"),
        Person(id="p2", display_name="Priya Natarajan", email="priya@example.com"),
    ]
    return ToolPorts(MemoryDirectory(people), MemoryCalendar(), MemoryDraftStore())


def runtime(client: Any, ports: ToolPorts, **kwargs: Any) -> AgentCoreRuntime:
    return AgentCoreRuntime(client, h.HARNESS_ARN, product_flows(ports), **kwargs)


# --------------------------------------------------------------------------- tools and request


def test_harness_tools_are_the_registry_as_inline_functions_with_the_converse_schemas() -> None:
    tools = harness_tools()
    specs = {s["toolSpec"]["name"]: s["toolSpec"] for s in tool_specs_from_registry()}

    assert [t["name"] for t in tools] == list(REGISTRY)
    for tool in tools:
        assert tool["type"] == "inline_function"
        inline = tool["config"]["inlineFunction"]
        assert inline["inputSchema"] == specs[tool["name"]]["inputSchema"]["json"]
        assert inline["description"] == specs[tool["name"]]["description"]
    validate_invoke_harness(
        {
            "harnessArn": h.HARNESS_ARN,
            "runtimeSessionId": runtime_session_id("u", "s"),
            "messages": [{"role": "user", "content": [{"text": "hi"}]}],
            "tools": tools,
        }
    )


def test_the_runtime_session_is_stable_owner_bound_and_fits_the_service() -> None:
    session = runtime_session_id("user-1", "sess-1")

    assert session == runtime_session_id("user-1", "sess-1")
    assert session != runtime_session_id("user-2", "sess-1")
    assert session != runtime_session_id("user-1", "sess-2")
    assert 33 <= len(session) <= 100
    assert re.fullmatch(r"[a-zA-Z0-9][a-zA-Z0-9-_]*", session)


def test_the_request_carries_the_prompt_contract_the_user_and_only_the_inline_tools(ports) -> None:
    client = h.ScriptedHarness(h.answer("Hello."))

    runtime(client, ports, max_rounds=4, max_tokens=2048).run_turn(
        replace(REQUEST, history=({"role": "user", "content": [{"text": "earlier"}]},))
    )

    (request,) = client.requests
    assert request["harnessArn"] == h.HARNESS_ARN
    assert request["runtimeSessionId"] == runtime_session_id("user-1", "sess-1")
    assert request["runtimeUserId"] == request["actorId"] == "user-1"
    system = request["systemPrompt"][0]["text"]
    for rule in (EVERY_TOOL, RAW_NAMES, NO_JSON):
        assert rule in system
    assert "Europe/Berlin" in system
    assert NOW.isoformat() in system
    assert request["tools"] == harness_tools()
    assert request["allowedTools"] == list(REGISTRY)  # the built-in shell and file tools stay off
    assert (request["maxIterations"], request["maxTokens"]) == (4, 2048)
    # The harness keeps the conversation by session: only the new message is sent.
    assert request["messages"] == [{"role": "user", "content": [{"text": REQUEST.message}]}]
    assert "timeoutSeconds" not in request


# --------------------------------------------------------------------------- batches


@pytest.mark.parametrize(
    ("uses", "cards"),
    [
        ([("t1", "create_email_draft", EMAIL)], ["show_new_email_draft"]),
        (
            [("t1", "create_email_draft", EMAIL), ("t2", "propose_meeting", MEETING)],
            ["show_new_email_draft", "show_meeting_scheduler"],
        ),
        (
            [
                ("t1", "create_email_draft", EMAIL),
                ("t2", "propose_meeting", MEETING),
                ("t3", "create_jira_ticket_draft", JIRA),
                ("t4", "create_email_draft", {**EMAIL, "to": ["Priya"], "subject": "The plan"}),
                ("t5", "propose_meeting", {**MEETING, "title": "Retro", "when": "Friday"}),
            ],
            [
                "show_new_email_draft",
                "show_meeting_scheduler",
                "show_jira_ticket_draft",
                "show_new_email_draft",
                "show_meeting_scheduler",
            ],
        ),
    ],
    ids=["one", "two", "five"],
)
def test_every_inline_call_of_one_response_runs_as_one_batch_and_is_answered_once(ports, uses, cards) -> None:
    client = h.ScriptedHarness(h.calls(*uses, pieces=3, lead="On it."), h.answer("Prepared ", "them all."))

    results = runtime(client, ports).run_turn(REQUEST)

    assert [c.type for c in results.client_actions] == cards
    assert results.message == "Prepared them all."
    assert ports.directory.reads == 1
    assert ports.drafts.writes == 1
    # The resume sends the paused assistant message back, then one toolResult per toolUseId, in order.
    assistant, user = client.requests[1]["messages"]
    assert (assistant["role"], user["role"]) == ("assistant", "user")
    assert assistant["content"][0] == {"text": "On it."}
    assert [b["toolUse"]["toolUseId"] for b in assistant["content"][1:]] == [u[0] for u in uses]
    assert [b["toolUse"]["input"] for b in assistant["content"][1:]] == [u[2] for u in uses]
    results_sent = client.tool_results(1)
    assert [r["toolUseId"] for r in results_sent] == [u[0] for u in uses]
    assert {r["status"] for r in results_sent} == {"success"}
    assert [r["content"][0]["json"]["action"] for r in results_sent] == cards


def test_identity_time_zone_and_email_come_from_the_request_not_the_model(ports) -> None:
    client = h.ScriptedHarness(
        h.calls(
            ("t1", "propose_meeting", MEETING),
            ("t2", "create_email_draft", {**EMAIL, "owner": "mallory", "timezone": "Asia/Tokyo"}),
        ),
        h.answer("Done."),
    )

    results = runtime(client, ports).run_turn(REQUEST)

    (meeting,) = results.client_actions
    assert meeting.timezone == "Europe/Berlin"
    assert {draft.owner for draft in ports.drafts.drafts.values()} == {"user-1"}
    # What the model adds beyond a tool's arguments is refused, never taken as who or where.
    refused = client.tool_results(1)[1]
    assert refused["status"] == "error"


def test_a_pause_is_resumed_and_later_rounds_keep_every_card(ports) -> None:
    client = h.ScriptedHarness(
        h.calls(("t1", "create_jira_ticket_draft", JIRA)),
        h.calls(("t2", "create_email_draft", {**EMAIL, "subject": "Login crash"}), lead=None),
        h.answer("Filed and drafted."),
    )

    results = runtime(client, ports).run_turn(REQUEST)

    assert [c.type for c in results.client_actions] == ["show_jira_ticket_draft", "show_new_email_draft"]
    assert results.message == "Filed and drafted."
    assert [r["toolUseId"] for r in client.tool_results(1)] == ["t1"]
    assert [r["toolUseId"] for r in client.tool_results(2)] == ["t2"]
    assert client.requests[2]["messages"][0]["content"][0]["toolUse"]["toolUseId"] == "t2"


def test_the_thinking_before_a_call_goes_back_with_it_in_a_request_the_service_accepts(ports) -> None:
    # Given a model that thinks by default: its paused response streams a signed reasoning block first
    client = h.ScriptedHarness(
        h.response(
            h.reasoning(0, "The user wants a ticket; ", "file it."),
            h.tool_use(1, "t1", "create_jira_ticket_draft", JIRA),
            stop="tool_use",
        ),
        h.calls(("t2", "create_email_draft", {**EMAIL, "subject": "Login crash"})),
        h.answer("Filed and drafted."),
    )

    # When the turn resumes
    results = runtime(client, ports).run_turn(REQUEST)

    # Then the resumed assistant message leads with that block, unchanged (ScriptedHarness validated
    # every request against InvokeHarness's input shape), then the call
    assert [c.type for c in results.client_actions] == ["show_jira_ticket_draft", "show_new_email_draft"]
    assistant = client.requests[1]["messages"][0]
    assert assistant["role"] == "assistant"
    assert assistant["content"][0] == {
        "reasoningContent": {
            "reasoningText": {"text": "The user wants a ticket; file it.", "signature": "c2lnbmF0dXJl"}
        }
    }
    assert assistant["content"][1]["toolUse"]["toolUseId"] == "t1"
    # And a response without thinking resumes without a reasoning block
    assert all("reasoningContent" not in b for b in client.requests[2]["messages"][0]["content"])


def test_a_bad_call_gets_its_own_error_result_and_the_others_survive(ports) -> None:
    client = h.ScriptedHarness(
        h.calls(
            ("t1", "create_email_draft", EMAIL),
            ("t2", "teleport", {}),
            ("t3", "create_email_draft", "{not json"),
            ("t4", "create_email_draft", "[1, 2]"),
        ),
        h.answer("Some of it worked."),
    )

    results = runtime(client, ports).run_turn(REQUEST)

    assert [c.type for c in results.client_actions] == ["show_new_email_draft"]
    sent = client.tool_results(1)
    assert [r["toolUseId"] for r in sent] == ["t1", "t2", "t3", "t4"]
    assert [r["status"] for r in sent] == ["success", "error", "error", "error"]
    assert "not valid JSON" in sent[2]["content"][0]["json"]["error"]["message"]
    assert "JSON object" in sent[3]["content"][0]["json"]["error"]["message"]
    # The resent assistant message stays valid for the service even where the model's input was not.
    assistant = client.requests[1]["messages"][0]["content"]
    assert [b["toolUse"]["input"] for b in assistant if "toolUse" in b][2:] == [{}, {}]


# --------------------------------------------------------------------------- deltas


def test_text_split_across_deltas_is_joined_in_order(ports) -> None:
    client = h.ScriptedHarness(h.answer("I can ", "draft emails", ", meetings ", "and tickets."))

    results = runtime(client, ports).run_turn(REQUEST)

    assert results.message == "I can draft emails, meetings and tickets."


def test_tool_input_split_across_deltas_is_one_json_document(ports) -> None:
    client = h.ScriptedHarness(
        h.calls(("t1", "create_email_draft", EMAIL), pieces=7),
        h.answer("Drafted."),
    )

    results = runtime(client, ports).run_turn(REQUEST)

    (card,) = results.client_actions
    assert card.subject == "About the doc"
    assert client.scripts == []


def test_a_text_block_between_tool_blocks_and_a_server_tool_the_harness_ran_are_not_answered_again(
    ports,
) -> None:
    stream = h.response(
        h.tool_use(0, "srv1", "shell", {"cmd": "ls"}, kind="server_tool_use"),
        h.tool_result(1, "srv1", {"out": ""}),
        h.text(2, "Now the ", "email."),
        h.tool_use(3, "t1", "create_email_draft", EMAIL, pieces=2),
        stop="tool_use",
    )
    client = h.ScriptedHarness(stream, h.answer("Drafted."))

    runtime(client, ports).run_turn(REQUEST)

    assert [r["toolUseId"] for r in client.tool_results(1)] == ["t1"]


# --------------------------------------------------------------------------- stop reasons


EXPECTED_ENDS = {
    "end_turn": "Here you go.",
    "stop_sequence": "Here you go.",
    "tool_result": "Here you go.",
    "interrupted": "Here you go.",
    "partial_turn": "Here you go.",
    "hook_stopped": "Here you go.",
    "max_tokens": f"Here you go.\n\n{CUT_SHORT}",
    "max_output_tokens_exceeded": f"Here you go.\n\n{CUT_SHORT}",
    "max_iterations_exceeded": f"Here you go.\n\n{ROUNDS_EXHAUSTED}",
    "timeout_exceeded": OUT_OF_TIME,
    "content_filtered": FILTERED,
}
FAILURES = {"malformed_model_output": MALFORMED, "malformed_tool_use": MALFORMED}
FAILURES["model_context_window_exceeded"] = CONTEXT_TOO_LONG


def test_the_expectations_cover_every_stop_reason_of_the_service_model() -> None:
    assert set(EXPECTED_ENDS) | set(FAILURES) | {"tool_use"} == set(h.stop_reasons())


@pytest.mark.parametrize("reason", sorted(EXPECTED_ENDS))
def test_every_ending_stop_reason_answers_with_the_cards_made_so_far(ports, reason: str) -> None:
    client = h.ScriptedHarness(
        h.calls(("t1", "create_email_draft", EMAIL)),
        h.response(h.text(0, "Here you ", "go."), stop=reason),
    )

    results = runtime(client, ports).run_turn(REQUEST)

    assert [c.type for c in results.client_actions] == ["show_new_email_draft"]
    assert results.message == EXPECTED_ENDS[reason]
    assert len(client.requests) == 2


@pytest.mark.parametrize("reason", sorted(FAILURES))
def test_a_failing_stop_reason_is_502_or_keeps_the_cards_already_made(ports, reason: str) -> None:
    failing = h.ScriptedHarness(h.response(h.text(0, "x"), stop=reason))
    with pytest.raises(ModelFailed, match=re.escape(FAILURES[reason])):
        runtime(failing, ports).run_turn(REQUEST)

    later = h.ScriptedHarness(h.calls(("t1", "create_email_draft", EMAIL)), h.response(stop=reason))
    results = runtime(later, ports).run_turn(REQUEST)
    assert results.message == UNFINISHED
    assert [c.type for c in results.client_actions] == ["show_new_email_draft"]


@pytest.mark.parametrize("reason", ["max_tokens", "max_output_tokens_exceeded", "end_turn"])
def test_tool_calls_without_a_tool_use_stop_are_not_run(ports, reason: str) -> None:
    client = h.ScriptedHarness(h.response(h.tool_use(0, "t1", "create_email_draft", EMAIL), stop=reason))

    results = runtime(client, ports).run_turn(REQUEST)

    assert results.client_actions == ()
    assert ports.drafts.writes == 0
    assert len(client.requests) == 1


def test_the_round_limit_stops_a_model_that_keeps_calling_tools(ports) -> None:
    client = h.ScriptedHarness(
        *[h.calls((f"t{i}", "create_email_draft", {**EMAIL, "subject": f"Note {i}"})) for i in range(3)]
    )

    results = runtime(client, ports, max_rounds=3).run_turn(REQUEST)

    assert len(client.requests) == 3
    assert results.message == ROUNDS_EXHAUSTED
    assert len(results.client_actions) == 3


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("code", "error"),
    [
        ("internalServerException", ModelFailed),
        ("validationException", ModelFailed),
        ("runtimeClientError", ModelFailed),
    ],
)
def test_an_in_stream_exception_is_a_model_error(ports, code: str, error: type[Exception]) -> None:
    client = h.ScriptedHarness([h.message_start(), *h.text(0, "Wor"), h.stream_error(code)])

    with pytest.raises(error):
        runtime(client, ports).run_turn(REQUEST)


def test_an_in_stream_exception_after_drafts_keeps_them(ports) -> None:
    client = h.ScriptedHarness(
        h.calls(("t1", "create_email_draft", EMAIL)),
        [h.message_start(), h.stream_error("internalServerException")],
    )

    results = runtime(client, ports).run_turn(REQUEST)

    assert results.message == UNFINISHED
    assert [c.type for c in results.client_actions] == ["show_new_email_draft"]


def test_a_raw_exception_event_in_the_stream_is_mapped_too(ports) -> None:
    client = h.ScriptedHarness(
        [h.message_start(), h.Raw({"internalServerException": {"message": "boom"}})],
        [h.message_start(), h.Raw({"throttlingException": {"message": "slow down"}})],
    )

    with pytest.raises(ModelFailed):
        runtime(client, ports).run_turn(REQUEST)
    with pytest.raises(ModelBusy):
        runtime(client, ports).run_turn(REQUEST)


@pytest.mark.parametrize(
    ("failure", "error"),
    [
        (ClientError({"Error": {"Code": "ThrottlingException", "Message": "x"}}, "InvokeHarness"), ModelBusy),
        (
            ClientError(
                {"Error": {"Code": "ServiceQuotaExceededException", "Message": "x"}}, "InvokeHarness"
            ),
            ModelBusy,
        ),
        (ReadTimeoutError(endpoint_url="https://bedrock-agentcore"), ModelBusy),
        (
            ClientError({"Error": {"Code": "AccessDeniedException", "Message": "x"}}, "InvokeHarness"),
            ModelFailed,
        ),
        (
            ClientError({"Error": {"Code": "ResourceNotFoundException", "Message": "x"}}, "InvokeHarness"),
            ModelFailed,
        ),
    ],
)
def test_service_errors_map_to_busy_or_failed(ports, failure: Exception, error: type[Exception]) -> None:
    with pytest.raises(error):
        runtime(h.ScriptedHarness(failure), ports).run_turn(REQUEST)


def test_a_response_without_a_stream_or_a_message_is_a_failure(ports) -> None:
    class NoStream:
        def invoke_harness(self, **kwargs: Any) -> dict[str, Any]:
            return {"ResponseMetadata": {}}

    with pytest.raises(ModelFailed, match="without an event stream"):
        runtime(NoStream(), ports).run_turn(REQUEST)
    with pytest.raises(ModelFailed, match="without a message"):
        runtime(h.ScriptedHarness([h.metadata()]), ports).run_turn(REQUEST)


# --------------------------------------------------------------------------- malformed events


def test_malformed_events_are_logged_and_skipped_never_a_crash(ports, caplog) -> None:
    stream = [
        h.Raw("not an event"),
        h.Raw({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Early "}}}),
        h.message_start(),
        h.Raw({"somethingNew": {"x": 1}}),
        h.Raw({"contentBlockStart": {"contentBlockIndex": "zero", "start": {}}}),
        h.Raw({"contentBlockStart": {"contentBlockIndex": 1, "start": {"toolUse": {"name": "x"}}}}),
        h.Raw({"contentBlockDelta": {"contentBlockIndex": 5, "delta": {"toolUse": {"input": "{}"}}}}),
        h.Raw({"contentBlockStop": {"contentBlockIndex": 9}}),
        h.Raw({"messageStart": "assistant"}),
        h.hook_event(),
        *h.text(0, "Fine ", "anyway."),
        *h.tool_use(1, "t1", "create_email_draft", EMAIL),
        *h.tool_use(2, "t1", "create_email_draft", {**EMAIL, "subject": "Repeated id"}),
        h.message_stop("tool_use"),
        h.metadata(),
    ]
    client = h.ScriptedHarness(stream, [h.message_start(), *h.text(0, "Done without a stop.")])

    with caplog.at_level(logging.WARNING):
        results = runtime(client, ports).run_turn(REQUEST)

    assert results.message == "Done without a stop."
    assert [c.subject for c in results.client_actions] == ["About the doc"]
    assert [r["toolUseId"] for r in client.tool_results(1)] == ["t1"]  # a repeated id is answered once
    problems = [r.__dict__.get("problem") for r in caplog.records if r.getMessage().startswith("Skipped")]
    for problem in (
        "event is not an object",
        "content before messageStart",
        "unknown event",
        "contentBlockStart without index or start",
        "toolUse start without toolUseId or name",
        "toolUse delta without its toolUse start",
        "contentBlockStop of no open block",
        "event body is not an object",
        "repeated toolUseId in one response",
        "stream ended without messageStop",
    ):
        assert problem in problems


# --------------------------------------------------------------------------- the deadline


def test_the_deadline_skips_a_resume_that_cannot_finish_and_keeps_the_cards(ports) -> None:
    client = h.ScriptedHarness(
        h.calls(("t1", "create_email_draft", EMAIL), ("t2", "propose_meeting", MEETING)),
        h.answer("never asked"),
    )
    soon = time.monotonic() + MODEL_CALL_RESERVE_SECONDS / 2

    results = runtime(client, ports).run_turn(replace(REQUEST, deadline=soon))

    assert [c.type for c in results.client_actions] == ["show_new_email_draft", "show_meeting_scheduler"]
    assert results.message == OUT_OF_TIME
    assert len(client.requests) == 1
    assert 1 <= client.requests[0]["timeoutSeconds"] <= MODEL_CALL_RESERVE_SECONDS / 2


def test_the_harness_is_told_the_time_the_invocation_has_left(ports) -> None:
    client = h.ScriptedHarness(h.calls(("t1", "create_email_draft", EMAIL)), h.answer("Drafted."))
    later = time.monotonic() + 25

    results = runtime(client, ports).run_turn(replace(REQUEST, deadline=later))

    assert results.message == "Drafted."
    first, second = (r["timeoutSeconds"] for r in client.requests)
    assert 20 <= first <= 23
    assert second <= first


# --------------------------------------------------------------------------- the wire, through boto3


def test_a_real_boto3_client_sends_a_valid_request_and_parses_the_stream_as_the_runtime_reads_it(
    ports, monkeypatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    client = boto3.client("bedrock-agentcore", region_name="us-east-1")
    bodies = [
        h.encode_events(
            h.calls(("t1", "create_email_draft", EMAIL), ("t2", "propose_meeting", MEETING), pieces=4)
        ),
        h.encode_events([h.message_start(), *h.text(0, "Pre"), h.stream_error("internalServerException")]),
    ]
    sent: list[Any] = []

    class Raw:
        def __init__(self, body: bytes) -> None:
            self.body = body

        def stream(self, **_: Any):
            yield self.body[: len(self.body) // 2]
            yield self.body[len(self.body) // 2 :]

    def reply(request: Any, **_: Any) -> AWSResponse:
        sent.append(request)
        headers = {"content-type": "application/vnd.amazon.eventstream"}
        return AWSResponse(request.url, 200, headers, Raw(bodies.pop(0)))  # type: ignore[arg-type]

    client.meta.events.register("before-send.bedrock-agentcore.InvokeHarness", reply)

    results = runtime(client, ports).run_turn(REQUEST)

    assert [c.type for c in results.client_actions] == ["show_new_email_draft", "show_meeting_scheduler"]
    assert results.message == UNFINISHED  # the second stream's internalServerException, after the drafts
    first = sent[0]
    assert first.headers["X-Amzn-Bedrock-AgentCore-Runtime-Session-Id"].decode() == runtime_session_id(
        "user-1", "sess-1"
    )
    assert first.headers["X-Amzn-Bedrock-AgentCore-Runtime-User-Id"].decode() == "user-1"
    resume = json.loads(sent[1].body)
    assert [b["toolResult"]["toolUseId"] for b in resume["messages"][1]["content"]] == ["t1", "t2"]


def test_a_request_the_service_model_refuses_fails_before_it_is_sent(ports) -> None:
    client = h.ScriptedHarness(h.answer("never streamed"))

    with pytest.raises(ModelFailed, match="ParamValidationError"):
        runtime(client, ports).run_turn(replace(REQUEST, message=""))  # text blocks need 1+ characters
    assert client.requests == []


def test_the_identifiers_sent_fit_the_service_patterns() -> None:
    shape = invoke_harness_operation().input_shape
    assert shape is not None
    for member, value in (
        ("harnessArn", OFFLINE_HARNESS_ARN),
        ("harnessArn", h.HARNESS_ARN),
        ("runtimeSessionId", runtime_session_id("user-1", "a session id with spaces/and slashes")),
    ):
        assert re.fullmatch(shape.members[member].metadata["pattern"], value), (member, value)


# --------------------------------------------------------------------------- the offline harness


def test_the_offline_harness_streams_only_events_the_service_model_allows_in_several_deltas() -> None:
    harness = OfflineHarness()
    base = {
        "harnessArn": OFFLINE_HARNESS_ARN,
        "runtimeSessionId": runtime_session_id("u", "s"),
        "tools": harness_tools(),
    }

    paused = list(
        harness.invoke_harness(
            **base,
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"text": "Email Kinshuok about the doc, book a sync Friday and water the plants"}
                    ],
                }
            ],
        )["stream"]
    )

    for event in paused:
        h.checked(event)
    reply_text = [e for e in paused if "contentBlockDelta" in e and "text" in e["contentBlockDelta"]["delta"]]
    inputs = [e for e in paused if "contentBlockDelta" in e and "toolUse" in e["contentBlockDelta"]["delta"]]
    starts = [e["contentBlockStart"]["start"]["toolUse"] for e in paused if "contentBlockStart" in e]
    assert len(reply_text) >= 2
    assert len(inputs) > len(starts) == 2
    assert paused[-2] == {"messageStop": {"stopReason": "tool_use"}}


def test_the_offline_harness_refuses_a_resume_that_does_not_answer_each_call_once() -> None:
    harness = OfflineHarness()
    use = {"toolUse": {"toolUseId": "t1", "name": "create_email_draft", "input": EMAIL}}
    result = {"toolResult": {"toolUseId": "t1", "content": [{"json": {"ok": True}}]}}
    base = {"harnessArn": OFFLINE_HARNESS_ARN, "runtimeSessionId": runtime_session_id("u", "s")}

    for messages in (
        [{"role": "assistant", "content": [use]}, {"role": "user", "content": [result, result]}],
        [
            {
                "role": "assistant",
                "content": [use, {**use, "toolUse": {**use["toolUse"], "toolUseId": "t2"}}],
            },
            {"role": "user", "content": [result]},
        ],
        [{"role": "user", "content": [result]}],
    ):
        with pytest.raises(ClientError, match="ValidationException"):
            harness.invoke_harness(**base, messages=messages)
    with pytest.raises(ParamValidationError):
        harness.invoke_harness(**base, messages=[{"role": "user", "content": [{"text": ""}]}])


def test_the_offline_runtime_keeps_the_conversation_per_owner_and_session(ports) -> None:
    harness = OfflineHarness()
    offline = AgentCoreRuntime(harness, OFFLINE_HARNESS_ARN, product_flows(ports))
    offline.run_turn(replace(REQUEST, message="File a Jira bug in WEB for the login crash"))

    mine = offline.run_turn(replace(REQUEST, message="Email Priya about it"))
    theirs = offline.run_turn(replace(REQUEST, user_id="user-2", message="Email Priya about it"))

    assert mine.client_actions[0].subject == "Login crash"
    assert theirs.client_actions[0].subject == "About it"


# --------------------------------------------------------------------------- choosing the runtime


def settings(**env: str) -> ChatSettings:
    return ChatSettings.from_env(
        {
            "DRAFTS_TABLE_NAME": "d",
            "DIRECTORY_TABLE_NAME": "p",
            "BOOKINGS_TABLE_NAME": "b",
            "SESSIONS_TABLE_NAME": "s",
            **env,
        }
    )


class Harness:
    """The deployment's ``bedrock-agentcore`` client: each InvokeHarness it is asked."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []

    def invoke_harness(self, **kwargs: Any) -> dict[str, Any]:
        self.asked.append(kwargs)
        return {"stream": []}


class Clients(AwsClients):
    bedrock_agentcore = Harness()  # type: ignore[assignment]


def test_agentcore_needs_its_harness_arn() -> None:
    with pytest.raises(RuntimeNotConfigured, match=r"RUNTIME=agentcore needs HARNESS_ARN\."):
        build_runtime(settings(RUNTIME="agentcore"), Clients(), lambda _r: None)  # type: ignore[arg-type,return-value]


def test_build_runtime_wires_the_harness_and_the_offline_choices() -> None:
    deployed = build_runtime(
        settings(
            RUNTIME="agentcore", HARNESS_ARN=h.HARNESS_ARN, MAX_TOOL_ROUNDS="3", MAX_OUTPUT_TOKENS="1024"
        ),
        Clients(),
        lambda _r: None,  # type: ignore[arg-type,return-value]
    )
    offline = build_runtime(settings(), Clients(), lambda _r: None)  # type: ignore[arg-type,return-value]
    converse = build_runtime(settings(RUNTIME="offline-converse"), Clients(), lambda _r: None)  # type: ignore[arg-type,return-value]

    assert isinstance(deployed, AgentCoreRuntime)
    assert (deployed.harness_arn, deployed.max_rounds, deployed.max_tokens) == (h.HARNESS_ARN, 3, 1024)
    # The clients' harness client, asked through the runtime's (made on its first call).
    assert deployed.client.invoke_harness(harnessArn=h.HARNESS_ARN) == {"stream": []}
    assert Clients.bedrock_agentcore.asked[-1] == {"harnessArn": h.HARNESS_ARN}
    assert isinstance(offline, AgentCoreRuntime)
    assert isinstance(offline.client, OfflineHarness)
    assert isinstance(converse, ConverseRuntime)


def test_the_converse_runtime_takes_the_deployments_guardrail_from_its_settings() -> None:
    class ConverseClients(AwsClients):
        bedrock_runtime = object()  # type: ignore[assignment]

    guarded = build_runtime(
        settings(RUNTIME="converse", MODEL_ID="anthropic.claude-sonnet-5-5", GUARDRAIL_ID="gr0abc123def"),
        ConverseClients(),
        lambda _r: None,  # type: ignore[arg-type,return-value]
    )
    plain = build_runtime(
        settings(RUNTIME="converse", MODEL_ID="anthropic.claude-sonnet-5-5"),
        ConverseClients(),
        lambda _r: None,  # type: ignore[arg-type,return-value]
    )
    assert isinstance(guarded, ConverseRuntime)
    assert isinstance(plain, ConverseRuntime)
    assert guarded.guardrail == {"guardrailIdentifier": "gr0abc123def", "guardrailVersion": "DRAFT"}
    assert plain.guardrail is None
