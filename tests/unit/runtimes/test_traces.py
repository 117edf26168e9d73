"""The trace extractor on recorded-shape InvokeAgent completion streams."""

from __future__ import annotations

import json
import logging

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from multitool.runtimes import traces
from multitool.runtimes.traces import extract_tool_results, strip_tool_json
from multitool.tools.email.email_draft import EmailDraftCard
from multitool.tools.jira.jira_draft import JiraTicketDraftCard
from multitool.tools.meeting.meeting_scheduler import MeetingSchedulerCard

from tests.support import bedrock_streams as b

STEP = "2f1c9d3e-0001-4d7f-a1b3-7e6c1f0a5c11-0"


def test_one_action_gives_one_card_and_the_final_text() -> None:
    events = [
        b.rationale(STEP, "The user wants an email."),
        b.invocation_input(
            STEP, "email_draft", "/email-drafts", {"to": ["Kinshuok"], "subject": "About the doc"}
        ),
        b.observation(STEP, b.email_payload()),
        b.final_response(STEP, "I drafted the email for you to review."),
        b.chunk("I drafted the email for you to review."),
    ]

    results = extract_tool_results(events)

    assert results.message == "I drafted the email for you to review."
    assert len(results.client_actions) == 1
    card = results.client_action
    assert isinstance(card, EmailDraftCard)
    assert card.id == "d_email1"
    assert card.to_wire()["type"] == "show_new_email_draft"
    assert card.to[0].person is not None
    assert card.to[0].person.email == "kinshuok.sharma@example.com"
    assert results.messages == ("Draft email to Kinshuok Sharma: About the doc",)


def test_two_different_actions_in_one_step_keep_their_order_and_pairing() -> None:
    events = [
        b.invocation_input(STEP, "email_draft", "/email-drafts", {"to": ["Kinshuok"]}),
        b.invocation_input(STEP, "meeting_scheduler", "/meeting-proposals", {"attendees": ["Kinshuok"]}),
        b.observation(STEP, b.email_payload()),
        b.observation(STEP, b.meeting_payload()),
        b.chunk("Here are an email draft and three slots for the sync."),
    ]

    results = extract_tool_results(events)

    assert [type(c) for c in results.client_actions] == [EmailDraftCard, MeetingSchedulerCard]
    assert isinstance(results.client_action, MeetingSchedulerCard)
    assert results.messages == (
        "Draft email to Kinshuok Sharma: About the doc",
        "Meeting 'Sync' with Kinshuok Sharma: 3 proposed slots on Thu 3 Dec",
    )


def test_outputs_are_paired_with_inputs_by_order_within_a_step(caplog) -> None:
    # Both calls share one traceId; the second output is an error and must be attributed to the meeting.
    events = [
        b.invocation_input(STEP, "email_draft", "/email-drafts"),
        b.invocation_input(STEP, "meeting_scheduler", "/meeting-proposals"),
        b.observation(STEP, b.email_payload()),
        b.observation(STEP, {"error": {"code": "date_in_past", "message": "Monday has passed."}}),
    ]

    results = extract_tool_results(events)

    assert len(results.client_actions) == 1
    assert len(results.failures) == 1
    failure = results.failures[0]
    assert (failure.code, failure.action_group, failure.api_path) == (
        "date_in_past",
        "meeting_scheduler",
        "/meeting-proposals",
    )


def test_the_same_action_twice_gives_one_card() -> None:
    events = [
        b.observation(STEP, b.email_payload()),
        b.observation("other-step-0", b.email_payload()),
        b.observation("other-step-1", b.jira_payload()),
        # Same ticket (project + summary, case and spacing aside) under another draft id.
        b.observation("other-step-2", b.jira_payload(draft_id="d_jira2", summary="  login   CRASH ")),
    ]

    results = extract_tool_results(events)

    assert [c.id for c in results.client_actions] == ["d_email1", "d_jira1"]


def test_two_emails_to_different_people_are_two_cards() -> None:
    events = [
        b.observation(STEP, b.email_payload()),
        b.observation(STEP, b.email_payload(draft_id="d_email2", to=[b.resolved("Priya", b.PRIYA)])),
    ]

    assert len(extract_tool_results(events).client_actions) == 2


def test_multi_agent_echo_duplicates_give_one_card_each() -> None:
    payloads = [b.email_payload(), b.meeting_payload()]
    collaborator = {"chain": (b.SUPERVISOR, b.COLLABORATOR), "collaborator": "drafts"}
    events = [
        b.invocation_input("col-0", "email_draft", "/email-drafts", **collaborator),
        b.invocation_input("col-0", "meeting_scheduler", "/meeting-proposals", **collaborator),
        b.observation("col-0", payloads[0], **collaborator),
        b.observation("col-0", payloads[1], **collaborator),
        b.final_response("col-1", "Drafted both.", **collaborator),
        # The supervisor echoes the collaborator's payloads, as a JSON list and inside prose.
        b.collaborator_output("sup-0", "drafts", json.dumps(payloads)),
        b.collaborator_output(
            "sup-1", "drafts", f"Done: {json.dumps(payloads[0])} and {json.dumps(payloads[1])}"
        ),
        b.final_response("sup-2", "Your email and meeting are ready to review."),
    ]

    results = extract_tool_results(events)

    assert [c.id for c in results.client_actions] == ["d_email1", "d_meet1"]
    # No chunk: the top-level final response is the message, not the collaborator's.
    assert results.message == "Your email and meeting are ready to review."


def test_payloads_only_echoed_by_a_supervisor_still_become_cards() -> None:
    events = [b.collaborator_output("sup-0", "drafts", "Created: " + json.dumps(b.jira_payload()))]

    results = extract_tool_results(events)

    assert [c.id for c in results.client_actions] == ["d_jira1"]


def test_return_control_results_recorded_as_trace_events_give_cards() -> None:
    events = [
        b.return_control(
            "inv-1",
            [
                b.api_invocation_input("email_draft", "/email-drafts", {"to": ["Kinshuok"]}),
                b.api_invocation_input(
                    "meeting_scheduler", "/meeting-proposals", {"attendees": ["Kinshuok"]}
                ),
                b.api_invocation_input("jira_draft", "/jira-ticket-drafts", {"project": "WEB"}),
            ],
        ),
        b.observation("rc-inv-1", b.email_payload()),
        b.observation("rc-inv-1", b.meeting_payload()),
        b.observation("rc-inv-1", b.jira_payload()),
        b.chunk("All three are drafted."),
    ]

    results = extract_tool_results(events)

    assert [c.type for c in results.client_actions] == [
        "show_new_email_draft",
        "show_meeting_scheduler",
        "show_jira_ticket_draft",
    ]
    assert isinstance(results.client_actions[2], JiraTicketDraftCard)
    assert results.messages[2] == "Jira Bug in WEB: Login crash"


def test_failure_trace_is_skipped_and_other_outputs_survive(caplog) -> None:
    events = [
        b.observation(STEP, b.email_payload()),
        b.failure("fail-0", "Lambda timed out"),
        b.chunk("Sorry, part of that failed."),
    ]

    with caplog.at_level(logging.WARNING):
        results = extract_tool_results(events)

    assert len(results.client_actions) == 1
    assert results.message == "Sorry, part of that failed."


def test_garbage_is_skipped_and_logged_without_content() -> None:
    secret_body = "my private words"
    events = [
        "not an event",
        None,
        {"unexpectedEvent": {"x": 1}},
        {"trace": "text"},
        {"trace": {"trace": {"orchestrationTrace": {"observation": {"actionGroupInvocationOutput": 7}}}}},
        b.observation(STEP, "not json at all"),
        b.observation(STEP, json.dumps(b.email_payload(body=secret_body))[:40]),  # truncated
        b.observation(STEP, {"action": "show_unknown_thing", "draftId": "d_x"}),
        b.observation(STEP, {"action": "show_jira_ticket_draft", "draftId": "d_j"}),  # missing fields
        b.observation(STEP, [1, 2, 3]),
        b.observation(STEP, {"hello": "world"}),
        {"chunk": {"bytes": 12}},
        {"files": {"files": []}},
        b.observation(STEP, b.meeting_payload()),
    ]

    results = extract_tool_results(events)

    assert [c.id for c in results.client_actions] == ["d_meet1"]


def test_garbage_logs_never_carry_payload_content(caplog) -> None:
    secret = "my-very-private-words"
    events = [
        b.observation(STEP, json.dumps(b.email_payload(body=secret))[:-5]),
        b.observation(STEP, {"action": "show_jira_ticket_draft", "draftId": "d_j", "description": secret}),
    ]

    with caplog.at_level(logging.DEBUG):
        extract_tool_results(events)

    logged = " ".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records)
    assert "Skipped" in logged
    assert secret not in logged


def test_deeply_nested_input_does_not_hit_the_recursion_limit() -> None:
    depth = 100_000
    nested: dict = {"leaf": True}
    for _ in range(depth):
        nested = {"n": nested}
    nested_list: list = []
    for _ in range(depth):
        nested_list = [nested_list]
    deep_text = "[" * depth + "]" * depth
    events = [
        {"trace": {"trace": nested}},
        {"trace": {"trace": {"orchestrationTrace": nested_list}}},
        b.observation(STEP, deep_text),
        b.observation(STEP, '{"a":' * depth),
        b.chunk("ok " + "{" * depth),
        b.observation(STEP, b.email_payload()),
    ]

    results = extract_tool_results(events)

    assert [c.id for c in results.client_actions] == ["d_email1"]
    assert results.message.startswith("ok")


def test_final_message_has_echoed_tool_json_removed() -> None:
    payload = b.email_payload()
    text = (
        "I drafted the email.\n\n```json\n"
        + json.dumps(payload, indent=2)
        + "\n```\n\nAlso "
        + json.dumps({"error": {"code": "x", "message": "y"}})
        + ' the meeting needs a date. Use {braces} and [links](x) freely: {"k": 1}.'
    )
    events = [b.observation(STEP, payload), b.chunk(text)]

    message = extract_tool_results(events).message

    assert "draftId" not in message
    assert "```" not in message
    assert '"error"' not in message
    assert message.startswith("I drafted the email.")
    assert 'Use {braces} and [links](x) freely: {"k": 1}.' in message


def test_chunks_split_inside_a_multibyte_character_decode_whole() -> None:
    data = "Grüße, José".encode()
    events = [{"chunk": {"bytes": data[:3]}}, {"chunk": {"bytes": data[3:]}}]

    assert extract_tool_results(events).message == "Grüße, José"


def test_strip_tool_json_leaves_plain_text_alone() -> None:
    assert strip_tool_json("  Nothing to see.  ") == "Nothing to see."
    assert strip_tool_json('{"action": "show_new_email_draft"}') == ""


def test_unresolved_names_are_named_in_the_caption() -> None:
    payload = b.email_payload(to=[b.ambiguous("Priya", b.PRIYA, b.PRIYA_K)])
    meeting = b.meeting_payload(attendees=[b.unknown("Zed")], starts=())

    results = extract_tool_results([b.observation(STEP, payload), b.observation(STEP, meeting)])

    assert results.messages == (
        "Draft email to Priya: About the doc (Priya matches 2 people: pick one)",
        "Meeting 'Sync' with Zed: no free slot found for Thursday (no one named Zed found: check the name)",
    )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20) | st.binary(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=30,
)
trace_keys = st.sampled_from(
    [
        "trace",
        "orchestrationTrace",
        "observation",
        "invocationInput",
        "actionGroupInvocationOutput",
        "actionGroupInvocationInput",
        "agentCollaboratorInvocationOutput",
        "output",
        "finalResponse",
        "failureTrace",
        "text",
        "traceId",
        "callerChain",
        "chunk",
        "bytes",
        "returnControl",
        "action",
        "draftId",
    ]
)
shaped = st.recursive(
    json_values,
    lambda inner: st.dictionaries(trace_keys, inner, max_size=4) | st.lists(inner, max_size=3),
    max_leaves=40,
)
payload_texts = st.one_of(
    st.text(max_size=60),
    st.builds(
        lambda p, n: json.dumps(p)[:n],
        st.sampled_from([b.email_payload(), b.jira_payload()]),
        st.integers(0, 400),
    ),
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    events=st.lists(
        st.one_of(
            shaped,
            st.dictionaries(
                st.sampled_from(["chunk", "trace", "returnControl", "files", "other"]), shaped, max_size=3
            ),
            st.builds(lambda t: b.observation(STEP, t), payload_texts),
            st.builds(lambda t: b.chunk(t), st.text(max_size=40)),
        ),
        max_size=8,
    )
)
def test_arbitrary_events_never_raise(events) -> None:
    results = extract_tool_results(events)

    assert isinstance(results.message, str)
    assert len(results.messages) == len(results.client_actions)


def _lambda_response(body: dict) -> dict:
    """A whole action-group Lambda response where the body was expected."""
    return {
        "messageVersion": "1.0",
        "response": {
            "actionGroup": "email_draft",
            "apiPath": "/email-drafts",
            "httpStatusCode": 200,
            "responseBody": {"application/json": {"body": json.dumps(body)}},
        },
    }


def test_cards_keep_trace_order_whichever_way_their_payload_is_read() -> None:
    draft_id_first = {"draftId": "d_jira1", **b.jira_payload()}  # no leading action: the full path
    events = [
        b.observation(STEP, _lambda_response(b.email_payload())),
        b.observation(STEP, b.meeting_payload()),
        b.collaborator_output("sup-0", "drafts", "Also: " + json.dumps(draft_id_first)),
        b.observation(STEP, b.email_payload(draft_id="d_email2", subject="Another one")),
    ]

    results = extract_tool_results(events)

    assert [c.id for c in results.client_actions] == ["d_email1", "d_meet1", "d_jira1", "d_email2"]
    assert len(results.messages) == 4
    assert results.messages[3] == "Draft email to Kinshuok Sharma: Another one"


def test_supervisor_echoes_of_kept_drafts_are_not_validated_again(monkeypatch) -> None:
    validated: list[str] = []
    real = traces.card_from_payload

    def counting(payload):
        validated.append(payload["draftId"])
        return real(payload)

    monkeypatch.setattr(traces, "card_from_payload", counting)
    payloads = [b.email_payload(), b.meeting_payload()]
    events = [
        b.observation(STEP, payloads[0]),
        b.observation(STEP, payloads[1]),
        b.collaborator_output("sup-0", "drafts", json.dumps([*payloads, b.jira_payload()])),
        # Same draft id padded with spaces: left to validation, which strips it, then deduped.
        b.collaborator_output("sup-1", "drafts", json.dumps({**b.jira_payload(), "draftId": " d_jira1 "})),
    ]

    results = extract_tool_results(events)

    assert [c.id for c in results.client_actions] == ["d_email1", "d_meet1", "d_jira1"]
    assert validated == ["d_jira1", " d_jira1 "]


def test_an_invalid_echo_of_a_kept_draft_is_dropped_quietly(caplog) -> None:
    events = [
        b.observation(STEP, b.jira_payload()),
        b.collaborator_output("sup-0", "drafts", json.dumps({**b.jira_payload(), "summary": None})),
    ]

    with caplog.at_level(logging.DEBUG):
        results = extract_tool_results(events)

    assert [c.id for c in results.client_actions] == ["d_jira1"]
    assert not [r for r in caplog.records if "Skipped" in r.getMessage()]


def test_a_bad_output_is_logged_against_the_input_it_answers(caplog) -> None:
    events = [
        b.invocation_input(STEP, "email_draft", "/email-drafts"),
        b.invocation_input(STEP, "jira_draft", "/jira-ticket-drafts"),
        b.observation(STEP, b.email_payload()),
        # Leads with its action, so it takes the one-pass path first, then the full path says why.
        b.observation(STEP, {"action": "show_jira_ticket_draft", "draftId": "d_j", "project": "WEB"}),
    ]

    with caplog.at_level(logging.WARNING):
        results = extract_tool_results(events)

    assert [c.id for c in results.client_actions] == ["d_email1"]
    skipped = [r for r in caplog.records if r.getMessage() == "Skipped a payload that is not a client action"]
    assert len(skipped) == 1
    assert skipped[0].__dict__.get("actionGroup") == "jira_draft"
    assert skipped[0].__dict__.get("reason") == "InvalidPayloadError"


def test_an_output_is_paired_only_with_inputs_seen_before_it() -> None:
    events = [
        b.observation(STEP, {"error": {"code": "date_in_past", "message": "Monday has passed."}}),
        b.invocation_input(STEP, "meeting_scheduler", "/meeting-proposals"),
    ]

    failure = extract_tool_results(events).failures[0]

    assert (failure.code, failure.action_group, failure.api_path) == ("date_in_past", None, None)


def test_a_step_is_read_alike_whether_its_shape_is_the_common_one_or_not() -> None:
    """The one-step shortcut and the generic walk find the same outputs, paired the same way."""
    nested = b.observation(STEP, b.jira_payload())
    step = nested["trace"]["trace"]["orchestrationTrace"]["observation"]
    # An output one level down, under a key the extractor does not know, and a payload head with spaces.
    nested["trace"]["trace"]["orchestrationTrace"]["observation"] = {
        "traceId": STEP,
        "wrapper": {"actionGroupInvocationOutput": step["actionGroupInvocationOutput"]},
    }
    spaced = b.observation(STEP, json.dumps(b.email_payload(), indent=1))
    common = [
        b.invocation_input(STEP, "jira_draft", "/jira-ticket-drafts"),
        b.invocation_input(STEP, "email_draft", "/email-drafts"),
    ]
    # The same events with the step not alone in its orchestration trace: the generic walk reads them.
    generic = []
    for event in [*common, nested, spaced]:
        copy = json.loads(json.dumps(event, default=str))
        copy["trace"]["trace"]["orchestrationTrace"]["modelInvocationOutput"] = {"traceId": STEP}
        generic.append(copy)

    fast = extract_tool_results([*common, nested, spaced])
    slow = extract_tool_results(generic)

    assert [type(c) for c in fast.client_actions] == [JiraTicketDraftCard, EmailDraftCard]
    assert fast == slow
