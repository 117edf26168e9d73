"""Every malformed event gets a valid Bedrock action-group response with words the model can act on."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.functional.action_groups.test_action_groups import (
    SESSION,
    Backend,
    backend,
    email_event,
    invoke,
    jira_event,
    meeting_event,
)
from tests.support.bedrock_events import bedrock_action_event, response_body

__all__ = ["backend"]  # the moto fixture, shared with the happy-path suite

GROUPS = {
    "email_draft": email_event,
    "meeting_scheduler": meeting_event,
    "jira_draft": jira_event,
}


def error_of(response: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    body = response_body(response)
    assert set(body) == {"error"}, body
    assert body["error"]["message"].strip()
    return response["response"]["httpStatusCode"], body["error"]


def set_property(event: dict[str, Any], name: str, value: str, kind: str = "string") -> dict[str, Any]:
    properties = event["requestBody"]["content"]["application/json"]["properties"]
    event["requestBody"]["content"]["application/json"]["properties"] = [
        p for p in properties if p["name"] != name
    ] + [{"name": name, "type": kind, "value": value}]
    return event


def drop_property(event: dict[str, Any], name: str) -> dict[str, Any]:
    properties = event["requestBody"]["content"]["application/json"]["properties"]
    event["requestBody"]["content"]["application/json"]["properties"] = [
        p for p in properties if p["name"] != name
    ]
    return event


# --- one test per case -------------------------------------------------------------------------


def test_missing_field(backend: Backend) -> None:
    status, error = error_of(invoke("email_draft", drop_property(email_event(), "subject")))
    assert (status, error["code"], error["field"]) == (400, "invalid_input", "subject")
    assert error["message"] == "subject: is missing"


def test_mistyped_field(backend: Backend) -> None:
    event = set_property(meeting_event(), "durationMinutes", "half an hour", "integer")
    status, error = error_of(invoke("meeting_scheduler", event))
    assert (status, error["field"]) == (400, "durationMinutes")
    assert "whole number" in error["message"]


def test_mistyped_field_declared_as_string(backend: Backend) -> None:
    event = set_property(meeting_event(), "durationMinutes", "soon")
    status, error = error_of(invoke("meeting_scheduler", event))
    assert (status, error["field"]) == (400, "durationMinutes")


def test_out_of_range_number(backend: Backend) -> None:
    event = set_property(meeting_event(), "durationMinutes", "1000", "integer")
    status, error = error_of(invoke("meeting_scheduler", event))
    assert (status, error["field"]) == (400, "durationMinutes")
    assert "480" in error["message"]


def test_unknown_api_path(backend: Backend) -> None:
    event = email_event()
    event["apiPath"] = "/emails/send"
    status, error = error_of(invoke("email_draft", event))
    assert (status, error["code"]) == (404, "unknown_tool")
    assert "POST /email-drafts" in error["message"]
    assert backend.draft_count() == 0


def test_unknown_method(backend: Backend) -> None:
    event = jira_event()
    event["httpMethod"] = "DELETE"
    status, error = error_of(invoke("jira_draft", event))
    assert (status, error["code"]) == (404, "unknown_tool")
    assert "DELETE /jira-ticket-drafts" in error["message"]


def test_empty_string(backend: Backend) -> None:
    status, error = error_of(invoke("email_draft", email_event(subject="   ")))
    assert (status, error["field"]) == (400, "subject")
    assert "at least 1 character" in error["message"]


def test_oversized_string(backend: Backend) -> None:
    status, error = error_of(invoke("email_draft", email_event(body="x" * 10_001)))
    assert (status, error["field"]) == (400, "body")
    assert "10000" in error["message"]
    assert "xxxx" not in error["message"]  # content is never echoed


def test_too_many_recipients(backend: Backend) -> None:
    status, error = error_of(invoke("email_draft", email_event(to=[f"p{i}" for i in range(21)])))
    assert (status, error["field"]) == (400, "to")


def test_invalid_json_in_a_property(backend: Backend) -> None:
    event = set_property(email_event(), "to", '["Kinshuok", ', "array")
    status, error = error_of(invoke("email_draft", event))
    assert (status, error["field"]) == (400, "to")
    assert "JSON array" in error["message"]


def test_json_of_the_wrong_kind_in_a_property(backend: Backend) -> None:
    event = set_property(email_event(), "to", '{"name": "Kinshuok"}', "array")
    status, error = error_of(invoke("email_draft", event))
    assert (status, error["field"]) == (400, "to")


def test_unknown_property(backend: Backend) -> None:
    event = set_property(email_event(), "bcc", '["Kinshuok"]', "array")
    status, error = error_of(invoke("email_draft", event))
    assert (status, error["field"]) == (400, "bcc")
    assert "Extra inputs are not permitted" in error["message"]


def test_name_that_resolves_to_nobody(backend: Backend) -> None:
    response = invoke("meeting_scheduler", meeting_event(attendees=["Voldemort"]))
    assert response["response"]["httpStatusCode"] == 200
    payload = response_body(response)
    assert payload["attendees"] == [
        {"query": "Voldemort", "status": "unknown", "person": None, "candidates": []}
    ]
    assert payload["notes"][0] == (
        "No one named 'Voldemort' is in the directory; the user picks the attendee on the card."
    )


def test_unknown_jira_project(backend: Backend) -> None:
    status, error = error_of(invoke("jira_draft", jira_event(project="MOON")))
    assert (status, error["code"], error["field"]) == (404, "unknown_project", "project")
    assert error["message"] == "There is no Jira project 'MOON'. Use one of: OPS (Operations), WEB (Website)."


def test_unknown_issue_type(backend: Backend) -> None:
    status, error = error_of(invoke("jira_draft", jira_event(issueType="Saga")))
    assert (status, error["code"], error["field"]) == (422, "unknown_issue_type", "issueType")


def test_date_in_the_past(backend: Backend) -> None:
    status, error = error_of(invoke("meeting_scheduler", meeting_event(when="2026-11-20")))
    assert (status, error["code"], error["field"]) == (422, "date_in_past", "when")
    assert "2026-11-20" in error["message"]


def test_unparseable_date(backend: Backend) -> None:
    status, error = error_of(invoke("meeting_scheduler", meeting_event(when="when pigs fly")))
    assert (status, error["code"], error["field"]) == (422, "unparseable_date", "when")


def test_missing_user_id(backend: Backend) -> None:
    event = email_event()
    event["sessionAttributes"] = {"timezone": "Europe/Berlin"}
    status, error = error_of(invoke("email_draft", event))
    assert (status, error["field"]) == (400, "sessionAttributes.userId")


@pytest.mark.parametrize("email", ["me", "me@", "two@example.com, three@example.com", "a@b.c" + "d" * 320])
def test_invalid_user_email(backend: Backend, email: str) -> None:
    event = meeting_event()
    event["sessionAttributes"] = {**SESSION, "userEmail": email}
    status, error = error_of(invoke("meeting_scheduler", event))
    assert (status, error["field"]) == (400, "sessionAttributes.userEmail")


@pytest.mark.parametrize("zone", ["Mars/Olympus", "Europe", "A" * 300])
def test_invalid_time_zone(backend: Backend, zone: str) -> None:
    # "Europe" names a folder of the zone database and 300 letters no file: neither is a 500
    event = email_event()
    event["sessionAttributes"] = {**SESSION, "timezone": zone}
    status, error = error_of(invoke("email_draft", event))
    assert (status, error["field"]) == (400, "sessionAttributes.timezone")


def test_missing_request_body(backend: Backend) -> None:
    event = bedrock_action_event("email_draft", "/email-drafts", "POST", None, SESSION)
    status, error = error_of(invoke("email_draft", event))
    assert status == 400
    assert "body" in error["message"]


@pytest.mark.parametrize("event", [None, "hello", 42, [], {}, {"apiPath": "/email-drafts"}])
def test_not_even_a_bedrock_event(backend: Backend, event: Any) -> None:
    status, error = error_of(invoke("email_draft", event))
    assert (status, error["code"]) == (400, "invalid_input")


# --- generated malformed events ----------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=8,
)
property_types = st.sampled_from(["string", "integer", "number", "boolean", "array", "object", "weird"])
property_names = st.sampled_from(
    ["to", "cc", "subject", "body", "attendees", "title", "when", "durationMinutes", "project", "issueType",
     "summary", "description", "priority", "assignee", "bogus"]
)  # fmt: skip
property_values = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        ["[]", "[Kinshuok, Zoe]", '["Priya"]', "[", "{}", "null", "30", "-1", "Thursday", "yesterday"]
    ),
    st.integers(10_001, 10_050).map(lambda n: "ab" * n),
    json_values.map(json.dumps),
)


@st.composite
def malformed_events(draw: st.DrawFn, group: str) -> Any:
    """A valid event of ``group`` with a few things broken, or something that is no event at all."""
    if draw(st.integers(0, 19)) == 0:
        return draw(json_values)
    event = copy.deepcopy(GROUPS[group]())
    for _ in range(draw(st.integers(1, 4))):
        mutation = draw(st.integers(0, 6))
        if mutation == 0:
            event.pop(draw(st.sampled_from(sorted(event))), None)
        elif mutation == 1:
            event[draw(st.sampled_from(sorted(event)))] = draw(json_values)
        elif mutation == 2:
            event["apiPath"] = draw(st.sampled_from(["/email-drafts", "/meeting-proposals", "/x", ""]))
            event["httpMethod"] = draw(st.sampled_from(["POST", "GET", "post", "PATCH", ""]))
        elif mutation == 3 and isinstance(event.get("requestBody"), dict):
            name = draw(property_names)
            set_property_safely(event, name, draw(property_values), draw(property_types))
        elif mutation == 4 and isinstance(event.get("requestBody"), dict):
            name = draw(property_names)
            with_body = event["requestBody"].get("content", {}).get("application/json", {})
            if isinstance(with_body, dict) and isinstance(with_body.get("properties"), list):
                with_body["properties"] = [p for p in with_body["properties"] if p.get("name") != name]
        elif mutation == 5:
            event["requestBody"] = draw(
                st.one_of(json_values, st.just({"content": {"text/plain": {"body": "hi"}}}))
            )
        else:
            event["sessionAttributes"] = draw(
                st.one_of(
                    json_values,
                    st.fixed_dictionaries(
                        {"userId": st.text(max_size=5)},
                        optional={
                            "timezone": st.text(max_size=12),
                            "now": st.text(max_size=30),
                            "userEmail": st.text(max_size=30),
                        },
                    ),
                )
            )
    return event


def set_property_safely(event: dict[str, Any], name: str, value: str, kind: str) -> None:
    media = event["requestBody"].get("content", {}).get("application/json", {})
    if isinstance(media, dict) and isinstance(media.get("properties"), list):
        media["properties"] = [p for p in media["properties"] if p.get("name") != name]
        media["properties"].append({"name": name, "type": kind, "value": value})


def assert_handled(response: dict[str, Any]) -> None:
    status = response["response"]["httpStatusCode"]
    body = response_body(response)
    assert status != 500, body  # nothing malformed may reach the last line of defence
    if status == 200:
        assert body["action"].startswith("show_")
        assert body["draftId"].startswith("d_")
    else:
        assert body["error"]["message"].strip()
        assert body["error"]["code"]


SETTINGS = settings(
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@SETTINGS
@given(event=malformed_events("email_draft"))
def test_email_draft_answers_every_event(backend: Backend, event: Any) -> None:
    assert_handled(invoke("email_draft", event))


@SETTINGS
@given(event=malformed_events("meeting_scheduler"))
def test_meeting_scheduler_answers_every_event(backend: Backend, event: Any) -> None:
    assert_handled(invoke("meeting_scheduler", event))


@SETTINGS
@given(event=malformed_events("jira_draft"))
def test_jira_draft_answers_every_event(backend: Backend, event: Any) -> None:
    assert_handled(invoke("jira_draft", event))
