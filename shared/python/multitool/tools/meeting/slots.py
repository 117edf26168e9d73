"""A meeting time: what the scheduler proposes, the card shows and the user confirms."""

from __future__ import annotations

from datetime import datetime

from multitool.wire import VALUE_CONFIG, WireValue
from pydantic.dataclasses import dataclass


@dataclass(frozen=True, slots=True, config=VALUE_CONFIG)
class Slot(WireValue):
    start: datetime
    end: datetime
