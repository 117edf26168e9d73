"""Review costs: what a confirm adds on top of its backends, and the exactly-once race.

Cases:

- ``domain confirm (memory)``: Reviewer.confirm of an email draft with in-memory
  ports and a recording mailer: validation, name settling, two conditional
  writes; the review's own overhead.
- ``invitation build``: the iCalendar REQUEST (with VTIMEZONE) for one meeting.
- ``handler confirm (moto)``: the review Lambda handler on an HTTP API v2 event
  against moto DynamoDB + SES v2, end to end (moto dominates; an upper bound).
- ``8 concurrent confirms (moto)``: wall time of the race until every request
  has answered, and how many SES messages were sent (must be 1).

Run with ``python -m benchmarks review`` or through ``make bench``.
"""

from __future__ import annotations

import contextlib
import io
import os
import statistics
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

TARGET_DOMAIN_MS = 2.0


def _timed(action: Callable[[], Any], repetitions: int) -> list[float]:
    timings = []
    for _ in range(repetitions):
        started = time.perf_counter()
        action()
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def _row(name: str, timings: list[float], note: str = "") -> dict[str, Any]:
    ordered = sorted(timings)
    return {
        "name": name,
        "n": len(timings),
        "p50_ms": statistics.median(ordered),
        "p95_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))],
        "note": note,
    }


def _email_draft(i: int, subject: str, body: str) -> Any:
    """A proposed email draft to Kinshuok (the i-th: ids differ by ``i``)."""
    from multitool.drafts import new_draft
    from multitool.people import NameResolution, Person, Resolution

    person = Person(id="p-1", display_name="Kinshuok Sen", email="kinshuok@example.com")
    to = [NameResolution(query="Kinshuok", status=Resolution.RESOLVED, person=person).to_wire()]
    payload = {"action": "show_new_email_draft", "to": to, "cc": [], "subject": subject, "body": body}
    return new_draft(owner="u", session_id="s", action="show_new_email_draft", arguments=i, payload=payload)


def _domain(repetitions: int) -> dict[str, Any]:
    from multitool.local.sandbox.memory import MemoryCalendar, MemoryDraftStore
    from multitool.ports.mail import Mail, SentMail
    from multitool.review import Caller, ReviewConfig
    from multitool.review.reviewer import Reviewer

    class Mailer:
        def send(self, mail: Mail) -> SentMail:
            return SentMail(message_id="m")

    store = MemoryDraftStore()
    reviewer = Reviewer(
        store,
        mailer=Mailer(),
        calendar=MemoryCalendar(),
        jira=None,
        config=ReviewConfig(sender_email="assistant@example.com"),
    )
    drafts = store.create_many([_email_draft(i, "Doc", "Hi") for i in range(repetitions + 50)])
    caller = Caller("u")
    for draft in drafts[:50]:  # warm up
        reviewer.confirm(caller, draft.id, {})
    pending = iter(drafts[50:])
    timings = _timed(lambda: reviewer.confirm(caller, next(pending).id, {"subject": "Edited"}), repetitions)
    return _row("domain confirm (memory)", timings, f"target <= {TARGET_DOMAIN_MS:g} ms")


def _invitation(repetitions: int) -> dict[str, Any]:
    from multitool.tools.meeting.invitations import Invitation, Participant, build_invitation

    zone = ZoneInfo("Europe/Berlin")
    start = datetime(2026, 12, 3, 9, 0, tzinfo=zone)
    invitation = Invitation(
        uid="d_1",
        title="Sync",
        organizer=Participant("owner@example.com"),
        attendees=[Participant(f"p{i}@example.com") for i in range(5)],
        start=start,
        end=start + timedelta(minutes=30),
        timezone="Europe/Berlin",
    )
    build_invitation(invitation)
    return _row("invitation build", _timed(lambda: build_invitation(invitation), repetitions))


def _moto(repetitions: int) -> list[dict[str, Any]]:
    import boto3
    from moto import mock_aws
    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import DynamoDBBackend
    from moto.ses.models import ses_backends
    from multitool.ports.drafts import DynamoDraftStore
    from multitool.ports.tables import create_all
    from multitool.wiring.review import aws_reviewer, review_function_app

    os.environ.update(
        {
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "SENDER_EMAIL": "assistant@example.com",
        }
    )
    # moto checks a condition and writes in two steps; DynamoDB does it atomically.
    original = DynamoDBBackend.put_item
    lock = threading.Lock()

    def atomic(self: Any, *args: Any, **kwargs: Any) -> Any:
        with lock:
            return original(self, *args, **kwargs)

    DynamoDBBackend.put_item = atomic  # type: ignore[method-assign]
    context: Any = type("Context", (), {"aws_request_id": "bench", "function_name": "review"})()
    rows = []
    try:
        with mock_aws():
            dynamodb = boto3.client("dynamodb", region_name="us-east-1")
            boto3.client("sesv2", region_name="us-east-1").create_email_identity(
                EmailIdentity="assistant@example.com"
            )
            os.environ.update(create_all(dynamodb))
            aws_reviewer.cache_clear()
            store = DynamoDraftStore(os.environ["DRAFTS_TABLE_NAME"], dynamodb)

            def draft(i: int) -> str:
                [stored] = store.create_many([_email_draft(i, "D", "B")])
                return stored.id

            def event(draft_id: str) -> dict[str, Any]:
                return {
                    "version": "2.0",
                    "routeKey": "POST /actions/{id}/confirm",
                    "rawPath": f"/actions/{draft_id}/confirm",
                    "rawQueryString": "",
                    "headers": {"content-type": "application/json"},
                    "requestContext": {
                        "http": {"method": "POST", "path": f"/actions/{draft_id}/confirm"},
                        "authorizer": {"jwt": {"claims": {"sub": "u"}, "scopes": None}},
                        "stage": "$default",
                    },
                    "pathParameters": {"id": draft_id},
                    "body": "{}",
                    "isBase64Encoded": False,
                }

            app = review_function_app()
            ids = [draft(i) for i in range(repetitions + 5)]
            for draft_id in ids[:5]:
                app.resolve(event(draft_id), context)
            pending = iter(ids[5:])
            timings = _timed(lambda: app.resolve(event(next(pending)), context), repetitions)
            rows.append(_row("handler confirm (moto)", timings))

            race_timings = []
            messages_per_race = []
            backend = ses_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
            for i in range(10):
                draft_id = draft(10_000 + i)
                before = len(backend.sent_messages)
                barrier = threading.Barrier(8)

                def confirm(draft_id: str = draft_id, barrier: threading.Barrier = barrier) -> None:
                    own = review_function_app()
                    request = event(draft_id)
                    barrier.wait()
                    own.resolve(request, context)

                threads = [threading.Thread(target=confirm) for _ in range(8)]
                started = time.perf_counter()
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
                race_timings.append((time.perf_counter() - started) * 1000)
                messages_per_race.append(len(backend.sent_messages) - before)
            rows.append(
                _row(
                    "8 concurrent confirms (moto)",
                    race_timings,
                    f"SES messages per race: {sorted(set(messages_per_race))}",
                )
            )
    finally:
        DynamoDBBackend.put_item = original  # type: ignore[method-assign]
        aws_reviewer.cache_clear()
    return rows


def run(*, repetitions: int = 200, quiet: bool = False) -> list[dict[str, Any]]:
    from multitool.observability import logger

    level = logger.log_level
    logger.setLevel("ERROR")  # per-request INFO lines would be measured too
    try:
        # Powertools prints metrics (EMF) to stdout every 100 data points: keep them out of the table.
        with contextlib.redirect_stdout(io.StringIO()):
            rows = [_domain(repetitions), _invitation(repetitions), *_moto(max(20, repetitions // 4))]
    finally:
        logger.setLevel(level)
    if not quiet:
        print(f"{'case':<30} {'n':>5} {'p50 ms':>9} {'p95 ms':>9}  note")
        for row in rows:
            print(
                f"{row['name']:<30} {row['n']:>5} {row['p50_ms']:>9.2f} {row['p95_ms']:>9.2f}  {row['note']}"
            )
        print(f"(measured {datetime.now(UTC):%Y-%m-%d}, {os.cpu_count()} cores)")
    return rows


if __name__ == "__main__":
    run()
