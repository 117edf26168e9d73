"""A clock a test moves by hand, for the code that takes its time as a ``Callable[[], float]``."""

from __future__ import annotations


class Clock:
    """Seconds since the epoch, still until the test moves it (``clock.now += 301``)."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
