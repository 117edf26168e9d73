"""A moment to undo, against moto: a confirmed mail waits in a delayed SQS message; Undo within the
window cancels it, the send at due time happens once however often the message arrives.

The review function's own handler (loaded by path, as Lambda and the local server load it) serves
the HTTP requests and the queue's batches; the batches come from moto's SQS through the local
server's event source mapping (:class:`multitool.local.sandbox.queue_poller.QueuePoller`), in Lambda's SQS
event shape. moto keeps a delayed message invisible for its DelaySeconds, in real time: the window
here is one second, and the reviewer's clock is moved past it when the test lets time pass.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import boto3
import pytest
from moto.dynamodb.models import DynamoDBBackend
from multitool.drafts import DraftStatus
from multitool.local.cli import main
from multitool.local.sandbox.lambdas import load_handler
from multitool.local.sandbox.queue_poller import QueuePoller, sqs_event
from multitool.local.sandbox.server import repo_root
from multitool.ports.quota import quota_key
from multitool.review.limits import quota_day
from multitool.review.reviewer import Reviewer
from multitool.wiring import review as review_wiring

from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.moto_tables import REGION, Tables
from tests.support.review_support import NOW, OWNER, SLOTS, email_draft, meeting_draft

WINDOW = 1


@dataclass
class Clock:
    now: datetime = NOW

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Review:
    """The review function with its undo queue: requests in, batches from the queue, SES out."""

    tables: Tables
    sqs: Any
    queue_url: str
    clock: Clock
    handler: Callable[[dict[str, Any], Any], Any]
    answers: list[Any] = field(default_factory=list)

    def request(self, verb: str, draft_id: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        tail = f"/{verb}" if verb != "get" else ""
        method = "GET" if verb == "get" else "POST"
        event = http_api_event(
            method,
            f"/actions/{draft_id}{tail}",
            body if verb == "confirm" else None,
            sub=OWNER,
            path_parameters={"id": draft_id},
            route_key=f"{method} /actions/{{id}}{tail}",
        )
        response = self.handler(event, FakeLambdaContext())
        return response["statusCode"], json_body(response)

    def invoke(self, name: str, event: dict[str, Any]) -> Any:
        assert name == "review"
        answer = self.handler(event, FakeLambdaContext())
        self.answers.append(answer)
        return answer

    def poller(self) -> QueuePoller:
        return QueuePoller(self.sqs, self.queue_url, function="review", invoke=self.invoke, region=REGION)

    def let_the_window_pass(self) -> None:
        time.sleep(WINDOW + 0.2)
        self.clock.now += timedelta(seconds=WINDOW + 1)

    def waiting(self) -> list[dict[str, Any]]:
        """The queue's due messages, received (and so hidden from the poller until their timeout)."""
        answer = self.sqs.receive_message(
            QueueUrl=self.queue_url, MaxNumberOfMessages=10, MessageSystemAttributeNames=["All"]
        )
        return list(answer.get("Messages", []))


def atomic_put_item(monkeypatch: pytest.MonkeyPatch) -> None:
    # DynamoDB evaluates a condition and writes in one atomic step; moto in two Python steps.
    lock = threading.Lock()
    original: Callable[..., Any] = DynamoDBBackend.put_item

    def put_item(self: DynamoDBBackend, *args: Any, **kwargs: Any) -> Any:
        with lock:
            return original(self, *args, **kwargs)

    monkeypatch.setattr(DynamoDBBackend, "put_item", put_item)


@pytest.fixture
def review(review_aws: Tables, monkeypatch: pytest.MonkeyPatch) -> Iterator[Review]:
    # Given the deployed review function's environment with its undo queue and a one-second window
    sqs = boto3.client("sqs", region_name=REGION)
    queue_url = sqs.create_queue(QueueName="undo")["QueueUrl"]
    monkeypatch.setenv("UNDO_QUEUE_URL", queue_url)
    monkeypatch.setenv("UNDO_SECONDS", str(WINDOW))
    clock = Clock()
    monkeypatch.setattr(review_wiring, "Reviewer", functools.partial(Reviewer, clock=clock))
    review_wiring.aws_reviewer.cache_clear()
    atomic_put_item(monkeypatch)
    yield Review(review_aws, sqs, queue_url, clock, load_handler(repo_root() / "functions", "review"))
    review_wiring.aws_reviewer.cache_clear()


def test_a_confirmed_mail_waits_and_undo_within_the_window_cancels_it(review: Review) -> None:
    draft = review.tables.add(email_draft())

    status, confirmed = review.request("confirm", draft.id, {"subject": "Maybe"})

    # Then nothing is sent yet: the card says scheduled, and until when it can be undone
    assert status == 200
    assert confirmed["status"] == "scheduled"
    due = datetime.fromisoformat(confirmed["dueAt"])
    assert due == NOW + timedelta(seconds=WINDOW)
    assert confirmed["undoUntil"] == confirmed["dueAt"]
    assert confirmed["retryable"] is False
    assert Tables.sent() == []

    # When the user undoes it within the window
    status, undone = review.request("undo", draft.id)

    # Then the card is an editable draft again, with the edits as confirmed, and nothing is ever sent
    assert status == 200
    assert undone["status"] == "proposed"
    assert undone["retryable"] is True
    assert undone["edits"]["subject"] == "Maybe"
    assert undone.get("dueAt") is None
    review.let_the_window_pass()
    assert review.poller().poll_once(wait_seconds=2) == 1
    assert review.answers == [{"batchItemFailures": []}]
    assert Tables.sent() == []
    assert review.tables.drafts.get(draft.id).status is DraftStatus.PROPOSED  # type: ignore[union-attr]

    # And it can be confirmed again, and waits again
    status, again = review.request("confirm", draft.id, {"subject": "Yes, send it"})
    assert (status, again["status"]) == (200, "scheduled")


def test_after_the_window_the_mail_is_sent_once_and_undo_answers_done(review: Review) -> None:
    draft = review.tables.add(email_draft())
    review.request("confirm", draft.id, {"subject": "Going out"})

    # When the window passes and the queue delivers the message to the review function
    assert review.poller().poll_once(wait_seconds=0) == 0  # still delayed: SQS keeps it invisible
    review.let_the_window_pass()
    assert review.poller().poll_once(wait_seconds=2) == 1

    # Then the mail is sent, the card is done, and the message is deleted
    [message] = Tables.sent()
    assert message.subject == "Going out"
    status, done = review.request("get", draft.id)
    assert (status, done["status"]) == (200, "done")
    assert done["result"]["messageId"] == message.id
    assert review.waiting() == []

    # And an undo now is too late, and says so with the card as it is
    status, late = review.request("undo", draft.id)
    assert status == 409
    assert late["error"]["code"] == "too_late_to_undo"
    assert late["action"]["status"] == "done"

    # And a confirm retried after the send answers the stored result without sending again
    status, retried = review.request("confirm", draft.id, {"subject": "Going out"})
    assert (status, retried["status"]) == (200, "done")
    assert len(Tables.sent()) == 1


def test_a_retried_confirm_within_the_window_answers_the_same_scheduled_outcome(review: Review) -> None:
    draft = review.tables.add(email_draft())

    first = review.request("confirm", draft.id, {"subject": "Once"})
    again = review.request("confirm", draft.id, {"subject": "Once"})
    other = review.request("confirm", draft.id, {"subject": "Something else"})

    assert first == again
    assert first[1]["status"] == "scheduled"
    assert other[0] == 409
    assert other[1]["error"]["code"] == "scheduled"
    # One message per scheduling: the retry scheduled nothing more
    review.let_the_window_pass()
    assert len(review.waiting()) == 1


def test_a_message_delivered_twice_sends_once(review: Review) -> None:
    draft = review.tables.add(email_draft())
    review.request("confirm", draft.id)
    review.let_the_window_pass()
    [message] = review.waiting()
    event = sqs_event([message], "arn:aws:sqs:us-east-1:123456789012:undo", REGION)

    # When SQS delivers the same message twice (at-least-once), even to two instances at once
    barrier = threading.Barrier(2)

    def deliver() -> None:
        barrier.wait()
        review.invoke("review", event)

    threads = [threading.Thread(target=deliver) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # Then one mail is sent, and both deliveries are done with (nothing returned to the queue)
    assert len(Tables.sent()) == 1
    assert review.answers == [{"batchItemFailures": []}] * 2
    assert review.tables.drafts.get(draft.id).status is DraftStatus.DONE  # type: ignore[union-attr]


@pytest.mark.parametrize("attempt", range(6))
def test_undo_racing_the_send_exactly_one_wins(review: Review, attempt: int) -> None:
    draft = review.tables.add(email_draft(session=f"race-{attempt}"))
    review.request("confirm", draft.id)
    review.let_the_window_pass()
    [message] = review.waiting()
    event = sqs_event([message], "arn:aws:sqs:us-east-1:123456789012:undo", REGION)
    barrier = threading.Barrier(2)
    undo: list[tuple[int, Any]] = []

    def send() -> None:
        barrier.wait()
        review.invoke("review", event)

    def cancel() -> None:
        barrier.wait()
        undo.append(review.request("undo", draft.id))

    threads = [threading.Thread(target=send), threading.Thread(target=cancel)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    [(status, answer)] = undo
    stored = review.tables.drafts.get(draft.id)
    assert stored is not None
    if status == 200:  # the undo won: nothing sent, an editable draft
        assert answer["status"] == "proposed"
        assert Tables.sent() == []
        assert stored.status is DraftStatus.PROPOSED
    else:  # the send won: sent once, and the undo was told it came too late
        assert (status, answer["error"]["code"]) == (409, "too_late_to_undo")
        assert len(Tables.sent()) == 1
        assert stored.status is DraftStatus.DONE


def test_zero_seconds_turns_the_window_off_and_sends_at_once(
    review: Review, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UNDO_SECONDS", "0")
    review_wiring.aws_reviewer.cache_clear()
    draft = review.tables.add(email_draft())

    status, done = review.request("confirm", draft.id)

    assert (status, done["status"]) == (200, "done")
    assert len(Tables.sent()) == 1
    assert review.waiting() == []


def test_a_meeting_is_booked_at_once_however_long_the_window(review: Review) -> None:
    # Its slot is checked and held by the confirm itself (multitool.tools.meeting.booking)
    draft = review.tables.add(meeting_draft())

    slot = {"start": SLOTS[0][0].isoformat(), "end": SLOTS[0][1].isoformat()}

    status, done = review.request("confirm", draft.id, {"slot": slot})

    assert (status, done["status"]) == (200, "done")
    assert review.waiting() == []


def test_a_scheduled_draft_cannot_be_discarded_until_undone(review: Review) -> None:
    draft = review.tables.add(email_draft())
    review.request("confirm", draft.id)

    status, refused = review.request("discard", draft.id)
    assert (status, refused["error"]["code"]) == (409, "scheduled")

    review.request("undo", draft.id)
    status, discarded = review.request("discard", draft.id)
    assert (status, discarded["status"]) == (200, "discarded")
    review.let_the_window_pass()
    review.poller().poll_once(wait_seconds=2)
    assert Tables.sent() == []


def test_erasing_the_user_within_the_window_sends_nothing(review: Review) -> None:
    # Given a confirmed mail waiting in its window
    draft = review.tables.add(email_draft())
    review.request("confirm", draft.id)

    # When the user is erased (multitool erase deletes their drafts by key)
    assert main(["erase", "--user", OWNER]) == 0

    # Then the due message finds no draft, sends nothing, and is done with
    review.let_the_window_pass()
    assert review.poller().poll_once(wait_seconds=2) == 1
    assert review.answers == [{"batchItemFailures": []}]
    assert Tables.sent() == []
    assert review.waiting() == []


def recipients_counted(review: Review) -> int:
    """Today's recipient count of the owner, as the limits table holds it (multitool.ports.quota)."""
    item = review.tables.client.get_item(
        TableName=review.tables.names["LIMITS_TABLE_NAME"],
        Key={"pk": {"S": quota_key(OWNER, quota_day(NOW))}},
        ConsistentRead=True,
    ).get("Item")
    return int(item["total"]["N"]) if item else 0


def test_the_confirm_counts_the_recipients_and_undo_gives_them_back(review: Review) -> None:
    draft = review.tables.add(email_draft())

    review.request("confirm", draft.id)
    assert recipients_counted(review) == 1  # counted by the confirm: the day's limit holds in the window

    review.request("undo", draft.id)
    assert recipients_counted(review) == 0

    review.request("confirm", draft.id)
    review.let_the_window_pass()
    review.poller().poll_once(wait_seconds=2)
    assert len(Tables.sent()) == 1
    assert recipients_counted(review) == 1  # the send counts nothing more


def test_a_queue_that_refuses_the_message_leaves_the_draft_as_it_was(
    review: Review, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an undo queue that is gone (deleted, or not reachable)
    review.sqs.delete_queue(QueueUrl=review.queue_url)
    draft = review.tables.add(email_draft())

    status, refused = review.request("confirm", draft.id, {"subject": "Not now"})

    # Then nothing is scheduled or sent, the draft is untouched and the recipients are given back
    assert status == 503
    assert refused["error"]["code"] == "schedule_unavailable"
    assert refused["error"]["retryable"] is True
    assert refused["action"]["status"] == "proposed"
    assert review.tables.drafts.get(draft.id).status is DraftStatus.PROPOSED  # type: ignore[union-attr]
    assert recipients_counted(review) == 0
    assert Tables.sent() == []


def test_a_message_delivered_before_its_time_is_put_back_for_the_rest_of_the_window(review: Review) -> None:
    draft = review.tables.add(email_draft())
    review.request("confirm", draft.id)
    # A message whose draft is not yet due (the reviewer's clock has not reached dueAt)
    time.sleep(WINDOW + 0.2)
    [message] = review.waiting()
    review.invoke("review", sqs_event([message], "arn:aws:sqs:us-east-1:123456789012:undo", REGION))

    # Then nothing is sent yet, the draft still waits, and one message waits again for the rest
    assert Tables.sent() == []
    assert review.tables.drafts.get(draft.id).status is DraftStatus.SCHEDULED  # type: ignore[union-attr]
    review.clock.now += timedelta(seconds=WINDOW + 1)
    time.sleep(WINDOW + 0.2)
    assert review.poller().poll_once(wait_seconds=2) == 1
    assert len(Tables.sent()) == 1
