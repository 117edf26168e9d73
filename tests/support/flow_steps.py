"""Steps and helpers the batch-dispatch tests share (tests/unit/runtimes/test_flow_*.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from multitool.runtimes.flow import Flow, Step, ToolCall, go, tool, tools

REQUIREMENT = (
    "It must return a routing result: a non-empty step name, a Step target, "
    "or an object with a non-empty string or Step target in its step property."
)


def calls_of(*names: str, args: Mapping[str, Any] | None = None) -> list[ToolCall]:
    return [ToolCall(f"call-{i}", name, dict(args or {"n": i})) for i, name in enumerate(names)]


class RecordingLogger:
    def __init__(self) -> None:
        self.records: list[tuple[str, str, dict[str, Any]]] = []

    def exception(self, message: str, *, extra: dict[str, Any]) -> None:
        self.records.append(("exception", message, extra))

    def warning(self, message: str, *, extra: dict[str, Any]) -> None:
        self.records.append(("warning", message, extra))

    def error(self, message: str, *, extra: dict[str, Any]) -> None:
        # Where the failure was raised varies with the code; the test checks it names a place.
        assert extra.pop("where")
        self.records.append(("error", message, extra))


class DoneStep(Step):
    id = "done"


class OtherStep(Step):
    id = "other"


class ForecastStep(Step):
    """weather / forecast / traffic, with a group for {weather, forecast}; records every invocation."""

    id = "forecast_step"

    def __init__(self) -> None:
        self.log: list[tuple[str, Any]] = []
        self.group_return: object = go(DoneStep)
        self.individual_return: object = None

    @tool
    def weather(self, args: Mapping[str, Any]) -> object:
        self.log.append(("weather", dict(args)))
        return self.individual_return

    @tool
    def forecast(self, args: Mapping[str, Any]) -> object:
        self.log.append(("forecast", dict(args)))
        return self.individual_return

    @tool
    def traffic(self, args: Mapping[str, Any]) -> object:
        self.log.append(("traffic", dict(args)))
        return None

    @tools(["weather", "forecast"])
    def weather_and_forecast(self, calls: Sequence[ToolCall]) -> object:
        self.log.append(("group", tuple(calls)))
        return self.group_return


def forecast_flow() -> tuple[Flow, ForecastStep]:
    step = ForecastStep()
    return Flow(steps=[step, DoneStep, OtherStep], start=ForecastStep), step


class Anonymous(Step):
    """A Step class without an id."""


class Unregistered(Step):
    id = "unregistered"
