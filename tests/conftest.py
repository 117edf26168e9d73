"""Suite-wide setup: tests never need AWS credentials or a network."""

from __future__ import annotations

import os
from typing import Any

import pytest

from infra.paths import use_supported_node
from tests.support.synths import COUNT as SYNTHS

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
use_supported_node()


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: its count goes to the controller
        workeroutput["synths"] = (SYNTHS.synths, SYNTHS.seconds)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    synths, seconds = node.workeroutput.get("synths", (0, 0.0))
    SYNTHS.synths += synths
    SYNTHS.seconds += seconds


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How many stacks the run synthesized (all workers') and the seconds they took."""
    if SYNTHS.synths:
        terminalreporter.write_line(SYNTHS.summary())
