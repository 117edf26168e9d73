"""OpenAPI 3.0 documents of the action groups, generated from the tool models.

``python -m multitool.schemas`` (``make schemas``) writes ``<group>.json`` beside
this module; a test fails when a committed document differs from what the code
generates. The documents stay inside the subset of OpenAPI 3.0 that Bedrock
agents accept (the user guide's page on action-group OpenAPI schemas):
``"openapi": "3.0.0"``, an operationId and a description on every operation,
JSON request bodies, a described 200 response, and no ``enum``: allowed values
are written in the field's description instead. Every value schema states its
``type``: optional fields are ``nullable`` scalars or objects, never an
``anyOf`` without a type, and a ``$ref`` stands alone. The Lambda still
validates strictly with the pydantic models (a priority outside the list is a
400). Error responses are ``{"error": {"code", "message", "field"}}``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import multitool
from multitool.tools import REGISTRY
from multitool.tools.apps import action_group_app
from multitool.tools.environment import ToolEnvironment

SCHEMA_DIR = Path(__file__).parent
OPENAPI_VERSION = "3.0.3"
"""What Powertools generates (it converts its 3.1 output to 3.0.3 itself)."""
BEDROCK_OPENAPI_VERSION = "3.0.0"
"""What the committed documents declare: the user guide says the value must be 3.0.0."""

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


class SchemaOutsideBedrockSubset(ValueError):
    """A model produced a schema the Bedrock subset cannot express (e.g. a union of two types)."""


def _allowed_values(description: str | None, values: list[Any]) -> str:
    """The description, naming every allowed value (Bedrock agents reject ``enum``)."""
    text = (description or "").strip()
    words = {word.strip(".,;:'\"()") for word in text.split()}
    if all(str(value) in words for value in values):
        return text
    listed = f"Always '{values[0]}'." if len(values) == 1 else f"One of: {', '.join(str(v) for v in values)}."
    return f"{text.rstrip('.')}. {listed}" if text else listed


class _BedrockSubset:
    """Rewrites generated JSON Schema into the subset Bedrock agents accept.

    ``const`` and ``enum`` become words in the description; ``anyOf`` of one type (pydantic's
    ``X | None``) becomes that type, ``nullable``; a ``$ref`` with siblings (which 3.0
    ignores), or to a scalar component, is replaced by the referenced schema.
    """

    def __init__(self, components: dict[str, Any]) -> None:
        self._components = components

    def _target(self, ref: str) -> dict[str, Any]:
        target: dict[str, Any] = self._components[ref.rsplit("/", 1)[1]]
        return target

    def value(self, node: dict[str, Any]) -> dict[str, Any]:
        out = dict(node)
        ref = out.get("$ref")
        if isinstance(ref, str) and (len(out) > 1 or self._target(ref).get("type") != "object"):
            siblings = {key: val for key, val in out.items() if key != "$ref"}
            out = {**self.value(self._target(ref)), **siblings}
        for keyword in ("anyOf", "oneOf"):
            if keyword in out:
                options = [o for o in out.pop(keyword) if o.get("type") != "null"]
                if len(options) != 1:
                    raise SchemaOutsideBedrockSubset(
                        f"{keyword} of {len(options)} schemas has no single type"
                    )
                option = options[0]
                resolved = self._target(option["$ref"]) if "$ref" in option else option
                out = {**self.value(resolved), **out}
        if "allOf" in out:
            raise SchemaOutsideBedrockSubset("allOf has no single type")
        if "const" in out:
            out["enum"] = [out.pop("const")]
        if "enum" in out:
            out["description"] = _allowed_values(out.get("description"), out.pop("enum"))
        if isinstance(out.get("properties"), dict):
            out["properties"] = {name: self.value(prop) for name, prop in out["properties"].items()}
        if isinstance(out.get("items"), dict):
            out["items"] = self.value(out["items"])
        return out


def _referenced(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[1]} if isinstance(node.get("$ref"), str) else set()
        for value in node.values():
            found |= _referenced(value)
        return found
    if isinstance(node, list):
        return set().union(*map(_referenced, node)) if node else set()
    return set()


def _bedrock_subset(document: dict[str, Any]) -> dict[str, Any]:
    """The document inside Bedrock's OpenAPI subset; components nothing refers to are dropped."""
    components = document["components"]["schemas"]
    subset = _BedrockSubset(components)
    rewritten = {name: subset.value(schema) for name, schema in components.items()}
    for item in document["paths"].values():
        for operation in item.values():
            bodies = [operation["requestBody"], *operation["responses"].values()]
            for body in bodies:
                for media in body.get("content", {}).values():
                    media["schema"] = subset.value(media["schema"])
    document["components"]["schemas"] = rewritten
    used = _referenced(document["paths"])
    while True:
        more = used | _referenced([rewritten[name] for name in used])
        if more == used:
            break
        used = more
    document["components"]["schemas"] = {name: rewritten[name] for name in sorted(used)}
    document["openapi"] = BEDROCK_OPENAPI_VERSION
    return document


def _no_environment() -> ToolEnvironment:
    """The app's environment, never asked for: the document needs only the route."""
    raise AssertionError("the OpenAPI document never serves a request")


def generate(group: str) -> dict[str, Any]:
    """The OpenAPI document of one action group."""
    specs = [s for s in REGISTRY.values() if s.action_group == group]
    app = action_group_app(group, _no_environment)
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
    return _bedrock_subset(document)


def render(group: str) -> str:
    """The document as committed: sorted keys, two-space indent, trailing newline."""
    return json.dumps(generate(group), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def path_of(group: str) -> Path:
    return SCHEMA_DIR / f"{group}.json"


def write_all() -> list[Path]:
    """Regenerate every group's document; returns the paths written."""
    written = []
    for group in REGISTRY.groups:
        target = path_of(group)
        target.write_text(render(group), encoding="utf-8")
        written.append(target)
    return written


def load(group: str) -> dict[str, Any]:
    """A committed document (what the stack deploys and the Converse runtime describes tools from)."""
    loaded: dict[str, Any] = json.loads(path_of(group).read_text(encoding="utf-8"))
    return loaded
