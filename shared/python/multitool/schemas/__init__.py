"""OpenAPI 3.0 documents of the action groups, generated from the tool models.

``python -m multitool.schemas`` (``make schemas``) writes ``<group>.json`` beside
this module; a test fails when a committed document differs from what the code
generates. The documents follow Bedrock's rules: OpenAPI 3.0.x, an operationId
and a description on every operation, JSON request bodies, a described 200
response. Error responses are ``{"error": {"code", "message", "field"}}``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import multitool
from multitool.tools import REGISTRY
from multitool.tools.apps import APP_FACTORIES

SCHEMA_DIR = Path(__file__).parent
OPENAPI_VERSION = "3.0.3"

ERROR_BODY: dict[str, Any] = {
    "type": "object",
    "title": "ToolError",
    "description": "The call could not be acted on; the message says what to change.",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {
                    "type": "string",
                    "description": "invalid_input, unknown_project, date_in_past, ...",
                },
                "message": {"type": "string", "description": "What is wrong, in words to act on"},
                "field": {"type": "string", "description": "The argument at fault, if one is"},
            },
        }
    },
}
ERROR_RESPONSES = {
    "400": "The arguments are malformed, missing or out of bounds.",
    "404": "Unknown operation, or an unknown Jira project.",
    "422": "Valid arguments the tool cannot act on: a past or unparseable date, an unknown issue type.",
}
_POWERTOOLS_ONLY = ("HTTPValidationError", "ValidationError", "ResponseValidationError")


def _openapi_30(node: Any) -> Any:
    """JSON Schema keywords OpenAPI 3.0 lacks, rewritten: ``const`` -> one-value ``enum``."""
    if isinstance(node, dict):
        out = {key: _openapi_30(value) for key, value in node.items()}
        if "const" in out:
            out["enum"] = [out.pop("const")]
        return out
    if isinstance(node, list):
        return [_openapi_30(value) for value in node]
    return node


def generate(group: str) -> dict[str, Any]:
    """The OpenAPI document of one action group."""
    specs = [s for s in REGISTRY.values() if s.action_group == group]
    app = APP_FACTORIES[group]()
    with warnings.catch_warnings():
        # Powertools builds 3.1 from pydantic v2 and converts to 3.0 itself; its notice is noise here.
        warnings.simplefilter("ignore", UserWarning)
        text = app.get_openapi_json_schema(
            title=f"multitool {group}",
            version=multitool.__version__,
            openapi_version=OPENAPI_VERSION,
            description=" ".join(s.description for s in specs),
        )
    document: dict[str, Any] = json.loads(text)
    document.pop("servers", None)
    for path in document["paths"].values():
        for operation in path.values():
            responses = operation["responses"]
            for status, description in ERROR_RESPONSES.items():
                responses[status] = {
                    "description": description,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ToolError"}}},
                }
            operation["responses"] = dict(sorted(responses.items()))
    schemas = document["components"]["schemas"]
    for name in _POWERTOOLS_ONLY:
        schemas.pop(name, None)
    schemas["ToolError"] = ERROR_BODY
    document["components"]["schemas"] = dict(sorted(schemas.items()))
    result: dict[str, Any] = _openapi_30(document)
    return result


def render(group: str) -> str:
    """The document as committed: sorted keys, two-space indent, trailing newline."""
    return json.dumps(generate(group), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def path_of(group: str) -> Path:
    return SCHEMA_DIR / f"{group}.json"


def write_all() -> list[Path]:
    """Regenerate every group's document; returns the paths written."""
    written = []
    for group in APP_FACTORIES:
        target = path_of(group)
        target.write_text(render(group), encoding="utf-8")
        written.append(target)
    return written


def load(group: str) -> dict[str, Any]:
    """A committed document (what the stack deploys and the Converse runtime describes tools from)."""
    loaded: dict[str, Any] = json.loads(path_of(group).read_text(encoding="utf-8"))
    return loaded
