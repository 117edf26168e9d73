"""The ``log`` fixture: what the dispatcher logs, recorded instead of emitted."""

from __future__ import annotations

import multitool.runtimes.flow.dispatch as dispatch_module
import pytest

from tests.support.flow_steps import RecordingLogger


@pytest.fixture
def log(monkeypatch: pytest.MonkeyPatch) -> RecordingLogger:
    recorder = RecordingLogger()
    monkeypatch.setattr(dispatch_module, "logger", recorder)
    return recorder
