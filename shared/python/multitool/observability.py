"""The one place Powertools' logger, tracer and metrics are made.

Every module imports these three objects; handlers decorate with them. Service
name and namespace come from the standard Powertools environment variables
(``POWERTOOLS_SERVICE_NAME``, ``POWERTOOLS_METRICS_NAMESPACE``) set by the stack.
"""

from __future__ import annotations

import traceback
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter
from aws_lambda_powertools.metrics.functions import is_metrics_disabled
from aws_lambda_powertools.metrics.provider.cloudwatch_emf.cloudwatch import AmazonCloudWatchEMFProvider

SERVICE = "multitool"
NAMESPACE = "Multitool"


class EmfMetrics(AmazonCloudWatchEMFProvider):
    """Powertools' EMF provider, silent in every path when ``POWERTOOLS_METRICS_DISABLED`` is set.

    Powertools (3.x) honours the variable in ``flush_metrics`` only: the cold-start
    metric (``single_metric``) is printed anyway, a disabled flush keeps the metric
    set (so the 100th value is printed by ``add_metric``), and a flush with no
    application metrics warns. Disabled (``multitool serve``), none of that reaches
    the console; enabled (Lambda), behaviour is Powertools' own.
    """

    def add_cold_start_metric(self, context: Any) -> None:
        if not is_metrics_disabled():
            super().add_cold_start_metric(context)

    def flush_metrics(self, raise_on_empty_metrics: bool = False) -> None:
        if is_metrics_disabled() and not raise_on_empty_metrics:
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


logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
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
    "error_fields",
    "logger",
    "metrics",
    "tracer",
    "use_console_logs",
]
