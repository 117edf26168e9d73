"""Lambda's SQS event source mapping, on the embedded queue: the undo window's due sends, locally.

Deployed, Lambda polls the undo queue and invokes the review function with a batch of records,
deleting the ones the function did not name in ``batchItemFailures`` (the mapping reports batch
item failures; https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html). Here
a thread does the same on the moto queue: it long-polls ``ReceiveMessage`` (moto keeps a message
with ``DelaySeconds`` invisible until its delay has passed, as SQS does: its ``Message.delayed``),
builds the event in Lambda's wire shape (:func:`sqs_event`, the fields of "Example Amazon SQS
message event (standard queue)", https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html), runs
the function's own handler through the API Gateway stand-in's execution environments
(:meth:`multitool.local.sandbox.api_gateway.LocalApi.invoke_direct`), and deletes what succeeded. A failed
message becomes visible again after the queue's visibility timeout, and is tried again.

moto's SQS is not among the services whose data a kept ``--data-dir`` restores (its objects hold
locks, which do not pickle), so a server stopped within a mail's undo window would lose the
message and leave the draft ``scheduled``: on a restored start, :func:`requeue_scheduled` hands
every scheduled draft to the queue again, due at once (a draft sent or undone meanwhile is left
alone by the review, as a second delivery is).
"""

from __future__ import annotations

import hashlib
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from multitool.drafts import DraftStatus
from multitool.local.standins.stand_in import Lifecycle
from multitool.ports.undo_queue import UndoQueue

Invoke = Callable[[str, dict[str, Any]], Any]
"""Runs function ``name`` on ``event`` and answers what its handler returned."""

BATCH_SIZE = 10  # the mapping's default for a standard queue, and ReceiveMessage's most
WAIT_SECONDS = 1  # short: the poller stops within a second of the server


def sqs_event(messages: Sequence[Mapping[str, Any]], queue_arn: str, region: str) -> dict[str, Any]:
    """The ``Records`` Lambda hands a function for ``ReceiveMessage``'s ``messages``."""
    return {
        "Records": [
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": dict(m.get("Attributes") or {}),
                "messageAttributes": dict(m.get("MessageAttributes") or {}),
                "md5OfBody": m.get("MD5OfBody") or hashlib.md5(m["Body"].encode()).hexdigest(),  # noqa: S324
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": region,
            }
            for m in messages
        ]
    }


def requeue_scheduled(dynamodb: Any, drafts_table: str, queue: UndoQueue) -> int:
    """Hand every ``scheduled`` draft of the local drafts table to the undo queue, due at once (a scan:
    the local table is small); the number handed."""
    pages = dynamodb.get_paginator("scan").paginate(
        TableName=drafts_table,
        FilterExpression="#status = :scheduled",
        ExpressionAttributeNames={"#status": "status"},
        ExpressionAttributeValues={":scheduled": {"S": DraftStatus.SCHEDULED.value}},
        ProjectionExpression="id",
    )
    handed = 0
    for page in pages:
        for item in page.get("Items", []):
            queue.schedule(item["id"]["S"], 0)
            handed += 1
    return handed


def failed_ids(answer: Any) -> set[str]:
    """The message ids a handler's partial batch response names as failed."""
    failures = answer.get("batchItemFailures") if isinstance(answer, Mapping) else None
    return {str(f.get("itemIdentifier")) for f in failures or () if isinstance(f, Mapping)}


class QueuePoller(Lifecycle):
    """One queue's event source mapping: :meth:`start` polls until :meth:`stop` (the lifecycle of
    :class:`multitool.local.standins.stand_in.Lifecycle`; :attr:`url` is the queue's)."""

    def __init__(self, client: Any, queue_url: str, *, function: str, invoke: Invoke, region: str) -> None:
        """``client``: boto3's SQS client on the embedded endpoint; ``function``: the function the
        mapping invokes (``review``)."""
        self._client = client
        self._url = queue_url
        self._function = function
        self._invoke = invoke
        self._region = region
        self._arn = str(
            client.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"][
                "QueueArn"
            ]
        )
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return self._url

    def _begin(self) -> None:
        self._thread = threading.Thread(target=self._run, name="undo-queue", daemon=True)
        self._thread.start()

    def _end(self, started: bool) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=WAIT_SECONDS + 5)

    def poll_once(self, wait_seconds: int = WAIT_SECONDS) -> int:
        """Receive one batch, run it, delete what succeeded; the number of messages received."""
        messages = self._client.receive_message(
            QueueUrl=self._url,
            MaxNumberOfMessages=BATCH_SIZE,
            WaitTimeSeconds=wait_seconds,
            MessageSystemAttributeNames=["All"],
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        if not messages:
            return 0
        try:
            answer = self._invoke(self._function, sqs_event(messages, self._arn, self._region))
        except Exception as error:  # the whole batch failed: every message comes back after its timeout
            sys.stderr.write(f"[{self._function}] undo queue batch failed: {type(error).__name__}\n")
            return len(messages)
        failed = failed_ids(answer)
        done = [m for m in messages if m["MessageId"] not in failed]
        if done:
            self._client.delete_message_batch(
                QueueUrl=self._url,
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)],
            )
        return len(messages)

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self.poll_once()
            except Exception as error:  # moto stopping with the server: the next poll tells
                if self._stopping.is_set():
                    return
                sys.stderr.write(f"[undo-queue] poll failed: {type(error).__name__}\n")
                self._stopping.wait(1.0)
