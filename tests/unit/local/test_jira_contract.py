"""Atlassian's description of the Jira REST API v3 (the committed subset) and the checks on it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from multitool.local.standins.jira_contract import DESCRIPTION, ContractViolation, jira_contract
from multitool.ports.atlassian.jira_issues import DRAFT_PROPERTY, ISSUE_FIELDS, search_jql
from multitool.ports.jira import IssueChange

REPO = Path(__file__).resolve().parents[3]
HEADERS = {"Authorization": "Basic x", "Content-Type": "application/json"}


def builder() -> object:
    spec = importlib.util.spec_from_file_location(
        "jira_openapi_subset", REPO / "scripts/jira_openapi_subset.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_subset_names_its_source_and_holds_every_operation_the_port_sends() -> None:
    document = json.loads(DESCRIPTION.read_text(encoding="utf-8"))
    source = document["info"]["x-source"]

    assert source["from"] == "https://developer.atlassian.com/cloud/jira/platform/swagger-v3.v3.json"
    assert len(source["commit"]) == 40
    for path, method in builder().OPERATIONS:  # type: ignore[attr-defined]
        assert method in document["paths"][path], (path, method)
    # every reference the kept operations make is kept
    assert refs(document) <= set(document["components"]["schemas"])


def refs(node: object) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[-1]} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(refs(v) for v in node))
    return set()


def check(method: str, url: str, body: object | None = None) -> None:
    raw = json.dumps(body).encode() if body is not None else None
    jira_contract().check_request(method, url, HEADERS, raw)


def test_the_ports_requests_are_as_described() -> None:
    check(
        "POST",
        "/rest/api/3/search/jql",
        {"jql": search_jql(["login"], ["WEB"]), "fields": list(ISSUE_FIELDS), "maxResults": 10},
    )
    check("GET", "/ex/jira/cloud-1/rest/api/3/issue/WEB-12?fields=summary,status")
    check(
        "POST",
        "/rest/api/3/issue/WEB-12/comment",
        {
            "body": {"type": "doc", "version": 1, "content": []},
            "properties": [{"key": DRAFT_PROPERTY, "value": {"draftId": "d"}}],
        },
    )
    check("POST", "/rest/api/3/comment/list?expand=properties", {"ids": [1, 2]})
    check("POST", "/rest/api/3/issue/WEB-12/transitions", {"transition": {"id": "41"}})
    check(
        "PUT",
        "/rest/api/3/issue/WEB-12",
        IssueChange(priority="High", labels_add=("x",), labels_remove=("y",)).body(),
    )
    check(
        "POST",
        "/rest/api/3/issueLink",
        {"type": {"name": "Blocks"}, "inwardIssue": {"key": "WEB-12"}, "outwardIssue": {"key": "OPS-3"}},
    )


@pytest.mark.parametrize(
    ("method", "url", "body", "words"),
    [
        ("POST", "/rest/api/3/search", {"jql": "x"}, "not a path"),  # the search being removed
        ("GET", "/rest/api/3/issue/WEB-12?fieldz=summary", None, "query option fieldz"),
        (
            "POST",
            "/rest/api/3/issue/WEB-12/transitions",
            {"transition": {"id": 41}},
            "is not of type 'string'",
        ),
        ("POST", "/rest/api/3/comment/list", {"ids": ["1"]}, "is not of type 'integer'"),
        (
            "PUT",
            "/rest/api/3/issue/WEB-12",
            {"update": {"labels": [{"append": "x"}]}},
            "'append' does not match",
        ),
        ("DELETE", "/rest/api/3/issueLink", None, "not in Jira's description"),
    ],
)
def test_a_request_the_description_does_not_allow_is_named(
    method: str, url: str, body: object, words: str
) -> None:
    with pytest.raises(ContractViolation, match=words.replace("(", r"\(").replace(")", r"\)")):
        check(method, url, body)
