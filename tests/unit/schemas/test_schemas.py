"""The committed OpenAPI documents: no drift from the code, valid OpenAPI 3.0, Bedrock's rules."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from multitool.schemas import generate, load, path_of, render
from multitool.tools import REGISTRY
from openapi_spec_validator import validate

GROUPS = sorted(REGISTRY.groups)


@pytest.mark.parametrize("group", GROUPS)
def test_committed_document_matches_the_code(group: str) -> None:
    committed = path_of(group).read_text(encoding="utf-8")
    assert committed == render(group), f"{path_of(group).name} is stale: run `make schemas` and commit it"


@pytest.mark.parametrize("group", GROUPS)
def test_document_is_valid_openapi(group: str) -> None:
    validate(load(group))


def _walk(node: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_walk(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_walk(value))
    return found


COMPOSITION = ("anyOf", "oneOf", "allOf", "not")
OPERATION_ID = re.compile(r"^[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*$")


def _value_schemas(document: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every schema that describes a value: component schemas, their properties and items, bodies."""
    found: list[tuple[str, dict[str, Any]]] = []

    def visit(where: str, schema: dict[str, Any]) -> None:
        found.append((where, schema))
        for name, prop in schema.get("properties", {}).items():
            visit(f"{where}.{name}", prop)
        if isinstance(schema.get("items"), dict):
            visit(f"{where}[]", schema["items"])

    for name, schema in document["components"]["schemas"].items():
        visit(name, schema)
    for path, item in document["paths"].items():
        for method, operation in item.items():
            media = [operation["requestBody"]["content"]] + [
                r["content"] for r in operation["responses"].values()
            ]
            for content in media:
                for kind, body in content.items():
                    visit(f"{method} {path} {kind}", body["schema"])
    return found


@pytest.mark.parametrize("group", GROUPS)
def test_document_follows_bedrocks_rules(group: str) -> None:
    """The user guide's page on action-group OpenAPI schemas, rule by rule."""
    document = load(group)
    # "openapi": the value must be 3.0.0 for the action group to work.
    assert document["openapi"] == "3.0.0"
    # Every path begins with a forward slash; each operation has a description, an operationId
    # (unique, letters and digits separated by hyphens or underscores) and responses.
    assert all(path.startswith("/") for path in document["paths"])
    operations = [op for path in document["paths"].values() for op in path.values()]
    assert operations
    ids = [op["operationId"] for op in operations]
    assert len(ids) == len(set(ids))
    for operation in operations:
        assert OPERATION_ID.match(operation["operationId"]), operation["operationId"]
        assert operation["description"].strip()
        assert list(operation["requestBody"]["content"]) == ["application/json"]
        assert operation["requestBody"]["required"] is True
        assert operation["responses"]["200"]["description"].strip()
        assert "application/json" in operation["responses"]["200"]["content"]
    nodes = _walk(document)
    # Agents do not support `enum`: allowed values are written in the description instead.
    assert not any("enum" in node for node in nodes)
    # OpenAPI 3.1-only keywords would be rejected.
    assert not any("const" in node for node in nodes)
    assert not any(node.get("type") == "null" for node in nodes)
    # Every value schema states its type: a `$ref` stands alone (3.0 ignores a reference's
    # siblings), and no composition leaves a value without one.
    for where, schema in _value_schemas(document):
        if "$ref" in schema:
            assert set(schema) == {"$ref"}, f"{where}: a $ref with siblings {sorted(set(schema) - {'$ref'})}"
            continue
        assert schema.get("type"), f"{where} has no type"
        assert not set(COMPOSITION) & set(schema), f"{where} uses {sorted(set(COMPOSITION) & set(schema))}"
        if schema.get("nullable"):
            assert schema["type"], f"{where} is nullable without a type"


def test_allowed_values_are_in_the_descriptions() -> None:
    jira = generate("jira_draft")["components"]["schemas"]["JiraTicketArgs"]["properties"]
    for priority in ("Highest", "High", "Medium", "Low", "Lowest"):
        assert priority in jira["priority"]["description"]
    assert jira["priority"]["type"] == "string"
    assert jira["priority"]["default"] == "Medium"
    assert jira["assignee"]["type"] == "string"
    assert jira["assignee"]["nullable"] is True
    resolution = generate("email_draft")["components"]["schemas"]["NameResolution"]["properties"]["status"]
    assert {"resolved", "ambiguous", "unknown"} <= set(re.findall(r"\w+", resolution["description"]))
    assert resolution["type"] == "string"


def test_the_lambda_still_refuses_values_outside_the_description() -> None:
    from multitool.tools.jira.jira_draft import JiraTicketArgs
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        JiraTicketArgs.model_validate(
            {"project": "WEB", "issueType": "Bug", "summary": "x", "priority": "Urgent"}
        )


@pytest.mark.parametrize("group", GROUPS)
def test_document_describes_exactly_the_registered_tools(group: str) -> None:
    document = load(group)
    described = {
        (path, method.upper(), op["operationId"])
        for path, item in document["paths"].items()
        for method, op in item.items()
    }
    registered = {(s.api_path, s.method, s.name) for s in REGISTRY.values() if s.action_group == group}
    assert described == registered


def test_request_bodies_are_the_camel_case_argument_models() -> None:
    email = generate("email_draft")["components"]["schemas"]["EmailDraftArgs"]
    assert set(email["properties"]) == {"to", "cc", "subject", "body", "revises", "label"}
    assert "revises" not in email["required"]
    assert email["properties"]["to"]["maxItems"] == 20
    assert email["properties"]["subject"]["maxLength"] == 200
    meeting = generate("meeting_scheduler")["components"]["schemas"]["MeetingArgs"]
    assert meeting["properties"]["durationMinutes"]["default"] == 30
    jira = generate("jira_draft")["components"]["schemas"]["JiraTicketArgs"]
    expected = {"project", "issueType", "summary", "description", "priority", "assignee", "revises", "label"}
    assert expected == set(jira["properties"])


def test_documents_are_stable_json() -> None:
    for group in GROUPS:
        assert json.loads(render(group)) == generate(group)
