"""Extract the part of Atlassian's Jira Cloud platform REST API v3 description the Jira port uses.

Source: Atlassian's OpenAPI document for the Jira Cloud platform
(https://developer.atlassian.com/cloud/jira/platform/swagger-v3.v3.json), as committed in a public
repository (the one named on the command line, e.g. github.com/jarekbird/jira-api-mcp-wrapper's
``swagger-v3.v3.json``); the commit and the document's own version go in ``info.x-source``. Kept:
the operations the port sends (:data:`OPERATIONS`) with their parameters and request bodies, every
component schema those bodies reach, and the answers' status codes (not their bodies: the tests
check requests). Nothing is rewritten.

Reproduce (from a clone of the source repository)::

    python scripts/jira_openapi_subset.py /path/to/clone swagger-v3.v3.json [owner/name] > \\
        shared/python/multitool/local/standins/jira_openapi.json

``tests/unit/local/test_jira_contract.py`` checks that the committed file names its source and holds
every operation of :data:`OPERATIONS`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SCHEMA_REF = "#/components/schemas/"
ATLASSIAN_URL = "https://developer.atlassian.com/cloud/jira/platform/swagger-v3.v3.json"

OPERATIONS: tuple[tuple[str, str], ...] = (
    ("/rest/api/3/issue", "post"),  # create issue
    ("/rest/api/3/user/search", "get"),  # the assignee's account
    ("/rest/api/3/issue/{issueIdOrKey}", "get"),  # read an issue
    ("/rest/api/3/issue/{issueIdOrKey}", "put"),  # edit an issue
    ("/rest/api/3/search/jql", "post"),  # enhanced search
    ("/rest/api/3/issue/{issueIdOrKey}/transitions", "get"),
    ("/rest/api/3/issue/{issueIdOrKey}/transitions", "post"),
    ("/rest/api/3/issue/{issueIdOrKey}/comment", "get"),
    ("/rest/api/3/issue/{issueIdOrKey}/comment", "post"),
    ("/rest/api/3/comment/list", "post"),  # comments by id, with their properties
    ("/rest/api/3/issueLinkType", "get"),
    ("/rest/api/3/issueLink", "post"),
)


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].removeprefix(SCHEMA_REF)} if isinstance(node.get("$ref"), str) else set()
        for value in node.values():
            found |= _refs(value)
        return found
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node)) if node else set()
    return set()


def _operation(spec: dict[str, Any]) -> dict[str, Any]:
    kept = {key: spec[key] for key in ("operationId", "parameters") if key in spec}
    if "requestBody" in spec:
        body = spec["requestBody"]
        kept["requestBody"] = {
            "required": body.get("required", False),
            "content": {
                kind: {"schema": media["schema"]}
                for kind, media in body["content"].items()
                if "schema" in media
            },
        }
    kept["responses"] = {
        code: {"description": r.get("description", "")} for code, r in spec["responses"].items()
    }
    return kept


def subset(document: dict[str, Any], source: dict[str, str]) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for path, method in OPERATIONS:
        paths.setdefault(path, {})[method] = _operation(document["paths"][path][method])
    schemas = document["components"]["schemas"]
    wanted: set[str] = set()
    todo = _refs(paths)
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        wanted.add(name)
        todo |= _refs(schemas[name]) - wanted
    return {
        "openapi": document["openapi"],
        "info": {
            "title": document["info"]["title"],
            "version": document["info"]["version"],
            "x-source": source,
        },
        "servers": document["servers"],
        "paths": paths,
        "components": {"schemas": {name: schemas[name] for name in sorted(wanted)}},
    }


def main(clone: str, path: str, repository: str | None = None) -> None:
    # git from PATH on the caller's own clone: a developer's tool, no untrusted input.
    git = ["git", "-C", clone]
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout  # noqa: S603
    remote = subprocess.run(  # noqa: S603
        [*git, "config", "--get", "remote.origin.url"], check=False, capture_output=True, text=True
    ).stdout
    document = json.loads((Path(clone) / path).read_text(encoding="utf-8"))
    source = {
        "repository": repository or remote.strip(),
        "commit": commit.strip(),
        "path": path,
        "from": ATLASSIAN_URL,
    }
    json.dump(subset(document, source), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
