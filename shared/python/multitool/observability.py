"""The one place Powertools' logger, tracer and metrics are made.

Every module imports these three objects; handlers decorate with them. Service
name and namespace come from the standard Powertools environment variables
(``POWERTOOLS_SERVICE_NAME``, ``POWERTOOLS_METRICS_NAMESPACE``) set by the stack.

Tracing: the X-Ray SDK is loaded only where the Tracer traces, that is inside
Lambda without ``POWERTOOLS_TRACE_DISABLED`` (Powertools' own rule). There it
patches only what the functions call: ``botocore`` (DynamoDB, Bedrock, SES) and
``httplib`` (the Jira adapter's urllib3), not every library ``patch_all`` finds.
Everywhere else (tests, ``multitool serve``, the CLI, a function deployed with
tracing off) the Tracer gets :class:`NoTracing`, so Powertools never builds the
X-Ray recorder, whose centralized sampler creates two botocore X-Ray clients
outside Lambda (about 0.35 s of import here).
"""

from __future__ import annotations

import os
import traceback
from collections.abc import AsyncGenerator, Generator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter
from aws_lambda_powertools.metrics.functions import is_metrics_disabled
from aws_lambda_powertools.metrics.provider.cloudwatch_emf.cloudwatch import AmazonCloudWatchEMFProvider
from aws_lambda_powertools.shared import constants
from aws_lambda_powertools.shared.functions import resolve_truthy_env_var_choice
from aws_lambda_powertools.tracing.base import BaseProvider, BaseSegment

# Powertools prefers an explicit argument to its environment variable, so the stack's values are read here.
SERVICE = os.environ.get(constants.SERVICE_NAME_ENV) or "multitool"
NAMESPACE = os.environ.get(constants.METRICS_NAMESPACE_ENV) or "Multitool"


class EmfMetrics(AmazonCloudWatchEMFProvider):
    """Powertools' EMF provider, silent in every path when ``POWERTOOLS_METRICS_DISABLED`` is set.

    Powertools (3.x) honours the variable in ``flush_metrics`` only: the cold-start
    metric (``single_metric``) is printed anyway, a disabled flush keeps the metric
    set (so the 100th value is printed by ``add_metric``), and a flush with no
    application metrics warns. Disabled (``multitool serve``), none of that reaches
    the console; enabled (Lambda), behaviour is Powertools' own except that a request
    that counted nothing (a GET of an action, a turn without cards) flushes silently
    instead of warning into the function's log on every such request.
    """

    def add_cold_start_metric(self, context: Any) -> None:
        if not is_metrics_disabled():
            super().add_cold_start_metric(context)

    def flush_metrics(self, raise_on_empty_metrics: bool = False) -> None:
        if (is_metrics_disabled() or not self.metric_set) and not raise_on_empty_metrics:
            self.clear_metrics()
            return
        super().flush_metrics(raise_on_empty_metrics=raise_on_empty_metrics)


class ConsoleFormatter(LambdaPowertoolsFormatter):
    """Log records as one readable line (``12:00:01 INFO  [orchestrator] Chat turn done cards=[...]``).

    For a terminal (``multitool serve``); Lambda keeps Powertools' JSON. The keys
    that repeat on every line of one function (ARN, memory, request id, cold start)
    are left out; the rest follow the message as ``key=value``.
    """

    _REPEATED = frozenset(
        {
            "level",
            "message",
            "timestamp",
            "service",
            "cold_start",
            "function_name",
            "function_arn",
            "function_memory_size",
            "function_request_id",
            "xray_trace_id",
            "sampling_rate",
        }
    )

    def serialize(self, log: dict[str, Any]) -> str:  # type: ignore[override]
        when = str(log.get("timestamp", ""))[11:19]
        where = f" [{log['function_name']}]" if log.get("function_name") else ""
        extras = " ".join(f"{key}={value}" for key, value in log.items() if key not in self._REPEATED)
        line = f"{when} {log.get('level', '')!s:<5}{where} {log.get('message', '')}"
        return f"{line} {extras}" if extras else line


# What the functions call that X-Ray can trace: the AWS SDK and http.client (urllib3, for Jira).
TRACED_MODULES = ("botocore", "httplib")


def tracing_enabled() -> bool:
    """Powertools' rule: traced in Lambda, unless ``POWERTOOLS_TRACE_DISABLED`` or a local emulator."""
    if resolve_truthy_env_var_choice(env=os.getenv(constants.TRACER_DISABLED_ENV, "false")):
        return False
    emulated = os.getenv(constants.SAM_LOCAL_ENV) or os.getenv(constants.CHALICE_LOCAL_ENV)
    return bool(os.getenv(constants.LAMBDA_TASK_ROOT_ENV)) and not emulated


class NoSegment(BaseSegment):
    """A (sub)segment that records nothing."""

    def close(self, end_time: int | None = None) -> None:
        return None

    def add_subsegment(self, subsegment: Any) -> None:
        return None

    def remove_subsegment(self, subsegment: Any) -> None:
        return None

    def put_annotation(self, key: str, value: Any) -> None:
        return None

    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None:
        return None

    def add_exception(self, exception: BaseException, stack: Any, remote: bool = False) -> None:
        return None


class NoTracing(BaseProvider):
    """The Tracer's provider where nothing is traced: the X-Ray SDK is never imported for it."""

    @contextmanager
    def in_subsegment(self, name: str | None = None, **kwargs: Any) -> Generator[BaseSegment, None, None]:
        yield NoSegment()

    @asynccontextmanager
    async def in_subsegment_async(
        self, name: str | None = None, **kwargs: Any
    ) -> AsyncGenerator[BaseSegment, None]:
        yield NoSegment()

    def put_annotation(self, key: str, value: Any) -> None:
        return None

    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None:
        return None

    def patch(self, modules: Sequence[str]) -> None:
        return None

    def patch_all(self) -> None:
        return None


logger = Logger(service=SERVICE)
tracer = Tracer(
    service=SERVICE,
    patch_modules=TRACED_MODULES,
    provider=None if tracing_enabled() else NoTracing(),  # None: Powertools' X-Ray recorder
)
metrics = Metrics(
    namespace=NAMESPACE, service=SERVICE, provider=EmfMetrics(namespace=NAMESPACE, service=SERVICE)
)


def use_console_logs() -> None:
    """Format this process's logs as :class:`ConsoleFormatter` lines (``multitool serve`` and ``chat``)."""
    logger.registered_handler.setFormatter(ConsoleFormatter(service=SERVICE))


def error_fields(error: BaseException) -> dict[str, str]:
    """Log fields naming an exception's type and where it was raised, never its message.

    An exception's text may quote personal content (a pydantic error quotes the
    input, an email body among it), so unexpected failures are logged with these
    fields instead of ``logger.exception``.
    """
    frames = traceback.extract_tb(error.__traceback__) if error.__traceback__ else []
    where = f"{frames[-1].filename}:{frames[-1].lineno} {frames[-1].name}" if frames else ""
    return {"error_type": type(error).__name__, "where": where}


__all__ = [
    "ConsoleFormatter",
    "EmfMetrics",
    "NoTracing",
    "error_fields",
    "logger",
    "metrics",
    "tracer",
    "tracing_enabled",
    "use_console_logs",
]
