"""Turns past the request over HTTP, against ``multitool serve``: the real handler, embedded DynamoDB, and
Lambda's asynchronous Invoke served on loopback (the orchestrator invokes itself as it does deployed)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from multitool.api.openapi import DOCUMENT

from tests.support.local_server import local_server

COMBINED = "Email Kinshuok about the doc and schedule a sync with Priya on Thursday"
# What the model did not understand it says beside its calls (text streamed before the cards), and
# "Alex" names two people (neither of them the sender, Jordan), so the model is asked again after the
# cards: they show while it writes.
WITH_ASIDE = "Email Alex about the doc, schedule a sync with Priya on Thursday and water the plants"
SENDER = "jordan"
ASYNC = {"Prefer": "respond-async"}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with local_server(env={"OFFLINE_DELAY_SECONDS": "0.6"}) as served:
        yield served.rstrip("/")


def call(
    url: str, path: str, body: Any = None, *, user: str = "alex-muller", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], Any]:
    request = urllib.request.Request(
        url + path,
        method="POST" if body is not None else "GET",
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json", "X-Local-User": user, **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, json.load(error)


def follow(url: str, turn_id: str, user: str = "alex-muller") -> list[dict[str, Any]]:
    """Every answer of GET /turns/{id}, polled with the cursor until the turn ends."""
    answers: list[dict[str, Any]] = []
    after = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, headers, view = call(url, f"/turns/{turn_id}?after={after}", user=user)
        assert status == 200, view
        assert headers["cache-control"] == "no-store"
        answers.append(view)
        assert view["next"] == after + len(view["events"])
        after = view["next"]
        if view["status"] != "running":
            return answers
        time.sleep(0.2)
    raise AssertionError(f"turn {turn_id} still running after 60 s")


def schema_of(model: str) -> Draft202012Validator:
    """A validator for one component of the committed docs/openapi.json."""
    document = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    return Draft202012Validator(
        {"$ref": f"#/components/schemas/{model}", "components": document["components"]}
    )


def test_a_turn_starts_at_once_and_shows_each_card_before_its_reply(url: str) -> None:
    status, headers, started = call(url, "/chat", {"message": WITH_ASIDE}, user=SENDER, headers=ASYNC)
    assert status == 202, started
    assert set(started) == {"turnId", "sessionId", "status"}
    assert started["status"] == "running"
    assert headers["location"] == f"/turns/{started['turnId']}"
    assert headers["preference-applied"] == "respond-async"

    answers = follow(url, started["turnId"], user=SENDER)
    schema_of("TurnStarted").validate(started)  # the bodies are what the OpenAPI document says
    for view in answers:
        schema_of("TurnView").validate(view)
    events = [event for view in answers for event in view["events"]]
    kinds = [event["type"] for event in events]
    assert [kind for kind in kinds if kind != "text"] == ["card", "card", "done"]
    assert "text" in kinds  # the harness streams the model's text, and it came as it was streamed
    done = events[-1]["response"]
    assert done["sessionId"] == started["sessionId"]
    cards = [e for e in events if e["type"] == "card"]
    assert [e["card"] for e in cards] == done["clientActions"]
    assert [e["caption"] for e in cards] == done["clientActionMessages"]
    # the cards were readable while the turn still ran: the 202 did not wait for the model (no clock
    # is read for it, so a loaded machine cannot fail it)
    assert any(v["status"] == "running" and v["events"] for v in answers)
    for card in done["clientActions"]:  # the drafts exist once, and the caller owns them
        status, _, action = call(url, f"/actions/{card['id']}", user=SENDER)
        assert status == 200
        assert action["status"] == "proposed"
    # read again from the start, the turn is the same log
    status, _, whole = call(url, f"/turns/{started['turnId']}", user=SENDER)
    assert (status, whole["status"], whole["events"]) == (200, "done", events)
    status, _, none_after = call(url, f"/turns/{started['turnId']}?after={whole['next']}", user=SENDER)
    assert (none_after["events"], none_after["next"]) == ([], whole["next"])


def test_a_turn_is_its_owners_only(url: str) -> None:
    _, _, started = call(url, "/chat", {"message": "Email Priya about the launch"}, headers=ASYNC)
    status, _, refused = call(url, f"/turns/{started['turnId']}", user="priya")
    assert status == 404
    assert refused == {"error": {"code": "not_found", "message": "No such turn for this user."}}
    status, _, unknown = call(url, "/turns/t-AAAAAAAAAAAAAAAAAAAAAAAA")
    assert (status, unknown["error"]["code"]) == (404, "not_found")
    follow(url, started["turnId"])


def test_a_retry_with_its_idempotency_key_answers_the_same_turn(url: str) -> None:
    headers = {**ASYNC, "Idempotency-Key": "turn-retry-1"}
    body = {"message": "Email Kinshuok about the budget"}
    first = call(url, "/chat", body, headers=headers)
    again = call(url, "/chat", body, headers=headers)
    assert first[0] == again[0] == 202
    assert again[2] == first[2]
    status, _, reused = call(
        url, "/chat", {"message": "Email Kinshuok about something else"}, headers=headers
    )
    assert (status, reused["error"]["code"]) == (422, "idempotency_key_reused")
    events = [e for view in follow(url, first[2]["turnId"]) for e in view["events"]]
    assert [e["type"] for e in events if e["type"] != "text"] == ["card", "done"]


def test_requests_are_refused_before_a_turn_starts_as_they_are_without_prefer(url: str) -> None:
    for headers in (ASYNC, {}):
        status, _, empty = call(url, "/chat", {"message": "   "}, headers=headers)
        assert (status, empty["error"]["field"]) == (400, "message")
        status, _, bad_key = call(
            url, "/chat", {"message": "hi"}, headers={**headers, "Idempotency-Key": "a b"}
        )
        assert (status, bad_key["error"]["field"]) == (400, "Idempotency-Key")
    _, _, theirs = call(url, "/chat", {"message": "Email Jordan about lunch"}, user="priya")
    status, _, refused = call(
        url, "/chat", {"message": "Email Jordan", "sessionId": theirs["sessionId"]}, headers=ASYNC
    )
    assert (status, refused["error"]["code"]) == (403, "session_not_owned")


def test_without_prefer_the_reply_comes_in_the_response(url: str) -> None:
    status, headers, reply = call(url, "/chat", {"message": COMBINED})
    assert status == 200
    assert "preference-applied" not in headers
    assert len(reply["clientActions"]) == 2


def test_a_bad_cursor_is_a_400_naming_after(url: str) -> None:
    _, _, started = call(url, "/chat", {"message": "Email Priya about the launch"}, headers=ASYNC)
    for after in ("-1", "x", "1.5", "99999999"):
        status, _, body = call(url, f"/turns/{started['turnId']}?after={after}")
        assert (status, body["error"]["field"]) == (400, "after"), after
    follow(url, started["turnId"])
