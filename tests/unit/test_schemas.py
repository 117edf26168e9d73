"""The committed OpenAPI documents: no drift from the code, valid OpenAPI 3.0, Bedrock's rules."""

from __future__ import annotations

import json
from typing import Any

import pytest
from multitool.schemas import generate, load, path_of, render
from multitool.tools import REGISTRY
from multitool.tools.apps import APP_FACTORIES
from openapi_spec_validator import validate

GROUPS = sorted(APP_FACTORIES)


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


@pytest.mark.parametrize("group", GROUPS)
def test_document_follows_bedrocks_rules(group: str) -> None:
    document = load(group)
    assert document["openapi"].startswith("3.0.")
    operations = [op for path in document["paths"].values() for op in path.values()]
    assert operations
    for operation in operations:
        assert operation["operationId"]
        assert operation["description"].strip()
        assert list(operation["requestBody"]["content"]) == ["application/json"]
        assert operation["requestBody"]["required"] is True
        assert operation["responses"]["200"]["description"].strip()
        assert "application/json" in operation["responses"]["200"]["content"]
    # OpenAPI 3.1-only keywords would be rejected.
    assert not any("const" in node for node in _walk(document))
    assert not any(node.get("type") == "null" for node in _walk(document))


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
    assert set(email["properties"]) == {"to", "cc", "subject", "body"}
    assert email["properties"]["to"]["maxItems"] == 20
    assert email["properties"]["subject"]["maxLength"] == 200
    meeting = generate("meeting_scheduler")["components"]["schemas"]["MeetingArgs"]
    assert meeting["properties"]["durationMinutes"]["default"] == 30
    jira = generate("jira_draft")["components"]["schemas"]["JiraTicketArgs"]
    assert {"project", "issueType", "summary", "description", "priority", "assignee"} == set(
        jira["properties"]
    )


def test_documents_are_stable_json() -> None:
    for group in GROUPS:
        assert json.loads(render(group)) == generate(group)
