"""The one place Powertools' logger, tracer and metrics are made.

Every module imports these three objects; handlers decorate with them. Service
name and namespace come from the standard Powertools environment variables
(``POWERTOOLS_SERVICE_NAME``, ``POWERTOOLS_METRICS_NAMESPACE``) set by the stack.
"""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "multitool"

logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace="Multitool", service=SERVICE)

__all__ = ["logger", "metrics", "tracer"]
