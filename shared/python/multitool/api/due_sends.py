"""The undo window's consumer: the review function's SQS event, each message one scheduled draft to send.

Deployed, a Lambda event source mapping polls the undo queue and invokes the review function with
a batch of records (``{"Records": [{"messageId", "receiptHandle", "body", "attributes",
"eventSource": "aws:sqs", ...}]}``); locally, :mod:`multitool.local.sandbox.queue_poller` reads the embedded
queue and invokes the same handler with the same shape. The mapping reports partial batch failures
(``FunctionResponseTypes: ReportBatchItemFailures``): the answer ``{"batchItemFailures":
[{"itemIdentifier": <messageId>}]}`` returns only those messages to the queue, the rest are deleted
("Implementing partial batch responses",
https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html). Powertools' batch
utility builds that answer (``process_partial_response``).

A message whose draft is sent, undone, failed or gone is done with: a side effect's failure is the
draft's (``failed``, with its reason, confirmable again) and the user sees it on the card, so it is
never retried blindly. Only an error before the draft was touched (DynamoDB unreachable) returns the
message; after the queue's receive count it lands in the dead-letter queue, whose alarm pages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from multitool.errors import ServiceError
from multitool.observability import logger
from multitool.ports.undo_queue import draft_id_of
from multitool.review.reviewer import Reviewer

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
    from aws_lambda_powertools.utilities.typing import LambdaContext

QueueHandler = Callable[[dict[str, Any], "LambdaContext"], dict[str, Any]]


def is_queue_event(event: Mapping[str, Any]) -> bool:
    """An event source mapping's SQS batch (every record's ``eventSource`` is ``aws:sqs``), not an
    HTTP API request."""
    records = event.get("Records")
    return (
        isinstance(records, list)
        and bool(records)
        and all(isinstance(r, Mapping) and r.get("eventSource") == "aws:sqs" for r in records)
    )


def due_sends(reviewer: Callable[[], Reviewer]) -> QueueHandler:
    """The handler of the undo queue's batches: each record's draft sent once, if still scheduled.

    Powertools' batch utility (about 80 ms of imports) loads with the first batch, never on the
    cold start of a request the user waits on."""

    def send(record: SQSRecord) -> None:
        draft_id = draft_id_of(record.body)
        if draft_id is None:  # nothing this queue sends: dropped rather than retried forever
            logger.warning("Undo queue message without a draft", extra={"message_id": record.message_id})
            return
        try:
            reviewer().send_due(draft_id)
        except ServiceError as refused:  # the draft says it (failed, or as it was): never resent blindly
            logger.info("Scheduled action not done", extra={"draft_id": draft_id, "code": refused.code})

    def handle(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response

        answer = process_partial_response(
            event=event, record_handler=send, processor=BatchProcessor(EventType.SQS), context=context
        )
        return dict(answer)  # {"batchItemFailures": [{"itemIdentifier": ...}]}

    return handle
