"""A meeting time: what the scheduler proposes, the card shows and the user confirms."""

from datetime import datetime

from pydantic.dataclasses import dataclass

from multitool.wire import VALUE_CONFIG, WireValue


@dataclass(frozen=True, slots=True, config=VALUE_CONFIG)
class Slot(WireValue):
    start: datetime
    end: datetime
