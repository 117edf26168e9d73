"""The undo window's queue: a confirmed side effect that waits is one delayed SQS message.

A confirm of an undoable action (:class:`multitool.toolkit.confirm.ActionReview`'s ``undoable``)
stores the draft ``scheduled`` and sends ``{"draftId": ...}`` with ``DelaySeconds`` set to the
window: SQS keeps the message invisible until then ("Valid values: 0 to 900. Maximum: 15
minutes. Messages with a positive DelaySeconds value become available for processing after the
delay period is finished", SendMessage's DelaySeconds,
https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html; a
FIFO queue takes no per-message delay, so the queue is a standard one). The review function
consumes it through a Lambda event source mapping (deployed) or the local server's poller
(:mod:`multitool.local.sandbox.queue_poller`), and sends what is still ``scheduled``.

A standard queue delivers at least once; the message carries nothing but the draft's id, and the
draft's own conditional write from ``scheduled`` makes the send happen once however often the
message arrives (:meth:`multitool.review.reviewer.Reviewer.send_due`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol

MAX_DELAY_SECONDS = 900
"""SQS's longest per-message delay (15 minutes): the longest undo window."""


class UndoQueue(Protocol):
    def schedule(self, draft_id: str, delay_seconds: int) -> None:
        """Have draft ``draft_id`` handed to :meth:`~multitool.review.reviewer.Reviewer.send_due`
        in ``delay_seconds`` (0 to :data:`MAX_DELAY_SECONDS`); raises if the queue refused it."""
        ...


def due_message(draft_id: str) -> str:
    """The message body: the draft's id and nothing of its content."""
    return json.dumps({"draftId": draft_id}, separators=(",", ":"))


def draft_id_of(body: str) -> str | None:
    """The draft id a message names, or None for a body this queue never sends."""
    try:
        parsed: Any = json.loads(body)
    except ValueError:
        return None
    found = parsed.get("draftId") if isinstance(parsed, Mapping) else None
    return found if isinstance(found, str) and found else None


class SqsUndoQueue:
    """The deployed queue (``UNDO_QUEUE_URL``), or the embedded one locally."""

    def __init__(self, queue_url: str, client: Callable[[], Any]) -> None:
        """``client``: makes boto3's SQS client (its stubs are not in the dev lock: typed loosely), on
        the first confirm that schedules: reading or discarding a card builds none."""
        self._url = queue_url
        self._client = functools.cache(client)

    def schedule(self, draft_id: str, delay_seconds: int) -> None:
        if not 0 <= delay_seconds <= MAX_DELAY_SECONDS:
            raise ValueError(f"An SQS delay is 0 to {MAX_DELAY_SECONDS} seconds, not {delay_seconds}")
        self._client().send_message(
            QueueUrl=self._url, MessageBody=due_message(draft_id), DelaySeconds=delay_seconds
        )
