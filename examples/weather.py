"""WeatherStep: several ``get_weather`` calls in one model response, one backend request.

Run it with ``python -m examples.weather``.

The step keeps its ``@tool get_weather`` handler because that is what offers the
tool to the model (``@tools`` exposes nothing), and adds a ``@tools(["get_weather"])``
group handler that takes every response made only of ``get_weather`` calls, one
call or ten. A group handler has five parts:

1. normalise and validate every call's arguments up front;
2. reject the whole batch with ``stay(...)`` if any of it is unusable;
3. perform one backend operation for all of it;
4. save each result (``save_state``);
5. return exactly one route, which the flow applies once for the group.

Accepting part of a batch is possible but is the handler's own business: the
flow applies one outcome to the whole set.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from multitool.runtimes.flow import Flow, Route, Step, ToolCall, direct, go, stay, tool, tools

SUPPORTED_CITIES = ("LA", "NYC")
_ALIASES = {
    "la": "LA",
    "los angeles": "LA",
    "nyc": "NYC",
    "ny": "NYC",
    "new york": "NYC",
    "new york city": "NYC",
}


def normalise_city(raw: object) -> str | None:
    """``"Los Angeles"``, ``"la"``, ``"L.A."`` -> ``"LA"``; ``"New York"``, ``"nyc"`` -> ``"NYC"``.

    Anything else (another city, a non-string, nothing) is None.
    """
    if not isinstance(raw, str):
        return None
    key = re.sub(r"\s+", " ", raw.replace(".", "")).strip().casefold()
    return _ALIASES.get(key)


class WeatherBackend(Protocol):
    """The weather service: one request answers for several cities."""

    def temperatures(self, cities: Sequence[str]) -> Mapping[str, float | None]: ...


class StaticWeatherBackend:
    """A stand-in backend with fixed temperatures that records each request."""

    def __init__(self, temperatures: Mapping[str, float] | None = None) -> None:
        self._temperatures = dict(temperatures or {"LA": 24.0, "NYC": 11.0})
        self.requests: list[tuple[str, ...]] = []

    def temperatures(self, cities: Sequence[str]) -> Mapping[str, float | None]:
        self.requests.append(tuple(cities))
        return {city: self._temperatures.get(city) for city in cities}


class FooLogicStep(Step):
    """Where the conversation goes once the temperatures are known."""

    id = "foo_logic"

    @tool
    def compare_weather(self, args: Mapping[str, Any]) -> Route:
        la, nyc = (self.state.get(f"city_{city}") for city in SUPPORTED_CITIES)
        if not isinstance(la, int | float) or not isinstance(nyc, int | float):
            return go(WeatherStep, feedback="Look up the weather for LA and NYC first.")
        warmer = "LA" if la >= nyc else "NYC"
        return direct(f"{warmer} is {abs(la - nyc):g} °C warmer (LA {la:g} °C, NYC {nyc:g} °C).")


class WeatherStep(Step):
    """Looks up LA and NYC temperatures; all calls of a turn share one backend request."""

    id = "weather"

    def __init__(self, backend: WeatherBackend) -> None:
        self._backend = backend

    @tool
    def get_weather(self, args: Mapping[str, Any]) -> Route:
        """One call, when ``get_weather`` comes alongside other tools in a response."""
        city = normalise_city(args.get("city"))
        if city is None:
            return stay(_unusable_city(args.get("city")))
        temperature = self._backend.temperatures([city]).get(city)
        if temperature is None:
            return stay(f"No temperature is available for {city} right now.")
        self.save_state({f"city_{city}": temperature})
        call = self.current_call
        assert call is not None  # always set while an individual handler runs
        return stay().with_results({call.id: {"city": city, "temperature_c": temperature}})

    @tools(["get_weather"])
    def get_weather_batch(self, calls: Sequence[ToolCall]) -> Route:
        """Every ``get_weather`` call of a response: one request, one route."""
        # 1. Normalise and validate every call up front.
        cities = [normalise_city(call.args.get("city")) for call in calls]
        for call, city in zip(calls, cities, strict=True):
            if city is None:
                # 2. Reject the whole batch; nothing has been done yet.
                return stay(_unusable_city(call.args.get("city")))
        known = [city for city in cities if city is not None]
        repeated = sorted({city for city in known if known.count(city) > 1})
        if repeated:
            return stay(f"Ask for each city once; {', '.join(repeated)} was requested more than once.")
        # 3. One backend operation for the whole batch.
        temperatures = self._backend.temperatures(known)
        if any(temperatures.get(city) is None for city in known):
            return stay(f"Only {' and '.join(SUPPORTED_CITIES)} temperatures are available.")
        # 4. Save each result.
        for city in known:
            self.save_state({f"city_{city}": temperatures[city]})
        # 5. Exactly one route; each call still gets its own result.
        return go(FooLogicStep).with_results(
            {
                call.id: {"city": city, "temperature_c": temperatures[city]}
                for call, city in zip(calls, known, strict=True)
            }
        )


def _unusable_city(raw: object) -> str:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return "Every get_weather call needs a city: LA or NYC."
    return f"Weather is only available for LA and NYC, not {raw!r}."


def build_flow(backend: WeatherBackend) -> Flow:
    """A two-step flow starting on WeatherStep."""
    return Flow(steps=[WeatherStep(backend), FooLogicStep], start=WeatherStep)


def main() -> None:
    """Print a demonstration: a rejected batch, an accepted one, then the next step."""
    backend = StaticWeatherBackend()
    flow = build_flow(backend)
    turns = [
        [
            ToolCall("t1", "get_weather", {"city": "Los Angeles"}),
            ToolCall("t2", "get_weather", {"city": "Paris"}),
        ],
        [
            ToolCall("t3", "get_weather", {"city": "Los Angeles"}),
            ToolCall("t4", "get_weather", {"city": "nyc"}),
        ],
        [ToolCall("t5", "compare_weather", {})],
    ]
    for number, calls in enumerate(turns, start=1):
        asked = ", ".join(f"{call.name}({json.dumps(dict(call.args))})" for call in calls)
        print(f"Turn {number} on step {flow.step!r}: {asked}")
        turn = flow.dispatch(calls)
        for result in turn.results:
            print(f"  {result.call_id}: {json.dumps(result.content, ensure_ascii=False)}")
        if turn.direct:
            print(f"  answer: {turn.direct}")
        print(f"  -> step {turn.step!r}, state {json.dumps(flow.state)}")
    print(f"Backend requests: {backend.requests}")


if __name__ == "__main__":
    main()
