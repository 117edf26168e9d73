"""Exactly once, against moto: N concurrent confirms of one draft send one SES message."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from moto.dynamodb.models import DynamoDBBackend
from multitool.drafts import DraftStatus
from multitool.ports.drafts import DynamoDraftStore
from multitool.wiring.review import aws_reviewer, review_function_app

from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.moto_tables import Tables
from tests.support.review_support import OWNER, SLOTS, email_draft, meeting_draft

CONFIRMS = 8
CONTEXT: Any = FakeLambdaContext()


@pytest.fixture
def aws(review_aws: Tables, monkeypatch: pytest.MonkeyPatch) -> DynamoDraftStore:
    # DynamoDB evaluates a condition and writes in one atomic step; moto does it in two
    # Python steps, so concurrent threads could interleave between them. Serialise moto's
    # put_item to give it DynamoDB's atomicity (the code under test is unchanged).
    lock = threading.Lock()
    original: Callable[..., Any] = DynamoDBBackend.put_item

    def atomic_put_item(self: DynamoDBBackend, *args: Any, **kwargs: Any) -> Any:
        with lock:
            return original(self, *args, **kwargs)

    monkeypatch.setattr(DynamoDBBackend, "put_item", atomic_put_item)
    aws_reviewer()  # one warm container's reviewer, shared by the concurrent requests
    return review_aws.drafts


def _confirm_concurrently(draft_id: str, body: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """CONFIRMS requests released together, each on its own app (one per Lambda instance)."""
    barrier = threading.Barrier(CONFIRMS)
    results: list[tuple[int, dict[str, Any]]] = []
    lock = threading.Lock()

    def confirm() -> None:
        app = review_function_app()
        event = http_api_event(
            "POST",
            f"/actions/{draft_id}/confirm",
            body,
            sub=OWNER,
            path_parameters={"id": draft_id},
            route_key="POST /actions/{id}/confirm",
        )
        barrier.wait()
        response = app.resolve(event, CONTEXT)
        with lock:
            results.append((response["statusCode"], json_body(response)))

    threads = [threading.Thread(target=confirm) for _ in range(CONFIRMS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_concurrent_confirms_of_one_email_send_exactly_one_message(aws: DynamoDraftStore) -> None:
    [draft] = aws.create_many([email_draft()])

    results = _confirm_concurrently(draft.id, {"subject": "Once"})

    assert len(results) == CONFIRMS
    [message] = Tables.sent()
    done = [body for status, body in results if status == 200]
    busy = [body for status, body in results if status == 409]
    assert len(done) + len(busy) == CONFIRMS
    assert done, "at least the winner answers 200"
    assert all(body["result"]["messageId"] == message.id for body in done)
    assert all(body["error"]["code"] == "in_progress" for body in busy)
    stored = aws.get(draft.id)
    assert stored is not None
    assert stored.status is DraftStatus.DONE
    assert stored.version == 2  # proposed -> executing -> done, nothing else


def test_concurrent_confirms_of_one_meeting_send_one_invitation(aws: DynamoDraftStore) -> None:
    [draft] = aws.create_many([meeting_draft()])
    slot = {"start": SLOTS[0][0].isoformat(), "end": SLOTS[0][1].isoformat()}

    results = _confirm_concurrently(draft.id, {"slot": slot})

    assert len(Tables.sent()) == 1
    assert {status for status, _ in results} <= {200, 409}


def test_after_the_race_a_repeat_returns_the_same_result_and_a_change_is_409(aws: DynamoDraftStore) -> None:
    [draft] = aws.create_many([email_draft()])
    _confirm_concurrently(draft.id, {})
    app = review_function_app()

    def confirm(body: dict[str, Any]) -> dict[str, Any]:
        event = http_api_event("POST", f"/actions/{draft.id}/confirm", body, sub=OWNER)
        response: dict[str, Any] = app.resolve(event, CONTEXT)
        return response

    repeat = confirm({})
    changed = confirm({"subject": "Different"})

    assert repeat["statusCode"] == 200
    assert changed["statusCode"] == 409
    assert json_body(changed)["error"]["code"] == "already_done"
    assert len(Tables.sent()) == 1
