"""The run: the clock a run is pinned to, the embedded targets (one per model), every case on each."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from multitool.local.evaluation.cases import WEEKDAYS, Case
from multitool.local.evaluation.targets import CaseResult, InProcessTarget, MeteredClient, Target, run_case

PINNED_HOUR_UTC = 12


def run_clock(spec: str, today: datetime | None = None) -> datetime:
    """The instant a run is pinned to: an ISO 8601 time with its offset, or a weekday name (the latest
    such day up to today, at 12:00 UTC), so the days a dataset names are read the same every week.

    A weekday stays within the drafts' week of life: what the run makes can still be discarded.
    """
    text = spec.strip()
    if text.casefold() in WEEKDAYS:
        now = (today or datetime.now(UTC)).astimezone(UTC)
        back = (now.weekday() - WEEKDAYS.index(text.casefold())) % 7
        return (now - timedelta(days=back)).replace(hour=PINNED_HOUR_UTC, minute=0, second=0, microsecond=0)
    try:
        pinned = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"--now must be a weekday name or an ISO 8601 time, not {spec!r}") from None
    if pinned.tzinfo is None:
        raise ValueError(f"--now needs an offset or Z (2026-12-01T12:00:00Z), got {spec!r}")
    return pinned


ClientFactory = Callable[[str | None], Any]
"""A model id -> the model client to meter in place of the one the runtime made (tests: a Stubber's)."""


@contextmanager
def embedded_targets(
    runtime: str,
    model_ids: Sequence[str] = (),
    *,
    harness_arn: str | None = None,
    region: str | None = None,
    log_level: str = "WARNING",
    client_for: ClientFactory | None = None,
    now: datetime | None = None,
) -> Iterator[list[InProcessTarget]]:
    """One in-process target per model, all on one embedded AWS (``start_embedded``).

    Each service is the one the orchestrator builds (``multitool.wiring.orchestrator.aws_chat_service``)
    for that model's environment; its model client is wrapped in a :class:`MeteredClient`. The offline
    model answers for any id given.
    ``now`` pins the turns' clock (what "Thursday" and "tomorrow" mean to the model and the tools).
    """
    import os

    from multitool.local.sandbox.embedded import BackendChoice, start_embedded
    from multitool.wiring.orchestrator import aws_chat_service
    from multitool.wiring.review import aws_reviewer

    saved = dict(os.environ)  # start_embedded sets the handlers' environment here; put it back after
    labels: Sequence[str | None] = list(model_ids) or [None]
    first = BackendChoice.from_options(
        runtime=runtime,
        model_id=None if runtime == "offline" else labels[0],
        harness_arn=harness_arn,
    )
    from multitool.observability import logger

    running = start_embedded(first, region=region, log_level=log_level, today=now.date() if now else None)
    level = logger.log_level
    logger.setLevel(log_level)  # the handlers' records would drown the table (it was read at import)
    try:
        aws_reviewer.cache_clear()
        reviewer = aws_reviewer()
        targets: list[InProcessTarget] = []
        for model_id in labels:
            if model_id and first.runtime.value == "converse":
                os.environ["MODEL_ID"] = model_id
            aws_chat_service.cache_clear()
            service = aws_chat_service()
            # ConverseRuntime and AgentCoreRuntime (the offline runtimes too) call the model as .client.
            model_runtime: Any = service.runtime
            client = client_for(model_id) if client_for is not None else model_runtime.client
            harness_model = model_id if first.runtime.value == "agentcore" else None
            meter = MeteredClient(client, harness_model_id=harness_model)
            model_runtime.client = meter
            if now is not None:
                service.clock = lambda: now
            label = model_id or ("offline model" if not first.uses_aws else first.runtime.value)
            targets.append(InProcessTarget(label, service, reviewer, running.seed, meter))
        aws_chat_service.cache_clear()
        yield targets
    finally:
        aws_chat_service.cache_clear()
        aws_reviewer.cache_clear()
        running.close()
        logger.setLevel(level)
        os.environ.clear()
        os.environ.update(saved)


def run_all(
    targets: Sequence[Target],
    cases: Sequence[Case],
    *,
    clock: Callable[[], datetime] | None = None,
    progress: Callable[[CaseResult], None] | None = None,
) -> list[list[CaseResult]]:
    """Every case on every target (the targets one after another), in the dataset's order."""
    now = clock or (lambda: datetime.now().astimezone())
    run_id = f"{int(time.time()):x}"
    runs: list[list[CaseResult]] = []
    for number, target in enumerate(targets):
        results: list[CaseResult] = []
        for case in cases:
            result = run_case(target, case, run_id=f"{run_id}-{number}", clock=now)
            if progress is not None:
                progress(result)
            results.append(result)
        runs.append(results)
    return runs
