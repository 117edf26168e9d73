"""Fixtures the review's functional tests share."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
from multitool.observability import logger


@pytest.fixture
def logs() -> Iterator[io.StringIO]:
    """Everything the service logs during a test, formatted as in Lambda (JSON with extra keys)."""
    stream = io.StringIO()
    capture = logging.StreamHandler(stream)
    capture.setFormatter(logger.registered_formatter)
    target = logging.getLogger(logger.name)
    target.addHandler(capture)
    yield stream
    target.removeHandler(capture)
