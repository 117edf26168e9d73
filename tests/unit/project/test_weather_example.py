"""The WeatherStep example: one backend request per turn, stay on bad input, go once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from multitool.runtimes.flow import Flow, ToolCall, ToolResult

from examples.weather import FooLogicStep, WeatherStep, build_flow, main, normalise_city


class CountingBackend:
    """A fake weather service that counts requests."""

    def __init__(self, temperatures: Mapping[str, float] | None = None, *, fail: bool = False) -> None:
        self.temperatures_by_city = dict(
            temperatures if temperatures is not None else {"LA": 24.0, "NYC": 11.0}
        )
        self.fail = fail
        self.requests: list[tuple[str, ...]] = []

    def temperatures(self, cities: Sequence[str]) -> Mapping[str, float | None]:
        self.requests.append(tuple(cities))
        if self.fail:
            raise ConnectionError("weather service unavailable")
        return {city: self.temperatures_by_city.get(city) for city in cities}


def weather_calls(*cities: object) -> list[ToolCall]:
    return [
        ToolCall(f"w{i}", "get_weather", {} if city is None else {"city": city})
        for i, city in enumerate(cities)
    ]


@pytest.mark.parametrize(
    ("raw", "city"),
    [
        ("Los Angeles", "LA"),
        ("la", "LA"),
        ("LA", "LA"),
        ("  los   angeles ", "LA"),
        ("L.A.", "LA"),
        ("New York", "NYC"),
        ("nyc", "NYC"),
        ("NYC", "NYC"),
        ("new york city", "NYC"),
        ("Paris", None),
        ("", None),
        (None, None),
        (7, None),
    ],
)
def test_city_names_are_normalised(raw: object, city: str | None) -> None:
    assert normalise_city(raw) == city


def test_both_cities_take_one_backend_request_and_go_to_foo_logic() -> None:
    backend = CountingBackend()
    flow = build_flow(backend)

    turn = flow.dispatch(weather_calls("Los Angeles", "nyc"))

    assert backend.requests == [("LA", "NYC")]
    assert turn.group == ("get_weather",)
    assert turn.step == FooLogicStep.id
    assert flow.state == {"city_LA": 24.0, "city_NYC": 11.0}
    assert turn.results == (
        ToolResult("w0", {"city": "LA", "temperature_c": 24.0}),
        ToolResult("w1", {"city": "NYC", "temperature_c": 11.0}),
    )
    assert flow.exposed_tools() == ("compare_weather",)


def test_a_single_city_is_handled_by_the_group_too() -> None:
    backend = CountingBackend()
    flow = build_flow(backend)

    turn = flow.dispatch(weather_calls("New York"))

    assert backend.requests == [("NYC",)]
    assert flow.state == {"city_NYC": 11.0}
    assert turn.step == "foo_logic"


@pytest.mark.parametrize(
    ("cities", "feedback"),
    [
        (("LA", None), "Every get_weather call needs a city: LA or NYC."),
        (("LA", "  "), "Every get_weather call needs a city: LA or NYC."),
        (("LA", "Paris"), "Weather is only available for LA and NYC, not 'Paris'."),
        (("la", "Los Angeles"), "Ask for each city once; LA was requested more than once."),
        (("nyc", "LA", "New York"), "Ask for each city once; NYC was requested more than once."),
    ],
)
def test_a_missing_unknown_or_repeated_city_rejects_the_whole_batch(
    cities: tuple[object, ...], feedback: str
) -> None:
    backend = CountingBackend()
    flow = build_flow(backend)

    turn = flow.dispatch(weather_calls(*cities))

    assert backend.requests == []
    assert flow.state == {}
    assert turn.step == WeatherStep.id
    assert turn.route is not None
    assert turn.route.kind == "stay"
    assert [r.content for r in turn.results] == [feedback] * len(cities)


def test_a_city_the_backend_cannot_answer_rejects_the_batch() -> None:
    backend = CountingBackend({"LA": 24.0})
    flow = build_flow(backend)

    turn = flow.dispatch(weather_calls("LA", "NYC"))

    assert backend.requests == [("LA", "NYC")]
    assert flow.state == {}
    assert turn.step == "weather"
    assert turn.results[0].content == "Only LA and NYC temperatures are available."


def test_a_backend_failure_errors_every_call_without_replay() -> None:
    backend = CountingBackend(fail=True)
    flow = build_flow(backend)

    turn = flow.dispatch(weather_calls("LA", "NYC"))

    assert backend.requests == [("LA", "NYC")]
    assert [r.is_error for r in turn.results] == [True, True]
    assert turn.step == "weather"
    assert flow.state == {}


def test_the_individual_handler_covers_get_weather_next_to_other_tools() -> None:
    backend = CountingBackend()
    flow = Flow(steps=[WeatherStep(backend), FooLogicStep], start=WeatherStep)

    turn = flow.dispatch([ToolCall("w0", "get_weather", {"city": "la"}), ToolCall("x", "get_news", {})])

    assert turn.group is None
    assert backend.requests == [("LA",)]
    assert turn.results == (
        ToolResult("w0", {"city": "LA", "temperature_c": 24.0}),
        ToolResult("x", "Unknown tool: get_news", is_error=True),
    )
    assert flow.state == {"city_LA": 24.0}
    assert turn.step == "weather"


def test_the_individual_handler_stays_on_an_unknown_city() -> None:
    backend = CountingBackend()
    flow = build_flow(backend)
    turn = flow.dispatch([ToolCall("w0", "get_weather", {"city": "Oslo"}), ToolCall("x", "other", {})])
    assert turn.results[0] == ToolResult("w0", "Weather is only available for LA and NYC, not 'Oslo'.")
    assert backend.requests == []


def test_foo_logic_compares_the_saved_temperatures() -> None:
    flow = build_flow(CountingBackend())
    flow.dispatch(weather_calls("LA", "NYC"))

    turn = flow.dispatch([ToolCall("c", "compare_weather", {})])

    assert turn.direct == "LA is 13 °C warmer (LA 24 °C, NYC 11 °C)."


def test_weather_step_exposes_get_weather_only() -> None:
    assert WeatherStep.exposed_tools() == ("get_weather",)
    assert WeatherStep.tool_groups() == (("get_weather",),)


def test_main_prints_a_demonstration(capsys: pytest.CaptureFixture[str]) -> None:
    main()
    out = capsys.readouterr().out
    assert "not 'Paris'" in out
    assert '"city": "NYC", "temperature_c": 11.0' in out
    assert "LA is 13 °C warmer" in out
    assert "Backend requests: [('LA', 'NYC')]" in out
