"""Each action-group Lambda as an AgentCore Gateway target: Gateway-shaped invocations on moto.

The event is the tool's flat arguments; the tool is named in the real client context
(``Invoke``'s ``ClientContext``, decoded as Lambda does). The same handlers still answer Bedrock
action-group events, told apart by the context, never by the arguments.
"""

from __future__ import annotations

from typing import Any

import pytest
from multitool.drafts import UNCLAIMED_OWNER
from multitool.local.sandbox.lambdas import ClientContext, LambdaContext, encode_client_context
from multitool.tools import REGISTRY
from multitool.tools.gateway_target import TOOL_NAME_KEY, is_gateway_call, tool_name_of

from tests.support.bedrock_events import (
    LambdaContextStub,
    assert_bedrock_response,
    bedrock_action_event,
    response_body,
    tool_handler,
)
from tests.support.gateway_events import gateway_context, gateway_custom, invoke_target
from tests.support.moto_tables import Tables

ARGUMENTS = {
    "email_draft": {"to": ["Kinshuok", "guest@partner.org"], "subject": "The doc", "body": "Draft"},
    "meeting_scheduler": {"attendees": ["Kinshuok", "Priya"], "title": "Sync", "when": "next Tuesday"},
    "jira_draft": {"project": "WEB", "issueType": "Bug", "summary": "Login fails", "priority": "High"},
}
ACTIONS = {spec.action_group: spec.action for spec in REGISTRY.values()}


def _handler(group: str) -> Any:
    return tool_handler(group)


def _qualified(group: str) -> str:
    return f"{group.replace('_', '-')}___{REGISTRY.by_group(group).name}"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("qualified", "tool"),
    [
        ("email-draft___create_email_draft", "create_email_draft"),
        ("my___target___create_email_draft", "create_email_draft"),  # a target name with the separator
        ("create_email_draft", "create_email_draft"),  # no target prefix
        ("email-draft___ create_email_draft ", "create_email_draft"),
    ],
)
def test_the_tool_name_is_parsed_defensively(qualified: str, tool: str) -> None:
    assert tool_name_of(qualified) == tool


@pytest.mark.parametrize("group", sorted(ARGUMENTS))
def test_every_tool_answers_its_gateway_call_with_its_payload(moto_tables: Tables, group: str) -> None:
    answer = invoke_target(_handler(group), ARGUMENTS[group], gateway_custom(_qualified(group)))
    assert answer["action"] == ACTIONS[group]
    spec = REGISTRY.by_group(group)
    assert spec is not None
    spec.payload_model.model_validate(answer)  # the same payload contract as the action group
    stored = moto_tables.drafts.get(answer["draftId"])
    assert stored is not None
    assert stored.owner == UNCLAIMED_OWNER
    assert stored.payload == answer


def test_the_same_handler_still_answers_bedrock_action_group_events(moto_tables: Tables) -> None:
    event = bedrock_action_event(
        "email_draft",
        "/email-drafts",
        "POST",
        ARGUMENTS["email_draft"],
        {"userId": "user-1", "timezone": "UTC"},
    )
    response = _handler("email_draft")(event, LambdaContextStub())
    assert_bedrock_response(response)
    assert response_body(response)["action"] == "show_new_email_draft"
    # A context with a client context but no Gateway keys is not a Gateway call either.
    plain = LambdaContext("f", client_context=ClientContext.from_invoke(encode_client_context({"app": "x"})))
    assert not is_gateway_call(plain)
    assert_bedrock_response(_handler("email_draft")(event, plain))


def test_an_unknown_tool_is_a_readable_error_naming_the_right_one(moto_tables: Tables) -> None:
    answer = invoke_target(
        _handler("email_draft"), ARGUMENTS["email_draft"], gateway_custom("email-draft___propose_meeting")
    )
    assert answer == {
        "error": {
            "code": "unknown_tool",
            "message": (
                "There is no tool 'email-draft___propose_meeting' on this target. Use: create_email_draft."
            ),
            "field": "name",
        }
    }


def test_a_gateway_context_without_the_tool_name_is_a_readable_error(moto_tables: Tables) -> None:
    custom = gateway_custom(_qualified("email_draft"))
    del custom[TOOL_NAME_KEY]
    answer = invoke_target(_handler("email_draft"), ARGUMENTS["email_draft"], custom)
    assert answer["error"]["code"] == "invalid_input"
    assert answer["error"]["field"] == TOOL_NAME_KEY
    assert moto_tables.client.scan(TableName=moto_tables.names["DRAFTS_TABLE_NAME"])["Count"] == 0


@pytest.mark.parametrize(
    ("group", "arguments", "field", "words"),
    [
        ("email_draft", {"to": [], "subject": "x", "body": "y"}, "to", "at least 1 item"),
        ("email_draft", {"to": ["Priya"], "subject": "x"}, "body", "missing"),
        (
            "meeting_scheduler",
            {"attendees": ["Priya"], "title": "Sync", "when": "the day after never"},
            "when",
            "",
        ),
        (
            "meeting_scheduler",
            {"attendees": ["Priya"], "title": "S", "when": "Friday", "durationMinutes": 9000},
            "durationMinutes",
            "480",
        ),
        ("jira_draft", {"project": "NOPE", "issueType": "Bug", "summary": "x"}, "project", "WEB"),
        (
            "jira_draft",
            {"project": "WEB", "issueType": "Bug", "summary": "x", "priority": "Urgent"},
            "priority",
            "",
        ),
    ],
)
def test_a_bad_argument_is_an_error_result_saying_what_to_change(
    moto_tables: Tables,
    group: str,
    arguments: dict[str, Any],
    field: str,
    words: str,
) -> None:
    answer = invoke_target(_handler(group), arguments, gateway_custom(_qualified(group)))
    error = answer["error"]
    assert error["field"] == field, error
    assert words in error["message"]
    assert "Traceback" not in error["message"]
    assert moto_tables.client.scan(TableName=moto_tables.names["DRAFTS_TABLE_NAME"])["Count"] == 0


@pytest.mark.parametrize("event", [["Kinshuok"], "Email Kinshuok", None, 42])
def test_arguments_that_are_not_an_object_are_an_error_result(moto_tables: Tables, event: Any) -> None:
    answer = _handler("email_draft")(event, gateway_context(gateway_custom(_qualified("email_draft"))))
    assert answer["error"]["code"] == "invalid_input"
    assert answer["error"]["field"] == "arguments"


def test_a_malformed_verified_caller_names_the_context_key(
    moto_tables: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    from multitool.tools.gateway_target import sign_caller
    from multitool.wiring.action_groups import aws_environment

    key = bytes(range(32))
    monkeypatch.setenv("CALLER_CONTEXT_KEY", key.hex())
    aws_environment.cache_clear()
    custom = sign_caller(
        gateway_custom(
            _qualified("email_draft"), multitoolCallerId="alex", multitoolCallerTimezone="Mars/Base"
        ),
        key,
    )
    answer = invoke_target(_handler("email_draft"), ARGUMENTS["email_draft"], custom)
    assert answer["error"]["code"] == "invalid_input"
    assert answer["error"]["field"] == "multitoolCallerTimezone"


def test_a_backend_failure_is_a_retryable_error_result(
    moto_tables: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    from multitool.wiring.action_groups import aws_environment

    monkeypatch.setenv("DRAFTS_TABLE_NAME", "no-such-table")
    aws_environment.cache_clear()
    answer = invoke_target(
        _handler("email_draft"), ARGUMENTS["email_draft"], gateway_custom(_qualified("email_draft"))
    )
    assert answer["error"]["code"] == "backend_unavailable"
