"""The one place Powertools' logger, tracer and metrics are made.

Every module imports these three objects; handlers decorate with them. Service
name and namespace come from the standard Powertools environment variables
(``POWERTOOLS_SERVICE_NAME``, ``POWERTOOLS_METRICS_NAMESPACE``) set by the stack.
"""

from __future__ import annotations

import traceback

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "multitool"

logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace="Multitool", service=SERVICE)


def error_fields(error: BaseException) -> dict[str, str]:
    """Log fields naming an exception's type and where it was raised, never its message.

    An exception's text may quote personal content (a pydantic error quotes the
    input, an email body among it), so unexpected failures are logged with these
    fields instead of ``logger.exception``.
    """
    frames = traceback.extract_tb(error.__traceback__) if error.__traceback__ else []
    where = f"{frames[-1].filename}:{frames[-1].lineno} {frames[-1].name}" if frames else ""
    return {"error_type": type(error).__name__, "where": where}


__all__ = ["error_fields", "logger", "metrics", "tracer"]
