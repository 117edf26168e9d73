"""Suite-wide setup: tests never need AWS credentials or a network."""

from __future__ import annotations

import os

# Fake credentials and a region before anything imports boto3 clients.
os.environ.update(
    {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SECURITY_TOKEN": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_NAMESPACE": "MultitoolTests",
        "POWERTOOLS_SERVICE_NAME": "multitool",
        "POWERTOOLS_DEV": "false",
    }
)
os.environ.pop("AWS_PROFILE", None)
os.environ.pop("AWS_ENDPOINT_URL", None)
