"""The committed Gateway tool schemas: no drift from the code, inside the Gateway's schema subset."""

from __future__ import annotations

from typing import Any

import pytest
from multitool.schemas.tools import GATEWAY_KEYWORDS, GATEWAY_TYPES, load_tools, render_tools, tools_path_of
from multitool.tools import REGISTRY

GROUPS = sorted(REGISTRY.groups)


@pytest.mark.parametrize("group", GROUPS)
def test_committed_tool_schemas_match_the_code(group: str) -> None:
    committed = tools_path_of(group).read_text(encoding="utf-8")
    assert committed == render_tools(group), f"{tools_path_of(group).name} is stale: run `make schemas`"


def _nodes(node: dict[str, Any], where: str = "") -> list[tuple[str, dict[str, Any]]]:
    found = [(where or "$", node)]
    for name, prop in node.get("properties", {}).items():
        found += _nodes(prop, f"{where}.{name}")
    if "items" in node:
        found += _nodes(node["items"], f"{where}[]")
    return found


@pytest.mark.parametrize("group", GROUPS)
def test_every_schema_node_uses_only_the_gateway_subset(group: str) -> None:
    for tool in load_tools(group):
        assert set(tool) == {"name", "description", "inputSchema"}
        for where, node in _nodes(tool["inputSchema"]):
            assert set(node) <= set(GATEWAY_KEYWORDS), where
            assert node["type"] in GATEWAY_TYPES, where
            assert set(node.get("required", [])) <= set(node.get("properties", {})), where


@pytest.mark.parametrize("group", GROUPS)
def test_the_input_schema_is_the_argument_model(group: str) -> None:
    (tool,) = load_tools(group)
    spec = REGISTRY[tool["name"]]
    model = spec.args_model.model_json_schema(by_alias=True)
    schema = tool["inputSchema"]
    assert schema["type"] == "object"
    assert set(schema["properties"]) == set(model["properties"])
    assert schema["required"] == model["required"]
    assert tool["description"] == spec.description


def test_bounds_and_allowed_values_the_subset_cannot_state_are_in_words() -> None:
    (meeting,) = load_tools("meeting_scheduler")
    properties = meeting["inputSchema"]["properties"]
    assert properties["durationMinutes"]["description"].endswith("From 5 to 480.")
    assert "1 to 20 items." in properties["attendees"]["description"]
    (jira,) = load_tools("jira_draft")
    assert "High" in jira["inputSchema"]["properties"]["priority"]["description"]
