"""``@tool``, ``@tools`` and their inheritance: declarations are checked when a Step class is defined."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from multitool.runtimes.flow import (
    Flow,
    Route,
    Step,
    ToolCall,
    ToolsDeclarationError,
    go,
    stay,
    tool,
    tools,
)

from tests.support.flow_steps import (
    DoneStep,
    calls_of,
)

# --------------------------------------------------------------------------- declarations


def test_tools_without_names_is_refused_at_class_definition() -> None:
    with pytest.raises(ToolsDeclarationError) as raised:

        class _Empty(Step):
            @tools([])
            def batch(self, calls: Sequence[ToolCall]) -> Route:
                return stay()

    assert str(raised.value) == "@tools requires at least one tool name."


@pytest.mark.parametrize("names", [[""], ["weather", "  "], ["weather", None]])
def test_tools_with_an_empty_name_is_refused(names: list[Any]) -> None:
    with pytest.raises(ToolsDeclarationError) as raised:

        class _Blank(Step):
            @tools(names)
            def batch(self, calls: Sequence[ToolCall]) -> Route:
                return stay()

    assert str(raised.value) == "@tools requires non-empty tool names."


def test_tools_with_a_repeated_name_is_refused() -> None:
    with pytest.raises(ToolsDeclarationError) as raised:

        class _Twice(Step):
            @tools(["get_weather", "get_weather"])
            def batch(self, calls: Sequence[ToolCall]) -> Route:
                return stay()

    assert str(raised.value) == "@tools cannot declare tool 'get_weather' more than once."


def test_tools_given_a_bare_string_is_refused() -> None:
    with pytest.raises(ToolsDeclarationError, match="list of tool names"):
        tools("weather")


def test_two_methods_declaring_the_same_set_are_refused_naming_both() -> None:
    with pytest.raises(ToolsDeclarationError) as raised:

        class Clash(Step):
            @tools(["weather", "forecast"])
            def first_batch(self, calls: Sequence[ToolCall]) -> Route:
                return stay()

            @tools(["forecast", "weather"])
            def second_batch(self, calls: Sequence[ToolCall]) -> Route:
                return stay()

    message = str(raised.value)
    assert "Clash.first_batch" in message
    assert "Clash.second_batch" in message
    assert "forecast" in message
    assert "weather" in message


def test_two_methods_handling_the_same_tool_are_refused() -> None:
    with pytest.raises(ToolsDeclarationError, match=r"one_way.*other_way"):

        class _Clash(Step):
            @tool("weather")
            def one_way(self, args: Mapping[str, Any]) -> None:
                return None

            @tool("weather")
            def other_way(self, args: Mapping[str, Any]) -> None:
                return None


@pytest.mark.parametrize("name", ["", "   "])
def test_tool_with_an_empty_name_is_refused(name: str) -> None:
    with pytest.raises(ToolsDeclarationError, match="non-empty tool name"):
        tool(name)


def test_async_handlers_are_refused() -> None:
    with pytest.raises(ToolsDeclarationError, match="synchronous"):

        class _Async(Step):
            @tool
            async def weather(self, args: Mapping[str, Any]) -> None:
                return None


# --------------------------------------------------------------------------- inheritance


class BaseWeather(Step):
    id = "base_weather"

    def __init__(self) -> None:
        self.seen: list[str] = []

    @tool
    def get_weather(self, args: Mapping[str, Any]) -> None:
        self.seen.append("base:individual")

    @tools(["get_weather"])
    def batch(self, calls: Sequence[ToolCall]) -> Route:
        self.seen.append("base:group")
        return stay()


def test_registrations_are_inherited() -> None:
    class Child(BaseWeather):
        id = "child"

        @tool
        def get_forecast(self, args: Mapping[str, Any]) -> None:
            self.seen.append("child:forecast")

    step = Child()
    flow = Flow(steps=[step], start=Child)
    flow.dispatch(calls_of("get_weather"))
    flow.dispatch(calls_of("get_weather", "get_forecast"))
    assert step.seen == ["base:group", "base:individual", "child:forecast"]
    assert Child.exposed_tools() == ("get_weather", "get_forecast")
    assert Child.tool_groups() == (("get_weather",),)


def test_a_subclass_can_replace_an_inherited_group() -> None:
    class Child(BaseWeather):
        id = "child"

        @tools(["get_weather"])
        def better_batch(self, calls: Sequence[ToolCall]) -> Route:
            self.seen.append("child:group")
            return go(DoneStep)

    step = Child()
    flow = Flow(steps=[step, DoneStep], start=Child)
    assert flow.dispatch(calls_of("get_weather")).step == "done"
    assert step.seen == ["child:group"]


def test_an_undecorated_override_keeps_the_registration() -> None:
    class Child(BaseWeather):
        id = "child"

        def batch(self, calls: Sequence[ToolCall]) -> Route:
            self.seen.append("child:override")
            return stay()

    step = Child()
    Flow(steps=[step], start=Child).dispatch(calls_of("get_weather"))
    assert step.seen == ["child:override"]


def test_a_base_class_is_not_affected_by_its_subclasses() -> None:
    class Child(BaseWeather):
        id = "child"

        @tool
        def extra(self, args: Mapping[str, Any]) -> None:
            return None

    assert "extra" in Child.exposed_tools()
    assert BaseWeather.exposed_tools() == ("get_weather",)
