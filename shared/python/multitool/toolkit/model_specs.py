"""The tools' input schemas as their pydantic models generate them, committed so a cold start reads them.

The harness runtime describes every tool to the model by its argument model's JSON Schema
(``model_json_schema(by_alias=True)``, its ``$defs`` inlined). Generating those schemas is
pydantic's slowest first use: about 100 ms of CPU for the three built-in tools in a fresh
Python 3.13 process, on the orchestrator's first request, every cold start. The schemas depend
only on the code, so ``python -m multitool.schemas`` (``make schemas``) writes them to
``multitool/schemas/harness/tool_specs.json``, a test fails when the file differs from what the
models generate, and :func:`tool_specs` reads the file. A tool whose model the file does not
name (one registered at run time, a test's toy tool) has its schema generated as before.

This module sits with the tools and imports none of them: it reads the registry it is given.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from multitool import FOLDER

if TYPE_CHECKING:
    from multitool.toolkit.spec import ToolSpec

COMMITTED = ("schemas", "harness", "tool_specs.json")
"""Where the committed specs live inside the ``multitool`` package."""


def inline_refs(schema: Any, components: Mapping[str, Any]) -> Any:
    """The schema with ``#/components/schemas/X`` references replaced by their definitions."""

    def walk(node: Any, trail: tuple[str, ...]) -> Any:
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                name = ref.rsplit("/", 1)[1]
                if name in trail:  # a recursive model: leave the loop open rather than expand forever
                    return {"type": "object"}
                return walk(components.get(name, {}), (*trail, name))
            return {key: walk(value, trail) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(item, trail) for item in node]
        return node

    return walk(schema, ())


def _inline_defs(schema: dict[str, Any]) -> Any:
    defs = schema.pop("$defs", {})
    text = json.dumps(schema).replace("#/$defs/", "#/components/schemas/")
    return inline_refs(json.loads(text), defs)


class IndexEntry(NamedTuple):
    """What the committed file says of one tool, read without importing the tool's module: its name
    (the model's tool name), its action string, its action group and its argument model."""

    name: str
    action: str
    action_group: str
    model: str
    """``module.QualName``, as :func:`model_name` writes it."""

    @property
    def module(self) -> str:
        return self.model.rpartition(".")[0]


def model_name(spec: ToolSpec) -> str:
    """The argument model a committed spec was generated from, as ``module.QualName``."""
    return f"{spec.args_model.__module__}.{spec.args_model.__qualname__}"


def generated_tool_spec(spec: ToolSpec) -> dict[str, Any]:
    """A Converse ``toolSpec`` entry generated from the tool's argument model."""
    return {
        "toolSpec": {
            "name": spec.name,
            "description": spec.description,
            "inputSchema": {"json": _inline_defs(spec.args_model.model_json_schema(by_alias=True))},
        }
    }


@cache
def _committed_text() -> str | None:
    entry = FOLDER.joinpath(*COMMITTED)
    return entry.read_text(encoding="utf-8") if entry.is_file() else None


def _committed() -> dict[tuple[str, str], dict[str, Any]]:
    """(tool name, model name) -> its committed spec, parsed afresh so callers may change what they get."""
    text = _committed_text()
    if text is None:
        return {}
    entries = json.loads(text)
    return {(entry["toolSpec"]["name"], entry["model"]): {"toolSpec": entry["toolSpec"]} for entry in entries}


@cache
def committed_index() -> Mapping[str, IndexEntry]:
    """Action group -> its tool as the committed file names it (empty without the file, or for an
    older file without the action strings). The registry reads it to find a declared tool by its name
    or action string without importing every tool; what it says is checked when the tool loads."""
    text = _committed_text()
    index: dict[str, IndexEntry] = {}
    if text is None:
        return MappingProxyType(index)
    for entry in json.loads(text):
        if "action" in entry and "actionGroup" in entry:
            name = entry["toolSpec"]["name"]
            index[entry["actionGroup"]] = IndexEntry(
                name, entry["action"], entry["actionGroup"], entry["model"]
            )
    return MappingProxyType(index)


def tool_specs(tools: Iterable[ToolSpec | IndexEntry]) -> list[dict[str, Any]]:
    """The Converse ``toolSpec`` entries of ``tools``, in their order: the committed one where the file
    holds this tool's name generated from this very model (always, for a tool not loaded yet: its
    index entry came from the same file), else generated now."""
    committed = _committed()
    return [
        committed[(tool.name, tool.model)]
        if isinstance(tool, IndexEntry)
        else committed.get((tool.name, model_name(tool))) or generated_tool_spec(tool)
        for tool in tools
    ]


def render(specs: Iterable[ToolSpec]) -> str:
    """The committed file's text: each tool's generated spec and the model it came from."""
    entries = [
        {
            "model": model_name(spec),
            "action": spec.action,
            "actionGroup": spec.action_group,
            **generated_tool_spec(spec),
        }
        for spec in specs
    ]
    return json.dumps(entries, indent=2, ensure_ascii=False) + "\n"
