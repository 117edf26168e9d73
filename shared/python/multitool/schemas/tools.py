"""AgentCore Gateway tool schemas of the action groups, from the same documents as the OpenAPI ones.

A Gateway Lambda target declares its tools as ``{name, description, inputSchema, outputSchema?}``
in the Gateway's schema subset: ``type``, ``description``, ``properties``, ``items`` and
``required``, nothing else (no ``$ref``, ``enum``, ``nullable`` or bounds). Each group's tool is
derived from its committed-to-be OpenAPI document (:func:`multitool.schemas.generate`, itself from
the pydantic models): references are inlined, allowed values and bounds become words in the
description, and the rest is dropped. The Lambda still validates strictly with the models.

No ``outputSchema`` is declared: the subset has no way to say "or null", and payloads carry
nulls (a Jira draft without an assignee, a name that resolved to nobody), so any output schema
in it would make MCP clients that validate structured results reject valid answers. The payload
contract is the OpenAPI document's 200 response.

``python -m multitool.schemas`` (``make schemas``) writes ``gateway/<group>.json`` beside this
module; a test fails when a committed file differs from what the code generates. The stack reads
the committed files (``infra.components.tool_gateway``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from multitool.schemas import SCHEMA_DIR, SchemaOutsideBedrockSubset, generate
from multitool.tools import REGISTRY

GATEWAY_DIR = SCHEMA_DIR / "gateway"
GATEWAY_KEYWORDS = ("type", "description", "properties", "items", "required")
GATEWAY_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})


def _number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _sentences(*parts: str) -> str:
    """Parts joined as sentences: each ends with a full stop."""
    kept = [part.strip() for part in parts if part and part.strip()]
    return " ".join(part if part[-1] in ".!?)" else f"{part}." for part in kept)


def _bounds(node: dict[str, Any]) -> list[str]:
    """The bounds the Gateway subset cannot state, as words for the model."""
    words = []
    if "maxLength" in node:
        words.append(f"At most {node['maxLength']} characters.")
    low, high = node.get("minItems"), node.get("maxItems")
    if low is not None and high is not None:
        words.append(f"{low} to {high} items.")
    elif high is not None:
        words.append(f"At most {high} items.")
    elif low is not None:
        words.append(f"At least {low} item{'s' if low != 1 else ''}.")
    low, high = node.get("minimum"), node.get("maximum")
    if low is not None and high is not None:
        words.append(f"From {_number(low)} to {_number(high)}.")
    return words


class _GatewaySubset:
    def __init__(self, components: dict[str, Any]) -> None:
        self._components = components

    def value(self, node: dict[str, Any]) -> dict[str, Any]:
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = self._components[ref.rsplit("/", 1)[1]]
            node = {**target, **{key: val for key, val in node.items() if key != "$ref"}}
        kind = node.get("type")
        if kind not in GATEWAY_TYPES:
            raise SchemaOutsideBedrockSubset(f"a Gateway schema needs one type, got {kind!r}")
        out: dict[str, Any] = {"type": kind}
        description = _sentences(str(node.get("description") or ""), *_bounds(node))
        if description:
            out["description"] = description
        if isinstance(node.get("properties"), dict):
            out["properties"] = {name: self.value(prop) for name, prop in node["properties"].items()}
        if isinstance(node.get("items"), dict):
            out["items"] = self.value(node["items"])
        if node.get("required"):
            out["required"] = list(node["required"])
        return out


def generate_tools(group: str) -> list[dict[str, Any]]:
    """The Gateway tool definitions of one action group (one tool per operation)."""
    document = generate(group)
    subset = _GatewaySubset(document["components"]["schemas"])
    tools = []
    for item in document["paths"].values():
        for operation in item.values():
            body = operation["requestBody"]["content"]["application/json"]["schema"]
            tools.append(
                {
                    "name": operation["operationId"],
                    "description": REGISTRY[operation["operationId"]].description,
                    "inputSchema": subset.value(body),
                }
            )
    return tools


def render_tools(group: str) -> str:
    """The tool definitions as committed: sorted keys, two-space indent, trailing newline."""
    return json.dumps(generate_tools(group), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def tools_path_of(group: str) -> Path:
    return GATEWAY_DIR / f"{group}.json"


def write_all_tools() -> list[Path]:
    GATEWAY_DIR.mkdir(exist_ok=True)
    written = []
    for group in REGISTRY.groups:
        target = tools_path_of(group)
        target.write_text(render_tools(group), encoding="utf-8")
        written.append(target)
    return written


def load_tools(group: str) -> list[dict[str, Any]]:
    """A group's committed Gateway tool definitions (what the stack deploys and ``multitool mcp`` lists)."""
    loaded: list[dict[str, Any]] = json.loads(tools_path_of(group).read_text(encoding="utf-8"))
    return loaded
